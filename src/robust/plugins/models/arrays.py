"""Array models (capability `embed_arrays`): the reference representations `identity` and
`random-projection:K`, and `ArrayFunction` for any Python callable `array -> features` (Python API only).

An array model may describe the input it expects with `input_spec()` (shape, per-channel mean/std); benchmarks
that generate inputs (SynBench) draw them in that shape and normalise them with those constants. `None` fields
mean "any shape" / "no normalisation".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from robust import ModelAdapter, RobustError, Setting
from robust.toolkit.lazy import np


@dataclass(frozen=True)
class ArrayInput:
    """What an array model expects: `shape` (C×H×W or (d,)), and per-channel normalisation constants."""

    shape: tuple[int, ...] | None = None
    mean: tuple[float, ...] | None = None
    std: tuple[float, ...] | None = None


class ArrayModel(ModelAdapter):
    """Base of models that embed arrays; subclasses implement `_embed_arrays(batch) -> ndarray[n, d]`."""

    capabilities = frozenset({"embed_arrays"})
    settings = {"batch_size": Setting(256, min=1)}

    def input_spec(self) -> ArrayInput:
        return ArrayInput()


class Identity(ArrayModel):
    """The input itself, flattened: the representation whose score is the reference (≈ 1 when d << n)."""

    name = "identity"
    description = "Reference representation: the (flattened) input itself, for embed_arrays benchmarks"

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        return np.asarray(batch, dtype=np.float32).reshape(len(batch), -1)


class RandomProjection(ArrayModel):
    """`random-projection:K`: K seeded orthonormal directions of the flattened input (a linear baseline that
    keeps a fraction c = ‖P 1_d/√d‖ ≈ sqrt(K/d) of SynBench's signal, docs/synbench.md)."""

    name = "random-projection"
    description = "Reference representation: K seeded random orthonormal projections of the flattened input"
    settings = {"batch_size": Setting(256, min=1), "seed": 0}
    identity_settings = ("seed",)

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg, **config)
        try:
            self.k = int(self.arg)
        except ValueError:
            raise RobustError(f"random-projection needs a number of dimensions, e.g. random-projection:64, "
                              f"not {self.arg!r}") from None
        if self.k < 1:
            raise RobustError(f"random-projection needs at least 1 dimension, not {self.k}")
        self._matrix: np.ndarray | None = None

    def matrix(self, d: int) -> np.ndarray:
        """(d, K) with orthonormal columns, from the seed (QR of a Gaussian matrix)."""
        if self._matrix is None or self._matrix.shape[0] != d:
            if self.k > d:
                raise RobustError(f"random-projection:{self.k} cannot project {d}-dimensional inputs to more "
                                  f"dimensions; use K <= {d}")
            gauss = np.random.default_rng(int(self.config["seed"])).standard_normal((d, self.k))
            self._matrix = np.linalg.qr(gauss)[0].astype(np.float32)
        return self._matrix

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        flat = np.asarray(batch, dtype=np.float32).reshape(len(batch), -1)
        return flat @ self.matrix(flat.shape[1])


class ArrayFunction(ArrayModel):
    """`ArrayFunction(fn, name=..., input_shape=(3, 32, 32), mean=..., std=...)`: wraps `fn(ndarray[n, ...])
    -> ndarray[n, d]` (numpy in, numpy or anything array-like out)."""

    name = "array-function"
    description = "A Python callable array -> features wrapped as a model (Python API only)"

    def __init__(self, fn: Callable[[np.ndarray], Any], name: str = "array-function",
                 input_shape: Sequence[int] | None = None, mean: Sequence[float] | None = None,
                 std: Sequence[float] | None = None, **config: Any) -> None:
        super().__init__(name, **config)
        self.fn = fn
        self.spec = ArrayInput(tuple(input_shape) if input_shape else None, tuple(mean) if mean else None,
                               tuple(std) if std else None)

    def input_spec(self) -> ArrayInput:
        return self.spec

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        out = np.asarray(self.fn(batch))
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or len(out) != len(batch):
            raise RobustError(f"array function {self.arg!r} must return an array of shape (len(batch), d), "
                              f"got {out.shape}")
        return out
