"""Closed forms (Ko 2024, §5.2.2, App. A.4, eq. 5.4) against printed numbers, Monte Carlo and a generic solver;
each check also fails for a deliberately wrong variant (negative controls)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import ndtr

from robust.plugins.benchmarks.synbench.constants import S_GRID
from robust.plugins.benchmarks.synbench.scoring import area, expected_bound, recommended_eps, synbench_score
from robust.plugins.benchmarks.synbench.theory import (
    b_ref,
    band_matrix,
    gaussian_point,
    reference_band,
    reference_identity,
    robust_direction,
    robust_weights,
    robust_z,
    thin_eigen,
)

S = np.array(S_GRID)
# reference areas with K = 49, exact and the code's grid (eq. 5.4 of Ko 2024 integrated; docs/validation/synbench.md)
AREAS = {0.6: (0.34518, 0.34679), 0.65: (0.29102, 0.28981), 0.7: (0.24052, 0.24089), 0.75: (0.19287, 0.19079),
         0.8: (0.14786, 0.14715), 0.85: (0.10542, 0.10597), 0.9: (0.06576, 0.06430), 0.95: (0.02959, 0.02914),
         0.99: (0.00467, 0.00396)}
# V5 (docs/validation/synbench.md): analytic score of a linear map keeping a fraction c of the signal (ε = 0),
# a_T = 0.7 / 0.9
V5 = {1.0: (1.0, 1.0), 0.9: (0.9710, 0.9405), 0.75: (0.9130, 0.8212), 0.5: (0.7425, 0.4761),
      0.25: (0.3389, 0.0), 0.1: (0.0, 0.0)}


def random_problem(seed: int, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d))
    return rng.normal(size=d), A @ A.T / d + 0.3 * np.eye(d)


def test_reference_curve_values():
    """Theorem 9 (Ko 2024, §5.2.2): a = Φ(s) and b(a) on the code's grid."""
    a, b = reference_identity([0.1, 0.5, 1.0, 2.0, 4.9])
    np.testing.assert_allclose(a[:4], [0.53983, 0.6915, 0.8413, 0.9772], atol=6e-5)
    np.testing.assert_allclose(b, [8.3533, 2.0183, 1.2876, 1.0276, 1.0], atol=6e-5)
    assert len(S_GRID) == 49 and S_GRID[0] == 0.1 and S_GRID[-1] == 4.9
    assert np.isnan(b_ref(0.5)) and np.isnan(b_ref(0.3)) and b_ref(1.0) == 1.0


def _areas_match(area_fn) -> bool:
    a, b = reference_identity(S)
    return all(abs(area_fn(a, b, aT, "exact") - ex) < 6e-6 and abs(area_fn(a, b, aT, "grid100") - gr) < 6e-6
               for aT, (ex, gr) in AREAS.items())


def _area_without_clip(acc, bounds, a_T, integration):
    """Wrong: levels below a_T subtract area instead of contributing 0 (no (·)_+)."""
    if integration != "exact":
        return area(acc, bounds, a_T, integration)
    acc, b = np.asarray(acc), np.nan_to_num(np.asarray(bounds))
    return float(np.sum(b * (acc - a_T)) / len(acc))


def _area_grid_including_below(acc, bounds, a_T, integration):
    """Wrong: the grid sum over all 100 points instead of those >= a_T."""
    if integration != "grid100":
        return area(acc, bounds, a_T, integration)
    grid = np.linspace(0.6, 1.0, 100)
    return float(expected_bound(grid, acc, bounds).sum() * (grid[1] - grid[0]))


def test_reference_areas_match_spec_table_and_wrong_integrations_do_not():
    assert _areas_match(area)
    assert not _areas_match(_area_without_clip)
    assert not _areas_match(_area_grid_including_below)


@pytest.mark.parametrize("c", sorted(V5))
def test_linear_map_analytic_score(c):
    """V5: a linear map keeping c of the signal puts every level on the Bayes curve at a = Φ(c s)."""
    a_ref, b_in = reference_identity(S)
    a = ndtr(c * S)
    for a_T, expected in zip((0.7, 0.9), V5[c]):
        assert synbench_score(a, b_ref(a), a_ref, b_in, a_T, "exact") == pytest.approx(expected, abs=6e-5)


def test_score_is_monotone_in_signal_fraction():
    """b(a)(a − a_T) increases in a (docs/validation/synbench.md, V6), so the score increases with c."""
    a_ref, b_in = reference_identity(S)
    scores = [synbench_score(ndtr(c * S), b_ref(ndtr(c * S)), a_ref, b_in, 0.7) for c in np.linspace(0.3, 1, 15)]
    assert np.all(np.diff(scores) > 0)


