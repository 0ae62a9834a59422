"""Adaptive chunks: each chunk is sized to take about ROBUST_CHUNK_SECONDS at the highest seconds per item of the
last chunks (one item first, at most twice the last, never more than `chunk_size`), so a kill loses at most
that much; and records do not depend on the chunking (RobTest's, with chunks of 1, 7, 56 and adaptive)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from robust.core.errors import RobustError
from robust.core.interfaces import WorkItem
from robust.engine.executor import ChunkSizer, run_chunks
from robust.plugins.benchmarks.robtest import RobTest
from tests.core.conftest import in_process
from tests.core.conftest import robtest_records as stored_records

TARGET = 2.0


def schedule(costs, cap, seconds=TARGET):
    """The chunks cut from items of the given seconds each: [(size, seconds the chunk took)], on a fake clock."""
    sizer, out, start = ChunkSizer(cap, seconds), [], 0
    while start < len(costs):
        size = min(sizer.size, len(costs) - start)
        took = sum(costs[start : start + size])
        sizer.observe(size, took)
        out.append((size, took))
        start += size
    return out


@pytest.mark.parametrize("cost", [0.001, 0.05, 0.3, 5.0])
def test_chunks_start_small_and_grow_to_the_time_budget(cost):
    chunks = schedule([cost] * 400, cap=56)
    sizes = [size for size, _ in chunks]
    assert sum(sizes) == 400 and sizes[0] == 1 and max(sizes) <= 56
    assert all(b <= 2 * a for a, b in zip(sizes, sizes[1:]))  # at most double
    # every chunk after the first fits the budget (or is one item, where one item takes longer)
    assert all(took <= TARGET or size == 1 for size, took in chunks[1:])
    size, took = chunks[-2]
    assert size == 56 or took + cost > TARGET  # the budget is used: one more item would not fit
    # negative control: fixed chunks of 56 items (seconds 0) blow the budget as soon as an item takes > 36 ms
    fixed = schedule([cost] * 400, cap=56, seconds=0)
    assert {size for size, _ in fixed[:-1]} == {56}
    assert (max(took for _, took in fixed) > TARGET) == (cost * 56 > TARGET)


def test_items_that_get_dearer_overrun_one_chunk_then_fit():
    """Cheap items, then 100 times dearer ones (RobTest's clean items, then its searches): the first chunk of dear
    items is sized for cheap ones and takes longer, once; the next starts again from one item and fits."""
    chunks = schedule([0.004] * 200 + [0.4] * 100, cap=56)
    over = [i for i, (_, took) in enumerate(chunks) if took > TARGET]
    assert len(over) == 1 and chunks[over[0] + 1] == (1, 0.4)
    assert all(took <= TARGET for _, took in chunks[over[0] + 1:])
    # a rise by less than twice the budget is absorbed: the straddling chunk is sized from its mixed rate
    mild = schedule([0.02] * 200 + [0.035] * 100, cap=56)
    assert all(took <= 2 * TARGET for _, took in mild[1:])


def test_items_of_uneven_cost_are_sized_for_the_dear_ones(monkeypatch):
    """Each 12th item 100 times dearer than the rest (RobTest's searches: an example's highest degree costs what
    its lower ones do not): sized at the highest rate of the last 3 chunks, no chunk takes over 1.25 times the
    budget; sized at the last chunk's rate alone (negative control), a cheap run of items lets one grow to 1.6."""
    costs = ([0.01] * 11 + [1.0]) * 30
    assert max(took for _, took in schedule(costs, cap=56)[1:]) <= 1.25 * TARGET
    monkeypatch.setattr(ChunkSizer, "RECENT", 1)
    assert max(took for _, took in schedule(costs, cap=56)[1:]) > 1.6 * TARGET


def test_run_chunks_yields_every_item_once_in_order():
    items = [WorkItem(f"i{k}") for k in range(50)]
    seen = []
    for chunk, records in run_chunks(items, lambda chunk: [{"id": it.id} for it in chunk], ChunkSizer(8, 1.0)):
        assert [r["id"] for r in records] == [it.id for it in chunk] and len(chunk) <= 8
        seen += chunk
    assert seen == items
    with pytest.raises(RuntimeError, match="returned 0 records for 1 items"):
        list(run_chunks(items, lambda chunk: [], ChunkSizer(8, 1.0)))


@pytest.mark.parametrize("variable", ["ROBUST_CHUNK_SECONDS", "ROBUST_PROGRESS_SECONDS"])
def test_a_bad_chunk_budget_is_refused_before_a_run_exists(example_site, tmp_path, monkeypatch, variable):
    monkeypatch.setenv(variable, "fast")
    code, _, err = in_process("--store", tmp_path / "r.db", "run", "--bench", "accuracy", "--model", "keywords",
                              "--data", "tiny-reviews", "--quiet")
    assert code == 1 and err.splitlines() == [f"error: {variable} must be a number of seconds (0 or more), not 'fast'"]
    assert sqlite3.connect(tmp_path / "r.db").execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)
    monkeypatch.setenv("ROBUST_CHUNK_SECONDS", "-1")
    with pytest.raises(RobustError, match="not '-1'"):
        ChunkSizer(4)


