"""Prose formatting of numbers and rankings of runs, for what a benchmark puts first on its report page
(`robust.core.results.ReportParts`). No plotting and no I/O here (figures: `robust.toolkit.figures`; pages:
`robust.report`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from robust.core.results import Result

#: two-sided 95 % normal quantile, for "within noise" verdicts of rankings
Z95 = 1.959964


# --- formatting ----------------------------------------------------------------------------------------
def missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def fmt(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if missing(value):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={fmt(v)}" for k, v in value.items())
    return str(value)


def pct(value: float | None, digits: int = 0) -> str:
    """A percentage for prose ('41 %'); values are already in percent."""
    return "–" if missing(value) else f"{value:.{digits}f}\u00a0%"


def num(value: float | None, digits: int = 3) -> str:
    """A number for prose, `digits` significant digits."""
    return "–" if missing(value) else f"{value:.{digits}g}"


def interval(low: Any, high: Any, digits: int = 3) -> str:
    """' [low, high]' when both ends exist, else ''."""
    return "" if missing(low) or missing(high) else f" [{low:.{digits}g}, {high:.{digits}g}]"


def label_name(value: Any, labels: Sequence[Any] | None) -> str:
    """A class index by the model's class name (when known), anything else as it is."""
    if isinstance(value, int) and not isinstance(value, bool) and labels and 0 <= value < len(labels):
        return str(labels[value])
    return fmt(value)


def default_headline(result: Result) -> str:
    """A generic headline: the best run of a comparison, else the first numbers of the summary."""
    s = result.summary
    if s.get("best") is not None:
        return f"Best: {fmt(s['best'])}."
    shown = [(k, v) for k, v in s.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
             and not k.endswith(("_ci_low", "_ci_high"))][:3]
    return "; ".join(f"{k} {fmt(v)}{interval(s.get(f'{k}_ci_low'), s.get(f'{k}_ci_high'))}" for k, v in shown) + "."


# --- rankings --------------------------------------------------------------------------------------------
def within_noise(a: float, se_a: float | None, b: float, se_b: float | None) -> bool | None:
    """Whether two independent estimates differ by less than the 95 % bound of their difference (None: no
    standard errors)."""
    if missing(se_a) or missing(se_b) or missing(a) or missing(b):
        return None
    return abs(a - b) <= Z95 * math.hypot(se_a, se_b)


def ranking(entries: Sequence[tuple[str, float, float | None]], higher_is_better: bool = True,
            digits: int = 4) -> tuple[list[list[Any]], list[tuple[str, str]]]:
    """Rows `rank, run, value, ±95 %, vs next` (best first) of (label, value, standard error) entries, and the
    adjacent pairs whose difference is within noise."""
    ordered = sorted(entries, key=lambda e: (missing(e[1]), -e[1] if higher_is_better else e[1]))
    rows, ties = [], []
    for i, (label, value, se) in enumerate(ordered):
        verdict = None if i + 1 == len(ordered) else within_noise(value, se, ordered[i + 1][1], ordered[i + 1][2])
        if verdict:
            ties.append((label, ordered[i + 1][0]))
        vs_next = {True: "within noise", False: "ahead", None: "–"}[verdict]
        rows.append([i + 1, label, None if missing(value) else round(value, digits),
                     None if missing(se) else round(Z95 * se, digits), vs_next])
    return rows, ties


def ranking_sentence(rows: Sequence[Sequence[Any]], ties: Sequence[tuple[str, str]], what: str) -> str:
    """'A ranks first (what 0.81), then B (0.78); A vs B is within noise.'"""
    if not rows:
        return ""
    head = f"{rows[0][1]} ranks first ({what} {fmt(rows[0][2])})"
    rest = ", ".join(f"{r[1]} ({fmt(r[2])})" for r in rows[1:4]) + (", …" if len(rows) > 4 else "")
    text = head + (f", then {rest}" if rest else "")
    if ties:
        text += "; within noise: " + ", ".join(f"{a} vs {b}" for a, b in ties)
    elif any(r[3] is not None for r in rows) and len(rows) > 1:
        text += "; every adjacent difference exceeds its 95 % bound"
    return text + "."