def test_recommended_eps_is_the_argmax_with_smallest_tie():
    assert recommended_eps({0.0: 0.33, 0.1: 0.36, 0.2: 0.37, 0.3: 0.35}) == 0.2  # ViT-B/16 row of Table 5.3
    assert recommended_eps({0.0: 0.01, 0.1: 0.01, 0.2: 0.0}) == 0.0  # ViT-Ti/16: tie -> smallest ε


# --- z_Σ closed form vs a generic constrained solver (V2) ----------------------------------------------
def _qcqp(mu, sigma, eps_abs):
    inv = np.linalg.inv(sigma)
    res = minimize(lambda z: (mu - z) @ inv @ (mu - z), np.zeros_like(mu), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda z: eps_abs**2 - z @ z}],
                   options={"ftol": 1e-14, "maxiter": 500})
    return res.x


def _closed_z(mu, sigma, eps_abs, sign=1.0):
    eig = thin_eigen(sigma)
    return sign * (eig.vecs @ robust_z(eig.vecs.T @ mu, eig.lam, eps_abs))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rel", [0.2, 0.5, 0.9])
def test_closed_form_z_solves_the_qcqp(seed, rel):
    mu, sigma = random_problem(seed, 6)
    eps_abs = rel * np.linalg.norm(mu)
    z_solver = _qcqp(mu, sigma, eps_abs)
    z = _closed_z(mu, sigma, eps_abs)
    assert np.max(np.abs(z - z_solver)) < 1e-5
    assert np.linalg.norm(z) == pytest.approx(eps_abs, rel=1e-9)  # the constraint is active
    w = robust_direction(mu, sigma, rel)
    np.testing.assert_allclose(w / np.linalg.norm(w), z / np.linalg.norm(z), atol=1e-9)  # w ∝ z (Ko 2024, App. A.4)
    assert np.max(np.abs(_closed_z(mu, sigma, eps_abs, sign=-1.0) - z_solver)) > 0.1  # sign flip fails


# --- Theorem 9 (iii)/(iv) vs Monte Carlo (V1) ------------------------------------------------------------
def _simulate(mu, sigma, w, n, rng):
    """Accuracy and mean scaled bound of sign(tᵀw) on t | y ~ N(y μ̃, Σ)."""
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    t = y[:, None] * mu + rng.normal(size=(n, len(mu))) @ np.linalg.cholesky(sigma).T
    m = t @ w
    ok = np.sign(m) == y
    return ok.mean(), np.mean(np.abs(m[ok])) / abs(mu @ w)


def _theory_sign_flip(mu, sigma, eps):
    """Wrong: w = Σ⁻¹(μ̃ + z) in (iii)."""
    eig = thin_eigen(sigma)
    a = eig.vecs.T @ mu
    wv = (a + robust_z(a, eig.lam, eps * np.linalg.norm(a))) / eig.lam
    acc = ndtr(a @ wv / np.sqrt(np.sum(eig.lam * wv**2)))
    return float(acc), float(b_ref(acc))


def _theory_euclid_norm(mu, sigma, eps):
    """Wrong: ‖w‖₂ instead of ‖w‖_Σ in (iii)."""
    w = robust_direction(mu, sigma, eps)
    acc = ndtr(mu @ w / np.linalg.norm(w))
    return float(acc), float(b_ref(acc))


@pytest.mark.parametrize("eps", [0.0, 0.3, 0.6])
def test_theorem9_matches_monte_carlo(eps):
    mu, sigma = random_problem(11)
    mu *= 0.8 / np.sqrt(mu @ np.linalg.solve(sigma, mu))  # accuracy ≈ 0.75-0.8
    rng = np.random.default_rng(5)
    n = 200_000
    acc_mc, b_mc = _simulate(mu, sigma, robust_direction(mu, sigma, eps), n, rng)
    tol = 3 * np.sqrt(acc_mc * (1 - acc_mc) / n)

    def agrees(theory):
        a, b = theory(mu, sigma, eps)
        return abs(a - acc_mc) < tol and abs(b - b_mc) / b_mc < 0.01

    assert agrees(gaussian_point)
    if eps > 0:  # at ε = 0 z = 0 and the sign flip changes nothing
        assert not agrees(_theory_sign_flip)
    assert not agrees(_theory_euclid_norm)


