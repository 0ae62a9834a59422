"""RobTest's metrics: Average(d), cumulative Worst(d) and the Final Score (Chen et al. 2023, §2.2, Eq. 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust import ModelAdapter, Scorer, Setting

#: the degree grid of the paper's reports (Chen et al. 2023, §2.2, Eq. 1); degree 0 is the clean input
DEGREES: tuple[float, ...] = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
BETA = 0.5


def final_score(scores: Sequence[float], formula: str = "code", beta: float = BETA) -> float:
    """The EWMA Final Score of per-degree scores `[θ(0), θ(d_1), …, θ(d_n)]` (degree 0 first).

    "code" (Chen et al. 2023, §2.2, Eq. 1, reproduces every printed final): Σ_{j=1..n} (1-β)·β^(j-1)·θ(d_j), i.e. V_0 =
    0 and degree 0 excluded. "eq1" (the paper's Eq. 1 taken literally): V_1 = θ(d_n), V_t = β·V_{t-1} + (1-β)·θ_t
    over degrees from high to low.
    """
    rest = [float(s) for s in scores[1:]]
    if not rest:
        return float(scores[0]) if scores else float("nan")
    if formula == "code":
        total = 0.0
        for theta in reversed(rest):  # src/robtest.py: total = 0.5 * total + 0.5 * scores[len - i]
            total = beta * total + (1 - beta) * theta
        return total
    if formula == "eq1":
        high_to_low = list(reversed(rest))
        value = high_to_low[0]
        for theta in high_to_low[1:]:  # Eq. 1: V_t = β·V_{t-1} + (1-β)·θ_t
            value = beta * value + (1 - beta) * theta
        return value
    raise ValueError(f"unknown final-score formula {formula!r} (use 'code' or 'eq1')")


def average_curve(acc: Sequence[Mapping[str, float]], degrees: Sequence[float]) -> list[float]:
    """Avg(d) = 100 · mean_i acc_i(d) (Chen et al. 2023, §2.2); `acc[i][key(d)]` is example i's share of correct
    variants."""
    return [100.0 * sum(a[degree_key(d)] for a in acc) / len(acc) if acc else float("nan") for d in degrees]


def worst_curve(all_correct: Sequence[Mapping[str, bool]], degrees: Sequence[float]) -> list[float]:
    """Worst(d) = 100 · share of examples with every variant correct at every degree ≤ d (Chen et al. 2023, §2.2,
    cumulative)."""
    out: list[float] = []
    alive = [True] * len(all_correct)
    for d in degrees:
        key = degree_key(d)
        alive = [a and bool(ok[key]) for a, ok in zip(alive, all_correct)]
        out.append(100.0 * sum(alive) / len(alive) if alive else float("nan"))
    return out


def degree_key(degree: float) -> str:
    """The canonical text of a degree ('0', '0.05', …) used in item ids and record keys."""
    return f"{float(degree):g}"


class CurveScore(Scorer):
    """A per-example value at each degree, summarised as a curve over the degrees (keys '0', '0.05', ...) and
    its Final Score (Chen et al. 2023, §2.2, Eq. 1); degree 0 are the clean rows."""

    settings = {"final": Setting("code", choices=("code", "eq1"), help="code: reproduces the printed finals")}
    curve: Any = None  # (per-example {degree key: value}, degrees) -> curve

    def summarize(self, values: Sequence[Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        degrees = sorted({float(r["degree"]) for r in rows})
        per_example: dict[str, dict[str, Any]] = {}
        for value, row in zip(values, rows):
            per_example.setdefault(row["example"], {})[degree_key(row["degree"])] = value
        curve = type(self).curve(list(per_example.values()), degrees)
        return {**{degree_key(d): v for d, v in zip(degrees, curve)}, "final": final_score(curve, self.config["final"])}


class AverageScore(CurveScore):
    name = "robtest-average"
    description = "RobTest Average(d): mean share of correct variants per example at each degree, and its Final Score"
    inputs = frozenset({"example", "degree", "correct", "n"})
    curve = average_curve

    def values(self, rows: Sequence[Mapping[str, Any]], model: ModelAdapter | None = None) -> list[float]:
        return [r["correct"] / r["n"] for r in rows]


class WorstScore(CurveScore):
    name = "robtest-worst"
    description = ("RobTest Worst(d): share of examples with every variant correct at every degree up to d, "
                   "and its Final Score")
    inputs = frozenset({"example", "degree", "all_correct"})
    curve = worst_curve

    def values(self, rows: Sequence[Mapping[str, Any]], model: ModelAdapter | None = None) -> list[bool]:
        return [bool(r["all_correct"]) for r in rows]
