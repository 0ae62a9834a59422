"""Python API: wrap any callable `texts -> probabilities` (or logits) or `texts -> embeddings` as a ModelAdapter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import ModelAdapter
from robust.core.settings import Setting
from robust.toolkit.lazy import np

PROBABILITY_TOLERANCE = 1e-3  # a row of class probabilities sums to 1 within this
LOGITS_HINT = "; for logits pass FunctionModel(fn, outputs='logits') or settings={'model.outputs': 'logits'}"


class FunctionModel(ModelAdapter):
    """`FunctionModel(fn, "classify", labels=[...])`: every call goes through the shared batching cache. A classifier
    returns class probabilities, an array (len(texts), k) of non-negative rows summing to 1, or, with
    `outputs="logits"`, unnormalised scores that are turned into probabilities by a softmax."""

    name = "function"
    description = "A Python callable wrapped as a model (Python API only)"
    capabilities = frozenset({"classify", "embed"})
    settings = {"batch_size": Setting(64, min=1),
                "outputs": Setting("probabilities", choices=("probabilities", "logits"),
                                   help="what a classifier returns; logits are turned into probabilities (softmax)"),
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
        out = self.fn(list(texts))
        if self.capability == "classify" and self.config["outputs"] == "logits":
            out = _softmax(checked_outputs(out, len(texts), "logits", f"function {self.arg!r}"))
        return list(checked_outputs(out, len(texts), self.capability, f"function {self.arg!r}", LOGITS_HINT))

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        return self._call(texts)

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        return self._call(texts)


def checked_outputs(values: Any, n: int, what: str, who: str, hint: str = "") -> np.ndarray:
    """A model's outputs for `n` texts as a float array (n, k), checked: `what` is classify (class probabilities:
    non-negative, rows summing to 1), logits or embed; anything else is refused in one line naming `who` (and
    ending with `hint` when rows are not probabilities)."""
    expected = {"classify": "class probabilities", "logits": "class logits", "embed": "embeddings"}[what]
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise RobustError(f"{who} returned a {type(values).__name__} that is not an array of numbers for {n} texts; "
                          f"expected ({n}, k) {expected}") from None
    if out.ndim != 2 or len(out) != n or out.shape[1] < 1:
        raise RobustError(f"{who} returned shape {out.shape} for {n} texts; expected ({n}, k) {expected}")
    if not np.isfinite(out).all():
        raise RobustError(f"{who} returned a non-finite value (NaN or infinity) among its {expected}")
    if what == "classify":
        bad = np.flatnonzero((out < 0).any(1) | (np.abs(out.sum(1) - 1) > PROBABILITY_TOLERANCE))
        if len(bad):
            row = out[bad[0]]
            shown = ", ".join(f"{v:.3g}" for v in row[:6]) + (", ..." if len(row) > 6 else "")
            raise RobustError(f"{who} returned [{shown}] for text {bad[0] + 1} of {n}: not probabilities "
                              "(non-negative, summing to 1)" + hint)
    return out


def _softmax(logits: np.ndarray) -> np.ndarray:
    from scipy.special import softmax

    return softmax(logits, axis=1)
