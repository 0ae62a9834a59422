"""`robust run --bench syntextbench --model minilm` through the CLI and the runner (small n), and resume."""

from __future__ import annotations

import json

from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.engine.runner import Runner
from robust.engine.store import Store


def test_cli_run_minilm_and_resume(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from robust.cli import app

    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    args = ["run", "--bench", "syntextbench", "--model", "minilm", "--set", "n=40", "--set", "levels=0,0.9",
            "--set", "trials=2", "--json", "-q"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    run = json.loads(out.stdout[out.stdout.index("{"):])
    summary = run["result"]["summary"]
    assert summary["lexicon"] == "afinn" and summary["pooling"] == "first-last-avg" and summary["n"] == 40
    assert summary["model"].startswith("minilm") and 0 <= summary["score"] < 1
    store = Store(tmp_path / "robust.db")
    records = store.records(run["id"])
    assert sorted(records) == ["t0-p0.00", "t0-p0.90", "t1-p0.00", "t1-p0.90"]
    assert all("accuracy" in r and "margin" in r and len(json.dumps(r)) < 1000 for r in records.values())
    runner = Runner(get_registry(), store, progress=False)
    resumed = runner.resume(run["id"])  # a finished run: nothing left to compute, nothing changes
    assert resumed.result == run["result"] and resumed.queries == summary["model_queries"]
    assert runner.reduce(run["id"]).summary["lexicon_pos"] == summary["lexicon_pos"]


def test_unknown_lexicon_is_a_one_line_error(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from robust.cli import app

    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    out = CliRunner().invoke(app, ["run", "--bench", "syntextbench", "--model", "minilm", "--set",
                                   "lexicon=sentiwordnt", "-q"])
    assert out.exit_code != 0 and isinstance(out.exception, RobustError)
    message = str(out.exception)
    assert message.startswith("unknown lexicon") and "did you mean 'sentiwordnet'" in message and "\n" not in message
