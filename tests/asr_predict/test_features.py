"""The 13 features against values computed by hand on tiny datasets, with a wrong variant of each formula
(NEGATIVE CONTROL) that must miss the same hand value."""

from __future__ import annotations

from math import sqrt

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.benchmarks.asr_predict import features as F

# 6 sentences, 2 classes, 2-d embeddings (used as given; no normalisation in the pure functions).
# class 0: (0,0) (2,0) (1,3) -> centroid (1,1); class 1: (4,0) (6,0) (5,3) -> centroid (5,1)
E = np.array([[0, 0], [2, 0], [1, 3], [4, 0], [6, 0], [5, 3]], dtype=float)
Y = np.array([0, 0, 0, 1, 1, 1])
# global centroid m = (3,1); scalar mean of all entries g = 24/12 = 2 (the code's glb_mean)
# within distances: sqrt2, sqrt2, 2 per class; squared: 2, 2, 4 per class -> tr S_W = 16
# tr S_B = 3*|(1,1)-(3,1)|^2 + 3*|(5,1)-(3,1)|^2 = 24
SUM_WITHIN = 4 * sqrt(2) + 4
SUM_BETWEEN_FAITHFUL = 3 * sqrt(2) + 3 * sqrt(10)  # |(1,1)-(2,2)| = sqrt2, |(5,1)-(2,2)| = sqrt10
TOL = 1e-4  # the faithful mode adds torch's PairwiseDistance eps (1e-6)


def test_fisher_ratio_fixed_by_hand_and_swapped_control():
    assert F.fisher_ratio(E, Y, "fixed") == pytest.approx(24 / 16)
    # NEGATIVE CONTROL: within over between (swapped scatter) misses the hand value
    between, within = F._scatter_traces(E, Y)
    assert within / between != pytest.approx(24 / 16, rel=0.05)


def test_fisher_ratio_faithful_by_hand():
    assert F.fisher_ratio(E, Y, "faithful") == pytest.approx(SUM_BETWEEN_FAITHFUL / SUM_WITHIN, abs=TOL)
    # the code's scalar glb_mean differs from the centroid here: using the centroid (3,1) gives another value
    centroid_version = (3 * 2 + 3 * 2) / SUM_WITHIN
    assert F.fisher_ratio(E, Y, "faithful") != pytest.approx(centroid_version, rel=0.05)


def test_calinski_harabasz_both_modes_by_hand():
    n, k = 6, 2
    assert F.calinski_harabasz(E, Y, "fixed") == pytest.approx((24 / (k - 1)) / (16 / (n - k)))  # = 6
    from sklearn.metrics import calinski_harabasz_score

    assert F.calinski_harabasz(E, Y, "fixed") == pytest.approx(calinski_harabasz_score(E, Y))
    faithful = SUM_WITHIN / SUM_BETWEEN_FAITHFUL * (n - k) / (k - 1)
    assert F.calinski_harabasz(E, Y, "faithful") == pytest.approx(faithful, abs=TOL)
    # docs/asr_predict.md: in the released table CHI == (N-K) / ((K-1) FR) exactly
    assert F.calinski_harabasz(E, Y, "faithful") == pytest.approx((n - k) / ((k - 1) * F.fisher_ratio(E, Y)), rel=1e-9)


def test_mean_distance_by_hand():
    assert F.mean_distance(E, Y, "fixed") == pytest.approx(4.0)  # |(1,1) - (5,1)|
    # faithful: rows 0 (zero vector, label ids are stored 1..K), (1,1), (5,1); 2 * ordered-pair sum / (R(R-1))
    pairs = sqrt(2) + sqrt(26) + 4
    assert F.mean_distance(E, Y, "faithful") == pytest.approx(2 * 2 * pairs / (3 * 2), abs=TOL)
    # NEGATIVE CONTROL: the paper's squared distance (16) is not what the fixed mode computes
    assert F.mean_distance(E, Y, "fixed") != pytest.approx(16.0)


def test_mean_distance_faithful_absent_class_adds_a_zero_row():
    y = np.array([0, 0, 0, 2, 2, 2])  # class 1 absent: rows 0 and 2 of scatter are zero vectors
    pairs = [sqrt(2), sqrt(26), 0.0, sqrt(2), 4.0, sqrt(26)]  # unordered pairs over rows 0,1,2,3
    assert F.mean_distance(E, y, "faithful") == pytest.approx(2 * 2 * sum(pairs) / (4 * 3), abs=TOL)
    assert F.mean_distance(E, y, "fixed") == pytest.approx(4.0)  # absent classes do not count


