"""Uncertainty shared by the benchmarks: percentile bootstrap intervals, t intervals of a mean over a few
independent replicates (trials, seeds), proportions' intervals and standard errors, and separability tests."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from robust.toolkit.lazy import np

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
    from statistics import NormalDist  # imported here: `robust list` imports this module, never calls it

    z = NormalDist().inv_cdf(0.5 + level / 2)
    return bool(abs(a - b) > z * float(np.hypot(se_a, se_b)))


@dataclass(frozen=True)
class MeanInterval:
    """The mean of independent replicates with its sample sd (ddof 1), standard error and t interval."""

    mean: float
    sd: float
    se: float
    low: float
    high: float
    n: int
    level: float = LEVEL

    @property
    def dof(self) -> int:
        return self.n - 1

    @property
    def halfwidth(self) -> float:
        return (self.high - self.low) / 2

    @classmethod
    def from_sd(cls, mean: float, sd: float | None, n: int, level: float = LEVEL) -> MeanInterval:
        """The t interval mean ± t_{n-1} · sd/√n of a mean of n replicates with sample sd `sd`; sd, se and the
        interval are nan when there is no spread to use (n < 2 or sd None)."""
        if n < 2 or sd is None:
            return cls(mean, math.nan, math.nan, math.nan, math.nan, n, level)
        sd = float(sd)
        se = sd / math.sqrt(n)
        half = t_quantile(level, n - 1) * se
        return cls(mean, sd, se, mean - half, mean + half, n, level)


def sample_sd(population_sd: float, n: int) -> float:
    """The sample sd (ddof 1) of n ≥ 2 values from their population sd (ddof 0, numpy's default np.std):
    × √(n/(n−1))."""
    return float(population_sd) * math.sqrt(n / (n - 1))


def t_quantile(level: float, dof: float) -> float:
    """Two-sided `level` quantile of Student's t with `dof` degrees of freedom (nan below 1)."""
    if not dof >= 1:
        return math.nan
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, dof))


def mean_interval(values: Sequence[float] | np.ndarray, level: float = LEVEL) -> MeanInterval:
    """t interval of the mean of n independent replicates: mean ± t_{n-1} · sd/√n (Student 1908). With three
    trials t_2 = 4.30, 2.2 times the normal 1.96. One replicate: sd, se and the interval are nan (no spread)."""
    v = np.asarray([x for x in values if x is not None], dtype=float)
    v = v[np.isfinite(v)]
    n = len(v)
    if n == 0:
        return MeanInterval(math.nan, math.nan, math.nan, math.nan, math.nan, 0, level)
    return MeanInterval.from_sd(float(v.mean()), float(v.std(ddof=1)) if n > 1 else None, n, level)


def welch_separable(a: MeanInterval, b: MeanInterval, level: float = LEVEL) -> bool | None:
    """Whether two means of independent replicates differ beyond the two-sided `level` bound of Welch's t test
    (Welch-Satterthwaite degrees of freedom); None when either has fewer than two replicates."""
    if a.n < 2 or b.n < 2 or not all(map(math.isfinite, (a.mean, a.se, b.mean, b.se))):
        return None
    va, vb = a.se**2, b.se**2
    if va + vb == 0:
        return a.mean != b.mean
    dof = (va + vb) ** 2 / (va**2 / (a.n - 1) + vb**2 / (b.n - 1)) if va and vb else (a.n - 1 if va else b.n - 1)
    return bool(abs(a.mean - b.mean) > t_quantile(level, dof) * math.sqrt(va + vb))


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
    from statistics import NormalDist  # imported here: `robust list` imports this module, never calls it

    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
