"""Numbers that say what they cover: t intervals over a few trials, ε* against the grid, the lossless reference of
the model's width (the probe's own finite-sample loss), the width warning of `compare`, and the registered
DataGenerator and Scorers behind the benchmark (records as the direct computation gives them)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robust.core.context import RunContext
from robust.core.plugins import get_registry
from robust.core.results import Result
from robust.plugins.benchmarks.synbench.benchmark import SynBench
from robust.plugins.benchmarks.synbench.compare import compare_results
from robust.plugins.benchmarks.synbench.data import GaussianSampler, GaussianSpec
from robust.plugins.benchmarks.synbench.lossless import lossless_sample, noise_block
from robust.plugins.benchmarks.synbench.probe import probe
from robust.plugins.benchmarks.synbench.report import headline
from robust.plugins.benchmarks.synbench.trials import choose_eps
from robust.plugins.models.arrays import Identity, RandomProjection
from robust.toolkit.stats import mean_interval, welch_separable
from tests.synbench.conftest import run_synbench

SMALL = {"levels": [0.5, 1.0, 2.0, 3.0], "n": 256, "n_test": 256, "epsilons": [0.0, 0.4, 0.8]}


def test_t_interval_on_three_values():
    m = mean_interval([1.0, 2.0, 3.0])
    assert (m.mean, m.sd, m.n) == (2.0, 1.0, 3)
    assert m.halfwidth == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)  # t_{0.975, 2} = 4.3027
    assert m.halfwidth / (1.959964 * m.se) == pytest.approx(2.195, abs=1e-3)  # 2.2 x the normal interval
    one = mean_interval([0.9])
    assert one.mean == 0.9 and math.isnan(one.low) and math.isnan(one.sd)  # one trial: no interval


def test_t_interval_covers_its_level_where_the_normal_one_does_not():
    """Negative control: mean ± 1.96 sd/√3 over three draws covers the true mean only ~88 % of the time."""
    draws = np.random.default_rng(0).normal(0.5, 0.01, size=(4000, 3))
    t_cover = np.mean([mean_interval(d).low <= 0.5 <= mean_interval(d).high for d in draws])
    se = draws.std(1, ddof=1) / math.sqrt(3)
    z_cover = np.mean(np.abs(draws.mean(1) - 0.5) <= 1.959964 * se)
    assert 0.935 <= t_cover <= 0.965 and z_cover < 0.9


def test_welch_separates_only_beyond_noise():
    a, b = mean_interval([0.90, 0.91, 0.92]), mean_interval([0.80, 0.81, 0.82])
    assert welch_separable(a, b) is True
    assert welch_separable(a, mean_interval([0.89, 0.91, 0.93])) is False
    assert welch_separable(a, mean_interval([0.8])) is None  # one trial: not tested


def test_eps_star_names_the_grid_edge_and_the_eps_within_noise():
    rising = [{0.0: 0.90 + d, 0.4: 0.93 + d, 0.8: 0.95 + d} for d in (0.0, 0.004, -0.003)]
    edge = choose_eps(rising)
    assert edge.best == 0.8 and edge.edge == "upper" and "largest ε of the grid" in edge.text()
    peaked = [{0.0: 0.90 + d, 0.2: 0.95 + d, 0.4: 0.949 + 2 * d, 0.8: 0.93 + d} for d in (0.0, 0.01, -0.01)]
    inner = choose_eps(peaked)
    assert inner.best == 0.2 and inner.edge == "" and inner.within_noise == (0.2, 0.4) and "step 0.2" in inner.text()
    assert choose_eps([peaked[0]]).within_noise is None and "one trial" in choose_eps([peaked[0]]).text()


def test_bartlett_noise_has_the_wishart_moments_of_the_wide_draws():
    """L Lᵀ ~ Wishart(m, I): diagonal mean m (variance 2m), off-diagonal mean 0 (variance m). Negative controls:
    a diagonal factor (no off-diagonal terms) and χ²_m on every row (no decreasing degrees of freedom) fail."""
    rng = np.random.default_rng(0)
    rows, m, reps = 6, 40, 3000
    assert noise_block(rows, rows - 2, rng).shape == (rows, rows - 2)  # narrow: the draws themselves
    gram = lambda L: L @ L.T  # noqa: E731
    grams = np.array([gram(noise_block(rows, m, rng)) for _ in range(reps)])
    diag, off = grams[:, np.arange(rows), np.arange(rows)], grams[:, 0, 1:]
    assert np.abs(diag.mean(0) - m).max() < 4 * math.sqrt(2 * m / reps)
    assert abs(off.mean()) < 4 * math.sqrt(m / (reps * (rows - 1))) and off.var() == pytest.approx(m, rel=0.1)
    only_diag = np.array([gram(np.diag(np.sqrt(rng.chisquare(m - np.arange(rows))))) for _ in range(reps)])
    assert only_diag[:, 0, 1:].var() == 0.0  # wrong: rows of noise would be orthogonal
    same_dof = np.array([gram(np.tril(rng.standard_normal((rows, rows)), -1) + np.diag(np.sqrt(rng.chisquare(m, rows))))
                         for _ in range(reps)])
    assert same_dof[:, rows - 1, rows - 1].mean() - m > 4 * math.sqrt(2 * m / reps)  # wrong: row i gains i terms


def test_lossless_sample_beyond_n_matches_wide_draws_through_the_probe():
    """The probe sees a lossless representation of width 80 the same through 1 + N Bartlett columns (N = 32) as
    through 80 columns of draws: mean accuracy and scaled bound agree within sampling error."""
    def readout(draw, reps=250):
        rng = np.random.default_rng(7)
        out = []
        for _ in range(reps):
            z, y = draw(rng)
            pts, _ = probe(z[:16], y[:16], z[16:], y[16:], [0.0])
            out.append((pts[0].accuracy, pts[0].margin if pts[0].margin is not None else np.nan))
        return np.array(out)

    def wide(rng):
        y = np.where(rng.random(32) < 0.5, 1, -1)
        return np.column_stack([y * 1.0 + rng.standard_normal(32), rng.standard_normal((32, 79))]), y

    a, b = readout(wide), readout(lambda rng: lossless_sample(1.0, 80, 32, rng))
    assert lossless_sample(1.0, 80, 32, np.random.default_rng(0))[0].shape == (32, 33)
    se = math.sqrt(a[:, 0].var() / len(a) + b[:, 0].var() / len(b))
    assert abs(a[:, 0].mean() - b[:, 0].mean()) < 4 * se
    se_m = math.sqrt(np.nanvar(a[:, 1]) / len(a) + np.nanvar(b[:, 1]) / len(b))
    assert abs(np.nanmean(a[:, 1]) - np.nanmean(b[:, 1])) < 4 * se_m


def test_identity_reaches_the_lossless_reference_and_a_projection_does_not():
    ident = run_synbench(Identity(), shape="3x8x8", trials=3, **SMALL)
    s = ident.summary
    assert s["lossless_width"] == 192 and 0.3 < s["lossless_score"] < 0.9  # n = 256: the probe loses a lot
    assert s["score_ci_low"] <= s["lossless_score"] * 1.03 and s["score_vs_lossless"] == pytest.approx(1, abs=0.1)
    proj = run_synbench(RandomProjection("48"), shape="3x8x8", trials=3, **SMALL).summary
    assert proj["lossless_width"] == 48 and proj["score_vs_lossless"] < 0.85  # c ≈ 0.5: information lost
    text = headline(ident)
    assert "finite-sample loss" in text and "keeps" not in text and "95 % CI" in text and "3 trials" in text


def test_headline_and_interval_say_what_they_cover():
    one = run_synbench(Identity(), shape="16", **SMALL)
    assert "one trial: no interval" in headline(one) and "score_ci_low" not in one.summary
    three = run_synbench(RandomProjection("8"), shape="16", trials=3, **SMALL).summary
    assert "3 trials" in three["score_interval"] and "its own seed (0)" in three["score_interval"]


def _result(dim: int, score: float, lossless: float) -> Result:
    summary = {"score": score, "score_sd": 0.005, "trials": 3, "dim": dim, "lossless_score": lossless, "n": 2048,
               "n_test": 2048, "a_T": 0.7, "epsilon": 0.0, "shape": "3x8x8"}
    return Result(summary, [], {"scores": [], "a_T": 0.7})


def test_compare_warns_for_192_against_768_and_not_for_equal_widths():
    narrow, wide = _result(192, 0.956, 0.956), _result(768, 0.843, 0.843)
    mixed = compare_results([("a", wide), ("b", narrow)])
    assert "widths differ (192, 768)" in mixed.summary["width_warning"]
    assert mixed.summary["ranked_by"] == "score / lossless" and mixed.summary["within noise"] == ["a vs b"]
    raw = compare_results([("a", _result(192, 0.956, 0.956)), ("b", _result(192, 0.843, 0.956))])
    assert "width_warning" not in raw.summary and raw.summary["ranking"] == ["a", "b"]
    old = compare_results([("a", _result(192, 0.956, None)), ("b", _result(768, 0.843, None))])
    assert "rerun every run with --set lossless=true" in old.summary["width_warning"]
    one = compare_results([("a", Result({"score": 0.9, "trials": 1, "dim": 8}, [], {}))])
    assert one.tables[0].rows[0][3] == "none: 1 trial"  # not None


def test_records_come_through_the_registered_generator_and_scorer(monkeypatch):
    """The benchmark creates `synbench-gaussians` and `synbench-reference` through the run context, and its record
    holds what drawing with the sampler and probing directly give (the records of earlier versions)."""
    created = []
    original = RunContext.create

    def spy(self, kind, name, **config):
        created.append((kind, name))
        return original(self, kind, name, **config)

    monkeypatch.setattr(RunContext, "create", spy)
    bench = SynBench(shape="3x4x4", levels=[1.0], n=64, n_test=64, epsilons=[0.0, 0.4], memory_mb=16)
    ctx = RunContext("t", 5, Identity(), get_registry())
    bench.prepare(ctx)
    record = bench.run_item(bench.items(ctx)[0], ctx)
    assert ("dataset", "synbench-gaussians") in created and ("scorer", "synbench-reference") in created
    sampler = GaussianSampler(GaussianSpec((3, 4, 4)))
    xtr, ytr = next(sampler.draw(1.0, 64, 5, 0, "train"))
    xte, yte = next(sampler.draw(1.0, 64, 5, 0, "test"))
    points, rank = probe(xtr.reshape(64, -1), ytr, xte.reshape(64, -1), yte, [0.0, 0.4])
    assert record["points"] == [{"epsilon": p.epsilon, "accuracy": p.accuracy, "margin": p.margin} for p in points]
    assert record["rank"] == rank and record["n_pos_train"] == int((ytr == 1).sum())
    bench.reduce({"t0-s1.00": record}, ctx)
    assert ("scorer", "synbench-score") in created


def test_limit_says_what_it_limits():
    text = SynBench(levels=[1.0, 2.0], trials=2).describe_limit(1)
    assert text.startswith("--limit 1: 16 training and 16 test samples per level") and "2 levels x 2 trial" in text
