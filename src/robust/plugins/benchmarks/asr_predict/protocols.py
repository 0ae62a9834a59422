"""Evaluation protocols for the ASR predictor (Dang et al. 2024, §5; docs/asr_predict.md), baselines, noise floor and a
verdict.

* `paper_interpolation_splits`: the June-2023 protocol behind Table 3 — random 60/32/8 splits, 202 of them.
* `repeated_kfold_splits`: the cleaner interpolation check (each row tested once per repeat).
* `leave_one_group_out_splits`: leakage-free extrapolation — every row of the held-out corpus family is unseen.
  `leak=k` copies k held-out rows into training: a deliberately leaky NEGATIVE CONTROL.
* `released_extrapolation_splits`: the released `data_analyze_extra.py` protocol (leaky, Dang et al. 2024, §5;
  docs/asr_predict.md), only to check published numbers.
Every protocol is evaluated beside the two no-feature baselines; `verdict` says whether the features beat them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from robust import RobustError
from robust.plugins.benchmarks.asr_predict.constants import BASELINES, METRICS, POOLED_RMSE
from robust.plugins.benchmarks.asr_predict.regressors import baseline_predict, fit_predict, metrics
from robust.plugins.benchmarks.asr_predict.table import Table
from robust.toolkit.lazy import np

#: the released extrapolation script's corpus list, banking77 twice as printed (Dang et al. 2024, §5;
#: docs/asr_predict.md)
RELEASED_CORPORA = ("tweet_eval_emoji", "banking77", "banking77", "dbpedia", "ag_news")
_EMPTY = np.array([], dtype=np.int64)


@dataclass(frozen=True)
class Split:
    """Row indices. Boosting early-stops on `val`; every other model fits on train + val; all score on test."""

    train: np.ndarray
    val: np.ndarray
    test: np.ndarray


def _carve_val(train: np.ndarray, fraction: float, rng: np.random.Generator) -> Split:
    """Split training rows into (train, val) for boosting's early stopping; test left empty."""
    rows = rng.permutation(train)
    n_val = int(round(fraction * len(rows))) if len(rows) > 2 else 0
    return Split(np.sort(rows[n_val:]), np.sort(rows[:n_val]), _EMPTY)


def paper_interpolation_splits(n: int, n_splits: int = 202, seed: int = 0) -> list[Split]:
    """June-2023 `data_analyze.py`: shuffle (seeded here, unseeded there), train_test_split(test_size=0.4,
    random_state=0), then the 40 % pool split 80/20 -> train 60 %, val 32 %, test 8 % (437 rows: 262/140/35)."""
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_splits):
        order = rng.permutation(n)
        train, pool = train_test_split(order, test_size=0.4, random_state=0)
        val, test = train_test_split(pool, test_size=0.2, random_state=0)
        out.append(Split(np.asarray(train), np.asarray(val), np.asarray(test)))
    return out


def repeated_kfold_splits(n: int, k: int = 5, repeats: int = 10, seed: int = 0, val_fraction: float = 1 / 3
                          ) -> list[Split]:
    """Repeated K-fold over rows (= sub-datasets); a seeded third of each training part is boosting's val."""
    from sklearn.model_selection import RepeatedKFold

    if n < k:
        raise RobustError(f"{k}-fold cross-validation needs at least {k} rows, the table has {n}")
    rng = np.random.default_rng(seed)
    out = []
    for train, test in RepeatedKFold(n_splits=k, n_repeats=repeats, random_state=seed).split(np.arange(n)):
        inner = _carve_val(train, val_fraction, rng)
        out.append(Split(inner.train, inner.val, np.asarray(test)))
    return out


