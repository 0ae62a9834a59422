"""Chunks computed at once in one process (ROBUST_OVERLAP, a model's `overlap`): while one chunk's batch is in the
model, another prepares its candidates; every item is yielded once, errors surface, the output cache stays
consistent under threads, and RobTest's records do not depend on the overlap."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from robust import FunctionModel
from robust.core.batching import OutputCache
from robust.core.interfaces import WorkItem
from robust.engine.executor import ChunkSizer, overlap_for, run_overlapped
from robust.plugins.benchmarks.robtest import RobTest
from tests.core.conftest import in_process
from tests.core.conftest import robtest_records as stored_records

ITEMS = [WorkItem(f"i{k}") for k in range(40)]


def test_overlapped_chunks_run_at_once_and_every_item_is_yielded_once():
    """Two chunks meet at a barrier: only chunks computed at once can pass it (one at a time, the first waits
    out the timeout and fails: the negative control)."""
    barrier = threading.Barrier(2, timeout=10)

    def work(chunk):
        if chunk[0].id == "i0" or chunk[0].id == "i1":  # the first two chunks (of one item each) must overlap
            barrier.wait()
        return [{"id": it.id, "thread": threading.current_thread().name} for it in chunk]

    seen = {}
    for chunk, records in run_overlapped(ITEMS, work, ChunkSizer(8, 0.5), overlap=2):
        assert [r["id"] for r in records] == [it.id for it in chunk] and len(chunk) <= 8
        seen.update((r["id"], r["thread"]) for r in records)
    assert sorted(seen) == sorted(it.id for it in ITEMS) and all(t.startswith("robust-chunk") for t in seen.values())
    barrier = threading.Barrier(2, timeout=0.2)
    with pytest.raises(threading.BrokenBarrierError):
        list(run_overlapped(ITEMS, work, ChunkSizer(8, 0.5), overlap=1))


def test_the_last_chunks_shrink_so_that_the_threads_finish_together():
    """Guided self-scheduling: a chunk takes at most 1/overlap of the items left, so the run does not end with one
    thread computing a full-size chunk alone while the others have nothing (one chunk at a time: sizes as before)."""
    items = [WorkItem(f"i{k}") for k in range(100)]

    def sizes(overlap):
        chunks = run_overlapped(items, lambda chunk: [{} for _ in chunk], ChunkSizer(16, 0), overlap=overlap)
        return [len(chunk) for chunk in sorted((c for c, _ in chunks), key=lambda c: int(c[0].id[1:]))]

    assert sizes(1) == [16] * 6 + [4]
    assert sizes(2) == [16, 16, 16, 16, 16, 10, 5, 3, 1, 1]  # each at most half of what is left


def test_the_next_chunk_starts_before_a_finished_chunks_records_are_handed_over():
    """While the caller stores a finished chunk's records, its thread computes the next chunk instead of waiting:
    at the first chunk handed over, the third has begun. Before, the next chunk was sent only once the caller came
    back for more, and this waited out its timeout."""
    third_began = threading.Event()

    def work(chunk):
        if chunk[0].id == "i2":
            third_began.set()
        return [{} for _ in chunk]

    chunks = run_overlapped(ITEMS[:6], work, ChunkSizer(1, 0), overlap=2)
    next(chunks)  # the caller holds the first chunk's records (storing them) before it asks for the next
    assert third_began.wait(timeout=10)
    assert sum(len(chunk) for chunk, _ in chunks) == 5


def test_an_error_in_one_chunk_is_raised_and_later_chunks_are_not_started():
    started = []

    def work(chunk):
        started.append(chunk[0].id)
        if chunk[0].id == "i2":
            raise ValueError("bad item i2")
        return [{} for _ in chunk]

    with pytest.raises(ValueError, match="bad item i2"):
        list(run_overlapped(ITEMS, work, ChunkSizer(1, 0), overlap=2))
    assert len(started) < len(ITEMS)


def test_the_output_cache_counts_and_answers_right_under_threads():
    cache = OutputCache()
    texts = [f"t{k % 300}" for k in range(3000)]
    outputs = [None] * 8

    def worker(w):
        outputs[w] = cache.map(("classify",), texts[w::8] + texts[: 50], lambda b: [len(x) for x in b], 7)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(out == [len(x) for x in texts[w::8] + texts[:50]] for w, out in enumerate(outputs))
    assert cache.hits + cache.misses == 3000 + 8 * 50
    assert cache.misses == 300  # each text computed once: one thread waits for what another is computing


def _slow_counting(seen: list[str], fail: set[str] = frozenset()):
    """A model that takes 50 ms a batch, notes every input it computes, and fails a batch holding one of `fail`."""
    import time

    def fn(batch):
        time.sleep(0.05)
        seen.extend(batch)
        if fail & set(batch):
            raise RuntimeError("this batch failed")
        return [len(x) for x in batch]

    return fn


def run_threads(*targets) -> list:
    """Each target run in its own thread, started together; their results (or exceptions) in order."""
    out: list = [None] * len(targets)

    def call(i, target):
        try:
            out[i] = target()
        except Exception as exc:  # noqa: BLE001 - returned for the test to check
            out[i] = exc

    threads = [threading.Thread(target=call, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a thread is stuck waiting"
    return out


def test_an_input_another_thread_is_computing_is_waited_for_not_computed_twice():
    """Chunks computed at once ask for the same texts (a RobTest example's items share its saliency queries): a
    served model's duplicate queries cost money. Equal answers, each input computed once."""
    import time

    cache, seen = OutputCache(), []
    fn = _slow_counting(seen)
    first = ["a", "bb", "ccc", "dddd"]
    late = lambda: (time.sleep(0.01), cache.map(("classify",), ["bb", "dddd", "eeeee"], fn, 8))[1]  # noqa: E731
    out = run_threads(lambda: cache.map(("classify",), first, fn, 8), late)
    assert out == [[1, 2, 3, 4], [2, 4, 5]]
    assert sorted(seen) == ["a", "bb", "ccc", "dddd", "eeeee"]
    assert (cache.misses, cache.hits) == (5, 2)


def test_a_failed_batch_is_computed_by_the_thread_that_waited_for_it():
    import time

    cache, seen = OutputCache(), []
    owner = lambda: cache.map(("classify",), ["x", "boom"], _slow_counting(seen, {"boom"}), 8)  # noqa: E731
    waiter = lambda: (time.sleep(0.01), cache.map(("classify",), ["x", "yy"], _slow_counting(seen), 8))[1]  # noqa: E731
    failed, answered = run_threads(owner, waiter)
    assert isinstance(failed, RuntimeError) and answered == [1, 2]
    assert sorted(seen) == ["boom", "x", "x", "yy"]  # "x" again, by the waiter, once the owner's batch failed


def test_nested_calls_never_wait_in_a_cycle():
    """A model whose batch asks the cache again (as `prompt:` asks its LM) computes those inputs itself: two threads
    each computing what the other's inner call needs would otherwise wait for each other forever."""
    import time

    cache, seen = OutputCache(), []

    def outer(mine, theirs):
        def fn(batch):
            time.sleep(0.05)  # both outer calls are under way before either asks for the other's input
            inner = cache.map(("classify",), [theirs], _slow_counting(seen), 8)
            return [len(x) + inner[0] for x in batch]
        return lambda: cache.map(("classify",), [mine], fn, 8)

    assert run_threads(outer("p", "qq"), outer("qq", "p")) == [[3], [3]]


def test_overlap_comes_from_the_model_or_robust_overlap(monkeypatch):
    monkeypatch.delenv("ROBUST_OVERLAP", raising=False)
    assert overlap_for(None) == 1
    assert overlap_for(FunctionModel(lambda t: [[1.0]] * len(t), overlap=3)) == 3
    monkeypatch.setenv("ROBUST_OVERLAP", "2")
    assert overlap_for(FunctionModel(lambda t: [[1.0]] * len(t), overlap=3)) == 2


@pytest.mark.parametrize(("name", "value", "error"), [
    ("ROBUST_OVERLAP", "0", "ROBUST_OVERLAP must be a whole number (1 or more), not '0'"),
    ("ROBUST_CACHE_BYTES", "1GB", "ROBUST_CACHE_BYTES must be a number of bytes (1 or more, e.g. 536870912 or 512MiB), "
                                  "not '1GB'")])
def test_a_bad_overlap_or_cache_bound_is_refused_before_a_run_exists(name, value, error, example_site, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setenv(name, value)
    code, _, err = in_process("--store", tmp_path / "r.db", "run", "--bench", "accuracy", "--model", "keywords",
                              "--data", "tiny-reviews", "--quiet")
    assert code == 1 and err.splitlines() == [f"error: {error}"]
    assert sqlite3.connect(tmp_path / "r.db").execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)


def robtest_records(tmp_path, monkeypatch, name, overlap):
    """`conftest.robtest_records` in chunks of at most 7 items, `overlap` at once."""
    monkeypatch.setattr(RobTest, "chunk_size", 7)
    monkeypatch.setenv("ROBUST_CHUNK_SECONDS", "0")
    monkeypatch.setenv("ROBUST_OVERLAP", str(overlap))
    return stored_records(tmp_path / f"{name}.db")


def test_robtest_records_do_not_depend_on_the_overlap(example_site, tmp_path, monkeypatch):
    names: set[str] = set()
    batch = RobTest.run_batch

    def noting(self, items, ctx):
        names.add(threading.current_thread().name)
        return batch(self, items, ctx)

    monkeypatch.setattr(RobTest, "run_batch", noting)
    one = robtest_records(tmp_path, monkeypatch, "one", 1)
    assert names == {threading.current_thread().name}
    names.clear()
    three = robtest_records(tmp_path, monkeypatch, "three", 3)
    assert len(names) > 1 and all(n.startswith("robust-chunk") for n in names)  # chunks really overlapped
    assert len(one) == 90 and one == three


def test_a_runs_records_come_back_in_the_plan_order_whatever_order_its_chunks_end(tmp_path, monkeypatch):
    """Chunks computed at once end in any order (so they are stored in it); `robust.run` hands the records back in
    the order of the benchmark's plan, as one chunk at a time does."""
    import time

    import numpy as np

    import robust
    from robust.plugins.benchmarks.accuracy import Accuracy

    rows = [{"text": f"review {i} was {'great' if i % 2 else 'awful'}", "label": i % 2} for i in range(12)]

    def probs(texts):  # the first rows' chunk is the slowest: later chunks end before it
        time.sleep(0.2 if any(t.startswith(("review 0 ", "review 1 ")) for t in texts) else 0.01)
        return np.array([[0.2, 0.8] if "great" in t else [0.9, 0.1] for t in texts])

    monkeypatch.setattr(Accuracy, "chunk_size", 2)
    monkeypatch.setenv("ROBUST_CHUNK_SECONDS", "0")
    order = {}
    for overlap in (1, 3):
        monkeypatch.setenv("ROBUST_OVERLAP", str(overlap))
        run = robust.run("accuracy", model=robust.FunctionModel(probs, "classify"), data=rows,
                         store=tmp_path / f"{overlap}.db")
        stored = [item for (item,) in sqlite3.connect(tmp_path / f"{overlap}.db").execute(
            "SELECT item_id FROM records ORDER BY rowid")]
        order[overlap] = (list(run.records), stored)
    assert order[3][1] != order[1][1]  # stored in the order the chunks ended
    assert order[3][0] == order[1][0] == order[1][1]  # handed back in the plan's
