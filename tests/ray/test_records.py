"""On a local Ray with two workers, every built-in benchmark stores exactly the records of the in-process
executor for the same seed (chunks made small, so both workers compute several multi-chunk tasks)."""

from __future__ import annotations

import json

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
    # which workers get the chunks is up to the scheduler: on a loaded machine one may start after all are done
    assert 1 <= len(executor.chunks_by_pid) <= 2 and set(executor.chunks_by_pid) <= set(executor.pids)
    assert sum(executor.items_by_pid.values()) == len(expected)  # every item delivered once
