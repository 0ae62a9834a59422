"""The class-conditional Gaussian generator (Ko 2024, §5.2.1, eq. 5.1; Gaussian-H §5.3.4), registered as the dataset
`synbench-gaussians`.

x − μ̄ | y ~ N(y·s·1_d/√d, Σ), y = ±1 with P(y=+1) = 1/2 drawn per sample (the code's Bernoulli labels),
viewed as C×H×W in channel-major order (or a plain d-vector), then per-channel `(x − mean_c)/std_c` when the
encoder expects it (the code's ImageNet Normalize; no resize, no clipping). Rows are drawn in fixed blocks,
each from its own seed, so the data never depend on the chunk size used to bound memory.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from robust import DataGenerator, Example, RobustError, Setting, rng_for
from robust.plugins.benchmarks.synbench.constants import (
    BLOCK_ROWS,
    COVARIANCES,
    FULL_SHAPE,
    H_BAND,
    S_GRID,
    TRANSLATIONS,
)
from robust.plugins.benchmarks.synbench.theory import band_apply, band_cholesky
from robust.toolkit.lazy import np


def parse_shape(text: str) -> tuple[int, ...]:
    """'3x224x224' -> (3, 224, 224); '192' -> (192,). One line of error for anything else."""
    parts = str(text).lower().replace("×", "x").split("x")
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise RobustError(f"shape must look like 3x224x224 or 192, not {text!r}") from None
    if len(shape) not in (1, 3) or min(shape) < 1:
        raise RobustError(f"shape must be CxHxW or d with positive sizes, not {text!r}")
    return shape


def format_shape(shape: Sequence[int]) -> str:
    return "x".join(str(int(v)) for v in shape)


@dataclass(frozen=True)
class GaussianSpec:
    """What one SynBench input distribution looks like (the difficulty s is given per draw)."""

    shape: tuple[int, ...] = FULL_SHAPE
    covariance: str = "identity"
    translation: str = "code"
    mean: tuple[float, ...] | None = None  # per-channel normalisation constants, or None
    std: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if self.covariance not in COVARIANCES:
            raise RobustError(f"covariance must be one of {', '.join(COVARIANCES)}, not {self.covariance!r}")
        if self.translation not in TRANSLATIONS:
            raise RobustError(f"translation must be one of {', '.join(TRANSLATIONS)}, not {self.translation!r}")
        if (self.mean is None) != (self.std is None):
            raise RobustError("normalisation needs both mean and std")
        if self.mean is not None:
            if len(self.mean) != self.channels or len(self.std) != self.channels:
                raise RobustError(f"normalisation has {len(self.mean)} channel(s) but the input has {self.channels}")
            if min(self.std) <= 0:
                raise RobustError("normalisation std must be positive")

    @functools.cached_property
    def d(self) -> int:
        return int(np.prod(self.shape))

    @property
    def channels(self) -> int:
        return self.shape[0] if len(self.shape) == 3 else 1

    @property
    def block(self) -> int:
        """Coordinates per channel: the size of one Gaussian-H band block (H·W, row-major)."""
        return self.d // self.channels

    @property
    def mubar(self) -> float:
        return {"code": 0.5, "thesis": 0.5 / np.sqrt(self.d), "none": 0.0}[self.translation]


class GaussianSampler:
    """Draws (x, y) for one spec; caches the Gaussian-H band factor."""

    def __init__(self, spec: GaussianSpec) -> None:
        self.spec = spec
        self._lower = band_cholesky(spec.block, H_BAND).astype(np.float32) if spec.covariance != "identity" else None
        if spec.mean is not None:
            view = (1, spec.channels, 1, 1) if len(spec.shape) == 3 else (1, 1)
            self._mean = np.asarray(spec.mean, np.float32).reshape(view)
            self._inv_std = (1.0 / np.asarray(spec.std, np.float32)).reshape(view)

    def rows(self, s: float, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """float32 inputs of shape (len(y), *shape) for labels y (±1)."""
        spec = self.spec
        x = rng.standard_normal((len(y), spec.d), dtype=np.float32)
        if self._lower is not None:  # Σ = I_C ⊗ L Lᵀ: correlate each channel's flattened pixels
            x = band_apply(self._lower, x.reshape(len(y), spec.channels, spec.block)).reshape(len(y), spec.d)
        x += (np.asarray(y, np.float32) * np.float32(s / np.sqrt(spec.d)))[:, None]
        x += np.float32(spec.mubar)
        x = x.reshape((len(y), *spec.shape))
        if spec.mean is not None:
            x -= self._mean
            x *= self._inv_std
        return x

    def draw(self, s: float, n: int, seed: int, *labels: object, max_rows: int | None = None
             ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """n samples at level s as chunks of at most `max_rows` rows (a multiple of BLOCK_ROWS); the values
        depend only on (seed, labels, s, n), never on max_rows."""
        tag = (*labels, f"{float(s):.4f}")
        y = np.where(rng_for(seed, "synbench", *tag, "labels").random(n) < 0.5, 1, -1).astype(np.int8)
        step = max(BLOCK_ROWS, (max_rows or n) // BLOCK_ROWS * BLOCK_ROWS)
        for start in range(0, n, step):
            stop = min(start + step, n)
            chunk = np.empty((stop - start, *self.spec.shape), dtype=np.float32)  # filled block by block
            for b in range(start, stop, BLOCK_ROWS):
                end = min(b + BLOCK_ROWS, stop)
                chunk[b - start:end - start] = self.rows(s, y[b:end], rng_for(seed, "synbench", *tag, b // BLOCK_ROWS))
            yield chunk, y[start:stop]
            del chunk  # free it before the next chunk is allocated (one chunk alive at a time)


def rows_for_memory(d: int, memory_mb: int) -> int:
    """Rows per chunk so that one chunk of float32 inputs stays within memory_mb."""
    return max(BLOCK_ROWS, memory_mb * 2**20 // (4 * d) // BLOCK_ROWS * BLOCK_ROWS)


class SynBenchGaussians(DataGenerator):
    """SynBench's synthetic inputs as Examples (data = the array, label = ±1), train then test per level.
    The `synbench` benchmark draws its inputs through it (one level and split at a time, with the model's shape
    and constants); `memory_mb` bounds the rows drawn at once without changing any value."""

    name = "synbench-gaussians"
    description = "SynBench's class-conditional Gaussian images/vectors over the difficulty grid s (Ko, ch. 5)"
    settings = {
        "shape": Setting(format_shape(FULL_SHAPE), help="CxHxW (channel-major) or d"),
        "levels": Setting(list(S_GRID), min=1e-9, min_items=1, help="difficulties s (half the mean distance)"),
        "n": Setting(2048, min=1, help="samples per split and level"),
        "covariance": Setting("identity", choices=COVARIANCES, help="identity (Gaussian-I) | heptadiagonal (-H)"),
        "translation": Setting("code", choices=TRANSLATIONS, help="code: +0.5 per pixel | thesis: 0.5/√d | none"),
        "mean": Setting([], item=float, help="per-channel normalisation (x - mean)/std, e.g. ImageNet's; empty = none"),
        "std": Setting([], item=float, min=1e-9),
        "splits": Setting(["train", "test"], choices=("train", "test"), min_items=1),
        "trial": Setting(0, min=0),
        "memory_mb": Setting(0, min=0, help="bound on one drawn chunk of float32 inputs (0 = a whole split at once)"),
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        c = self.config
        self.levels, self.splits = list(c["levels"]), list(c["splits"])
        mean, std = list(c["mean"]), list(c["std"])
        self.spec = GaussianSpec(parse_shape(c["shape"]), c["covariance"], c["translation"],
                                 tuple(mean) or None, tuple(std) or None)
        self._sampler: GaussianSampler | None = None

    @property
    def sampler(self) -> GaussianSampler:
        if self._sampler is None:
            self._sampler = GaussianSampler(self.spec)
        return self._sampler

    def chunks(self, seed: int = 0) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(inputs, labels) per chunk as the sampler draws it: level by level, each level's splits in order, n rows
        per split, at most `memory_mb` of inputs per chunk (each freed before the next is allocated, once the
        caller lets go of it)."""
        trial, n, memory = int(self.config["trial"]), int(self.config["n"]), int(self.config["memory_mb"])
        rows = rows_for_memory(self.spec.d, memory) if memory else None
        for s in self.levels:
            for split in self.splits:
                yield from self.sampler.draw(s, n, seed, trial, split, max_rows=rows)

    def examples(self, seed: int = 0) -> Iterator[Example]:
        trial, n = int(self.config["trial"]), int(self.config["n"])
        parts = [(s, split) for s in self.levels for split in self.splits]  # n rows each, in the order of chunks()
        k = 0
        for x, y in self.chunks(seed):
            for row, label in zip(x, y):
                s, split = parts[k // n]
                yield Example(f"s{s:.2f}-{split}-{k % n}", label=int(label), data=row,
                              meta={"s": s, "split": split, "trial": trial})
                k += 1