def leave_one_group_out_splits(groups: Sequence[str], seed: int = 0, val_fraction: float = 1 / 3, leak: int = 0
                               ) -> list[Split]:
    """One split per group (corpus family): test = all its rows, train = the other groups' rows.
    `leak` > 0 adds that many random test rows to training while they stay in the test set (negative control)."""
    groups = np.asarray(groups)
    names = np.unique(groups)
    if len(names) < 2:
        raise RobustError("leave-one-corpus-out needs rows from at least 2 corpus families")
    rng = np.random.default_rng(seed)
    out = []
    for name in names:
        test = np.flatnonzero(groups == name)
        train = np.flatnonzero(groups != name)
        if leak:
            train = np.concatenate([train, rng.choice(test, size=min(leak, len(test)), replace=False)])
        inner = _carve_val(train, val_fraction, rng)
        out.append(Split(inner.train, inner.val, test))
    return out


def released_extrapolation_splits(groups: Sequence[str], n_splits: int = 202, seed: int = 0, leak: int = 30,
                                  corpora: Sequence[str] = RELEASED_CORPORA) -> list[Split]:
    """Released `data_analyze_extra.py` (LEAKY, Dang et al. 2024, §5; docs/asr_predict.md): shuffle the corpus list;
    train on the first corpus's rows; test on the rows of list entries 2-5 (the training corpus too when banking77 comes
    first and again later); the first `leak` shuffled test rows are also trained on and still scored. Boosting
    early-stops on the training rows themselves (val empty)."""
    groups = np.asarray(groups)
    missing = sorted(set(corpora) - set(groups))
    if missing:
        raise RobustError(f"the released extrapolation protocol needs corpora {missing}, absent from the table")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_splits):
        order = [corpora[i] for i in rng.permutation(len(corpora))]
        train = np.flatnonzero(groups == order[0])
        test = rng.permutation(np.flatnonzero(np.isin(groups, order[1:])))
        out.append(Split(np.concatenate([train, test[:leak]]), _EMPTY, test))
    return out


@dataclass
class ProtocolResult:
    """Per-split metrics and per-row accumulated errors of each model and baseline on one protocol."""

    protocol: str
    y: np.ndarray
    per_split: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    sq_error: dict[str, np.ndarray] = field(default_factory=dict)
    abs_error: dict[str, np.ndarray] = field(default_factory=dict)
    count: np.ndarray | None = None

    @property
    def names(self) -> list[str]:
        return list(self.per_split)

    def summary(self, name: str) -> dict[str, float]:
        """Mean, variance (np.var — the paper's "±", docs/asr_predict.md) and std over splits of each metric."""
        out: dict[str, float] = {}
        for metric in METRICS:
            values = np.array([s[metric] for s in self.per_split[name]])
            out[f"{metric}_mean"], out[f"{metric}_var"], out[f"{metric}_std"] = (
                float(values.mean()), float(values.var()), float(values.std()))
        return out

    def row_mse(self, name: str) -> np.ndarray:
        """Mean squared error of each tested row over the splits that tested it."""
        tested = self.count > 0
        return self.sq_error[name][tested] / self.count[tested]

    def pooled(self, name: str) -> dict[str, float]:
        """Metrics pooled over rows (each row's errors averaged over the splits that tested it)."""
        tested = self.count > 0
        mse = self.row_mse(name)
        y = self.y[tested]
        return {"rmse": float(np.sqrt(mse.mean())), "r2": float(1 - mse.sum() / ((y - y.mean()) ** 2).sum()),
                "mae": float((self.abs_error[name][tested] / self.count[tested]).mean())}


