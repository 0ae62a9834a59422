"""Synonym (RobTest §2.5): replace words by WordNet synonyms (PWWS-style), antonyms removed.

RobTest draws the source per position 50/50 from WordNet and HowNet (SememePSO). HowNet (OpenHowNet) is not
available offline, so this is WordNet-only (spec §6 #14). POS comes from spaCy's PTB tags in context, mapped
N/V/J/R -> n/v/a/r (anything else -> n), standing in for `nltk.pos_tag`.

`mode="clean"` (default): only content words (PTB tag N*/V*/J*/R*) are replaced (RobTest's "else -> n" turns
"a" into "ampere"), adjective satellites (`s`) count as adjectives, multi-word lemmas are dropped (spec §6
#17), punctuation around a word is kept, and the synonym is re-inflected (lemminflect) and re-cased like the
original word. `mode="faithful"`: RobTest's candidates — lemma names of synsets whose POS field
equals the tag exactly, multi-word lemmas kept with underscores, whole whitespace tokens looked up as is.
Both: k = ceil(N_w·d) successful substitutions at random positions; WordNet antonyms of the word rejected.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from robust.core.errors import RobustError
from robust.plugins.attacks.text import WordTransform, join, match_case, pos_tags, split_affixes

if TYPE_CHECKING:
    import numpy as np

MODES = ("clean", "faithful")
_WORDNET_POS = {"N": "n", "V": "v", "J": "a", "R": "r"}
_INFLECTED_TAGS = {"NNS", "VBD", "VBG", "VBN", "VBZ", "JJR", "JJS", "RBR", "RBS"}


@functools.cache
def wordnet():
    """NLTK's WordNet reader over robust's data (MissingResource if `robust setup wordnet` is due)."""
    from robust.core.paths import require_nltk

    require_nltk("corpora/wordnet", "wordnet")
    from nltk.corpus import wordnet as wn

    wn.ensure_loaded()
    return wn


def wordnet_pos(ptb_tag: str) -> str:
    """RobTest's mapping of a PTB tag to a WordNet POS: N/V/J/R -> n/v/a/r, anything else -> n."""
    return _WORDNET_POS.get(ptb_tag[:1], "n")


@functools.cache
def antonyms(word: str) -> frozenset[str]:
    """First antonym of every lemma of every synset of `word`, any POS (RobTest's antonym filter)."""
    out = set()
    for synset in wordnet().synsets(word):
        for lemma in synset.lemmas():
            found = lemma.antonyms()
            if found:
                out.add(found[0].name())
    return frozenset(out)


@functools.cache
def synonyms(word: str, pos: str, faithful: bool) -> tuple[str, ...]:
    """WordNet synonyms of `word` for WordNet POS `pos`, antonyms and the word itself removed."""
    accept = {pos, "s"} if pos == "a" and not faithful else {pos}
    banned = antonyms(word)
    out = []
    for synset in wordnet().synsets(word):
        if synset.pos() not in accept:
            continue
        for name in synset.lemma_names():
            if name == word or name.lower() == word.lower() or name in banned:
                continue
            if "_" in name and not faithful:
                continue  # multi-word lemma: dropped to keep N_w fixed (spec §6 #17)
            out.append(name)
    return tuple(dict.fromkeys(out))


def inflect(lemma: str, ptb_tag: str) -> str:
    """`lemma` inflected for a Penn Treebank tag (lemminflect), or unchanged for other tags."""
    if ptb_tag not in _INFLECTED_TAGS:
        return lemma
    from lemminflect import getInflection

    forms = getInflection(lemma, tag=ptb_tag, inflect_oov=True)
    return forms[0] if forms else lemma


class Synonym(WordTransform):
    """WordNet synonyms at ceil(N_w*d) random words (word modification rate)."""

    name = "synonym"
    dimension = "synonym"
    description = "Synonym: WordNet synonyms (antonyms removed) at random words; HowNet unavailable offline"
    settings = {"mode": "clean"}

    def _faithful(self) -> bool:
        if self.config["mode"] not in MODES:
            raise RobustError(f"synonym mode must be one of {', '.join(MODES)}, got {self.config['mode']!r}")
        return self.config["mode"] == "faithful"

    def candidates(self, word: str, ptb_tag: str) -> list[str]:
        """Every admissible replacement of `word` (a whitespace token) tagged `ptb_tag`."""
        faithful = self._faithful()
        if faithful:
            return list(synonyms(word, wordnet_pos(ptb_tag), True))
        prefix, core, suffix = split_affixes(word)
        if not core or ptb_tag[:1] not in _WORDNET_POS:
            return []
        out = []
        for lemma in synonyms(core, wordnet_pos(ptb_tag), False):
            new = match_case(core, inflect(lemma, ptb_tag))
            if new.lower() != core.lower() and new.lower() not in antonyms(core):
                out.append(prefix + new + suffix)
        return list(dict.fromkeys(out))

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        options = self.candidates(word, pos_tags(join(tokens))[index][0])
        return options[int(rng.integers(len(options)))] if options else None


TRANSFORMS = [Synonym]
