"""SynBench closed forms (Ko 2024, §5.2.2 and App. A.3-A.4), pure numpy/scipy: the (ε-robust) Bayes-optimal linear
classifier of two Gaussians with shared covariance, its accuracy and expected scaled margin (Theorem 9), the input-space
reference over the s grid, and the heptadiagonal "Gaussian-H" covariance (Ko 2024, §5.3.4; docs/synbench.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from robust.plugins.benchmarks.synbench.constants import EIG_CUTOFF, H_BAND
from robust.toolkit.lazy import np


def b_ref(a: float | np.ndarray) -> np.ndarray:
    """Expected scaled bound of correct samples, b(a) = 1 + φ(Φ⁻¹(a)) / (a Φ⁻¹(a)) (Theorem 9(iv)).

    Defined on (0.5, 1); NaN at a <= 0.5 (docs/synbench.md: never call it there), 1 at a = 1."""
    from scipy.special import ndtri

    a = np.asarray(a, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = ndtri(a)
        out = 1.0 + np.exp(-q * q / 2) / np.sqrt(2 * np.pi) / (a * q)
    return np.where((a > 0.5) & (a < 1), out, np.where(a >= 1, 1.0, np.nan))


# --- the ε-robust Bayes classifier (Ko 2024, App. A.4, eq. A.5) ------------------------------------------
@dataclass
class Eigen:
    """Thin eigen-decomposition Σ = V diag(lam) Vᵀ restricted to eigenvalues above the cut-off."""

    lam: np.ndarray  # (r,)
    vecs: np.ndarray  # (d, r)

    @property
    def rank(self) -> int:
        return len(self.lam)


def thin_eigen(sigma: np.ndarray, cutoff: float = EIG_CUTOFF) -> Eigen:
    """Eigenpairs of a symmetric PSD matrix with λ > cutoff (App. A.3.1 remark; the code's D > 1e-6)."""
    lam, vecs = np.linalg.eigh(np.asarray(sigma, dtype=np.float64))
    keep = lam > cutoff
    return Eigen(lam[keep], vecs[:, keep])


def robust_gamma(a: np.ndarray, lam: np.ndarray, eps_abs: float) -> float:
    """γ > 0 solving Σ_i a_i² / (1 + λ_i γ)² = ε² (Ko 2024, App. A.4, eq. A.5); inf for ε = 0 (plain LDA)."""
    from scipy.optimize import brentq

    norm_a = float(np.linalg.norm(a))
    if eps_abs <= 0:
        return float("inf")
    if eps_abs >= norm_a:
        raise ValueError(f"ε = {eps_abs:.4g} >= ‖μ̃‖ = {norm_a:.4g}: the robust classifier is w = 0")
    f = lambda g: float(np.linalg.norm(a / (1.0 + lam * g))) - eps_abs  # noqa: E731  decreasing in γ
    hi = 2.0 * norm_a / (eps_abs * float(lam.min())) + 1.0  # f(hi) < 0: ‖a‖/(1 + λ_min hi) < ε
    return float(brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-12, maxiter=500))


def robust_weights(a: np.ndarray, lam: np.ndarray, eps_abs: float) -> np.ndarray:
    """w = Σ⁻¹(μ̃ − z_Σ(μ̃)) in the eigenbasis (eq. 5.2 with z from eq. A.5): a_i γ / (1 + λ_i γ), which is
    a/λ (Fisher LDA) at ε = 0 and ∝ (Σ + I/γ)⁻¹ μ̃ (ridge LDA) for ε > 0."""
    gamma = robust_gamma(a, lam, eps_abs)
    if np.isinf(gamma):
        return a / lam
    return a * gamma / (1.0 + lam * gamma)


def robust_z(a: np.ndarray, lam: np.ndarray, eps_abs: float) -> np.ndarray:
    """z_Σ(μ̃) = argmin_{‖z‖ <= ε} (μ̃ − z)ᵀ Σ⁻¹ (μ̃ − z) in the eigenbasis: a_i / (1 + λ_i γ) (eq. A.5)."""
    gamma = robust_gamma(a, lam, eps_abs)
    return np.zeros_like(a) if np.isinf(gamma) else a / (1.0 + lam * gamma)


def eps_absolute(eps: float, mu_t_norm: float, mode: str) -> float:
    """ε as an ℓ2 radius: relative = ε·‖μ̃‖ (the code, docs/synbench.md, default) or absolute."""
    return float(eps) * mu_t_norm if mode == "relative" else float(eps)


