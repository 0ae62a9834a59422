"""The output cache every ModelAdapter shares: dedupe, look up, batch what is missing by length."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any


def _key(value: Any) -> Hashable:
    return value if isinstance(value, str) else tuple(value)


def _length(value: Any) -> int:
    return len(value)


class OutputCache:
    """Model outputs keyed by (method key, input). Identity of the model is the owner adapter."""

    def __init__(self, max_items: int = 200_000) -> None:
        self._store: dict[tuple[Hashable, Hashable], Any] = {}
        self.max_items = max_items
        self.hits = 0
        self.misses = 0

    def map(
        self,
        key: tuple,
        inputs: Sequence[Any],
        fn: Callable[[Sequence[Any]], Sequence[Any]],
        batch_size: int,
    ) -> list[Any]:
        """`fn` applied to each input, computing only uncached ones, in length-sorted batches."""
        keys = [(key, _key(x)) for x in inputs]
        missing: dict[tuple, Any] = {}
        for k, x in zip(keys, inputs):
            if k not in self._store and k not in missing:
                missing[k] = x
        self.hits += len(inputs) - len(missing)
        self.misses += len(missing)
        todo = sorted(missing.items(), key=lambda kv: _length(kv[1]))
        fresh: dict[tuple, Any] = {}
        for start in range(0, len(todo), max(1, batch_size)):
            chunk = todo[start : start + batch_size]
            outputs = fn([x for _, x in chunk])
            if len(outputs) != len(chunk):
                raise RuntimeError(f"model returned {len(outputs)} outputs for {len(chunk)} inputs")
            fresh.update((k, out) for (k, _), out in zip(chunk, outputs))
        result = [fresh[k] if k in fresh else self._store[k] for k in keys]
        if len(self._store) + len(fresh) > self.max_items:
            self._store.clear()
        self._store.update(fresh)
        return result

    def clear(self) -> None:
        self._store.clear()
