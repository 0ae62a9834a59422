"""Scoring (Ko et al. 2023, §2.3-2.4; docs/syntextbench.md) against closed forms on synthetic Gaussian embeddings
(docs/validation/syntextbench.md)."""

from __future__ import annotations

import numpy as np
import pytest

from robust.plugins.benchmarks.syntextbench.scoring import (
    crossfit_point,
    energy_rank,
    fit_whitener,
    fold_ids,
    gaussian_accuracy,
    goodness,
    read_out,
    reference_margin,
    score_replicates,
    syntextbench_score,
    task_point,
)
from robust.toolkit.stats import interval


def gaussian_task(D: float, n: int, d: int, rng, transform=None):
    """Classes N(±(D/2)e_1, I_d), optionally mapped by an invertible linear transform."""
    mu = np.zeros(d)
    mu[0] = D / 2

    def draw(m):
        y = np.repeat([1, -1], m // 2)
        Z = rng.normal(size=(len(y), d)) + np.outer(y, mu)
        return (Z if transform is None else Z @ transform.T), y

    return (*draw(n), *draw(n))


@pytest.mark.parametrize("D", [0.5, 1.0, 2.0, 3.0])
def test_gaussian_closed_form(D):
    """a ≈ Φ(D/2) and δ ≈ δ_ref(a) within Monte-Carlo error (δ_ref: Ko 2024, Theorem 9 (iv) with Σ = I). The
    embeddings are rotated and scaled: the score is invariant to similarity transforms (not to anisotropic ones,
    since d_inter/d_intra is measured in the original space, Ko et al. 2023, §2.3). d is small against m = 20,000 per
    class so that the top eigenvalue's sampling excess (about 2·sqrt(d/m), which squeezes test points along
    u = e_1) stays below the Monte-Carlo error."""
    rng = np.random.default_rng(int(D * 10))
    n, d = 40000, 4
    A = 2.5 * np.linalg.qr(rng.normal(size=(d, d)))[0]
    pt = task_point(*gaussian_task(D, n, d, rng, A), energy=1.0)
    a = gaussian_accuracy(D)
    assert abs(pt.accuracy - a) < 4 * np.sqrt(a * (1 - a) / n)
    assert pt.margin == pytest.approx(float(reference_margin(a)), rel=0.04)
    assert pt.separation == pytest.approx(D, abs=0.05) and pt.k == d


def test_reference_values_of_spec_table():
    assert [round(float(reference_margin(a)), 3) for a in (0.6, 0.7, 0.9)] == [3.542, 1.947, 1.152]
    assert gaussian_accuracy(2.0) == pytest.approx(0.841, abs=1e-3)
    assert np.isnan(reference_margin(0.5)) and float(reference_margin(1.0)) == 1.0


def test_closed_form_score_equals_numerical_integral():
    rng = np.random.default_rng(0)
    acc = rng.uniform(0.45, 1.0, size=20)
    mar = rng.uniform(0.5, 3.0, size=20)
    for a_T in (0.6, 0.7, 0.9):
        grid = np.linspace(a_T, 1.0, 200001)
        s = goodness(grid, acc, mar)
        riemann = float(np.sum((s[:-1] + s[1:]) / 2 * np.diff(grid)))
        assert syntextbench_score(acc, mar, a_T) == pytest.approx(riemann, abs=1e-5)
    # s(a) is a non-increasing step function and tasks below a_T contribute nothing
    s = goodness(np.linspace(0, 1, 101), acc, mar)
    assert np.all(np.diff(s) <= 1e-12)
    assert syntextbench_score([0.69, 0.5], [5.0, 9.0], 0.7) == 0.0


def test_energy_rank_and_whitening():
    assert energy_rank(np.array([0.9, 0.09, 0.01]), 0.99) == 2
    assert energy_rank(np.array([0.5, 0.5]), 0.99) == 2
    assert energy_rank(np.zeros(3), 0.99) == 1
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(5000, 6)) @ rng.normal(size=(6, 6)) + 3.0
    w = fit_whitener(Z, 1.0)
    H = (Z - w.mean) @ w.matrix(w.k).T
    assert np.allclose(np.cov(H, rowvar=False), np.eye(6), atol=1e-8)


