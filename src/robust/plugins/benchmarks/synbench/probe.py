"""Probing a representation (Ko 2024, §5.2.3, Algorithm 1 lines 11-16), pure numpy: class means and pooled
covariance of the training representations, the ε-robust Bayes linear classifier of that fitted Gaussian,
and the test accuracy and mean scaled margin of correct points for every ε at once."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from robust.plugins.benchmarks.synbench.constants import EIG_CUTOFF
from robust.plugins.benchmarks.synbench.theory import Eigen, eps_absolute, robust_weights
from robust.toolkit.lazy import np


@dataclass
class FittedGaussian:
    """z | y ~ N(mid ± μ̃', Σ') with Σ' in thin eigen form (in the span of the training data when d' > n)."""

    mid: np.ndarray  # (μ'_1 + μ'_2) / 2
    mu_t: np.ndarray  # μ̃' = (μ'_1 − μ'_2) / 2
    eigen: Eigen


@functools.lru_cache(maxsize=1)
def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()  # scans the loaded libraries once, not per level


def _one_blas_thread() -> Any:
    """Small dense algebra runs faster on one BLAS thread on a shared machine (threadpoolctl if present)."""
    controller = _blas_controller()
    return contextlib.nullcontext() if controller is None else controller.limit(limits=1, user_api="blas")


def fit_gaussian(Z: np.ndarray, y: np.ndarray, denominator: str = "n-2", cutoff: float = EIG_CUTOFF) -> FittedGaussian:
    """Class means and the pooled covariance Σ' = Σ_c Σ_i (z−μ'_c)(z−μ'_c)ᵀ / (n1+n2−2) (Ko 2024, §5.2.3, Algorithm 1),
    kept as eigenpairs with λ > cutoff. For d' > n the eigenvectors come from the n×n Gram matrix of the
    centred data (same nonzero spectrum, O(n²d') instead of O(d'³))."""
    Z = np.asarray(Z, dtype=np.float64)
    pos, neg = Z[y == 1], Z[y != 1]
    if len(pos) < 2 or len(neg) < 2:
        raise ValueError("each class needs at least 2 training samples")
    m1, m2 = pos.mean(0), neg.mean(0)
    X = np.vstack([pos - m1, neg - m2])
    dof = len(Z) - (2 if denominator == "n-2" else 1)
    if Z.shape[1] <= len(Z):
        lam, vecs = np.linalg.eigh(X.T @ X / dof)
    else:
        lam, U = np.linalg.eigh(X @ X.T / dof)
        keep = lam > cutoff
        lam, U = lam[keep], U[:, keep]
        vecs = X.T @ U / np.sqrt(lam * dof)  # right singular vectors: Xᵀu / ‖Xᵀu‖
    keep = lam > cutoff
    return FittedGaussian((m1 + m2) / 2, (m1 - m2) / 2, Eigen(lam[keep], vecs[:, keep]))


@dataclass
class ProbePoint:
    """One (level, ε) read-out: test accuracy a_k and mean scaled bound b_k of correct points (Thm 9(ii))."""

    epsilon: float
    accuracy: float
    margin: float | None  # None when no test point is correct


def probe(Ztr: np.ndarray, ytr: np.ndarray, Zte: np.ndarray, yte: np.ndarray, epsilons: Sequence[float],
          eps_mode: str = "relative", denominator: str = "n-2",
          cutoff: float = EIG_CUTOFF) -> tuple[list[ProbePoint], int]:
    """(points per ε, retained rank). Labels are ±1 (1 = class with mean +μ̃). A test point is correct iff
    sign(margin) = y (a zero margin is wrong, like the code); scaled bound |(z−m')ᵀw| / |μ̃'ᵀw|."""
    with _one_blas_thread():
        fit = fit_gaussian(Ztr, ytr, denominator, cutoff)
        V = fit.eigen.vecs
        a = V.T @ fit.mu_t  # μ̂ = F1ᵀ μ̃' (Ko 2024, §5.2.3, Algorithm 1 [code])
        P = (np.asarray(Zte, dtype=np.float64) - fit.mid) @ V  # test points in the eigenbasis
        yt = np.where(np.asarray(yte) == 1, 1.0, -1.0)
        out = []
        if fit.eigen.rank == 0:  # constant representation: no classifier, nothing correct
            return [ProbePoint(float(eps), 0.0, None) for eps in epsilons], 0
        for eps in epsilons:
            w = robust_weights(a, fit.eigen.lam, eps_absolute(eps, float(np.linalg.norm(a)), eps_mode))
            margin = P @ w
            correct = np.sign(margin) == yt
            scale = abs(float(a @ w))
            mean_bound = float(np.mean(np.abs(margin[correct])) / scale) if correct.any() and scale > 0 else None
            out.append(ProbePoint(float(eps), float(correct.mean()), mean_bound))
    return out, fit.eigen.rank
