"""Lexical look-ups several built-in transforms share: WordNet (robust's compact index), its senses, antonyms and
multiword entries, the POS mapping and re-inflection of substitutes, which words may be replaced, and word
frequency gaps (wordfreq)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from robust.toolkit.transforms import split_affixes
from robust.toolkit.wordnet_index import wordnet_index

WORDNET_POS = {"N": "n", "V": "v", "J": "a", "R": "r"}
_INFLECTED_TAGS = {"NNS", "VBD", "VBG", "VBN", "VBZ", "JJR", "JJS", "RBR", "RBS"}
#: content words whose substitution almost never keeps the meaning (light verbs, degree and discourse adverbs)
LIGHT_WORDS = frozenset("""be have do get go make take come give say let put set seem keep know think mean want
use find tell thing way lot kind sort bit one not so very too also just even still yet really only then now
here there all well more most much less least as up out off over back away about right never ever again
almost enough quite rather pretty else however much many little few first last best better worse worst
rather such sure own same other become""".split())


def wordnet() -> Any:
    """WordNet 3.0 through robust's compact index (answers as NLTK's reader does, loads in a tenth of a second,
    relations in file order); MissingResource naming `robust setup wordnet-index` if it is not built."""
    return wordnet_index()


def frequent_senses(lemma: str, pos: str, top: int) -> list[Any]:
    """The `top` most frequent WordNet senses of `lemma` for WordNet POS `pos` (satellites count as adjectives)."""
    accept = {"a", "s"} if pos in ("a", "s") else {pos}
    out = []
    for synset in wordnet().synsets(lemma, "a" if pos == "s" else pos):  # that POS's senses, in frequency order
        if synset.pos() in accept:
            out.append(synset)
            if len(out) == top:
                break
    return out


def common_in(name: str, synset: Any, top: int) -> bool:
    """Whether `synset` is among the `top` most frequent WordNet senses of `name` for its POS (a substitute
    commonly used in this sense): "dark" means "night" only in its 4th sense, "film" means "movie" in its 1st."""
    return synset in frequent_senses(name, synset.pos(), top)


def in_collocation(tokens: Sequence[str], i: int) -> bool:
    """Whether word `i` is part of a two- or three-word WordNet entry spelled by its neighbours ("after all",
    "title role", "special effects"): replacing one word of it breaks the phrase ("afterwards all")."""
    lo = max(0, i - 2)
    cores = [split_affixes(t)[1].lower() for t in tokens[lo:i + 3]]  # the words within two of i: what it can join
    i -= lo
    return any(is_collocation("_".join(cores[start:start + size]))
               for size in (2, 3) for start in range(i - size + 1, i + 1)
               if start >= 0 and start + size <= len(cores) and all(cores[start:start + size]))


@functools.cache
def is_collocation(joined: str) -> bool:
    """Whether `joined` ("after_all", "fairy_tales") is a WordNet lemma of any POS (inflections allowed)."""
    return bool(wordnet().synsets(joined))


def within_zipf(word: str, reference: str, gap: float) -> bool:
    """Whether `word` is at most `gap` Zipf rarer than `reference` in wordfreq ("laughable" is 1.8 below
    "funny", "loves" 1.2 below "love")."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") >= zipf_frequency(reference, "en") - gap


def wordnet_pos(ptb_tag: str) -> str:
    """RobTest's mapping of a PTB tag to a WordNet POS: N/V/J/R -> n/v/a/r, anything else -> n."""
    return WORDNET_POS.get(ptb_tag[:1], "n")


@functools.cache
def antonyms(word: str) -> frozenset[str]:
    """First antonym of every lemma of every synset of `word`, any POS (RobTest's antonym filter)."""
    return wordnet().first_antonyms(word)


def inflect(lemma: str, ptb_tag: str) -> str:
    """`lemma` inflected for a Penn Treebank tag (lemminflect), or unchanged for other tags."""
    if ptb_tag not in _INFLECTED_TAGS:
        return lemma
    from lemminflect import getInflection

    forms = getInflection(lemma, tag=ptb_tag, inflect_oov=True)
    return forms[0] if forms else lemma


@functools.lru_cache(maxsize=1 << 16)
def known_inflection(lemma: str, ptb_tag: str) -> str | None:
    """`inflect`, or None when lemminflect had to guess a form that is not a common word ("weepings"); remembered
    (lemminflect deep-copies its tables' entries at each call: ~40 µs)."""
    from wordfreq import zipf_frequency

    form = inflect(lemma, ptb_tag)
    return form if form == lemma or zipf_frequency(form, "en") >= 2.0 else None


def replaceable(tokens: Sequence[str], tags: tuple[tuple[str, str], ...], i: int) -> bool:
    """Not an auxiliary, proper noun, pronoun or particle; not the modifier of a noun-noun compound; not a verb
    whose particle follows ("fly by", "fight off"); not inside a WordNet collocation ("after all")."""
    ptb, upos = tags[i]
    after = tags[i + 1][0] if i + 1 < len(tags) else ""
    if upos in ("AUX", "PROPN", "PRON") or ptb == "RP":  # "someone" (NN) -/-> "person"
        return False
    if ptb.startswith("NN") and after.startswith("NN"):
        return False
    return not (ptb.startswith("VB") and after == "RP") and not in_collocation(tokens, i)
