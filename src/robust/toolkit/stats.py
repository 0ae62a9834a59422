"""Uncertainty shared by the benchmarks: percentile bootstrap intervals, proportions' intervals and standard
errors, and a separability test (numpy only)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from robust.core.lazy import np

LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A bootstrap confidence interval and the bootstrap standard error."""

    low: float
    high: float
    se: float


def interval(replicates: Sequence[float] | np.ndarray, level: float = LEVEL) -> Interval:
    """Percentile interval and standard deviation of bootstrap replicates of a statistic."""
    r = np.asarray(replicates, dtype=float)
    r = r[np.isfinite(r)]
    if not len(r):
        return Interval(float("nan"), float("nan"), float("nan"))
    alpha = (1 - level) / 2
    return Interval(float(np.quantile(r, alpha)), float(np.quantile(r, 1 - alpha)), float(r.std(ddof=1))
                    if len(r) > 1 else 0.0)


def bootstrap(values: Sequence[float] | np.ndarray, statistic: str | Callable[[np.ndarray], np.ndarray] = "mean",
              seed: int = 0, n_boot: int = 1000, level: float = LEVEL) -> Interval:
    """Percentile bootstrap over examples (resampled with replacement) of `statistic` ("mean", "median", or a
    function of an [n_boot, n] array returning n_boot values)."""
    v = np.asarray(values, dtype=float)
    if len(v) == 0 or n_boot < 1:
        return Interval(float("nan"), float("nan"), float("nan"))
    idx = np.random.default_rng(seed).integers(0, len(v), size=(n_boot, len(v)))
    fn = {"mean": lambda a: a.mean(1), "median": lambda a: np.median(a, 1)}.get(statistic, statistic)  # type: ignore[arg-type]
    return interval(fn(v[idx]), level)


def separable(a: float, se_a: float, b: float, se_b: float, level: float = LEVEL) -> bool | None:
    """Whether |a − b| exceeds the two-sided `level` bound of an unpaired normal test with these standard
    errors (conservative for runs on the same examples, whose errors are positively correlated); None if a
    number is missing."""
    nums = np.array([a, se_a, b, se_b], dtype=float)
    if not np.all(np.isfinite(nums)):
        return None
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return bool(abs(a - b) > z * float(np.hypot(se_a, se_b)))


def proportion_se(p: float, n: float) -> float | None:
    """Agresti-Coull standard error of a proportion p over n trials (stays positive at 0 and 1, unlike the plain
    binomial); None without trials."""
    if not n:
        return None
    adjusted = (p * n + 2) / (n + 4)
    return math.sqrt(adjusted * (1 - adjusted) / (n + 4))


def wilson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (Wilson 1927); (nan, nan) without trials."""
    if n <= 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
