"""Splits, baselines, metrics, noise floor and the verdict; NEGATIVE CONTROL: leakage makes extrapolation look good."""

from __future__ import annotations

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.benchmarks.asr_predict import protocols as P
from robust.plugins.benchmarks.asr_predict import regressors as R
from tests.asr_predict.conftest import synthetic_table


def test_paper_interpolation_split_sizes_and_disjointness():
    splits = P.paper_interpolation_splits(437, n_splits=3, seed=0)
    for s in splits:
        assert (len(s.train), len(s.val), len(s.test)) == (262, 140, 35)  # docs/validation/asr_predict.md
        rows = np.concatenate([s.train, s.val, s.test])
        assert len(np.unique(rows)) == 437
    assert not np.array_equal(splits[0].test, splits[1].test)
    assert np.array_equal(P.paper_interpolation_splits(437, 1, seed=0)[0].test, splits[0].test)  # seeded


def test_repeated_kfold_tests_each_row_once_per_repeat():
    splits = P.repeated_kfold_splits(23, k=5, repeats=3, seed=0)
    assert len(splits) == 15
    counts = np.bincount(np.concatenate([s.test for s in splits]), minlength=23)
    assert (counts == 3).all()
    for s in splits:
        assert not set(s.test) & (set(s.train) | set(s.val))


def test_leave_one_group_out_has_no_leakage_unless_asked():
    groups = np.array(["a"] * 5 + ["b"] * 6 + ["c"] * 4)
    for s in P.leave_one_group_out_splits(groups, seed=0):
        held = set(groups[s.test])
        assert len(held) == 1 and not held & set(groups[np.concatenate([s.train, s.val])])
    for s in P.leave_one_group_out_splits(groups, seed=0, leak=2):
        assert len(set(s.test) & set(np.concatenate([s.train, s.val]))) == 2
    with pytest.raises(RobustError, match="at least 2"):
        P.leave_one_group_out_splits(["a", "a"])


def test_released_extrapolation_leaks_30_scored_rows():
    groups = np.array(["tweet_eval_emoji"] * 40 + ["banking77"] * 50 + ["dbpedia"] * 45 + ["ag_news"] * 35 + ["x"] * 9)
    for s in P.released_extrapolation_splits(groups, n_splits=20, seed=0):
        overlap = len(set(s.test) & set(s.train))  # leaked rows are trained on and still scored
        trained_corpus = set(groups[s.train[:-30]])
        # exactly 30, unless banking77 (listed twice) is the training corpus and so also a test corpus
        assert overlap == 30 or (trained_corpus == {"banking77"} and overlap >= 50)
        assert "x" not in set(groups[s.test]) and len(s.val) == 0
    with pytest.raises(RobustError, match="needs corpora"):
        P.released_extrapolation_splits(np.array(["a", "b"]))


def test_metrics_by_hand():
    y, pred = np.array([0.2, 0.4, 0.6, 0.8]), np.array([0.3, 0.4, 0.5, 0.8])
    m = R.metrics(y, pred)
    assert m["rmse"] == pytest.approx(np.sqrt(0.02 / 4))
    assert m["mae"] == pytest.approx(0.05)
    assert m["r2"] == pytest.approx(1 - 0.02 / 0.2)
    assert m["evs"] == pytest.approx(1 - np.var(y - pred) / np.var(y))
    assert m["mape"] == pytest.approx((0.1 / 0.2 + 0.1 / 0.6) / 4)


def test_baselines():
    y = np.array([0.2, 0.4, 0.9, 0.7])
    variants = np.array(["a", "a", "b", "b"])
    np.testing.assert_allclose(R.baseline_predict("global-mean", y, variants, np.array(["a", "c"])), [0.55, 0.55])
    np.testing.assert_allclose(R.baseline_predict("corpus-mean", y, variants, np.array(["b", "a", "c"])),
                               [0.8, 0.3, 0.55])  # unseen variant -> global mean
    with pytest.raises(RobustError, match="unknown baseline"):
        R.baseline_predict("median", y, variants, variants)
    with pytest.raises(RobustError, match="unknown regressor"):
        R.make_regressor("svm")


