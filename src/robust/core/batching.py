"""The output cache every ModelAdapter shares: dedupe, look up, batch what is missing by length."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from robust.core.environ import env_bytes


def _key(value: Any) -> Hashable:
    if isinstance(value, str):
        return value
    return tuple(_key(v) if isinstance(v, (list, tuple)) else v for v in value)


FORWARD_COST = 8  # a forward pass costs about as much as this many extra token positions (CPU, measured)


def plan_batches(lengths: Sequence[int], batch_size: int, max_padding: float | None = None,
                 forward_cost: int = FORWARD_COST) -> list[list[int]]:
    """Indices of `lengths` grouped into batches in ascending length order, at most `batch_size` each.

    `max_padding=None`: fixed-size batches. Otherwise a batch (padded to its longest input) takes the next
    input only while the padding this adds costs at most `forward_cost` positions or keeps the batch's padding
    share at most `max_padding`; else the input starts a new batch (a forward pass costs ~`forward_cost`
    positions, so tiny batches of short inputs still merge)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    size = max(1, batch_size)
    if max_padding is None:
        return [order[s: s + size] for s in range(0, len(order), size)]
    batches: list[list[int]] = []
    batch: list[int] = []
    real = width = 0
    for i in order:
        n = max(1, lengths[i])
        if batch:
            extra = len(batch) * (n - width)  # positions added to the rows already in the batch
            share = 1 - (real + n) / (n * (len(batch) + 1))
            if len(batch) >= size or (extra > forward_cost and share > max_padding):
                batches.append(batch)
                batch, real = [], 0
        batch.append(i)
        real, width = real + n, n
    if batch:
        batches.append(batch)
    return batches


def _size(value: Any) -> int:
    """Approximate bytes held by a cached input or output (arrays by nbytes, lists and tuples by their items)."""
    if type(value) is str:  # most inputs: one call per cached entry
        return sys.getsizeof(value)
    nbytes = getattr(value, "nbytes", None)
    if nbytes is not None:
        return int(nbytes)
    if isinstance(value, (list, tuple)):
        return sum(_size(v) for v in value) + 8 * len(value)
    return sys.getsizeof(value)


#: what a cached entry holds beyond its input and its output's data: the key tuple, the dict's slot and link, the
#: output array's header (measured: 340 bytes of resident memory per entry over a million classify rows)
ENTRY_BYTES = 320


def entry_bytes(inputs: Any, output: Any) -> int:
    """The memory one cached entry takes: its input (the cache is often a text's last holder), its output and
    ENTRY_BYTES."""
    return _size(inputs) + _size(output) + ENTRY_BYTES


_ABSENT = object()


class OutputCache:
    """Model outputs keyed by (method key, input), least recently used evicted beyond `max_bytes` (default 1 GiB,
    `ROBUST_CACHE_BYTES`) of entries, each counted whole (`entry_bytes`: a classify row's 16 bytes of data are a
    twentieth of what its entry holds). The owning adapter is the model identity. Thread-safe: the store
    and its counters change under a lock, the model computes outside it (chunks computed at once overlap)."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self._store: OrderedDict[tuple[Hashable, Hashable], Any] = OrderedDict()
        self.max_bytes = max_bytes if max_bytes is not None else env_bytes("ROBUST_CACHE_BYTES", 2**30)
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self.lock = threading.Lock()

    def map(
        self,
        key: tuple,
        inputs: Sequence[Any],
        fn: Callable[[Sequence[Any]], Sequence[Any]],
        batch_size: int,
        length: Callable[[Any], int] = len,
        lengths: Callable[[list[Any]], Sequence[int]] | None = None,
        max_padding: float | None = None,
    ) -> list[Any]:
        """`fn` applied to each input, computing only uncached ones, in batches sorted by length: `length` of
        each input, or `lengths` of all missing inputs at once; see `plan_batches` for `max_padding`."""
        store = self._store
        keys = [(key, x) if type(x) is str else (key, _key(x)) for x in inputs]
        found: dict[tuple, Any] = {}
        missing: dict[tuple, Any] = {}
        with self.lock:
            for k, x in zip(keys, inputs):
                value = store.get(k, _ABSENT)  # one hash per input (a hit also moves to the LRU end)
                if value is _ABSENT:
                    missing[k] = x
                else:
                    store.move_to_end(k)
                    found[k] = value
            self.hits += len(inputs) - len(missing)
            self.misses += len(missing)
        todo = list(missing.items())
        values = list(missing.values())
        sizes = list(lengths(values)) if lengths is not None else [length(x) for x in values]
        for batch in plan_batches(sizes, batch_size, max_padding):
            chunk = [todo[i] for i in batch]
            outputs = fn([x for _, x in chunk])
            if len(outputs) != len(chunk):
                raise RuntimeError(f"model returned {len(outputs)} outputs for {len(chunk)} inputs")
            with self.lock:
                for (k, _), out in zip(chunk, outputs):
                    found[k] = out
                    self._put(k, out)
        return [found[k] for k in keys]

    def _put(self, k: tuple, value: Any) -> None:
        size = entry_bytes(k[1], value)
        if size > self.max_bytes:
            return
        self._store[k] = value
        self.bytes += size
        while self.bytes > self.max_bytes:
            old_key, old = self._store.popitem(last=False)
            self.bytes -= entry_bytes(old_key[1], old)

    def clear(self) -> None:
        with self.lock:
            self._store.clear()
            self.bytes = 0
