"""The probe and the whole pipeline on constructed encoders (docs/validation/synbench.md, V3-V6, V9): identity
≈ reference when d << n (not when d > n), projections and noise lower the score as the closed form says, affine
invariances; and wrong variants (total instead of pooled covariance, swapped classes) fail the same checks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import ndtr

import robust.plugins.benchmarks.synbench.probe as probe_module
from robust.plugins.benchmarks.synbench.constants import S_GRID
from robust.plugins.benchmarks.synbench.probe import fit_gaussian, probe
from robust.plugins.benchmarks.synbench.scoring import synbench_score
from robust.plugins.benchmarks.synbench.theory import Eigen, b_ref, gaussian_point, reference_identity
from robust.plugins.models.arrays import ArrayFunction, Identity
from tests.synbench.conftest import run_synbench, score_at

S = np.array(S_GRID)


def analytic_score(c: float, a_T: float, levels=S) -> float:
    """V5: a linear map keeping c = ‖P 1/√d‖ of the signal scores Σ b(Φ(cs))(Φ(cs) − a_T)_+ / reference."""
    a_ref, b_in = reference_identity(levels)
    a = ndtr(c * np.asarray(levels))
    return synbench_score(a, b_ref(a), a_ref, b_in, a_T, "exact")


def test_identity_scores_one_when_d_is_much_smaller_than_n():
    """V3, d = 16, n = 2048: 0.993-0.997 expected (docs/validation/synbench.md); within sampling error of 1 (up to
~+0.01)."""
    res = run_synbench(Identity(), shape="16")
    scores = [s["score"] for s in res.data["scores"]]
    assert 0.975 < min(scores) and max(scores) < 1.015
    assert res.summary["rank_min"] == 16


def test_identity_falls_far_below_one_when_d_exceeds_n():
    """The d > n regime (V3, docs/validation/synbench.md): LDA overfits, the score is far below 1 and rises with ε
(ridge)."""
    res = run_synbench(Identity(), shape="3x8x8", n=128, n_test=512)
    eps0, eps8 = score_at(res, 0.0, 0.7), score_at(res, 0.8, 0.7)
    assert eps0 < 0.6 and eps8 > eps0 + 0.1
    assert res.summary["rank_min"] <= 126  # at most n − 2 directions survive


def test_random_projection_matches_the_linear_map_closed_form():
    """V5: 192 -> 48 orthonormal projection (c ≈ 0.52): 0.741 / 0.501 in an independent run, analytic within ~0.03."""
    rng = np.random.default_rng(0)
    P = np.linalg.qr(rng.normal(size=(192, 48)))[0]
    c = float(np.linalg.norm(P.T @ np.full(192, 1 / np.sqrt(192))))
    model = ArrayFunction(lambda x: x.reshape(len(x), -1) @ P, name="proj48")
    res = run_synbench(model, shape="3x8x8", epsilons=[0.0])
    for a_T in (0.7, 0.9):
        assert score_at(res, 0.0, a_T) == pytest.approx(analytic_score(c, a_T), abs=0.03)
    assert score_at(res, 0.0, 0.7) < 0.8  # lower than the identity (0.955 at this d, n)


def test_projection_orthogonal_to_the_signal_scores_zero():
    rng = np.random.default_rng(1)
    u = np.full(48, 1 / np.sqrt(48))
    Q = np.linalg.qr(rng.normal(size=(48, 8)) - np.outer(u, u @ rng.normal(size=(48, 8))))[0]
    Q -= np.outer(u, u @ Q)  # rows ⟂ 1_d
    res = run_synbench(ArrayFunction(lambda x: x.reshape(len(x), -1) @ Q, name="perp"), shape="48",
                       levels=[0.5, 1.0, 2.0, 4.0], n=512, n_test=512)
    assert max(s["score"] for s in res.data["scores"]) == 0.0


def test_added_noise_lowers_the_score_monotonically():
    """V9: identity + N(0, σ²I) noise keeps c = 1/sqrt(1+σ²) of the signal: scores fall with σ, near V5."""
    scores, levels = [], list(S_GRID[::2])
    for sigma in (0.0, 0.5, 1.0, 2.0):
        rng = np.random.default_rng(7)
        model = ArrayFunction(lambda x, r=rng, sd=sigma: x.reshape(len(x), -1) + sd * r.normal(size=(len(x), 16)),
                              name=f"noise{sigma}")
        res = run_synbench(model, shape="16", epsilons=[0.0], levels=levels)
        scores.append(score_at(res, 0.0, 0.7))
        assert scores[-1] == pytest.approx(analytic_score(1 / np.sqrt(1 + sigma**2), 0.7, levels), abs=0.03)
    assert all(a > b for a, b in zip(scores, scores[1:]))


def test_affine_invariance_and_eps_profile_of_an_anisotropic_map():
    """V6: a full-rank linear map gives the identity's ε = 0 score (LDA is affine invariant) and, being
    anisotropic, loses score for ε > 0; scaling the features changes nothing (relative ε)."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(16, 16)) * np.exp(rng.normal(size=16))
    small = {"shape": "16", "levels": list(S_GRID[::2]), "epsilons": [0.0, 0.3, 0.4, 0.6, 0.8]}
    base = run_synbench(Identity(), **small)
    mapped = run_synbench(ArrayFunction(lambda x: x.reshape(len(x), -1) @ A.T, name="A"), **small)
    scaled = run_synbench(ArrayFunction(lambda x: 1e3 * x.reshape(len(x), -1) @ A.T, name="1000A"), **small)
    assert score_at(mapped, 0.0, 0.7) == pytest.approx(score_at(base, 0.0, 0.7), abs=1e-9)
    assert all(score_at(mapped, e, 0.7) < score_at(mapped, 0.0, 0.7) for e in (0.4, 0.6, 0.8))
    for e in (0.0, 0.3, 0.8):
        assert score_at(scaled, e, 0.7) == pytest.approx(score_at(mapped, e, 0.7), abs=1e-9)