@pytest.mark.parametrize("eps", [0.0, 0.4, 0.8])
def test_reference_vs_monte_carlo_over_the_s_grid(eps):
    """Gaussian-I inputs: the Bayes classifier sign(tᵀμ̃) reaches a = Φ(s) and b = b(Φ(s)) at every s (and every ε:
    Σ = I makes all ε-robust classifiers coincide)."""
    rng = np.random.default_rng(3)
    d, n = 16, 60_000
    for s in (0.1, 0.3, 0.7, 1.2, 2.0, 3.0, 4.0):
        mu = np.full(d, s / np.sqrt(d))
        w = robust_direction(mu, np.eye(d), eps)
        acc_mc, b_mc = _simulate(mu, np.eye(d), w, n, rng)
        a_in, b_in = (float(v[0]) for v in reference_identity([s]))
        assert abs(acc_mc - a_in) < 4 * np.sqrt(a_in * (1 - a_in) / n) + 1e-4
        assert abs(b_mc - b_in) / b_in < 0.02


@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_gaussian_h_reference_vs_monte_carlo_and_dense_theory(eps):
    """Gaussian-H (3 channels of a heptadiagonal Toeplitz band): the banded-solve reference equals Theorem 9 on
    the dense Σ_H and matches simulation of that classifier."""
    channels, m, s = 3, 16, 1.0
    sigma = np.kron(np.eye(channels), band_matrix(m))
    mu = np.full(channels * m, s / np.sqrt(channels * m))
    a_band, b_band = reference_band(s, eps, channels, m)
    a_dense, b_dense = gaussian_point(mu, sigma, eps)
    assert a_band == pytest.approx(a_dense, abs=1e-10) and b_band == pytest.approx(b_dense, abs=1e-8)
    n = 200_000
    acc_mc, b_mc = _simulate(mu, sigma, robust_direction(mu, sigma, eps), n, np.random.default_rng(8))
    assert abs(acc_mc - a_band) < 3 * np.sqrt(a_band * (1 - a_band) / n)
    assert abs(b_mc - b_band) / b_band < 0.01
    assert a_band < ndtr(s) or eps == 0  # not Φ(s): Σ_H changes the reference (docs/synbench.md)


# --- Theorem A.4 ------------------------------------------------------------------------------------------
def _directions(mu, sigma):
    return [robust_direction(mu, sigma, e) / np.linalg.norm(robust_direction(mu, sigma, e)) for e in (0, .3, .6, .9)]


def test_theorem_a4_degenerate_eigenspace_makes_eps_irrelevant():
    rng = np.random.default_rng(2)
    V = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    lam = np.array([2.0, 2.0, 2.0, 0.5, 1.0, 4.0])
    sigma = V @ np.diag(lam) @ V.T
    inside = V[:, :3] @ rng.normal(size=3)  # μ̃ within the λ = 2 eigenspace
    dirs = _directions(inside, sigma)
    assert all(np.allclose(d, dirs[0], atol=1e-10) for d in dirs)
    points = [gaussian_point(inside, sigma, e) for e in (0, 0.3, 0.6)]
    assert all(p == pytest.approx(points[0], abs=1e-12) for p in points)
    for iso in (np.eye(6), 3.0 * np.eye(6)):  # Σ ∝ I: every μ̃ is inside one eigenspace
        dirs = _directions(rng.normal(size=6), iso)
        assert all(np.allclose(d, dirs[0], atol=1e-10) for d in dirs)
    # control: μ̃ across eigenvalues 0.5 and 4 -> the classifier rotates with ε and loses accuracy
    across = V[:, 3] + V[:, 5]
    dirs = _directions(across, sigma)
    assert not np.allclose(dirs[-1], dirs[0], atol=1e-3)
    assert gaussian_point(across, sigma, 0.6)[0] < gaussian_point(across, sigma, 0.0)[0] - 1e-3


def test_robust_weights_limits():
    """ε -> 0 gives Fisher's Σ⁻¹μ̃; ε -> ‖μ̃‖ tends to the mean-difference direction (ridge LDA, Ko 2024, App. A.4)."""
    mu, sigma = random_problem(4)
    eig = thin_eigen(sigma)
    a = eig.vecs.T @ mu
    fisher = a / eig.lam
    small = robust_weights(a, eig.lam, 1e-9 * np.linalg.norm(a))
    assert np.allclose(small / np.linalg.norm(small), fisher / np.linalg.norm(fisher), atol=1e-6)
    big = robust_weights(a, eig.lam, (1 - 1e-9) * np.linalg.norm(a))
    assert np.allclose(big / np.linalg.norm(big), a / np.linalg.norm(a), atol=1e-5)
    with pytest.raises(ValueError):
        robust_weights(a, eig.lam, 1.01 * np.linalg.norm(a))
