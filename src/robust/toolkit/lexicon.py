"""Lexical look-ups several built-in transforms share: WordNet (robust's compact index), its senses and
multiword entries, and word frequency gaps (wordfreq)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from robust.toolkit.transforms import split_affixes


def wordnet() -> Any:
    """WordNet 3.0 through robust's compact index (answers as NLTK's reader does, loads in a tenth of a second,
    relations in file order); MissingResource naming `robust setup wordnet-index` if it is not built."""
    from robust.toolkit.wordnet_index import wordnet_index

    return wordnet_index()


def frequent_senses(lemma: str, pos: str, top: int) -> list[Any]:
    """The `top` most frequent WordNet senses of `lemma` for WordNet POS `pos` (satellites count as adjectives)."""
    accept = {"a", "s"} if pos in ("a", "s") else {pos}
    return [s for s in wordnet().synsets(lemma) if s.pos() in accept][:top]


def common_in(name: str, synset: Any, top: int) -> bool:
    """Whether `synset` is among the `top` most frequent WordNet senses of `name` for its POS (a substitute
    commonly used in this sense): "dark" means "night" only in its 4th sense, "film" means "movie" in its 1st."""
    return synset in frequent_senses(name, synset.pos(), top)


def in_collocation(tokens: Sequence[str], i: int) -> bool:
    """Whether word `i` is part of a two- or three-word WordNet entry spelled by its neighbours ("after all",
    "title role", "special effects"): replacing one word of it breaks the phrase ("afterwards all")."""
    cores = [split_affixes(t)[1].lower() for t in tokens]
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
