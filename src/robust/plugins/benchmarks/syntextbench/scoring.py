"""SynTextBench scoring (spec §3), pure numpy/scipy: per-class whitening with energy truncation, separation
rescaling, the (robust) Bayes-optimal classifier for two identity-covariance Gaussians, scaled margins,
the goodness function s(a) and the score; plus the Gaussian closed forms of §3.9."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from robust.core.lazy import np

SCALINGS = ("ratio", "literal", "pooled")
_EPS = 1e-12


@dataclass
class Whitener:
    mean: np.ndarray  # b_y
    eigvals: np.ndarray  # s, descending
    eigvecs: np.ndarray  # F, columns sorted like s
    k: int  # dimensions keeping `energy` of the spectrum

    def matrix(self, k: int) -> np.ndarray:
        """W = S_{1:K}^{-1/2} F_{:,1:K}^T (spec §6 A5: the printed F^T S^{-1/2} is a typo), shape K x d."""
        return (self.eigvecs[:, :k] / np.sqrt(np.maximum(self.eigvals[:k], _EPS))).T


def energy_rank(eigvals: np.ndarray, energy: float) -> int:
    """Smallest k with sum(s_1..s_k) / sum(s) >= energy ([P] §2.3)."""
    total = float(eigvals.sum())
    if total <= _EPS:
        return 1
    ratio = np.cumsum(eigvals) / total
    return int(min(np.searchsorted(ratio, energy - 1e-12) + 1, len(eigvals)))


def fit_whitener(Z: np.ndarray, energy: float = 0.99) -> Whitener:
    """Mean, descending eigen-decomposition of the (unbiased) covariance, and the energy rank."""
    b = Z.mean(0)
    C = np.cov(Z, rowvar=False) if len(Z) > 1 else np.zeros((Z.shape[1], Z.shape[1]))
    s, F = np.linalg.eigh(np.atleast_2d(C))
    order = np.argsort(s)[::-1]
    s = np.clip(s[order], 0.0, None)
    return Whitener(b, s, F[:, order], energy_rank(s, energy))


@dataclass
class TaskPoint:
    """One synthetic task's read-out: test accuracy a_p and mean scaled margin δ_p of correct points."""

    accuracy: float
    margin: float
    k: int  # whitened dimension K
    separation: float  # D, distance between the whitened class centres
    d_inter: float
    d_intra: float

    def to_dict(self) -> dict[str, float]:
        return {key: float(v) for key, v in asdict(self).items()}


def _classify(train: dict[int, np.ndarray], test: dict[int, np.ndarray]) -> tuple[float, float]:
    """Balanced Bayes classifier sign(μ̃^T (ẑ - (μ1+μ2)/2)) ([P] §2.3; ε-independent for τ=1/2, §3.3) and
    the scaled margin |(ẑ - (μ1+μ2)/2)^T μ̃| / ||μ̃||² (§3.4; the square per [P] §2.3, spec §6 A3)."""
    mu1, mu2 = train[1].mean(0), train[-1].mean(0)
    mt, mid = (mu1 - mu2) / 2, (mu1 + mu2) / 2
    proj = np.concatenate([(test[c] - mid) @ mt for c in (1, -1)])
    y = np.concatenate([np.full(len(test[c]), c) for c in (1, -1)])
    scale = float(mt @ mt)
    if scale <= _EPS:  # coinciding class centres (e.g. a debiased D of 0): no classifier, chance level
        return 0.5, 0.0
    correct = np.sign(proj) == y
    if not correct.any():
        return 0.0, 0.0
    return float(correct.mean()), float(np.mean(np.abs(proj[correct]) / scale))


