"""On a local Ray with two workers, every built-in benchmark stores exactly the records of the in-process
executor for the same seed (chunks made small, so both workers compute several multi-chunk tasks), also when
each worker computes several chunks at once (ROBUST_OVERLAP)."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict

import pytest

from robust.core.plugins import get_registry
from robust.engine.runner import RunConfig

from .conftest import records, run

ROBTEST = (4, RunConfig(bench="robtest", model="probe:minilm", data="mr", attacks=["typo-M"], limit=6, seed=3,
                        settings={"aug_num": 4, "degrees": [0, 0.1]}))


def _configs(gpt2_dir, corpus_file):
    return {
        "accuracy": (4, RunConfig(bench="accuracy", model="probe:minilm", data="mr", limit=32, seed=3)),
        "robtest": ROBTEST,
        "syntextbench": (1, RunConfig(bench="syntextbench", model="minilm", seed=3,
                                      settings={"n": 40, "trials": 2, "levels": [0, 0.9]})),
        "byod": (2, RunConfig(bench="byod", model=f"hf:{gpt2_dir}", data=str(corpus_file), limit=3, seed=3,
                              settings={"test": "negation,word_order"})),
    }


def close(a, b, rel: float = 1e-5) -> bool:
    """Equal JSON values, floats to `rel` (float noise of another batch composition)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == pytest.approx(b, rel=rel, abs=1e-7)
    return a == b


def test_close_tolerates_float_noise_only():
    assert close({"x": [1.0, {"y": 2.0}], "s": "t"}, {"x": [1.0 + 1e-9, {"y": 2.0}], "s": "t"})
    assert not close({"x": 1.0}, {"x": 1.01}) and not close({"s": "t"}, {"s": "u"})  # negative controls
    assert not close([1.0], [1.0, 2.0]) and not close({"x": 1}, {"x": 1, "y": 2})


@pytest.mark.parametrize("bench", ["accuracy", "robtest", "syntextbench", "byod"])
def test_ray_records_equal_in_process_records(bench, local_ray, gpt2_dir, corpus_file, tmp_path, monkeypatch):
    from robust.engine.ray_executor import RayExecutor

    chunk_size, config = _configs(gpt2_dir, corpus_file)[bench]
    monkeypatch.setattr(get_registry().get("benchmark", bench).target, "chunk_size", chunk_size)
    local = run(config, tmp_path / "local.db")
    executor = RayExecutor(workers=2, chunks_per_task=2)
    remote = run(config, tmp_path / "ray.db", executor)
    _same_records(tmp_path, local, remote, executor)


def _same_records(tmp_path, local, remote, executor) -> None:
    """The Ray run (ray.db) stored what the in-process one (local.db) did, each item once."""
    expected, _ = records(tmp_path / "local.db")
    got, rows = records(tmp_path / "ray.db")
    assert remote.status == "finished" and rows == len(expected) >= 4
    # as stored, except float noise: a text may be computed in a different batch (other padding) on another
    # worker's output cache; numbers agree to 1e-5 relative, everything else exactly
    assert got.keys() == expected.keys()
    for key in expected:
        assert close(json.loads(got[key]), json.loads(expected[key])), key
    assert close(remote.result["summary"] | {"model_queries": 0}, local.result["summary"] | {"model_queries": 0})
    assert remote.queries >= 1  # the workers' model queries are counted on the driver
    assert remote.peak_mb >= local.peak_mb > 0  # the largest peak of the driver (this process) and its workers
    # which workers get the chunks is up to the scheduler: on a loaded machine one may start after all are done
    assert 1 <= len(executor.chunks_by_pid) <= 2 and set(executor.chunks_by_pid) <= set(executor.pids)
    assert sum(executor.items_by_pid.values()) == len(expected)  # every item delivered once


def test_ray_workers_computing_chunks_at_once_store_the_in_process_records(local_ray, tmp_path, monkeypatch):
    """ROBUST_OVERLAP reaches the workers (forwarded), which then deliver a task's chunks in any order."""
    from robust.engine.ray_executor import RayExecutor

    chunk_size, config = ROBTEST
    monkeypatch.setattr(get_registry().get("benchmark", "robtest").target, "chunk_size", chunk_size)
    local = run(config, tmp_path / "local.db")
    monkeypatch.setenv("ROBUST_OVERLAP", "2")
    executor = RayExecutor(workers=2, chunks_per_task=4)
    _same_records(tmp_path, local, run(config, tmp_path / "ray.db", executor), executor)


def test_a_worker_computes_chunks_at_once_delivering_them_out_of_order(tmp_path, monkeypatch):
    """A Worker (no Ray needed) under ROBUST_OVERLAP=2: its first chunk waits until its second is done, which only
    chunks computed at once get past; the records equal those of one chunk at a time, every item is delivered
    once and every model query is counted once."""
    from robust.engine.ray_executor import Worker

    chunk_size, config = ROBTEST
    monkeypatch.setenv("ROBUST_CHUNK_SECONDS", "0")  # every chunk holds chunk_size items
    stored = {**asdict(config), "out": str(tmp_path)}

    def deliver(overlap: int) -> tuple[list[str], dict[str, dict], Worker]:
        monkeypatch.setenv("ROBUST_OVERLAP", str(overlap))
        worker = Worker(stored, "run", chunk_size)
        worker.ready()
        ids, work, second_done = list(worker.items), worker._work, threading.Event()

        def gated(chunk):
            if overlap > 1 and chunk[0].id == ids[0]:
                assert second_done.wait(timeout=60), "the second chunk never ran beside the first"
            records = work(chunk)
            if chunk[0].id == ids[chunk_size]:
                second_done.set()
            return records

        worker._work = gated
        order, got, queries = [], {}, 0
        for delivery in worker.run(ids):
            order += delivery.ids
            got.update(zip(delivery.ids, delivery.records, strict=True))
            queries += delivery.queries
            assert delivery.pid == os.getpid() and delivery.peak_mb > 0
        assert sorted(order) == sorted(ids) and queries == worker.ctx.model.queries > 0
        return order, got, worker

    in_order, expected, _ = deliver(1)
    out_of_order, got, worker = deliver(2)
    assert in_order == list(worker.items) and out_of_order != in_order
    assert out_of_order[:chunk_size] == in_order[chunk_size : 2 * chunk_size]  # the second chunk came first
    assert got.keys() == expected.keys() and all(close(got[k], expected[k]) for k in expected)
