"""A run's life through the CLI, in this process: failed with its cause, resumed (`latest` says which), finished
with counters that add up; listed, deleted and pruned with their records."""

from __future__ import annotations

import json
import sqlite3

import pytest

from robust import Benchmark, Result, WorkItem, hookimpl
from robust.core import plugins
from tests.core.conftest import in_process

FAIL_AT: set[str] = set()  # item ids that raise while computed


class Countdown(Benchmark):
    name = "countdown"
    description = "test benchmark: 6 items, each one query; some may raise"
    needs = frozenset({"classify"})
    default_model = "keywords"
    chunk_size = 2

    def items(self, ctx):
        return [WorkItem(f"item-{i}", f"text number {i}") for i in range(6)]

    def run_batch(self, items, ctx):
        broken = [it.id for it in items if it.id in FAIL_AT]
        if broken:
            raise RuntimeError(f"boom at {broken[0]}\nsecond line of the message")
        preds = ctx.model.classify([it.payload for it in items]).argmax(1)
        return [{"pred": int(p)} for p in preds]

    def reduce(self, records, ctx):
        return Result({"n": len(records)})


class Plugin:
    @hookimpl
    def register_benchmarks(register):
        register(Countdown)


@pytest.fixture
def robust(example_site, tmp_path):
    plugins.register_plugin(Plugin, "countdown", "robust-test", "0")
    store = tmp_path / "r.db"
    yield lambda *args: in_process("--store", store, *args)
    plugins.unregister_plugin("countdown")
    FAIL_AT.clear()


def runs(robust):
    code, out, _ = robust("runs", "--json")
    assert code == 0
    return {r["id"]: r for r in json.loads(out)}


def test_a_failed_run_says_why_and_resumes_to_the_same_records(robust, tmp_path):
    code, out, _ = robust("run", "--bench", "countdown", "--quiet", "--json")
    clean = json.loads(out)
    FAIL_AT.add("item-4")
    code, _, err = robust("run", "--bench", "countdown", "--quiet")
    assert code == 1 and err.splitlines()[-1] == (
        "error: RuntimeError: boom at item-4 (run with --debug for the traceback)")
    failed = next(r for r in runs(robust).values() if r["status"] != "finished")
    assert (failed["status"], failed["error"]) == ("failed", "RuntimeError: boom at item-4")
    # chunks of 1, 2, 2 items (cheap items: each chunk twice the last, at most chunk_size): [item-0], [item-1,
    # item-2] were committed, [item-3, item-4] raised
    assert failed["model_queries"] == 3 and failed["seconds"] > 0

    code, out, _ = robust("show", failed["id"])
    assert "cause: RuntimeError: boom at item-4" in out and f"continue with `robust run --resume {failed['id']}`" in out
    code, _, err = robust("run", "--resume", "latest", "--limit", "2", "--seed", "0")  # a resume keeps its config
    assert code == 1 and err.strip() == "error: --resume continues a run as it was configured; drop --limit, --seed"
    code, _, err = robust("run", "--resume", "latest", "--quiet")  # still broken: failed again, same cause
    assert code == 1 and "resuming run " + failed["id"] + " (failed)" in err
    FAIL_AT.clear()
    code, out, err = robust("run", "--resume", "latest", "--quiet", "--json")
    assert code == 0 and err.splitlines()[0] == f"resuming run {failed['id']} (failed)"
    done = json.loads(out)
    assert done["status"] == "finished" and done["error"] is None
    assert done["model_queries"] == clean["model_queries"] == 6  # 3 + 1 + 2: a chunk that raises queries nothing
    assert done["result"]["summary"]["model_queries"] == 6 and done["seconds"] > failed["seconds"]
    db = sqlite3.connect(tmp_path / "r.db")
    by_run = {}
    for run_id, item, payload in db.execute("SELECT run_id, item_id, payload FROM records"):
        by_run.setdefault(run_id, {})[item] = json.loads(payload)
    assert by_run[done["id"]] == by_run[clean["id"]]

    code, _, err = robust("run", "--resume", done["id"], "--quiet")  # finished: nothing to do, and it says so
    assert code == 0 and err.splitlines()[0] == f"run {done['id']} is already finished"
    code, _, err = robust("run", "--resume", "latest")
    assert code == 1 and err.strip() == f"error: no interrupted or failed run to resume in {tmp_path / 'r.db'}"


def test_runs_are_deleted_and_pruned_with_their_records(robust, tmp_path):
    for fail in ("item-0", "item-2", None, None):
        FAIL_AT.clear()
        FAIL_AT.update([fail] if fail else [])
        robust("run", "--bench", "countdown", "--quiet")
    listed = runs(robust)
    failed = sorted(i for i, r in listed.items() if r["status"] == "failed")
    finished = sorted(i for i, r in listed.items() if r["status"] == "finished")
    assert len(failed) == 2 and len(finished) == 2

    code, _, err = robust("runs", "prune", "--status", "failed")
    assert code == 0 and err.strip() == "deleted 2 failed run(s)"
    code, _, err = robust("runs", "delete", finished[0], finished[1][:-3])  # an exact id and a unique prefix
    assert code == 0 and err.splitlines() == [f"deleted run {finished[0]}", f"deleted run {finished[1]}"]
    assert runs(robust) == {}
    assert sqlite3.connect(tmp_path / "r.db").execute("SELECT COUNT(*) FROM records").fetchone() == (0,)
    code, _, err = robust("runs", "delete", "latest")
    assert code == 1 and err.strip() == f"error: no runs in {tmp_path / 'r.db'}"


CONTEXTS: list = []  # the run context each Helped batch ran in


class Helped(Benchmark):
    name = "helped"
    description = "test benchmark: 2 items, each classified by a helper model the run loads"
    needs = frozenset({"classify"})
    default_model = "keywords"

    def items(self, ctx):
        return [WorkItem(f"item-{i}", f"text number {i}") for i in range(2)]

    def run_batch(self, items, ctx):
        CONTEXTS.append(ctx)
        helper = ctx.load_model("keywords:other", {"classify"})
        if FAIL_AT:
            raise RuntimeError("boom")
        return [{"pred": int(p)} for p in helper.classify([it.payload for it in items]).argmax(1)]

    def reduce(self, records, ctx):
        return Result({"n": len(records)})


class HelpedPlugin:
    @hookimpl
    def register_benchmarks(register):
        register(Helped)


@pytest.mark.parametrize("fails", [False, True], ids=["finished", "failed"])
def test_a_run_lets_go_of_its_helper_models_when_it_ends(example_site, tmp_path, fails):
    """The model under test (kept by its user) stays bound to the run's context, which held the helpers: a cycle
    with each helper (bound to it too) that kept every helper alive beside the next run's until a full collection."""
    import robust as api

    plugins.register_plugin(HelpedPlugin, "helped", "robust-test", "0")
    try:
        FAIL_AT.update({"x"} if fails else set())
        model = plugins.get_registry().get("model", "keywords").create()
        try:
            api.run("helped", model=model, store=tmp_path / "r.db")
        except Exception as exc:  # noqa: BLE001 - the failed case
            assert fails and "boom" in str(exc)
        ctx = CONTEXTS[-1]
        assert model.ctx is ctx and ctx._models == {}
    finally:
        plugins.unregister_plugin("helped")
        FAIL_AT.clear()
        CONTEXTS.clear()