def test_models_learn_a_noiseless_linear_target():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 13))
    y = 0.5 + 0.1 * X[:, 0] - 0.05 * X[:, 3]
    for name in ("rf", "gb", "lr"):
        pred = R.fit_predict(name, X[:120], y[:120], X[120:160], y[120:160], X[160:])
        assert R.metrics(y[160:], pred)["r2"] > (0.999 if name == "lr" else 0.8), name


def test_optional_lightgbm_is_the_authors_booster_or_a_clear_error():
    X = np.random.default_rng(1).normal(size=(300, 13))
    y = 0.5 + 0.1 * X[:, 0]
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        from robust.core.errors import MissingResource

        with pytest.raises(MissingResource, match="pip install lightgbm"):
            R.make_regressor("lgbm")
        return
    assert R.make_regressor("lgbm").get_params()["max_bin"] == 400
    pred = R.fit_predict("lgbm", X[:180], y[:180], X[180:240], y[180:240], X[240:])
    assert R.metrics(y[240:], pred)["r2"] > 0.8


def test_noise_floors_by_hand():
    out = P.binomial_noise_floor(np.full((4, 3), 0.5), n_examples=100)  # each attack: sd 0.05
    assert out["binomial_low"] == pytest.approx(np.sqrt(3 * 0.05**2) / 3)
    assert out["binomial_high"] == pytest.approx(0.05)
    assert P.repeat_noise_floor([[0.5, 0.7], [0.2, 0.2, 0.2]]) == pytest.approx(np.sqrt(0.02 / 3))
    assert P.within_group_sd(np.array([1.0, 3.0, 5.0, 5.0]), ["a", "a", "b", "b"]) == pytest.approx(np.sqrt(2 / 2))
    with pytest.raises(RobustError):
        P.repeat_noise_floor([[0.5]])


def test_leakage_negative_control_and_verdicts():
    """Features that only fingerprint the corpus: leave-one-corpus-out is no better than the global mean, but the
    same folds with 10 leaked rows of the held-out corpus look excellent. Features that transfer: the verdict
    says they beat the baselines."""
    fingerprint = synthetic_table("fingerprint")
    clean = P.evaluate(fingerprint, P.leave_one_group_out_splits(fingerprint.family, 0), ("rf",), protocol="loco")
    leaky = P.evaluate(fingerprint, P.leave_one_group_out_splits(fingerprint.family, 0, leak=10), ("rf",),
                       protocol="leaky loco")
    assert leaky.pooled("rf")["rmse"] < 0.5 * clean.pooled("rf")["rmse"]
    assert clean.pooled("rf")["rmse"] > clean.pooled("global-mean")["rmse"] - 0.02
    kfold = P.evaluate(fingerprint, P.repeated_kfold_splits(len(fingerprint), 5, 2, 0), ("rf",), protocol="kfold")
    v = P.verdict([(kfold, fingerprint.variant), (clean, fingerprint.family)], P.noise_floor(fingerprint), "rf")
    assert not v.beats and "do NOT beat" in v.text()

    transfer = synthetic_table("transfer")
    runs = [(P.evaluate(transfer, P.repeated_kfold_splits(len(transfer), 5, 2, 0), ("lr",)), transfer.variant),
            (P.evaluate(transfer, P.leave_one_group_out_splits(transfer.family, 0), ("lr",)), transfer.family)]
    v = P.verdict(runs, P.noise_floor(transfer), "lr")
    assert v.beats and all(c.high < 0 for c in v.comparisons)


def test_summary_reports_mean_variance_and_std():
    t = synthetic_table("transfer", n_families=3, per_variant=6)
    r = P.evaluate(t, P.paper_interpolation_splits(len(t), 4, 0), ("lr",))
    s = r.summary("lr")
    values = np.array([m["rmse"] for m in r.per_split["lr"]])
    assert (s["rmse_mean"], s["rmse_var"], s["rmse_std"]) == pytest.approx((values.mean(), values.var(), values.std()))