def robtest_records(tmp_path, monkeypatch, name, chunk_size, seconds):
    """`conftest.robtest_records` with chunks of at most `chunk_size` items sized for `seconds` (0: all of
    `chunk_size`)."""
    monkeypatch.setattr(RobTest, "chunk_size", chunk_size)
    monkeypatch.setenv("ROBUST_CHUNK_SECONDS", str(seconds))
    return stored_records(tmp_path / f"{name}.db")


def test_robtest_records_do_not_depend_on_the_chunking(example_site, tmp_path, monkeypatch):
    runs = {f"fixed {n}": robtest_records(tmp_path, monkeypatch, f"fixed-{n}", n, 0) for n in (1, 7, 56)}
    runs["adaptive"] = robtest_records(tmp_path, monkeypatch, "adaptive", 56, 2)
    reference = runs["fixed 56"]
    assert len(reference) == 90 and {r.get("access") for r in reference.values()} == {None, "rule", "score"}
    assert all(records == reference for records in runs.values())
    # negative control: a record that saw its chunk's size differs between chunkings, and the check sees it
    batch = RobTest.run_batch
    monkeypatch.setattr(RobTest, "run_batch", lambda self, items, ctx: [
        {**rec, "chunk": len(items)} for rec in batch(self, items, ctx)])
    assert robtest_records(tmp_path, monkeypatch, "leaky-7", 7, 0) != robtest_records(tmp_path, monkeypatch,
                                                                                          "leaky-56", 56, 0)


def test_distraction_records_do_not_depend_on_the_chunking(example_site, tmp_path, monkeypatch):
    """Distraction draws among the chain prefixes measured so far, and what a chunk measured followed the degrees of
    the items it held: RobTest now prepares every text for its whole degree grid, so a chunk holding one of an
    example's degrees draws what a chunk holding all of them draws (a bag-of-words embedder: batch-independent)."""
    from robust import FunctionModel
    from robust.plugins.attacks.distraction import Distraction
    from tests.attacks.test_distraction import bag_of_words

    embedder = FunctionModel(bag_of_words, "embed")
    monkeypatch.setattr(Distraction, "embedder", property(lambda self: embedder))

    def records(name: str, chunk_size: int) -> dict[str, dict]:
        monkeypatch.setattr(RobTest, "chunk_size", chunk_size)
        monkeypatch.setenv("ROBUST_CHUNK_SECONDS", "0")
        db = tmp_path / f"{name}.db"
        code, _, err = in_process("--store", db, "run", "--bench", "robtest", "--model", "keywords", "--data",
                                  "tiny-reviews", "--attack", "distraction", "--set", "access=rule", "--set",
                                  "aug_num=2", "--limit", "4", "--quiet")
        assert code == 0, err
        rows = sqlite3.connect(db).execute("SELECT item_id, payload FROM records").fetchall()
        return {item_id: json.loads(payload) for item_id, payload in rows}

    one, all_ = records("one", 1), records("all", 200)
    assert len(one) == len(all_) > 20 and one == all_
