"""SynTextBench scoring (Ko et al. 2023, §2.3-2.4), pure numpy/scipy: per-class whitening with energy truncation,
separation rescaling, the (robust) Bayes-optimal classifier for two identity-covariance Gaussians, scaled margins,
the goodness function s(a) and the score; plus the Gaussian closed forms of docs/syntextbench.md."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from robust.plugins.benchmarks.syntextbench.constants import SCALINGS
from robust.toolkit.lazy import np

_EPS = 1e-12


@dataclass
class Whitener:
    mean: np.ndarray  # b_y
    eigvals: np.ndarray  # s, descending
    eigvecs: np.ndarray  # F, columns sorted like s
    k: int  # dimensions keeping `energy` of the spectrum

    def matrix(self, k: int) -> np.ndarray:
        """W = S_{1:K}^{-1/2} F_{:,1:K}^T (docs/syntextbench.md: the printed F^T S^{-1/2} is a typo), shape K x d."""
        return (self.eigvecs[:, :k] / np.sqrt(np.maximum(self.eigvals[:k], _EPS))).T


def energy_rank(eigvals: np.ndarray, energy: float) -> int:
    """Smallest k with sum(s_1..s_k) / sum(s) >= energy (Ko et al. 2023, §2.3)."""
    total = float(eigvals.sum())
    if total <= _EPS:
        return 1
    ratio = np.cumsum(eigvals) / total
    return int(min(np.searchsorted(ratio, energy - 1e-12) + 1, len(eigvals)))


def fit_whitener(Z: np.ndarray, energy: float = 0.99) -> Whitener:
    """Mean, descending eigen-decomposition of the (unbiased) covariance, and the energy rank. With fewer points
    than dimensions the spectrum comes from the m x m Gram matrix (same eigenpairs, far cheaper). Each
    eigenvector's sign (arbitrary in the paper and in LAPACK) is fixed so that the points' projections on it have
    a non-negative third moment: results are then a function of the data, unchanged by rotating, scaling or
    translating the embedding."""
    b = Z.mean(0)
    X = Z - b
    m, d = X.shape
    if m < 2:
        s, F = np.zeros(d), np.eye(d)
    elif m < d:
        g, V = np.linalg.eigh(X @ X.T / (m - 1))
        order = np.argsort(g)[::-1]
        g, V = np.clip(g[order], 0.0, None), V[:, order]
        keep = g > _EPS * max(float(g[0]), _EPS)
        s = np.where(keep, g, 0.0)
        F = np.where(keep, X.T @ V / np.sqrt(np.maximum(g, _EPS) * (m - 1)), 0.0)
    else:
        s, F = np.linalg.eigh(np.atleast_2d(np.cov(X, rowvar=False)))
        order = np.argsort(s)[::-1]
        s, F = np.clip(s[order], 0.0, None), F[:, order]
    if m >= 2:
        third = ((X @ F) ** 3).sum(0)
        F = F * np.where(third < 0, -1.0, 1.0)
    return Whitener(b, s, F, energy_rank(s, energy))


@dataclass
class TaskPoint:
    """One synthetic task's read-out: test accuracy a_p and mean scaled margin δ_p of correct points, from the
    signed scaled margins of the held-out points (per class)."""

    accuracy: float
    margin: float
    k: int  # whitened dimension K (mean over folds when cross-fitted)
    separation: float  # D, distance between the whitened class centres
    d_inter: float
    d_intra: float
    #: per class (+1, -1): y·(ẑ − (μ1+μ2)/2)^T μ̃ / ||μ̃||² of each held-out point; > 0 = correct, NaN = no classifier
    margins: tuple[np.ndarray, np.ndarray] = field(default_factory=lambda: (np.zeros(0), np.zeros(0)), repr=False)

    def to_dict(self, digits: int = 4) -> dict[str, Any]:
        out: dict[str, Any] = {key: float(getattr(self, key))
                               for key in ("accuracy", "margin", "k", "separation", "d_inter", "d_intra")}
        out["margins"] = [[None if not np.isfinite(v) else float(f"{v:.{digits}g}") for v in m] for m in self.margins]
        return out


def read_out(margins: Sequence[np.ndarray]) -> tuple[float, float]:
    """(a_p, δ_p) from signed scaled margins: accuracy (a NaN point, with no classifier, counts ½) and the mean
    scaled margin of the correct points (Ko et al. 2023, Alg. 1 line 7)."""
    m = np.concatenate([np.asarray(x, dtype=float) for x in margins])
    if not len(m):
        return 0.5, 0.0
    chance = np.isnan(m)
    correct = np.nan_to_num(m, nan=0.0) > 0
    accuracy = (correct.sum() + 0.5 * chance.sum()) / len(m)
    return float(accuracy), float(m[correct].mean()) if correct.any() else 0.0


def _signed_margins(train: dict[int, np.ndarray], test: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Balanced Bayes classifier sign(μ̃^T (ẑ - (μ1+μ2)/2)) (Ko et al. 2023, §2.3; ε-independent for τ=1/2) and the
    scaled margin |(ẑ - (μ1+μ2)/2)^T μ̃| / ||μ̃||² (the square per Ko et al. 2023, §2.3; docs/syntextbench.md), signed by
    correctness. Coinciding class centres (e.g. a debiased D of 0) give no classifier: NaN (chance)."""
    mu1, mu2 = train[1].mean(0), train[-1].mean(0)
    mt, mid = (mu1 - mu2) / 2, (mu1 + mu2) / 2
    scale = float(mt @ mt)
    if scale <= _EPS:
        return np.full(len(test[1]), np.nan), np.full(len(test[-1]), np.nan)
    return ((test[1] - mid) @ mt) / scale, -((test[-1] - mid) @ mt) / scale


