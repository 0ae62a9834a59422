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

    `max_padding=None`: fixed-size batches. `max_padding=0`: no padding, a batch holds inputs of one length (a
    model's output for an input then does not depend on its batch-mates, whose padding changes its last float bits).
    Otherwise a batch (padded to its longest input) takes the next input only while the padding this adds costs at
    most `forward_cost` positions or keeps the batch's padding share at most `max_padding`; else the input starts a
    new batch (a forward pass costs ~`forward_cost` positions, so tiny batches of short inputs still merge)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    size = max(1, batch_size)
    if max_padding is None:
        return [order[s: s + size] for s in range(0, len(order), size)]
    if not max_padding:
        forward_cost = 0
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


#: `map` calls under way in this thread, of any cache (a model's calls nest: `prompt:` calls its LM's)
_DEPTH = threading.local()


class _InFlight:
    """The inputs one `map` call is computing, for other threads that need them meanwhile: their outputs once the
    call is done (`done` set; an input whose batch failed has none, and a waiting thread computes it itself)."""

    __slots__ = ("done", "values")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.values: dict[tuple, Any] = {}


class OutputCache:
    """Model outputs keyed by (method key, input), least recently used evicted beyond `max_bytes` (default 1 GiB,
    `ROBUST_CACHE_BYTES`) of entries, each counted whole (`entry_bytes`: a classify row's 16 bytes of data are a
    twentieth of what its entry holds). The owning adapter is the model identity. Thread-safe: the store
    and its counters change under a lock, the model computes outside it (chunks computed at once overlap), and an
    input that another thread's call is computing is waited for, not computed twice (a served model's queries cost
    money, a GPU's time is the run's). Only an outermost call (of any cache, in its thread) registers and waits,
    after its own inputs are done: no thread waits while inputs it registered are still to come, so none waits in
    a cycle."""

    def __init__(self, max_bytes: int | None = None) -> None:
        self._store: OrderedDict[tuple[Hashable, Hashable], Any] = OrderedDict()
        self.max_bytes = max_bytes if max_bytes is not None else env_bytes("ROBUST_CACHE_BYTES", 2**30)
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self.lock = threading.Lock()
        self._in_flight: dict[tuple, _InFlight] = {}  # inputs being computed -> the call computing them

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
        each input, or `lengths` of all missing inputs at once; see `plan_batches` for `max_padding`. Inputs that
        another thread is computing are taken from it once it is done."""
        store, in_flight = self._store, self._in_flight
        keys = [(key, x) if type(x) is str else (key, _key(x)) for x in inputs]
        found: dict[tuple, Any] = {}
        missing: dict[tuple, Any] = {}
        waited: dict[tuple, tuple[Any, _InFlight]] = {}  # inputs another thread is computing
        depth = getattr(_DEPTH, "n", 0)
        mine = None  # what this call computes, for the threads that need it meanwhile (outermost calls only)
        with self.lock:
            for k, x in zip(keys, inputs):
                value = store.get(k, _ABSENT)  # one hash per input (a hit also moves to the LRU end)
                if value is not _ABSENT:
                    store.move_to_end(k)
                    found[k] = value
                elif k not in missing:
                    other = in_flight.get(k) if in_flight and not depth else None
                    if other is None:
                        missing[k] = x
                    else:
                        waited[k] = (x, other)
            if missing and not depth:  # registered here, so they are this call's until it ends
                mine = _InFlight()
                in_flight.update(dict.fromkeys(missing, mine))
            self.hits += len(inputs) - len(missing)
            self.misses += len(missing)
        _DEPTH.n = depth + 1
        try:
            self._compute(missing, fn, batch_size, length, lengths, max_padding, found, mine)
        finally:
            _DEPTH.n = depth
            if mine is not None:
                with self.lock:
                    for k in missing:
                        del in_flight[k]
                mine.done.set()
        orphans: dict[tuple, Any] = {}
        for k, (x, other) in waited.items():
            other.done.wait()
            value = other.values.get(k, _ABSENT)
            if value is _ABSENT:  # its batch failed there: computed here
                orphans[k] = x
            else:
                found[k] = value
        if orphans:
            with self.lock:
                self.hits -= len(orphans)
                self.misses += len(orphans)
            self._compute(orphans, fn, batch_size, length, lengths, max_padding, found, None)
        return [found[k] for k in keys]

    def _compute(self, missing: dict[tuple, Any], fn: Callable[[Sequence[Any]], Sequence[Any]], batch_size: int,
                 length: Callable[[Any], int], lengths: Callable[[list[Any]], Sequence[int]] | None,
                 max_padding: float | None, found: dict[tuple, Any], mine: _InFlight | None) -> None:
        """`fn` of the `missing` inputs, in batches by length, into `found`, the store and `mine` (for waiters)."""
        if not missing:
            return
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
                    if mine is not None:
                        mine.values[k] = out

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
