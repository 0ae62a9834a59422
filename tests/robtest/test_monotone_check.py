"""The accuracy-vs-degree check of benchmarks/robtest_monotone.py: its verdict on known per-example curves,
including the negative controls it must fail (a curve that rises, one that ends above clean)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def check():
    sys.path.insert(0, str(BENCHMARKS))  # the script imports its sibling robtest_common
    try:
        spec = importlib.util.spec_from_file_location("robtest_monotone", BENCHMARKS / "robtest_monotone.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(BENCHMARKS))


def curve(correct_per_degree: list[int], n: int = 50) -> np.ndarray:
    """Degrees x examples: the first k examples correct at each degree (nested: a falling curve loses examples)."""
    return np.asarray([[1.0 if i < k else 0.0 for i in range(n)] for k in correct_per_degree])


def test_a_falling_curve_falls_and_one_noisy_step_is_not_a_rise(check):
    assert check.verdict(curve([40, 38, 36, 33, 30, 28, 26, 24]), 0.0, 2.0) == "falls"
    assert check.verdict(curve([40, 38, 37, 38, 35, 34, 34, 33]), 0.0, 2.0) == "falls"  # 37 -> 38: noise
    acc = curve([40, 30])  # 10 of 50 examples lose their one correct draw: -20 points
    assert check.shift(acc[0], acc[1]) == pytest.approx((-20.0, np.sqrt(80000 / 49) / np.sqrt(50)))


def test_negative_controls_fail(check):
    rising = curve([24, 26, 28, 30, 33, 36, 38, 40])  # degrees reversed
    assert check.rises(rising, 2.0) >= 1 and check.verdict(rising, 0.0, 2.0) == "FAILS: rises"
    ends_above = curve([36, 37, 38, 39, 40, 41, 42, 43])  # each step within noise, the end 7 examples up
    assert check.rises(ends_above, 2.0) == 1 and check.verdict(ends_above, 1.0, 2.0) == "FAILS: rises"


def test_flat_is_flat_only_when_the_transform_said_it_could_not_reach_the_degree(check):
    flat = curve([40, 40, 39, 40, 40, 39, 40, 40])
    assert check.verdict(flat, 0.9, 2.0) == "flat, unreached"
    assert check.verdict(flat, 0.1, 2.0) == "FAILS: no significant fall"  # reached its degree, did nothing