def _distances(Z: dict[int, np.ndarray], means: dict[int, np.ndarray], debias: bool) -> tuple[float, float]:
    """d_inter = ||b_1 - b_-1||, d_intra = mean distance of points to their class mean (Ko et al. 2023, §2.3).
    debias (not in the paper): d_inter² minus its sampling bias tr(Σ_1)/m_1 + tr(Σ_-1)/m_-1, floored at 0,
    so that text-independent embeddings get D ≈ 0 instead of D ≈ sqrt(2K/m) at small n."""
    diff2 = float(np.sum((means[1] - means[-1]) ** 2))
    if debias:
        diff2 -= sum(float(Z[c].var(0, ddof=1).sum()) / len(Z[c]) for c in (1, -1))
    d_inter = float(np.sqrt(max(diff2, 0.0)))
    d_intra = float(np.mean(np.concatenate([np.linalg.norm(Z[c] - means[c], axis=1) for c in (1, -1)])))
    return d_inter, d_intra


def _one_blas_thread() -> Any:
    """Scoring is small linear algebra: multi-threaded BLAS only adds contention (10x slower on a busy
    2-core machine), so it runs on one thread when threadpoolctl (a scikit-learn dependency) is present."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def task_point(Ztr: np.ndarray, ytr: np.ndarray, Zte: np.ndarray, yte: np.ndarray, energy: float = 0.99,
               scaling: str = "ratio", direction: np.ndarray | None = None,
               debias: bool = False) -> TaskPoint:
    """(a_p, δ_p) of one task (Ko et al. 2023, Alg. 1 lines 4-7).

    scaling='ratio' (default, Ko et al. 2023, §2.3 resolution): per-class whitening T_y estimated on train, classes
    placed at ±(D/2)u with D = (d_inter/d_intra)·mean||h||, test points transformed with their true
    label's T_y as in Alg. 1 line 5. 'literal': D = d_inter/d_intra. 'pooled' (not the paper's method):
    one whitening from the pooled within-class covariance, no label use at test time, no rescaling.
    `direction` is u (default e_1); it only needs to be a unit vector of length >= K. `debias`: see
    `_distances` (ratio and literal scaling only).
    """
    if scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; expected one of {SCALINGS}")
    with _one_blas_thread():
        point = _task_point(Ztr, ytr, Zte, yte, energy, scaling, direction, debias)
    return TaskPoint(*read_out(point[0]), *point[1:], margins=point[0])


def fold_ids(y: np.ndarray, folds: int) -> np.ndarray:
    """Stratified folds in data order: the j-th of a class's m points goes to fold j·K // m (contiguous blocks;
    the generator's order is already random, and the last block is the single held-out split of folds=1)."""
    out = np.zeros(len(y), dtype=int)
    for c in (1, -1):
        idx = np.flatnonzero(y == c)
        out[idx] = np.arange(len(idx)) * folds // max(len(idx), 1)
    return out


