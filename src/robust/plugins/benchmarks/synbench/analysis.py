"""Statistics the thesis uses to relate SynBench to downstream results (Sec. 5.3.2, App. B.3.6, Table 5.10),
pure numpy: Pearson r, its Fisher-z confidence interval and the average rank of several metrics' correlations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from robust.toolkit.lazy import np


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson correlation coefficient."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    xc, yc = x - x.mean(), y - y.mean()
    return float(xc @ yc / np.sqrt((xc @ xc) * (yc @ yc)))


def fisher_ci(r: float, p: int, z_crit: float = 1.645) -> tuple[float, float]:
    """CI of r from p pairs: tanh(atanh(r) ± z_crit/sqrt(p − 3)); 1.645 gives the thesis's 90% (App. B.3.6)."""
    z, half = np.arctanh(r), z_crit / np.sqrt(p - 3)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def average_rank(correlations: Mapping[str, Sequence[float]], method: str = "min") -> dict[str, tuple[float, float]]:
    """Per column (task), rank the metrics by their signed correlation (highest = 1; ties by `method`, 'min' or
    'average'), then mean and population std of each metric's rank over columns (Ko 2024, Table 5.10)."""
    from scipy.stats import rankdata

    names = list(correlations)
    table = np.array([correlations[n] for n in names], dtype=float)  # metrics × columns
    ranks = np.column_stack([rankdata(-table[:, j], method=method) for j in range(table.shape[1])])
    return {n: (float(ranks[i].mean()), float(ranks[i].std())) for i, n in enumerate(names)}
