"""While a run computes, a full garbage collection traverses only what the run made since the last one.

CPython's cyclic collector visits every tracked object at each full (generation-2) collection. A process that has
loaded torch, transformers, spaCy and WordNet holds 300,000-500,000 of them, so one full collection takes
0.1-0.25 s, and a run's allocations trigger one every few seconds: a third of robust's own work in a short RobTest
synonym run (docs/performance.md). What survives a full collection is long-lived by definition, so while a run
computes, the heap that exists when it starts and the survivors of each full collection are moved to the permanent
generation (`gc.freeze`), which collections skip; they are unfrozen when the outermost run ends. Garbage that
such an object becomes during the run is therefore freed by reference counting as ever, but a reference cycle
among them waits for the first full collection after the run. A process that froze objects itself is left as it
is, as is one whose collector is disabled.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0  # runs computing in this process (threads, or a worker's task inside a run)
_frozen = False  # whether the outermost run froze the heap (and so unfreezes it)


def _freeze_survivors(phase: str, info: dict) -> None:
    if phase == "stop" and info["generation"] == 2:
        gc.freeze()


@contextmanager
def frozen_survivors() -> Iterator[None]:
    """The long-lived heap frozen while the block runs (see the module's docstring); nests and is thread-safe."""
    global _depth, _frozen
    with _lock:
        if _depth == 0 and gc.isenabled() and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.callbacks.append(_freeze_survivors)
            _frozen = True
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _frozen:
                gc.callbacks.remove(_freeze_survivors)
                gc.unfreeze()
                _frozen = False