def crossfit_point(Z: np.ndarray, y: np.ndarray, folds: int, energy: float = 0.99, scaling: str = "ratio",
                   direction: np.ndarray | None = None, debias: bool = False) -> TaskPoint:
    """K-fold cross-fitting of `task_point` (not in the paper, which holds out one 10 %): each fold is fitted
    on the other K−1 and scores its own points, so every sentence is held out once. Same estimator at
    training size (K−1)/K·n, with n held-out points instead of n/K. K, D and the distances are fold means."""
    if scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; expected one of {SCALINGS}")
    fid = fold_ids(y, folds)
    parts, stats = ([], []), []
    with _one_blas_thread():
        for f in range(folds):
            tr, te = fid != f, fid == f
            margins, *rest = _task_point(Z[tr], y[tr], Z[te], y[te], energy, scaling, direction, debias)
            for store, m in zip(parts, margins):
                store.append(m)
            stats.append(rest)
    margins = (np.concatenate(parts[0]), np.concatenate(parts[1]))
    k, sep, d_inter, d_intra = (float(v) for v in np.mean(np.array(stats, dtype=float), axis=0))
    return TaskPoint(*read_out(margins), k, sep, d_inter, d_intra, margins=margins)


def _task_point(Ztr: np.ndarray, ytr: np.ndarray, Zte: np.ndarray, yte: np.ndarray, energy: float,
                scaling: str, direction: np.ndarray | None,
                debias: bool) -> tuple[tuple[np.ndarray, np.ndarray], int, float, float, float]:
    tr = {c: np.asarray(Ztr[ytr == c], dtype=np.float64) for c in (1, -1)}
    te = {c: np.asarray(Zte[yte == c], dtype=np.float64) for c in (1, -1)}
    means = {c: tr[c].mean(0) for c in (1, -1)}
    d_inter, d_intra = _distances(tr, means, debias)
    if scaling == "pooled":
        centre = (means[1] + means[-1]) / 2
        pooled = fit_whitener(np.vstack([tr[c] - means[c] for c in (1, -1)]), energy)
        W = pooled.matrix(pooled.k)
        ht = {c: (tr[c] - centre) @ W.T for c in (1, -1)}
        he = {c: (te[c] - centre) @ W.T for c in (1, -1)}
        sep = float(np.linalg.norm(ht[1].mean(0) - ht[-1].mean(0)))
        return _signed_margins(ht, he), pooled.k, sep, d_inter, d_intra
    fits = {c: fit_whitener(tr[c], energy) for c in (1, -1)}
    k = min(f.k for f in fits.values())  # K = min(K_1, K_-1)
    W = {c: fits[c].matrix(k) for c in (1, -1)}
    h_train = {c: (tr[c] - means[c]) @ W[c].T for c in (1, -1)}
    d_intra_w = float(np.mean(np.concatenate([np.linalg.norm(h_train[c], axis=1) for c in (1, -1)])))
    ratio = d_inter / max(d_intra, _EPS)
    sep = ratio * d_intra_w if scaling == "ratio" else ratio  # Ko et al. 2023, §2.3; docs/syntextbench.md
    u = np.eye(k)[0] if direction is None else np.asarray(direction[:k], dtype=np.float64)
    u = u / max(float(np.linalg.norm(u)), _EPS)
    shift = lambda c: c * (sep / 2) * u  # noqa: E731  T_y(z) = W_y (z - b_y) + y (D/2) u
    ht = {c: h_train[c] + shift(c) for c in (1, -1)}
    he = {c: (te[c] - means[c]) @ W[c].T + shift(c) for c in (1, -1)}
    return _signed_margins(ht, he), k, sep, d_inter, d_intra