def test_uninformative_embeddings_score_near_zero():
    rng = np.random.default_rng(2)
    Z, y = rng.normal(size=(2000, 16)), np.repeat([1, -1], 1000)
    Zt, yt = rng.normal(size=(2000, 16)), np.repeat([1, -1], 1000)
    pts = [task_point(Z, y, Zt, yt) for _ in range(3)]
    assert all(abs(p.accuracy - 0.5) < 0.05 for p in pts)
    assert syntextbench_score([p.accuracy for p in pts], [p.margin for p in pts], 0.7) == 0.0


def test_scaling_variants():
    rng = np.random.default_rng(3)
    d = 8
    data = gaussian_task(2.0, 4000, d, rng)
    ratio = task_point(*data, energy=1.0, scaling="ratio")
    literal = task_point(*data, energy=1.0, scaling="literal")
    pooled = task_point(*data, energy=1.0, scaling="pooled")
    # literal D = d_inter/d_intra ≈ 2/sqrt(d): near chance (docs/syntextbench.md, setting `scaling`)
    assert literal.separation == pytest.approx(2.0 / np.sqrt(d), rel=0.1)
    assert literal.accuracy < ratio.accuracy
    assert pooled.accuracy == pytest.approx(gaussian_accuracy(2.0), abs=0.03)
    random_u = task_point(*data, energy=1.0, direction=rng.normal(size=d))
    assert random_u.accuracy == pytest.approx(ratio.accuracy, abs=0.03)
    with pytest.raises(ValueError):
        task_point(*data, scaling="bogus")


def test_debias_removes_sampling_separation_of_text_independent_vectors():
    """||b_1 - b_-1|| of two samples of the same distribution is ~sqrt(tr Σ (1/m_1 + 1/m_-1)), not 0; the
    debiased estimate is ~0, and it leaves a real separation almost unchanged."""
    rng = np.random.default_rng(4)
    m, d = 115, 384
    Z, y = rng.normal(size=(2 * m, d)), np.repeat([1, -1], m)
    Zt = rng.normal(size=(2 * m, d))
    literal = task_point(Z, y, Zt, y, debias=False)
    debiased = task_point(Z, y, Zt, y, debias=True)
    assert literal.d_inter == pytest.approx(np.sqrt(2 * d / m), rel=0.1)
    assert debiased.d_inter < 0.3 * literal.d_inter and debiased.separation < literal.separation
    real = gaussian_task(2.0, 20000, 8, rng)
    assert task_point(*real, energy=1.0, debias=True).separation == pytest.approx(2.0, abs=0.05)


# --- cross-fitting, the bootstrap interval, invariances ------------------------------------------------------
def test_folds_are_stratified_contiguous_blocks():
    y = np.array([1, -1] * 10 + [1] * 5)
    f = fold_ids(y, 5)
    for c in (1, -1):
        assert list(f[y == c]) == sorted(f[y == c])  # contiguous blocks in data order
        assert set(np.bincount(f[y == c])) <= {2, 3}  # balanced per class


def test_crossfit_holds_every_point_out_once_and_keeps_the_closed_form():
    rng = np.random.default_rng(5)
    Ztr, ytr, Zte, yte = gaussian_task(2.0, 8000, 4, rng)
    Z, y = np.vstack([Ztr, Zte]), np.concatenate([ytr, yte])
    point = crossfit_point(Z, y, 10, energy=1.0)
    assert sum(len(m) for m in point.margins) == len(y)
    a = gaussian_accuracy(2.0)
    assert abs(point.accuracy - a) < 4 * np.sqrt(a * (1 - a) / len(y))
    assert point.margin == pytest.approx(float(reference_margin(a)), rel=0.03)
    assert read_out(point.margins) == (point.accuracy, point.margin)


