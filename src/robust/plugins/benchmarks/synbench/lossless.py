"""The width-matched reference: what a lossless representation of the model's width scores with the same probe
and sample sizes (not in the thesis; it separates the probe's finite-sample loss from the representation's).

A lossless Gaussian representation of width d' is z | y ~ N(y·m_k·u, I_{d'}) with m_k = Φ⁻¹(a_k^in) (the input
reference's Bayes accuracy at level k, ε = 0; m_k = s_k for Gaussian-I, where it is `identity` itself). Its
population score is exactly 1 at ε = 0 (every (a, b) point lies on the reference curve, Ko 2024, §5.2.2, Theorem 9);
with n training samples the plug-in LDA probe of Ko 2024, §5.2.3 loses accuracy and margin as d'/n grows
(docs/synbench.md).

The probe is invariant under any rotation of the representation space, so coordinates are taken with u = e_1.
For d' − 1 > N = n + n_test the N × (d' − 1) noise block G equals L·Q in distribution (Bartlett decomposition:
L lower triangular with L_ii² ~ χ²_{d'−i}, L_ij ~ N(0, 1) below the diagonal, Q Haar with orthonormal rows),
and Q is a rotation the probe cannot see: the simulation runs in 1 + N dimensions at any width.
"""

from __future__ import annotations

from collections.abc import Sequence

from robust import rng_for
from robust.plugins.benchmarks.synbench.constants import EIG_CUTOFF
from robust.plugins.benchmarks.synbench.probe import ProbePoint, probe
from robust.toolkit.lazy import np


def noise_block(rows: int, width: int, rng: np.random.Generator) -> np.ndarray:
    """`rows` × (at most `width`) standard normal noise up to a rotation of its columns: the draws themselves for
    width <= rows, else the rows × rows Bartlett factor of the rows × width Gaussian matrix."""
    if width <= rows:
        return rng.standard_normal((rows, width))
    out = np.tril(rng.standard_normal((rows, rows)), -1)
    out[np.diag_indices(rows)] = np.sqrt(rng.chisquare(width - np.arange(rows)))  # χ²_{width − i}, i = 0..rows−1
    return out


def lossless_sample(shift: float, width: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(z, y) for n points of N(y·shift·e_1, I_width), y = ±1 with probability 1/2, in min(width, 1 + n) columns."""
    y = np.where(rng.random(n) < 0.5, 1, -1)
    signal = y * shift + rng.standard_normal(n)
    noise = noise_block(n, width - 1, rng) if width > 1 else np.zeros((n, 0))
    return np.column_stack([signal, noise]), y


def lossless_points(width: int, shifts: Sequence[float], n: int, n_test: int, epsilons: Sequence[float],
                    seed: int, trial: int, eps_mode: str = "relative", denominator: str = "n-2",
                    cutoff: float = EIG_CUTOFF) -> list[list[ProbePoint]]:
    """Per level (shift m_k): the probe's points per ε on a lossless representation of `width` (one trial).
    Train and test rows are drawn together, so one rotation covers both (the Bartlett form needs it)."""
    out = []
    for k, shift in enumerate(shifts):
        rng = rng_for(seed, "synbench-lossless", width, trial, k, f"{float(shift):.6f}")
        z, y = lossless_sample(float(shift), int(width), n + n_test, rng)
        points, _ = probe(z[:n], y[:n], z[n:], y[n:], epsilons, eps_mode, denominator, cutoff)
        out.append(points)
    return out