# --- goodness function and score (Ko et al. 2023, §2.4, Alg. 1) -------------------------------------------------------
def goodness(a: float | np.ndarray, accuracies: Sequence[float], margins: Sequence[float]) -> np.ndarray:
    """s(a) = (1/|P|) Σ_{p: a_p > a} δ_p (Ko et al. 2023, §2.4)."""
    acc = np.asarray(accuracies, dtype=float)[:, None]
    mar = np.asarray(margins, dtype=float)[:, None]
    a = np.atleast_1d(np.asarray(a, dtype=float))[None, :]
    return ((acc > a) * mar).sum(0) / acc.shape[0]


def syntextbench_score(accuracies: Sequence[float], margins: Sequence[float], a_T: float = 0.7) -> float:
    """∫_{a_T}^1 s(a) da in closed form: (1/|P|) Σ_p δ_p · max(a_p - a_T, 0) (Ko et al. 2023, §2.4, Alg. 1
    [derived])."""
    acc = np.asarray(accuracies, dtype=float)
    mar = np.asarray(margins, dtype=float)
    return float(np.sum(mar * np.clip(acc - a_T, 0.0, None)) / len(acc)) if len(acc) else 0.0


def _resampled_read_out(margins: Sequence[np.ndarray], n_boot: int,
                        rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(a_p, δ_p) of `n_boot` resamples of the held-out points, with replacement within each class."""
    hits = np.zeros(n_boot)
    total = np.zeros(n_boot)
    count = np.zeros(n_boot)
    size = 0
    for m in margins:
        m = np.asarray(m, dtype=float)
        if not len(m):
            continue
        draw = m[rng.integers(0, len(m), size=(n_boot, len(m)))]
        correct = np.nan_to_num(draw, nan=0.0) > 0
        hits += correct.sum(1) + 0.5 * np.isnan(draw).sum(1)
        total += np.where(correct, draw, 0.0).sum(1)
        count += correct.sum(1)
        size += len(m)
    accuracy = hits / size if size else np.full(n_boot, 0.5)
    return accuracy, np.divide(total, count, out=np.zeros(n_boot), where=count > 0)


def score_replicates(tasks: Sequence[tuple[int, Sequence[np.ndarray]]], a_T: float, n_boot: int = 1000,
                     seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of the score (mean over trials of the per-trial score) when the held-out points of
    every task (trial, per-class signed margins) are resampled; the fitted transforms are held fixed."""
    rng = np.random.default_rng(seed)
    per_trial: dict[int, list[np.ndarray]] = {}
    for trial, margins in tasks:
        acc, mar = _resampled_read_out(margins, n_boot, rng)
        per_trial.setdefault(trial, []).append(mar * np.clip(acc - a_T, 0.0, None))  # δ_p·(a_p − a_T)+
    return np.mean([np.mean(gs, axis=0) for gs in per_trial.values()], axis=0)


# --- Gaussian closed forms (docs/syntextbench.md) ---------------------------------------------------------------------
def gaussian_accuracy(separation: float) -> float:
    """Accuracy of the Bayes classifier on N(±(D/2)u, I): Φ(D/2)."""
    from scipy.special import ndtr  # imported on use: `robust list` stays fast

    return float(ndtr(separation / 2))


def reference_margin(a: float | np.ndarray) -> np.ndarray:
    """δ_ref(a) = 1 + φ(Φ^{-1}(a)) / (a Φ^{-1}(a)) for 1/2 < a < 1 (Ko 2024, Theorem 9(iv), Σ = I).

    NaN at a <= 1/2, 1 at a = 1."""
    from scipy.special import ndtri

    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = ndtri(a)
        out = 1 + np.exp(-q * q / 2) / np.sqrt(2 * np.pi) / (a * q)
    return np.where((a > 0.5) & (a < 1), out, np.where(a >= 1, 1.0, np.nan))
