"""The saved predictor: JSON forest equals scikit-learn, round trip, error bars that cover, bad files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.benchmarks.asr_predict import predictor as PR
from robust.plugins.benchmarks.asr_predict.constants import FEATURE_KEYS
from robust.plugins.benchmarks.asr_predict.regressors import make_regressor
from robust.plugins.benchmarks.asr_predict.table import write_table
from tests.asr_predict.conftest import synthetic_table


@pytest.fixture(scope="module")
def fitted():
    table = synthetic_table("transfer", n_families=5, per_variant=12, seed=1)
    return table, PR.fit_predictor(table, seed=0)


def test_json_forest_predicts_exactly_like_sklearn(fitted, tmp_path):
    table, pred = fitted
    forest = make_regressor("rf", 0).fit(table.X, table.y)
    X_new = np.random.default_rng(5).normal(0, 3, (50, 13))
    ours = np.array([p.asr for p in pred.predict(X_new)])
    np.testing.assert_allclose(ours, forest.predict(X_new), rtol=0, atol=1e-12)
    back = PR.load_predictor(pred.save(tmp_path / "p.json"))
    np.testing.assert_array_equal([p.asr for p in back.predict(X_new)], ours)
    assert back.errors == pred.errors and back.features == FEATURE_KEYS


def test_predict_accepts_mappings_and_reports_both_bases(fitted):
    table, pred = fitted
    row = dict(zip(FEATURE_KEYS, table.X[0]))
    unseen, known = pred.predict(row)[0], pred.predict(row, basis="known-corpus")[0]
    assert unseen.basis == "unseen-corpus" and unseen.asr == known.asr
    assert 0.0 <= unseen.low <= unseen.asr <= unseen.high <= 1.0
    assert unseen.error >= known.error  # a new corpus is harder than a known one
    with pytest.raises(RobustError, match="features missing"):
        pred.predict({"md": 1.0})
    with pytest.raises(RobustError, match="unknown error basis"):
        pred.predict(row, basis="oracle")


def test_known_corpus_interval_covers_fresh_data(fitted):
    """Intervals from cross-validated residuals cover about 95 % of new sub-datasets from the same corpora."""
    _, pred = fitted
    fresh = synthetic_table("transfer", n_families=5, per_variant=12, seed=1)  # same corpora...
    rng = np.random.default_rng(9)
    X = fresh.X + rng.normal(0, 0.3, fresh.X.shape)  # ...new sub-datasets
    y = 0.5 + 0.05 * X[:, 0] - 0.04 * X[:, 1] + rng.normal(0, 0.02, len(X))
    out = pred.predict(X, basis="known-corpus")
    assert np.mean([p.low <= t <= p.high for p, t in zip(out, y)]) >= 0.85


def test_unseen_corpus_interval_covers_what_the_known_corpus_one_misses():
    """Nested leave-one-corpus-out on features that only fingerprint the corpus. NEGATIVE CONTROL: the
    known-corpus error bar (k-fold residuals) applied to a new corpus covers almost nothing."""
    table = synthetic_table("fingerprint", n_families=5, per_variant=6, seed=0)
    unseen, known = [], []
    for family in np.unique(table.family):
        held = table.family == family
        pred = PR.fit_predictor(table.subset(np.flatnonzero(~held)), repeats=1)
        unseen += [p.low <= t <= p.high for p, t in zip(pred.predict(table.X[held]), table.y[held])]
        known += [p.low <= t <= p.high for p, t in zip(pred.predict(table.X[held], "known-corpus"), table.y[held])]
    assert np.mean(unseen) >= 0.5 and np.mean(known) <= 0.2


def test_fit_from_table_file(tmp_path):
    table = synthetic_table("fingerprint", n_families=3, per_variant=6)
    write_table(table, tmp_path / "t.csv")
    pred = PR.fit_from_table_file(tmp_path / "t.csv", tmp_path / "out" / "p.json", drop=["md"])
    assert "md" not in pred.features and (tmp_path / "out" / "p.json").is_file()
    assert pred.meta["rows"] == len(table) and set(pred.errors) == {"known-corpus", "unseen-corpus"}


@pytest.mark.parametrize("content, message", [
    ("not json", "invalid JSON"),
    (json.dumps({"format": "pickle"}), "expected format"),
    (json.dumps({"format": PR.FORMAT, "features": ["a"], "errors": {}, "trees": [
        {"left": [5], "right": [-1], "feature": [0], "threshold": [0.0], "value": [0.1]}]}), "corrupt"),
])
def test_bad_predictor_files(tmp_path, content, message):
    path = tmp_path / "p.json"
    path.write_text(content)
    with pytest.raises(RobustError, match=message):
        PR.load_predictor(path)
