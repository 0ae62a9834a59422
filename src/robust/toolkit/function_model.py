"""Python API: wrap any callable `texts -> probabilities` or `texts -> embeddings` as a ModelAdapter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import ModelAdapter
from robust.core.lazy import np
from robust.core.settings import Setting


class FunctionModel(ModelAdapter):
    """`FunctionModel(fn, "classify", labels=[...])`: every call goes through the shared batching cache."""

    name = "function"
    description = "A Python callable wrapped as a model (Python API only)"
    capabilities = frozenset({"classify", "embed"})
    settings = {"batch_size": Setting(64, min=1),
                "overlap": Setting(1, min=1, help="chunks computed at once: more than 1 only for a thread-safe "
                                   "function that releases the GIL (a GPU kernel, a server request)")}

    def __init__(self, fn: Callable[[list[str]], Any], capability: str = "classify",
                 name: str = "function", labels: Sequence[Any] | None = None, **config: Any) -> None:
        if capability not in ("classify", "embed"):
            raise RobustError(f"a function model can 'classify' or 'embed', not {capability!r}")
        super().__init__(name, **config)
        self.fn, self.capability, self.labels = fn, capability, list(labels) if labels else None

    def provides(self) -> frozenset[str]:
        return frozenset({self.capability})

    @property
    def overlap(self) -> int:  # type: ignore[override]
        return int(self.config["overlap"])

    def _call(self, texts: Sequence[str]) -> list[np.ndarray]:
        out = np.asarray(self.fn(list(texts)), dtype=np.float64)
        if out.ndim != 2 or len(out) != len(texts):
            raise RobustError(f"function model {self.arg!r} must return an array of shape (len(texts), k)")
        return list(out)

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        return self._call(texts)

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        return self._call(texts)
