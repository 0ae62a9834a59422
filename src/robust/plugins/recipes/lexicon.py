"""Word lists of the recipes: English stop words and OpenAttack's WordNet substitutes (offline, NLTK readers).

`wordnet_substitutes(word)` follows OpenAttack's `WordNetSubstitute` called with `pos=None` (no POS tagger
offline; spec robusttext.md §7.2): for adverb, adjective, noun and verb in that order, every lemma of every
synset of the word (NLTK morphy, so inflected words find their base form), multi-word lemmas cut to their first
word, the word itself and substitutes of be/is/are/am dropped, lower-cased, first occurrence kept.
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
    """NLTK's English stop-word list from robust's data (`robust setup stopwords`; TextAttack's
    StopwordModification reads the same file here), one-line MissingResource when absent."""
    return _read_stopwords(ctx.resource("stopwords"))


@functools.cache
def _wordnet():
    from robust.core.paths import require_nltk

    require_nltk("corpora/wordnet", "wordnet")
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    return wordnet


def load_wordnet() -> None:
    """Load WordNet now (a one-line MissingResource if `robust setup wordnet` is due)."""
    _wordnet()


@functools.cache
def wordnet_substitutes(word: str) -> tuple[str, ...]:
    """OpenAttack's WordNet substitutes of `word` over all POS (see the module docstring), without `word`."""
    wn = _wordnet()
    token = word.replace("_", " ").split()[0] if word.strip() else word
    out: dict[str, None] = {}
    for pos in _POS_ORDER:
        for synset in wn.synsets(word, pos=pos):
            for lemma in synset.lemmas():
                name = lemma.name().replace("_", " ").split()[0]
                if name == token or token in _NO_SUBSTITUTES:
                    continue
                out.setdefault(name.lower(), None)
    return tuple(w for w in out if w != word)
