"""The garbage collector told to leave what a run's setup built: the model, its data, the lexicons and indexes the
first chunk loads. They live as long as the run, yet every full collection of Python's cyclic garbage collector
walked them all: one took 0.14 s of a 100-example PWWS run whose own work was 0.23 s (a naive-Bayes victim; a
RobTest typo run, 0.18 s of 2.8 s), and the cache's growing entries set off another every few seconds.

`gc.freeze()` (the standard library's way for long-lived heaps, made for pre-fork servers) moves every object the
collector tracks into a permanent generation that collections skip. The chunks freeze the heap as they begin and
once more after the first chunk (which loads what a plugin loads at first use); what a chunk makes later is
collected as before. At the end of the chunks the heap is unfrozen, so a cycle that died while frozen is
collected by a later collection: setup-time garbage waits for the run's end, never longer.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def setup_frozen() -> Iterator[Callable[[], None]]:
    """Freeze the heap now; the callable yielded freezes it again the first time it is called (after the first
    chunk); unfreeze at the end, unless the heap held frozen objects before (someone else's freeze, kept)."""
    ours = gc.get_freeze_count() == 0
    gc.freeze()
    pending = [True]

    def first_chunk_done() -> None:
        if pending:
            pending.clear()
            gc.freeze()

    try:
        yield first_chunk_done
    finally:
        if ours:
            gc.unfreeze()