def evaluate(table: Table, splits: Sequence[Split], models: Sequence[str] = ("rf", "gb", "lr"),
             baselines: Sequence[str] = BASELINES, seed: int = 0, protocol: str = "") -> ProtocolResult:
    """Fit every model on every split and score it, beside the no-feature baselines."""
    if not splits:
        raise RobustError(f"protocol {protocol or '?'} produced no splits")
    n = len(table)
    result = ProtocolResult(protocol, table.y)
    result.count = np.zeros(n)
    for name in [*models, *baselines]:
        result.per_split[name] = []
        result.sq_error[name] = np.zeros(n)
        result.abs_error[name] = np.zeros(n)
    X, y = table.X, table.y
    for split in splits:
        result.count[split.test] += 1  # np.add.at would double-count duplicates; test rows are distinct
        fit = np.concatenate([split.train, split.val])
        for name in [*models, *baselines]:
            if name in baselines:
                pred = baseline_predict(name, y[fit], table.variant[fit], table.variant[split.test])
            else:
                pred = fit_predict(name, X[split.train], y[split.train], X[split.val], y[split.val],
                                   X[split.test], seed)
            err = pred - y[split.test]
            result.sq_error[name][split.test] += err**2
            result.abs_error[name][split.test] += np.abs(err)
            result.per_split[name].append(metrics(y[split.test], pred))
    return result


# --- noise floor ------------------------------------------------------------------------------------------
def binomial_noise_floor(per_attack: np.ndarray, n_examples: int = 100) -> dict[str, float]:
    """RMS sd of a row's target (mean of the attacks' ASRs, each a rate over `n_examples` attacked texts) from
    the binomial sampling of those texts alone: attacks independent (low) or perfectly correlated (high)."""
    p = np.clip(np.asarray(per_attack, dtype=np.float64), 0.0, 1.0)
    sd = np.sqrt(p * (1 - p) / n_examples)
    k = p.shape[1]
    independent = np.sqrt((sd**2).sum(axis=1)) / k
    correlated = sd.mean(axis=1)
    return {"binomial_low": float(np.sqrt(np.mean(independent**2))),
            "binomial_high": float(np.sqrt(np.mean(correlated**2)))}


def within_group_sd(y: np.ndarray, groups: Sequence[str]) -> float:
    """Pooled within-group sd of the target (e.g. within corpus variant): sqrt(SS_within / (n - G))."""
    groups = np.asarray(groups)
    names = np.unique(groups)
    ss = sum(float(((y[groups == g] - y[groups == g].mean()) ** 2).sum()) for g in names)
    return float(np.sqrt(ss / max(len(y) - len(names), 1)))


def repeat_noise_floor(repeats: Sequence[Sequence[float]]) -> float:
    """Label noise measured by repetition: pooled within-sub-dataset sd of the ASRs obtained for the same
    sub-dataset with different seeds / test halves (one sequence per sub-dataset). docs/asr_predict.md."""
    groups = [np.asarray(r, dtype=np.float64) for r in repeats if len(r) >= 2]
    if not groups:
        raise RobustError("the noise floor needs at least one sub-dataset measured at least twice")
    ss = sum(float(((g - g.mean()) ** 2).sum()) for g in groups)
    return float(np.sqrt(ss / sum(len(g) - 1 for g in groups)))


def noise_floor(table: Table, n_examples: int = 100) -> dict[str, float]:
    """What the stored table can tell about label noise: the binomial range (needs per-attack ASRs) and the
    within-corpus-variant sd (the corpus-mean baseline's irreducible RMSE; an upper bound on pure noise)."""
    out = {"within_variant_sd": within_group_sd(table.y, table.variant)}
    if table.per_attack is not None:
        out.update(binomial_noise_floor(table.per_attack, n_examples))
    return out


# --- verdict ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Comparison:
    """RMSE of a model vs a baseline on one protocol, difference with a cluster-bootstrap 95 % interval."""

    protocol: str
    model: str
    baseline: str
    model_rmse: float
    baseline_rmse: float
    diff: float
    low: float
    high: float

    @property
    def beats(self) -> bool:
        return self.high < 0.0

    def sentence(self) -> str:
        word = "BEATS" if self.beats else ("is WORSE than" if self.low > 0 else "does NOT beat")
        return (f"{self.protocol}: {self.model} pooled RMSE {self.model_rmse:.3f} vs {self.baseline} "
                f"{self.baseline_rmse:.3f}"
                f" (difference {self.diff:+.3f}, 95% CI {self.low:+.3f} .. {self.high:+.3f}): {self.model} {word}"
                f" the baseline")


