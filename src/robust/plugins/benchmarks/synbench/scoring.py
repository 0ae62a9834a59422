"""The accuracy-constrained expected bound E(a_t) (eq. 5.3) and the SynBench-Score (eq. 5.4), pure numpy.

`exact`: ∫_{a_T}^1 E(a_t) da_t = (1/K) Σ_k b_k (a_k − a_T)_+ (Ko 2024, eq. 5.4 [derived]).
`grid100`: the authors' Riemann sum of E on np.linspace(0.6, 1.0, 100) over grid points x >= a_T ([code]).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from robust.plugins.benchmarks.synbench.constants import GRID_MIN_A_T, GRID_POINTS, INTEGRATIONS
from robust.toolkit.lazy import np


def expected_bound(a_t: float | np.ndarray, accuracies: Sequence[float], bounds: Sequence[float]) -> np.ndarray:
    """E(a_t) = (1/K) Σ_k b_k 1[a_k > a_t] (Ko 2024, eq. 5.3; strict inequality)."""
    acc = np.asarray(accuracies, dtype=float)[:, None]
    b = np.nan_to_num(np.asarray(bounds, dtype=float), nan=0.0)[:, None]
    x = np.atleast_1d(np.asarray(a_t, dtype=float))[None, :]
    return np.where(acc > x, b, 0.0).sum(0) / acc.shape[0]


def area(accuracies: Sequence[float], bounds: Sequence[float], a_T: float, integration: str = "exact") -> float:
    """∫_{a_T}^1 E(a_t) da_t, exactly or by the code's 100-point grid (grid sum × Δx)."""
    acc = np.asarray(accuracies, dtype=float)
    if not len(acc):
        return 0.0
    if integration == "exact":
        gap = np.clip(acc - a_T, 0.0, None)  # levels at or below a_T contribute 0 (and never call b_ref there)
        b = np.asarray(bounds, dtype=float)
        return float(np.sum(np.where(gap > 0, b, 0.0) * gap) / len(acc))
    if integration == "grid100":
        grid = np.linspace(GRID_MIN_A_T, 1.0, GRID_POINTS)
        x = grid[grid >= a_T]
        return float(expected_bound(x, acc, bounds).sum() * (grid[1] - grid[0]))
    raise ValueError(f"unknown integration {integration!r}; choose from {INTEGRATIONS}")


def synbench_score(acc_rep: Sequence[float], b_rep: Sequence[float], acc_ref: Sequence[float],
                   b_ref: Sequence[float], a_T: float, integration: str = "exact") -> float:
    """SynBench-Score = ∫ E_rep / ∫ E_ref over [a_T, 1] (eq. 5.4); 0 when the reference area is 0."""
    den = area(acc_ref, b_ref, a_T, integration)
    return area(acc_rep, b_rep, a_T, integration) / den if den > 0 else 0.0


def score_grid(points: Mapping[float, tuple[Sequence[float], Sequence[float]]],
               reference: Mapping[float, tuple[Sequence[float], Sequence[float]]],
               a_T_values: Sequence[float], integration: str = "exact") -> dict[tuple[float, float], float]:
    """Scores for every (ε, a_T): `points[ε]` and `reference[ε]` are (accuracies, bounds) over the levels."""
    return {(eps, a_T): synbench_score(*points[eps], *reference[eps], a_T, integration)
            for eps in points for a_T in a_T_values}


def recommended_eps(scores: Mapping[float, float]) -> float:
    """ε* = argmax_ε SynBench-Score(θ, ε, a_T) for ε-robust linear probing (Sec. 5.3.3); ties -> smallest ε."""
    best = max(scores.values())
    return min(eps for eps, v in scores.items() if v >= best - 1e-12)
