"""Python API: wrap any callable `texts -> probabilities` or `texts -> embeddings` as a ModelAdapter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import ModelAdapter
from robust.core.settings import Setting
from robust.toolkit.lazy import np


class FunctionModel(ModelAdapter):
    """`FunctionModel(fn, "classify", labels=[...])`: every call goes through the shared batching cache."""

    name = "function"
    description = "A Python callable wrapped as a model (Python API only)"
    capabilities = frozenset({"classify", "embed"})
    settings = {"batch_size": Setting(64, min=1)}

    def __init__(self, fn: Callable[[list[str]], Any], capability: str = "classify",
                 name: str = "function", labels: Sequence[Any] | None = None, **config: Any) -> None:
        if capability not in ("classify", "embed"):
            raise RobustError(f"a function model can 'classify' or 'embed', not {capability!r}")
        super().__init__(name, **config)
        self.fn, self.capability, self.labels = fn, capability, list(labels) if labels else None

    def provides(self) -> frozenset[str]:
        return frozenset({self.capability})

    def _call(self, texts: Sequence[str]) -> list[np.ndarray]:
        out = np.asarray(self.fn(list(texts)), dtype=np.float64)
        if out.ndim != 2 or len(out) != len(texts):
            raise RobustError(f"function model {self.arg!r} must return an array of shape (len(texts), k)")
        return list(out)

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        return self._call(texts)

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        return self._call(texts)