def test_similarity_invariance_and_no_hidden_normalisation():
    """The score is a function of the embedding geometry as given (Ko et al. 2023, §3: no normalisation): translating,
    rotating or rescaling all vectors leaves it unchanged, while L2-normalising them is a different embedding.
    Here the classes differ in vector length only (class means u and 3u), which normalisation removes."""
    rng = np.random.default_rng(6)
    d, m = 6, 600
    y = np.repeat([1, -1], m)
    u = np.eye(d)[0]
    Z = np.where(y == 1, 1.0, 3.0)[:, None] * (u + 0.1 * rng.normal(size=(2 * m, d)))
    base = crossfit_point(Z, y, 10)
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    moved = crossfit_point(7.5 * Z @ Q.T + 3.0, y, 10)
    assert moved.accuracy == base.accuracy and moved.margin == pytest.approx(base.margin, rel=1e-6)
    normalised = crossfit_point(Z / np.linalg.norm(Z, axis=1, keepdims=True), y, 10, debias=True)
    assert base.accuracy > 0.95 and normalised.accuracy < 0.6


def gaussian_levels(D_values, m, d, seed):
    rng = np.random.default_rng(seed)
    return [(0, crossfit_point(np.vstack(t[::2]), np.concatenate(t[1::2]), 5, energy=1.0).margins)
            for t in (gaussian_task(D, m, d, rng) for D in D_values)]


def score_of(tasks, a_T=0.7):
    return float(np.mean([syntextbench_score(*zip(read_out(m)), a_T) for _, m in tasks]))


@pytest.fixture(scope="module")
def replications():
    """100 independent draws of a 3-level task family; the mean score over them is the estimator's expectation."""
    draws = [gaussian_levels((1.2, 2.0, 3.0), 200, 3, seed) for seed in range(100)]
    return draws, float(np.mean([score_of(t) for t in draws]))


def coverage(interval_fn, replications):
    draws, truth = replications
    return np.mean([lo <= truth <= hi for lo, hi in (interval_fn(t, s) for s, t in enumerate(draws))])


def bootstrap_interval(tasks, seed):
    ci = interval(score_replicates(tasks, 0.7, 300, seed))
    return ci.low, ci.high


def test_bootstrap_interval_covers_the_expected_score(replications):
    """The percentile bootstrap over held-out sentences covers the mean score of independent corpora at about
    its nominal 95 %; two wrong intervals fail the same check (negative controls)."""
    assert 0.88 <= coverage(bootstrap_interval, replications) <= 1.0

    def no_resampling(tasks, seed):  # the point estimate as a zero-width interval
        s = score_of(tasks)
        return s, s

    def divided_by_levels(tasks, seed):  # the interval narrowed by the number of levels: far too narrow
        lo, hi = bootstrap_interval(tasks, seed)
        mid, half = (lo + hi) / 2, (hi - lo) / 2 / len(tasks)
        return mid - half, mid + half

    assert coverage(no_resampling, replications) < 0.2
    assert coverage(divided_by_levels, replications) < 0.8


# --- negative controls: a wrong variant of each formula fails the check the right one passes ----------------
from robust.plugins.benchmarks.syntextbench import scoring  # noqa: E402


