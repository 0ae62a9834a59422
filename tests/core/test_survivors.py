"""While a run computes, the long-lived heap is frozen out of full garbage collections (`frozen_survivors`), and it
is given back to the collector when the run ends."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

import robust
from robust.engine.survivors import frozen_survivors


class Node:
    """A weak-referenceable object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def _nothing_frozen():
    gc.unfreeze()
    yield
    gc.unfreeze()


def classifier(seen: list):
    def fn(texts):
        seen.append(gc.get_freeze_count())
        return np.tile([0.4, 0.6], (len(texts), 1))

    return robust.FunctionModel(fn, "classify", name="frozen-probe", labels=["negative", "positive"])


def test_a_run_computes_with_the_heap_frozen_and_gives_it_back(tmp_path):
    seen: list[int] = []
    robust.run("accuracy", model=classifier(seen), limit=6, store=tmp_path / "r.db")
    probe, *batches = seen  # the model's fingerprint probes it before the run (its identity, for resuming)
    assert probe == 0
    assert batches and min(batches) > 10_000  # the modules, robust and numpy at least: frozen in every batch
    assert gc.get_freeze_count() == 0


def test_a_full_collection_inside_freezes_its_survivors_and_cycles_wait_for_the_end():
    before = Node()
    ref_before = weakref.ref(before)
    with frozen_survivors():
        frozen = gc.get_freeze_count()
        made = [Node() for _ in range(100)]
        young = Node()
        ref_young = weakref.ref(young)
        del young
        gc.collect()  # a full collection: the young cycle is garbage and collected, the survivors are frozen
        assert ref_young() is None
        assert gc.get_freeze_count() >= frozen + len(made)
        del before  # a cycle among frozen objects: the collector does not see it during the run...
        gc.collect()
        assert ref_before() is not None
    assert gc.get_freeze_count() == 0
    gc.collect()  # ...and collects it after
    assert ref_before() is None


def test_a_process_that_froze_its_own_heap_is_left_as_it_is():
    gc.freeze()
    mine = gc.get_freeze_count()
    with frozen_survivors():
        assert gc.get_freeze_count() == mine
        gc.collect()
        assert gc.get_freeze_count() == mine  # no survivor frozen by robust
    assert gc.get_freeze_count() == mine


def test_runs_in_threads_unfreeze_when_the_last_one_ends():
    inside, leave = threading.Barrier(3, timeout=10), threading.Event()

    def run():
        with frozen_survivors():
            inside.wait()
            leave.wait(10)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    with frozen_survivors():  # nested in the others
        pass
    assert gc.get_freeze_count() > 0 and gc.callbacks.count(gc.callbacks[-1]) == 1
    leave.set()
    for t in threads:
        t.join()
    assert gc.get_freeze_count() == 0
    assert not any(getattr(cb, "__module__", "") == "robust.engine.survivors" for cb in gc.callbacks)