def test_label_distribution_by_hand():
    counts = F.label_counts([0, 0, 0, 1], 3)  # [3, 1, 0]
    np.testing.assert_array_equal(counts, [3, 1, 0])
    # mean 4/3, median 1, population std sqrt(42/27)
    assert F.pearson_median_skewness(counts) == pytest.approx(3 * (4 / 3 - 1) / sqrt(42 / 27))
    assert F.kurtosis(counts) == pytest.approx(1.5)  # (882/243) / (42/27)^2
    # NEGATIVE CONTROLS: excess kurtosis, or the paper's "variance" in the PMS denominator, miss the values
    assert F.kurtosis(counts) - 3 != pytest.approx(1.5)
    assert 3 * (4 / 3 - 1) / (42 / 27) != pytest.approx(F.pearson_median_skewness(counts))
    # spec: binary unbalanced -> PMS 0, KTS exactly 1; balanced -> both 0
    binary = F.label_counts([0, 0, 0, 1], 2)
    assert (F.pearson_median_skewness(binary), F.kurtosis(binary)) == (0.0, pytest.approx(1.0))
    balanced = F.label_counts([0, 1, 2, 0, 1, 2], 3)
    assert (F.pearson_median_skewness(balanced), F.kurtosis(balanced)) == (0.0, 0.0)


def test_number_of_classes():
    assert F.number_of_classes([0, 1, 1]) == 2
    assert F.number_of_classes([0, 1, 1], n_classes=5) == 5
    with pytest.raises(RobustError, match="n_classes=2"):
        F.number_of_classes([0, 3], n_classes=2)


def test_token_statistics_by_hand():
    ids = [[101, 5, 6, 102], [101, 5, 102], [101, 7, 7, 8, 9, 102]]
    out = F.token_statistics(ids)
    assert out == {"avg_tokens": pytest.approx(13 / 3), "unique_tokens": 7.0, "min_tokens": 3.0, "max_tokens": 6.0}
    # NEGATIVE CONTROL: the paper's "& t exists once" (hapaxes: 6, 8, 9) would give 3
    flat = [t for row in ids for t in row]
    assert sum(1 for t in set(flat) if flat.count(t) == 1) != out["unique_tokens"]


def test_davies_bouldin_by_hand_and_against_sklearn():
    e = np.array([[0, 0], [2, 0], [10, 0], [10, 4], [50, 50]], dtype=float)
    c = np.array([0, 0, 1, 1, -1])  # the last point is HDBSCAN noise and is dropped
    # mu = (1,0), (10,2); s = 1, 2; d = sqrt(85)
    assert F.davies_bouldin(e, c) == pytest.approx(3 / sqrt(85))
    from sklearn.metrics import davies_bouldin_score

    assert F.davies_bouldin(e, c) == pytest.approx(davies_bouldin_score(e[:4], c[:4]))
    assert F.davies_bouldin(e, [0, 0, 0, 0, -1]) == 0.0 and F.davies_bouldin(e, [-1] * 5) == 0.0
    # NEGATIVE CONTROL: using squared centroid distance misses
    assert F.davies_bouldin(e, c) != pytest.approx(3 / 85)


def test_hdbscan_finds_two_blobs_and_counts_without_noise():
    rng = np.random.default_rng(0)
    e = np.vstack([rng.normal(0, 0.05, (20, 3)), rng.normal(5, 0.05, (20, 3)), [[100, 100, 100]]])
    clusters = F.cluster_labels(e)
    assert F.number_of_clusters(clusters) == 2
    assert clusters[-1] == -1  # the lone far point is noise
    assert F.number_of_clusters([-1, -1]) == 0


def test_dataset_features_order_and_normalisation():
    rng = np.random.default_rng(1)
    e = np.vstack([rng.normal([3, 0, 0], 0.1, (10, 3)), rng.normal([0, 3, 0], 0.1, (10, 3))])
    y = np.repeat([0, 1], 10)
    out = F.dataset_features(y, e, [[1, 2, 3]] * 20, misclassification=0.25, n_classes=4)
    assert tuple(out) == F.FEATURE_KEYS
    unit = F.l2_normalize(e)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0)
    assert out["fr"] == pytest.approx(F.fisher_ratio(unit, y))
    assert out["classes"] == 4 and out["mr"] == 0.25
    assert F.l2_normalize(np.zeros((1, 3))).tolist() == [[0.0, 0.0, 0.0]]


@pytest.mark.parametrize("call", [
    lambda: F.fisher_ratio(E, [0] * 6),
    lambda: F.fisher_ratio(E, [0, 1]),
    lambda: F.mean_distance(E, [-1, 0, 0, 1, 1, 1]),
    lambda: F.mean_distance(E, Y, "clean"),
    lambda: F.token_statistics([]),
    lambda: F.label_counts([0, 5], 3),
])
def test_bad_input_is_one_clear_error(call):
    with pytest.raises(RobustError):
        call()