def closed_form_holds(point_fn, D=2.0, seed=11) -> bool:
    """The Gaussian closed-form check: on N(±(D/2)u, Σ_y) with different class covariances, a = Φ(D/2) and
    δ = δ_ref(a)."""
    rng = np.random.default_rng(seed)
    n, d = 30000, 4
    scale = {1: np.array([3.0, 1.0, 0.5, 2.0]), -1: np.array([0.5, 2.0, 1.0, 1.0])}  # anisotropic, unequal

    def draw():
        y = np.repeat([1, -1], n // 2)
        Z = rng.normal(size=(n, d)) * np.array([scale[c] for c in y])
        return Z + np.outer(y, [D, 0, 0, 0]) / 2, y

    point = point_fn(*draw(), *draw())
    a = gaussian_accuracy(point.separation)
    return abs(point.accuracy - a) < 4 * np.sqrt(a * (1 - a) / n) and \
        abs(point.margin / float(reference_margin(a)) - 1) < 0.04


def test_closed_form_check_rejects_wrong_margins_signs_and_swapped_classes(monkeypatch):
    assert closed_form_holds(lambda *t: task_point(*t, energy=1.0))

    def unsquared(train, test):  # [P] Alg. 1 line 7's typo: divide by ||μ̃|| instead of ||μ̃||²
        mt = (train[1].mean(0) - train[-1].mean(0)) / 2
        return tuple(x * np.sqrt(mt @ mt) for x in right(train, test))

    def flipped(train, test):  # classifier sign flipped: sign(-μ̃^T (ẑ - mid))
        return tuple(-x for x in right(train, test))

    right = scoring._signed_margins
    for wrong in (unsquared, flipped):
        monkeypatch.setattr(scoring, "_signed_margins", wrong)
        assert not closed_form_holds(lambda *t: task_point(*t, energy=1.0)), wrong.__name__
    monkeypatch.setattr(scoring, "_signed_margins", right)

    def swapped_classes(Ztr, ytr, Zte, yte):  # test points transformed with the other class's T_y
        return task_point(Ztr, ytr, Zte, -yte, energy=1.0)

    assert not closed_form_holds(swapped_classes)


def null_holds(distances_fn, monkeypatch) -> bool:
    """The debias check: text-independent vectors (m = 115 per class, d = 384) get D ≈ 0 (< 30 % of the literal)."""
    monkeypatch.setattr(scoring, "_distances", distances_fn)
    rng = np.random.default_rng(4)
    Z, y = rng.normal(size=(230, 384)), np.repeat([1, -1], 115)
    debiased = task_point(Z, y, rng.normal(size=(230, 384)), y, debias=True)
    literal = task_point(Z, y, rng.normal(size=(230, 384)), y, debias=False)
    return debiased.d_inter < 0.3 * literal.d_inter


def test_debias_check_rejects_the_wrong_pooling_of_variances(monkeypatch):
    right = scoring._distances
    assert null_holds(right, monkeypatch)

    def pooled_wrongly(Z, means, debias):  # tr(Σ_pooled)/(m_1 + m_-1) instead of tr(Σ_1)/m_1 + tr(Σ_-1)/m_-1
        d_inter, d_intra = right(Z, means, False)
        if debias:
            pooled = np.vstack([Z[c] - means[c] for c in (1, -1)])
            d_inter = float(np.sqrt(max(d_inter**2 - pooled.var(0, ddof=1).sum() / len(pooled), 0.0)))
        return d_inter, d_intra

    assert not null_holds(pooled_wrongly, monkeypatch)


def integral_holds(score_fn) -> bool:
    rng = np.random.default_rng(0)
    acc, mar = rng.uniform(0.45, 1.0, size=20), rng.uniform(0.5, 3.0, size=20)
    grid = np.linspace(0.7, 1.0, 100001)
    s = goodness(grid, acc, mar)
    return abs(score_fn(acc, mar, 0.7) - float(np.sum((s[:-1] + s[1:]) / 2 * np.diff(grid)))) < 1e-5


def test_integral_check_rejects_wrong_closed_forms():
    assert integral_holds(syntextbench_score)
    wrong = {"threshold sign": lambda a, m, t: float(np.sum(m * np.clip(t - a, 0, None)) / len(a)),
             "from zero": lambda a, m, t: float(np.sum(m * a) / len(a)),
             "sum, not mean": lambda a, m, t: float(np.sum(m * np.clip(a - t, 0, None)))}
    assert not any(integral_holds(fn) for fn in wrong.values())