def _distances(Z: dict[int, np.ndarray], means: dict[int, np.ndarray], debias: bool) -> tuple[float, float]:
    """d_inter = ||b_1 - b_-1||, d_intra = mean distance of points to their class mean ([P] §2.3).
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
    """(a_p, δ_p) of one task ([P] Alg. 1 lines 4-7).

    scaling='ratio' (default, spec §3.2 resolution): per-class whitening T_y estimated on train, classes
    placed at ±(D/2)u with D = (d_inter/d_intra)·mean||h||, test points transformed with their true
    label's T_y as in Alg. 1 line 5. 'literal': D = d_inter/d_intra. 'pooled' (not the paper's method):
    one whitening from the pooled within-class covariance, no label use at test time, no rescaling.
    `direction` is u (default e_1); it only needs to be a unit vector of length >= K. `debias`: see
    `_distances` (ratio and literal scaling only).
    """
    if scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; expected one of {SCALINGS}")
    with _one_blas_thread():
        return _task_point(Ztr, ytr, Zte, yte, energy, scaling, direction, debias)


def _task_point(Ztr: np.ndarray, ytr: np.ndarray, Zte: np.ndarray, yte: np.ndarray, energy: float,
                scaling: str, direction: np.ndarray | None, debias: bool) -> TaskPoint:
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
        acc, margin = _classify(ht, he)
        sep = float(np.linalg.norm(ht[1].mean(0) - ht[-1].mean(0)))
        return TaskPoint(acc, margin, pooled.k, sep, d_inter, d_intra)
    fits = {c: fit_whitener(tr[c], energy) for c in (1, -1)}
    k = min(f.k for f in fits.values())  # K = min(K_1, K_-1)
    W = {c: fits[c].matrix(k) for c in (1, -1)}
    h_train = {c: (tr[c] - means[c]) @ W[c].T for c in (1, -1)}
    d_intra_w = float(np.mean(np.concatenate([np.linalg.norm(h_train[c], axis=1) for c in (1, -1)])))
    ratio = d_inter / max(d_intra, _EPS)
    sep = ratio * d_intra_w if scaling == "ratio" else ratio  # spec §3.2 step 4 / §6 A1 (i)
    u = np.eye(k)[0] if direction is None else np.asarray(direction[:k], dtype=np.float64)
    u = u / max(float(np.linalg.norm(u)), _EPS)
    shift = lambda c: c * (sep / 2) * u  # noqa: E731  T_y(z) = W_y (z - b_y) + y (D/2) u
    ht = {c: h_train[c] + shift(c) for c in (1, -1)}
    he = {c: (te[c] - means[c]) @ W[c].T + shift(c) for c in (1, -1)}
    acc, margin = _classify(ht, he)
    return TaskPoint(acc, margin, k, sep, d_inter, d_intra)


# --- goodness function and score (spec §3.5) ----------------------------------------------------------------
def goodness(a: float | np.ndarray, accuracies: Sequence[float], margins: Sequence[float]) -> np.ndarray:
    """s(a) = (1/|P|) Σ_{p: a_p > a} δ_p ([P] §2.4)."""
    acc = np.asarray(accuracies, dtype=float)[:, None]
    mar = np.asarray(margins, dtype=float)[:, None]
    a = np.atleast_1d(np.asarray(a, dtype=float))[None, :]
    return ((acc > a) * mar).sum(0) / acc.shape[0]


def syntextbench_score(accuracies: Sequence[float], margins: Sequence[float], a_T: float = 0.7) -> float:
    """∫_{a_T}^1 s(a) da in closed form: (1/|P|) Σ_p δ_p · max(a_p - a_T, 0) (spec §3.5 [derived])."""
    acc = np.asarray(accuracies, dtype=float)
    mar = np.asarray(margins, dtype=float)
    return float(np.sum(mar * np.clip(acc - a_T, 0.0, None)) / len(acc)) if len(acc) else 0.0


# --- Gaussian closed forms (spec §3.9) ---------------------------------------------------------------------
def gaussian_accuracy(separation: float) -> float:
    """Accuracy of the Bayes classifier on N(±(D/2)u, I): Φ(D/2)."""
    from scipy.special import ndtr  # imported on use: `robust list` stays fast

    return float(ndtr(separation / 2))


def reference_margin(a: float | np.ndarray) -> np.ndarray:
    """δ_ref(a) = 1 + φ(Φ^{-1}(a)) / (a Φ^{-1}(a)) for 1/2 < a < 1 ([T] Theorem 9(iv), Σ = I).

    NaN at a <= 1/2, 1 at a = 1."""
    from scipy.special import ndtri

    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = ndtri(a)
        out = 1 + np.exp(-q * q / 2) / np.sqrt(2 * np.pi) / (a * q)
    return np.where((a > 0.5) & (a < 1), out, np.where(a >= 1, 1.0, np.nan))
