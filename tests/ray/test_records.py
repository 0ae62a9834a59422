"""On a local Ray with two workers, every built-in benchmark stores exactly the records of the in-process
executor for the same seed (chunks made small, so both workers compute several multi-chunk tasks)."""

from __future__ import annotations

import pytest

from robust.core.plugins import get_registry
from robust.engine.runner import RunConfig

from .conftest import records, run


def _configs(gpt2_dir, corpus_file):
    return {
        "accuracy": (4, RunConfig(bench="accuracy", model="probe:minilm", data="mr", limit=32, seed=3)),
        "robtest": (4, RunConfig(bench="robtest", model="probe:minilm", data="mr", attacks=["typo-M"], limit=6,
                                 seed=3, settings={"aug_num": 4, "degrees": [0, 0.1]})),
        "syntextbench": (1, RunConfig(bench="syntextbench", model="minilm", seed=3,
                                      settings={"n": 40, "trials": 2, "levels": [0, 0.9]})),
        "byod": (2, RunConfig(bench="byod", model=f"hf:{gpt2_dir}", data=str(corpus_file), limit=3, seed=3,
                              settings={"test": "negation,word_order"})),
    }


@pytest.mark.parametrize("bench", ["accuracy", "robtest", "syntextbench", "byod"])
def test_ray_records_equal_in_process_records(bench, local_ray, gpt2_dir, corpus_file, tmp_path, monkeypatch):
    from robust.plugins.executors.ray import RayExecutor

    chunk_size, config = _configs(gpt2_dir, corpus_file)[bench]
    monkeypatch.setattr(get_registry().get("benchmark", bench).target, "chunk_size", chunk_size)
    local = run(config, tmp_path / "local.db")
    executor = RayExecutor(workers=2, chunks_per_task=2)
    remote = run(config, tmp_path / "ray.db", executor)

    expected, _ = records(tmp_path / "local.db")
    got, rows = records(tmp_path / "ray.db")
    assert remote.status == "finished" and rows == len(expected) >= 4
    assert got == expected  # byte for byte, as stored (sorted-key JSON)
    assert remote.result["summary"] | {"model_queries": 0} == local.result["summary"] | {"model_queries": 0}
    assert remote.queries >= 1  # the workers' model queries are counted on the driver
    assert len(executor.pids) == 2 and len(executor.chunks_by_pid) == 2  # both workers computed chunks
    assert sum(executor.chunks_by_pid.values()) == -(-len(expected) // chunk_size)  # every chunk once
