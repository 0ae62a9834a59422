"""The Gaussian generator (Ko 2024, §5.2.1, eq. 5.1; Gaussian-H §5.3.4): moments, layout, normalisation,
determinism, chunking, memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.plugins.benchmarks.synbench.constants import H_BAND, IMAGENET_MEAN, IMAGENET_STD
from robust.plugins.benchmarks.synbench.data import (
    GaussianSampler,
    GaussianSpec,
    SynBenchGaussians,
    parse_shape,
    rows_for_memory,
)


def collect(sampler, s, n, seed=0, max_rows=None):
    parts = list(sampler.draw(s, n, seed, 0, "train", max_rows=max_rows))
    return np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])


def test_class_means_noise_and_translation():
    """x − μ̄ | y ~ N(y s 1/√d, I) with μ̄ = 0.5 per pixel (code); labels Bernoulli(1/2)."""
    d, s = 64, 4.0
    x, y = collect(GaussianSampler(GaussianSpec((d,))), s, 20000)
    assert set(np.unique(y)) == {-1, 1} and abs((y == 1).mean() - 0.5) < 0.02
    shift = s / np.sqrt(d)
    for label in (1, -1):
        assert x[y == label].mean() == pytest.approx(0.5 + label * shift, abs=0.003)
    assert x[y == 1].std() == pytest.approx(1.0, abs=0.01)
    thesis, _ = collect(GaussianSampler(GaussianSpec((d,), translation="thesis")), s, 4000)
    assert thesis.mean() == pytest.approx(0.5 / np.sqrt(d), abs=0.01)


def test_channel_major_images_and_imagenet_normalisation():
    spec = GaussianSpec((3, 4, 4), mean=IMAGENET_MEAN, std=IMAGENET_STD)
    x, _ = collect(GaussianSampler(spec), 0.1, 30000)
    assert x.shape == (30000, 3, 4, 4) and x.dtype == np.float32
    for c in range(3):  # (0.5 − mean_c)/std_c and 1/std_c per channel
        assert x[:, c].mean() == pytest.approx((0.5 - IMAGENET_MEAN[c]) / IMAGENET_STD[c], abs=0.035)  # 5 SE
        assert x[:, c].std() == pytest.approx(1 / IMAGENET_STD[c], abs=0.02)


def test_gaussian_h_band_covariance_within_channels_only():
    spec = GaussianSpec((3, 8, 8), covariance="heptadiagonal", translation="none")
    x, y = collect(GaussianSampler(spec), 0.1, 40000)
    flat = (x - x.mean(0)).reshape(len(x), 3, 64)
    for k, expected in enumerate((*H_BAND, 0.0)):  # offsets 0..4 along the row-major pixel index
        assert np.mean(flat[:, 0, 10:50] * flat[:, 0, 10 + k:50 + k]) == pytest.approx(expected, abs=0.02)
    assert np.mean(flat[:, 0, :] * flat[:, 1, :]) == pytest.approx(0.0, abs=0.02)  # channels independent


def test_values_do_not_depend_on_chunking_and_follow_the_seed():
    sampler = GaussianSampler(GaussianSpec((3, 8, 8)))
    whole, y1 = collect(sampler, 1.0, 200)
    chunked, y2 = collect(sampler, 1.0, 200, max_rows=32)
    assert np.array_equal(whole, chunked) and np.array_equal(y1, y2)
    other, _ = collect(sampler, 1.0, 200, seed=1)
    assert not np.allclose(whole, other)
    test_split = np.concatenate([x for x, _ in sampler.draw(1.0, 200, 0, 0, "test")])
    assert not np.allclose(whole, test_split)


def test_full_resolution_chunks_stay_within_the_memory_budget():
    """3×224×224 in 64 MB chunks: the peak traced allocation stays near the budget, not n·d·4 bytes."""
    spec = GaussianSpec(mean=IMAGENET_MEAN, std=IMAGENET_STD)
    sampler = GaussianSampler(spec)
    rows = rows_for_memory(spec.d, 64)
    assert rows * spec.d * 4 <= 64 * 2**20
    tracemalloc.start()
    total = 0
    for x, _ in sampler.draw(1.0, 256, 0, 0, "train", max_rows=rows):
        total += len(x)
        del x
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert total == 256 and peak < 3 * 64 * 2**20  # whole split would be 154 MB


def test_dataset_plugin_yields_examples():
    gen = get_registry().get("dataset", "synbench-gaussians").create(shape="12", levels=[1.0, 2.0], n=5)
    assert isinstance(gen, SynBenchGaussians)
    examples = list(gen.examples(seed=3))
    assert len(examples) == 2 * 2 * 5
    assert examples[0].data.shape == (12,) and examples[0].label in (-1, 1)
    assert examples[0].meta == {"s": 1.0, "split": "train", "trial": 0}
    again = list(gen.examples(seed=3))
    assert all(np.array_equal(a.data, b.data) for a, b in zip(examples, again))


@pytest.mark.parametrize("settings, message", [
    ({"n": -5}, "setting 'n'"),
    ({"levels": [0.5, -1.0]}, "setting 'levels'"),
    ({"shape": "3x224"}, "shape must be"),
    ({"shape": "abc"}, "shape must look like"),
    ({"covariance": "diag"}, "setting 'covariance'"),
    ({"mean": [0.5, 0.5, 0.5]}, "needs both mean and std"),
    ({"shape": "5", "mean": [0.5, 0.5, 0.5], "std": [1, 1, 1]}, "3 channel(s) but the input has 1"),
])
def test_bad_generator_settings_are_one_line_errors(settings, message):
    with pytest.raises(RobustError) as err:
        SynBenchGaussians(**settings)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_parse_shape():
    assert parse_shape("3x224x224") == (3, 224, 224) and parse_shape("192") == (192,)