def compare(result: ProtocolResult, model: str, baseline: str, groups: Sequence[str], n_boot: int = 2000,
            seed: int = 0) -> Comparison:
    """RMSE(model) - RMSE(baseline) over the tested rows; the interval resamples whole groups (corpus variants
    or families) with replacement, since rows of one corpus are not independent."""
    tested = result.count > 0
    mse_m, mse_b = result.row_mse(model), result.row_mse(baseline)
    g = np.asarray(groups)[tested]
    names = np.unique(g)
    members = [np.flatnonzero(g == name) for name in names]
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_boot)
    for b in range(n_boot):
        rows = np.concatenate([members[i] for i in rng.integers(0, len(names), len(names))])
        diffs[b] = np.sqrt(mse_m[rows].mean()) - np.sqrt(mse_b[rows].mean())
    rm, rb = float(np.sqrt(mse_m.mean())), float(np.sqrt(mse_b.mean()))
    low, high = np.quantile(diffs, [0.025, 0.975])
    return Comparison(result.protocol, model, baseline, rm, rb, rm - rb, float(low), float(high))


@dataclass(frozen=True)
class Verdict:
    beats: bool
    comparisons: tuple[Comparison, ...]
    noise: dict[str, float]

    def text(self) -> str:
        head = ("The dataset features BEAT the no-feature baselines in every protocol." if self.beats else
                "The dataset features do NOT beat the no-feature baselines in every protocol.")
        floor = ", ".join(f"{k} {v:.3f}" for k, v in self.noise.items())
        statistic = (f"- statistic: {POOLED_RMSE}, with a cluster-bootstrap 95 % CI of the difference; the per-split "
                     "mean RMSE of the tables weighs every split (corpus) equally and can rank the models otherwise")
        return "\n".join([head, *(f"- {c.sentence()}" for c in self.comparisons), statistic,
                          f"- label-noise floor: {floor}"])


def verdict(results: Sequence[tuple[ProtocolResult, Sequence[str]]], noise: dict[str, float], model: str = "rf",
            n_boot: int = 2000, seed: int = 0) -> Verdict:
    """Compare `model` with the best (lowest pooled RMSE) baseline of each protocol; `results` pairs each protocol
    result with the row groups its bootstrap resamples. Features "beat" only if every interval excludes 0."""
    comparisons = []
    for result, groups in results:
        present = [b for b in BASELINES if b in result.per_split]
        best = min(present, key=lambda b: result.pooled(b)["rmse"])
        comparisons.append(compare(result, model, best, groups, n_boot, seed))
    return Verdict(all(c.beats for c in comparisons), tuple(comparisons), noise)


@dataclass(frozen=True)
class Assessment:
    interpolation: ProtocolResult
    kfold: ProtocolResult
    extrapolation: ProtocolResult
    verdict: Verdict


def assess(table: Table, models: Sequence[str] = ("rf", "gb", "lr"), n_splits: int = 202, k: int = 5,
           repeats: int = 10, seed: int = 0) -> Assessment:
    """The three protocols of docs/asr_predict.md (paper interpolation, repeated k-fold, leave-one-family-out) and the
    verdict for the random forest (k-fold bootstrap by corpus variant, extrapolation by family)."""
    n = len(table)
    interp = evaluate(table, paper_interpolation_splits(n, n_splits, seed), models, seed=seed,
                      protocol="interpolation (paper 60/32/8 splits)")
    kfold = evaluate(table, repeated_kfold_splits(n, k, repeats, seed), models, seed=seed,
                     protocol=f"interpolation ({repeats}x{k}-fold)")
    extra = evaluate(table, leave_one_group_out_splits(table.family, seed), models, seed=seed,
                     protocol="extrapolation (leave-one-corpus-out)")
    v = verdict([(kfold, table.variant), (extra, table.family)], noise_floor(table), "rf", seed=seed)
    return Assessment(interp, kfold, extra, v)
