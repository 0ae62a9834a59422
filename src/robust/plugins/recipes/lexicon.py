"""Word lists of the recipes, offline: a fixed English stop-word list and OpenAttack's WordNet substitutes.

`wordnet_substitutes(word)` follows OpenAttack's `WordNetSubstitute` called with `pos=None` (no POS tagger
offline; docs/asr_predict.md): for adverb, adjective (satellites included), noun and verb in that order,
every lemma of every synset of the word (WordNet's morphy, so inflected words find their base form), multi-word
lemmas cut to their first word, the word itself and every substitute of be/is/are/am dropped, lower-cased,
first occurrence kept. It reads robust's compact WordNet index, which answers `synsets(word, pos)` as NLTK does.
"""

from __future__ import annotations

import functools
from pathlib import Path

_POS_ORDER = ("r", "a", "n", "v")  # OpenAttack's POS_LIST order: adv, adj, noun, verb ("other" has none)
_NO_SUBSTITUTES = {"be", "is", "are", "am"}


@functools.cache
def _read_stopwords(path: Path) -> frozenset[str]:
    return frozenset(w.strip() for w in path.read_text(encoding="utf-8").splitlines() if w.strip())


def stopwords(ctx) -> frozenset[str]:  # noqa: ANN001 - a RunContext
    """The English stop-word list of `robust setup stopwords` (scikit-learn's 318 words; TextAttack's
    StopwordModification reads the same file here), or a one-line MissingResource."""
    return _read_stopwords(ctx.resource("stopwords"))


def load_wordnet() -> None:
    """Load the compact WordNet now (a one-line MissingResource if `robust setup wordnet-index` is due)."""
    from robust.toolkit.wordnet_index import wordnet_index

    wordnet_index()


@functools.lru_cache(maxsize=65536)
def wordnet_substitutes(word: str) -> tuple[str, ...]:
    """OpenAttack's WordNet substitutes of `word` over all POS (see the module docstring), without `word`."""
    from robust.toolkit.wordnet_index import wordnet_index

    token = word.replace("_", " ").split()[0] if word.strip() else word
    if token in _NO_SUBSTITUTES:
        return ()
    wn = wordnet_index()
    out: dict[str, None] = {}
    for pos in _POS_ORDER:
        for synset in wn.synsets(word, pos=pos):
            for name in synset.lemma_names():
                first = name.replace("_", " ").split()[0]
                if first != token:
                    out.setdefault(first.lower(), None)
    return tuple(w for w in out if w != word)


def cased_substitutes(word: str) -> list[str]:
    """The substitutes of `word` lower-cased, then given the word's case pattern (robust's clean edits)."""
    from robust.toolkit.transforms import match_case

    out = dict.fromkeys(match_case(word, w) for w in wordnet_substitutes(word.lower()))
    return [w for w in out if w != word]
