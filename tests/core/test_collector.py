"""The garbage collector leaves a run's setup alone while its chunks run (robust.engine.collector): the heap built
before the chunks, and what the first chunk loads, are frozen; the rest is collected as before; the end unfreezes."""

from __future__ import annotations

import gc
import weakref

import pytest

from robust.core.interfaces import WorkItem
from robust.engine.collector import setup_frozen
from robust.engine.executor import ChunkSizer, run_overlapped


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cyclic collector frees it


@pytest.fixture(autouse=True)
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.parametrize("overlap", [1, 2])
def test_the_heap_is_frozen_while_every_chunk_runs_and_unfrozen_at_the_end(overlap):
    seen: list[int] = []  # frozen objects as each chunk begins

    def work(chunk):
        seen.append(gc.get_freeze_count())
        return [{"id": item.id} for item in chunk]

    items = [WorkItem(f"item/{k}", k) for k in range(6)]
    before = gc.get_freeze_count()
    done = list(run_overlapped(items, work, ChunkSizer(1), overlap))
    assert sorted(item.id for chunk, _ in done for item in chunk) == sorted(item.id for item in items)
    assert before == 0 and gc.get_freeze_count() == 0  # unfrozen at the end
    assert len(seen) == 6 and all(frozen > 0 for frozen in seen)  # frozen while every chunk ran


def test_a_cycle_dropped_while_frozen_is_collected_after_the_run():
    node = Node()
    ref = weakref.ref(node)
    with setup_frozen():
        del node
        gc.collect()
        assert ref() is not None  # frozen: collections skip it
    gc.collect()
    assert ref() is None


def test_what_the_first_chunk_loads_is_frozen_and_later_garbage_is_collected_during_the_run():
    with setup_frozen() as first_chunk_done:
        lexicon = Node()  # loaded by the first chunk
        loaded = weakref.ref(lexicon)
        first_chunk_done()
        del lexicon
        gc.collect()
        assert loaded() is not None
        node = Node()
        ref = weakref.ref(node)
        del node
        gc.collect()
        assert ref() is None


def test_a_freeze_made_before_is_kept():
    gc.freeze()
    frozen = gc.get_freeze_count()
    with setup_frozen():
        pass
    assert gc.get_freeze_count() >= frozen > 0
