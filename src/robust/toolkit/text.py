"""Text measures every plugin shares: whitespace words, edit distances, RobTest's degree measures and budget.

Words are whitespace tokens (`str.split`) and outputs are re-joined with single spaces, as in RobTest's code
(RobTest's code). Degree measures follow Chen et al. 2023, Appendix C.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

from robust.toolkit.lazy import Levenshtein


def words(text: str) -> list[str]:
    """Whitespace tokens of `text` (RobTest's `sentence.split()`)."""
    return text.split()


def join(tokens: Sequence[str]) -> str:
    """Tokens re-joined with single spaces."""
    return " ".join(tokens)


def levenshtein(a: str | Sequence[str], b: str | Sequence[str]) -> int:
    """Unit-cost edit distance (insert/delete/substitute) between two strings or token sequences (rapidfuzz's
    bit-parallel C++ implementation: the clean Typo-M and Phonetic-M draws measure it after every edit; bound
    once, not imported per call)."""
    return Levenshtein.distance(a, b)


def char_degree(original: str, perturbed: str, lower: bool = True) -> float:
    """Relative edit distance D_c = Lev / N_c (Chen et al. 2023, Appendix C; N_c = len(original), docs/robtest.md).

    Lower-cased by default, as RobTest's `EditDistance`; `lower=False` counts case changes.
    """
    if lower:
        original, perturbed = original.lower(), perturbed.lower()
    if not original:
        return 0.0 if not perturbed else float(len(perturbed))
    return levenshtein(original, perturbed) / len(original)


def changed_words(original: str, perturbed: str) -> int:
    """Number of modified word positions (word-level edit distance when the word counts differ)."""
    return _changed(words(original), words(perturbed))


def _changed(a: list[str], b: list[str]) -> int:
    return sum(map(operator.ne, a, b)) if len(a) == len(b) else levenshtein(a, b)


def word_modification_rate(original: str, perturbed: str) -> float:
    """D_w = n_w / N_w: changed word positions over the original's whitespace words (Chen et al. 2023, Appendix C)."""
    return word_modification_rate_of(words(original), words(perturbed))


def word_modification_rate_of(original: list[str], perturbed: list[str]) -> float:
    """`word_modification_rate` of two texts already split into words (a draw that has them need not split again)."""
    changed = _changed(original, perturbed)
    if not original:
        return 0.0 if changed == 0 else float(changed)
    return changed / len(original)


def budget(n: int, degree: float) -> int:
    """k = ceil(N·d), RobTest's budget (Chen et al. 2023, Appendix C); rounded first so 0.1·30 gives 3, not 4."""
    if degree <= 0 or n <= 0:
        return 0
    return math.ceil(round(n * degree, 9))


def word_edits(original: str, perturbed: str) -> list[dict[str, Any]]:
    """The word positions where `perturbed` differs from `original` (same word count), or one whole-text edit."""
    a, b = words(original), words(perturbed)
    if len(a) != len(b):
        return [] if original == perturbed else [{"index": None, "before": original, "after": perturbed}]
    return [{"index": i, "before": x, "after": y} for i, (x, y) in enumerate(zip(a, b)) if x != y]