def gaussian_point(mu_t: np.ndarray, sigma: np.ndarray, eps: float, eps_mode: str = "relative",
                   cutoff: float = EIG_CUTOFF) -> tuple[float, float]:
    """(accuracy, expected scaled bound) of f_ε on N(±μ̃, Σ) (Theorem 9(iii), (iv)).

    a = Φ(μ̃ᵀw / ‖w‖_Σ) with ‖w‖_Σ = sqrt(wᵀΣw) (the printed (iii) drops the minus in μ̃ − z, docs/synbench.md)."""
    from scipy.special import ndtr

    eig = thin_eigen(sigma, cutoff)
    a = eig.vecs.T @ np.asarray(mu_t, dtype=np.float64)
    w = robust_weights(a, eig.lam, eps_absolute(eps, float(np.linalg.norm(a)), eps_mode))
    acc = float(ndtr(float(a @ w) / float(np.sqrt(np.sum(eig.lam * w * w)))))
    return acc, float(b_ref(acc))


def robust_direction(mu_t: np.ndarray, sigma: np.ndarray, eps: float, eps_mode: str = "relative",
                     cutoff: float = EIG_CUTOFF) -> np.ndarray:
    """The ε-robust Bayes direction Σ⁻¹(μ̃ − z_Σ(μ̃)) in the original coordinates (eq. 5.2)."""
    eig = thin_eigen(sigma, cutoff)
    a = eig.vecs.T @ np.asarray(mu_t, dtype=np.float64)
    return eig.vecs @ robust_weights(a, eig.lam, eps_absolute(eps, float(np.linalg.norm(a)), eps_mode))


# --- the input-space reference over the s grid (Ko 2024, §5.2.2, Theorem 9) -------------------------------------------
def reference_identity(s: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian-I reference: a_in = Φ(s), b_in = b(Φ(s)); independent of ε (Σ = I, Theorem A.4, A11)."""
    from scipy.special import ndtr

    a = ndtr(np.asarray(s, dtype=float))
    return a, b_ref(a)


def band_matrix(m: int, band: Sequence[float] = H_BAND) -> np.ndarray:
    """Dense symmetric Toeplitz band (tests and small d only)."""
    out = np.zeros((m, m))
    for k, v in enumerate(band):
        idx = np.arange(m - k)
        out[idx, idx + k] = v
        out[idx + k, idx] = v
    return out


def _band_lower(m: int, band: Sequence[float]) -> np.ndarray:
    """The band in scipy's lower banded storage: ab[k, j] = Σ[j + k, j]."""
    ab = np.zeros((len(band), m))
    for k, v in enumerate(band):
        ab[k, : m - k] = v
    return ab


def band_cholesky(m: int, band: Sequence[float] = H_BAND) -> np.ndarray:
    """Lower banded Cholesky factor L (Σ_block = L Lᵀ) in lower banded storage (docs/synbench.md)."""
    from scipy.linalg import cholesky_banded

    return cholesky_banded(_band_lower(m, band), lower=True)


def band_apply(lower_ab: np.ndarray, z: np.ndarray) -> np.ndarray:
    """L @ z along the last axis for a lower banded L (lower_ab[k, j] = L[j + k, j]); z is (..., m)."""
    out = lower_ab[0] * z
    for k in range(1, lower_ab.shape[0]):
        out[..., k:] += lower_ab[k, :-k] * z[..., :-k]
    return out


def _band_matvec(m: int, band: Sequence[float], v: np.ndarray) -> np.ndarray:
    out = band[0] * v
    for k, b in enumerate(band[1:], 1):
        out[k:] += b * v[:-k]
        out[:-k] += b * v[k:]
    return out


def reference_band(s: float, eps: float, channels: int, m: int, band: Sequence[float] = H_BAND,
                   eps_mode: str = "relative") -> tuple[float, float]:
    """Gaussian-H reference for μ̃ = s·1_d/√d and Σ = I_C ⊗ T_m (T the Toeplitz band), by Theorem 9(iii)/(iv)
    with banded solves instead of an eigen-decomposition: z = (I + γΣ)⁻¹μ̃, w = γz (Ko 2024, App. A.4; docs/synbench.md).

    Channels are identical blocks, so one block of size m carries the computation."""
    from scipy.linalg import solveh_banded
    from scipy.optimize import brentq
    from scipy.special import ndtr

    d = channels * m
    mu = np.full(m, s / np.sqrt(d))  # one channel's slice of μ̃
    lower = _band_lower(m, band)
    eps_abs = eps_absolute(eps, float(s), eps_mode)

    def z_of(gamma: float) -> np.ndarray:
        ab = gamma * lower
        ab[0] += 1.0
        return solveh_banded(ab, mu, lower=True)

    if eps_abs <= 0:
        w = solveh_banded(lower, mu, lower=True)  # Σ⁻¹ μ̃
    else:
        if eps_abs >= s:
            raise ValueError("ε >= ‖μ̃‖: the robust classifier is w = 0")
        f = lambda g: np.sqrt(channels) * float(np.linalg.norm(z_of(g))) - eps_abs  # noqa: E731
        hi = 1.0
        while f(hi) > 0:
            hi *= 4.0
        gamma = brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-12, maxiter=500)
        w = gamma * z_of(gamma)
    num = channels * float(mu @ w)
    den = np.sqrt(channels * float(w @ _band_matvec(m, band, w)))
    acc = float(ndtr(num / den))
    return acc, float(b_ref(acc))
