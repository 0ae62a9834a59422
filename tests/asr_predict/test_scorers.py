"""The set-level Scorer plugins: registered, consistent with the pure functions, label mapping, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.plugins.benchmarks.asr_predict import charcnn, scorers
from robust.plugins.benchmarks.asr_predict import features as F


def _rows(n_per_class: int = 12, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for label, centre, word in (("neg", [2, 0, 0], "bad"), ("pos", [0, 2, 0], "good")):
        for i in range(n_per_class):
            rows.append({"text": f"a {word} film number {i}", "label": label,
                         "embedding": (rng.normal(centre, 0.2)).tolist(), "tokens": [101, 7 + i % 3, 102]})
    return rows


def test_all_fourteen_scorers_are_registered():
    names = set(get_registry().names("scorer"))
    expected = {"asr-avg-tokens", "asr-unique-tokens", "asr-min-tokens", "asr-max-tokens", "asr-md", "asr-fr",
                "asr-chi", "asr-dbi", "asr-clusters", "asr-pms", "asr-kts", "asr-mr", "asr-classes", "asr-features"}
    assert expected <= names


@pytest.mark.parametrize("mode", ["faithful", "fixed"])
def test_scorers_equal_pure_functions_on_normalised_embeddings(mode):
    rows = _rows()
    e = F.l2_normalize(np.array([r["embedding"] for r in rows]))
    y = np.array([0 if r["label"] == "neg" else 1 for r in rows])  # sorted class names: neg, pos
    assert scorers.FisherRatio(mode=mode).score(rows) == {"fr": pytest.approx(F.fisher_ratio(e, y, mode))}
    assert scorers.MeanDistance(mode=mode).score(rows) == {"md": pytest.approx(F.mean_distance(e, y, mode))}
    assert scorers.CalinskiHarabasz(mode=mode).score(rows) == {"chi": pytest.approx(F.calinski_harabasz(e, y, mode))}


def test_class_list_setting_controls_indices_and_classes():
    rows = _rows()
    # a 4-class corpus of which 2 classes are present: faithful MD gains zero rows, # classes = 4
    four = {"classes": ["neg", "mid", "pos", "other"]}
    assert scorers.NumberOfClasses(**four).score(rows) == {"classes": 4.0}
    assert scorers.MeanDistance(**four).score(rows) != scorers.MeanDistance().score(rows)
    assert scorers.NumberOfClasses(n_classes=5).score(rows) == {"classes": 5.0}
    counts = F.label_counts([0] * 12 + [2] * 12, 4)  # [12, 0, 12, 0]
    assert scorers.Kurtosis(**four).score(rows) == {"kts": pytest.approx(F.kurtosis(counts))}
    with pytest.raises(RobustError, match="not in the class list"):
        scorers.MeanDistance(classes=["neg"]).score(rows)


def test_token_scorers_use_row_tokens_or_the_model():
    rows = _rows()
    assert scorers.UniqueTokens().score(rows) == {"unique_tokens": 5.0}
    assert scorers.AvgTokens().score(rows) == {"avg_tokens": 3.0}

    class Tokenizer:
        def tokenize(self, texts):
            return [[len(w) for w in t.split()] for t in texts]

    plain = [{k: v for k, v in r.items() if k != "tokens"} for r in rows]
    assert scorers.MaxTokens().score(plain, Tokenizer()) == {"max_tokens": 5.0}
    with pytest.raises(RobustError, match="tokenize"):
        scorers.MinTokens().score(plain)


def test_test_rows_are_excluded_from_set_features_and_used_by_mr():
    rows = _rows()
    marked = [dict(r, split="test") if i % 4 == 0 else r for i, r in enumerate(rows)]
    train_only = [r for r in marked if r.get("split") != "test"]
    assert scorers.FisherRatio().score(marked) == scorers.FisherRatio().score(train_only)
    train, test = scorers.split_for_surrogate(marked, 0.1, 0)
    assert len(test) == 6 and all(r.get("split") == "test" for r in test)
    train, test = scorers.split_for_surrogate(rows, 0.25, 0)
    assert (len(train), len(test)) == (18, 6)
    with pytest.raises(RobustError, match="held-out"):
        scorers.split_for_surrogate(rows, 0.0, 0)


def test_mr_scorer_matches_charcnn_and_features_scorer_returns_13(monkeypatch):
    calls = []

    def fake_rate(train_texts, train_labels, test_texts, test_labels, k, mode, config, seed):
        calls.append((len(train_texts), len(test_texts), k, mode, config.filters))
        return 0.5

    monkeypatch.setattr(charcnn, "misclassification_rate", fake_rate)
    rows = _rows()
    assert scorers.MisclassificationRate(filters=8, holdout=0.25).score(rows) == {"mr": 0.5}
    assert calls[-1] == (18, 6, 2, "faithful", 8)
    out = scorers.DatasetFeatures(mode="fixed", n_classes=3).score(rows)
    assert tuple(out) == F.FEATURE_KEYS and out["classes"] == 3.0 and out["mr"] == 0.5
    assert calls[-1][2:4] == (3, "fixed")


@pytest.mark.parametrize("rows, message", [
    ([{"text": "a", "label": 0, "embedding": [1, 0]}, {"text": "b", "label": 1}], "no 'embedding'"),
    ([{"text": "a", "label": 0, "embedding": [1, 0]}, {"text": "b", "label": 1, "embedding": [1]}], "same length"),
    ([{"text": "a", "label": 0, "embedding": [1, 0], "split": "test"}], "training rows"),
])
def test_bad_rows_are_one_clear_error(rows, message):
    with pytest.raises(RobustError, match=message):
        scorers.FisherRatio().score(rows)


def test_unknown_mode_is_rejected():
    with pytest.raises(RobustError, match="feature mode"):
        scorers.FisherRatio(mode="released").score(_rows())
