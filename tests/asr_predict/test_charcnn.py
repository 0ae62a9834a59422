"""The char-CNN surrogate behind MR: encoding, the faithful off-by-one, and that it learns (or not) as it should."""

from __future__ import annotations

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.plugins.benchmarks.asr_predict import charcnn

SMALL = charcnn.CharCNNConfig(filters=64, max_chars=128, epochs=5, batch_size=16)


def _letters_task(n: int, rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    a, b = ["alpha", "bravo", "charlie", "delta", "echo"], ["xray", "yankee", "zulu", "whiskey", "victor"]
    y = rng.integers(0, 2, n)
    return [" ".join(rng.choice(a if label == 0 else b, 8)) for label in y], y


def test_encoding_reverses_lowercases_and_drops_unknown_characters():
    x = charcnn.encode(["Ab€c"], max_chars=3)
    assert len(charcnn.ALPHABET) == 69
    idx = [int(np.argmax(row)) for row in x[0]]
    assert [charcnn.ALPHABET[i] for i in idx] == ["c", "b", "a"]  # reversed, '€' dropped, lower-cased
    assert charcnn.encode(["x"], 4)[0, 1:].sum() == 0  # zero padding after the text


def test_conv_length_matches_the_authors_34():
    assert charcnn.conv_output_length(1024) == 34
    with pytest.raises(RobustError, match="too short"):
        charcnn.build_model(2, charcnn.CharCNNConfig(max_chars=60))


def test_misclassification_score_faithful_off_by_one_vs_fixed():
    pred, labels = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])
    assert charcnn.misclassification_score(pred, labels, "fixed") == 0.25
    # the code compares 0..K-1 predictions with the stored 1..K labels: only pred 1 vs label 0 "matches"
    assert charcnn.misclassification_score(pred, labels, "faithful") == 0.75


def test_surrogate_learns_a_learnable_task_and_not_shuffled_labels():
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    train, y = _letters_task(300, rng)
    test, y_test = _letters_task(60, rng)
    learned = charcnn.misclassification_rate(train, y, test, y_test, 2, "fixed", SMALL, seed=0)
    assert learned <= 0.1
    # NEGATIVE CONTROL: with shuffled training labels the same surrogate cannot do better than chance
    shuffled = charcnn.misclassification_rate(train, rng.permutation(y), test, y_test, 2, "fixed", SMALL, seed=0)
    assert shuffled >= 0.3
    # same seed, same result
    assert charcnn.misclassification_rate(train, y, test, y_test, 2, "fixed", SMALL, seed=0) == learned