def test_translation_and_normalisation_do_not_change_a_linear_representation():
    base = run_synbench(Identity(), shape="3x4x4", levels=[0.5, 1.0, 2.0], n=512, n_test=512)
    for extra in ({"translation": "none"}, {"normalize": "imagenet"}):
        other = run_synbench(Identity(), shape="3x4x4", levels=[0.5, 1.0, 2.0], n=512, n_test=512, **extra)
        assert score_at(other, 0.0, 0.7) == pytest.approx(score_at(base, 0.0, 0.7), abs=1e-6)


# --- probe against the population theory, and its negative controls -------------------------------------
def _anisotropic_sample(n: int, seed: int):
    rng = np.random.default_rng(seed)
    d = 6
    A = rng.normal(size=(d, d))
    sigma = A @ A.T / d + 0.2 * np.eye(d)
    mu = rng.normal(size=d)
    mu *= 2.0 / np.sqrt(mu @ np.linalg.solve(sigma, mu))
    L = np.linalg.cholesky(sigma)

    def draw():
        y = np.where(rng.random(n) < 0.5, 1, -1)
        return y[:, None] * mu + rng.normal(size=(n, d)) @ L.T, y

    return mu, sigma, (*draw(), *draw())


def _probe_matches_theory(n: int = 50_000) -> bool:
    mu, sigma, data = _anisotropic_sample(n, 0)
    eps = [0.0, 0.3, 0.6]
    points, _ = probe(*data, eps)
    ok = True
    for p in points:
        a, b = gaussian_point(mu, sigma, p.epsilon)
        ok &= abs(p.accuracy - a) < 4 * np.sqrt(a * (1 - a) / n) and abs(p.margin - b) / b < 0.01
    return bool(ok)


def test_probe_matches_theorem9_on_large_gaussian_samples():
    assert _probe_matches_theory()


def test_total_instead_of_pooled_covariance_fails_the_theory_check(monkeypatch):
    """Wrong pooling: the covariance of all training points (class means not removed) adds μ̃μ̃ᵀ, which moves
    the relative-ε classifiers off the Bayes ones."""
    right = probe_module.fit_gaussian

    def total_covariance(Z, y, denominator="n-2", cutoff=1e-6):
        fit = right(Z, y, denominator, cutoff)
        lam, vecs = np.linalg.eigh(np.cov(Z, rowvar=False))
        fit.eigen = Eigen(lam, vecs)
        return fit

    monkeypatch.setattr(probe_module, "fit_gaussian", total_covariance)
    assert not _probe_matches_theory()


def test_swapped_classes_fail_the_identity_check():
    """Wrong: the class with mean +μ̃ taken as −1 -> the classifier points the other way, score 0 (not ≈ 1)."""
    rng = np.random.default_rng(0)
    scores = {}
    for name, flip in (("right", 1), ("swapped", -1)):
        acc, bnd = [], []
        for s in S:
            def draw(n, s=s):
                y = np.where(rng.random(n) < 0.5, 1, -1)
                return y[:, None] * (s / 4) + rng.normal(size=(n, 16)), y
            Ztr, ytr = draw(2048)
            Zte, yte = draw(2048)
            (pt,), _ = probe(Ztr, flip * ytr, Zte, yte, [0.0])
            acc.append(pt.accuracy)
            bnd.append(np.nan if pt.margin is None else pt.margin)
        scores[name] = synbench_score(acc, bnd, *reference_identity(S), 0.7, "exact")
    assert scores["right"] > 0.97 and scores["swapped"] == 0.0


def test_gram_path_equals_the_covariance_path():
    """d' > n uses the n×n Gram matrix: same eigenvalues and classifier as the d'×d' covariance."""
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(30, 50))
    y = np.where(np.arange(30) % 2 == 0, 1, -1)
    fit = fit_gaussian(Z, y)
    X = np.vstack([Z[y == 1] - Z[y == 1].mean(0), Z[y != 1] - Z[y != 1].mean(0)])
    lam = np.linalg.eigvalsh(X.T @ X / 28)
    np.testing.assert_allclose(np.sort(fit.eigen.lam), np.sort(lam[lam > 1e-6]), rtol=1e-9)
    assert fit.eigen.rank == 28
    np.testing.assert_allclose(fit.eigen.vecs.T @ fit.eigen.vecs, np.eye(28), atol=1e-9)
