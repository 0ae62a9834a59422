"""The output cache every ModelAdapter shares: dedupe, look up, batch what is missing by length."""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any


def _key(value: Any) -> Hashable:
    if isinstance(value, str):
        return value
    return tuple(_key(v) if isinstance(v, (list, tuple)) else v for v in value)


def _size(value: Any) -> int:
    """Approximate bytes held by a cached output (arrays by nbytes, lists by their items)."""
    if hasattr(value, "nbytes"):
        return int(value.nbytes)
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value) + 8 * len(value)
    return sys.getsizeof(value)


class OutputCache:
    """Model outputs keyed by (method key, input), least recently used evicted beyond `max_bytes`
    (default 1 GiB, `ROBUST_CACHE_BYTES`). The owning adapter is the model identity."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self._store: OrderedDict[tuple[Hashable, Hashable], Any] = OrderedDict()
        self.max_bytes = max_bytes if max_bytes is not None else int(os.environ.get("ROBUST_CACHE_BYTES", 2**30))
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def map(
        self,
        key: tuple,
        inputs: Sequence[Any],
        fn: Callable[[Sequence[Any]], Sequence[Any]],
        batch_size: int,
        length: Callable[[Any], int] = len,
    ) -> list[Any]:
        """`fn` applied to each input, computing only uncached ones, in batches sorted by `length`."""
        keys = [(key, _key(x)) for x in inputs]
        found: dict[tuple, Any] = {}
        missing: dict[tuple, Any] = {}
        for k, x in zip(keys, inputs):
            if k in self._store:
                self._store.move_to_end(k)
                found[k] = self._store[k]
            elif k not in found:
                missing[k] = x
        self.hits += len(inputs) - len(missing)
        self.misses += len(missing)
        todo = sorted(missing.items(), key=lambda kv: length(kv[1]))
        for start in range(0, len(todo), max(1, batch_size)):
            chunk = todo[start : start + batch_size]
            outputs = fn([x for _, x in chunk])
            if len(outputs) != len(chunk):
                raise RuntimeError(f"model returned {len(outputs)} outputs for {len(chunk)} inputs")
            for (k, _), out in zip(chunk, outputs):
                found[k] = out
                self._put(k, out)
        return [found[k] for k in keys]

    def _put(self, k: tuple, value: Any) -> None:
        size = _size(value)
        if size > self.max_bytes:
            return
        self._store[k] = value
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, old = self._store.popitem(last=False)
            self.bytes -= _size(old)

    def clear(self) -> None:
        self._store.clear()
        self.bytes = 0
