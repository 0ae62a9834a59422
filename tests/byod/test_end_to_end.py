"""`robust run --bench byod` through the CLI and the runner: resumable records, defaults, smollm2."""

from __future__ import annotations

import json

import pytest

from robust.core.errors import RobustError
from robust.core.plugins import get_registry
from robust.engine.runner import RunConfig, Runner
from robust.engine.store import Store

from .conftest import BADWORDS


def test_cli_run_with_test_option_and_resume(gpt2_dir, corpus_file, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from robust.cli import app

    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    args = ["run", "--bench", "byod", "--model", f"hf:{gpt2_dir}", "--data", str(corpus_file), "--limit", "3",
            "--test", "negation", "--test", "word_order", "--set", "mode=faithful", "--json", "-q"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    run = json.loads(out.stdout[out.stdout.index("{"):])
    assert run["result"]["summary"]["mode"] == "faithful"
    scores = next(t for t in run["result"]["tables"] if "BYOD scores" in t["title"])
    assert {r[0] for r in scores["rows"]} == {"negation", "word_order"}
    assert run["result"]["summary"]["degenerate"]  # the tiny random LM is flagged (and said so in the title)
    assert scores["title"].startswith("NOT RANKED")

    store = Store(tmp_path / "robust.db")
    records = store.records(run["id"])
    assert sorted(k for k in records if not k.startswith("health/")) == [
        f"{t}/{i:05d}" for t in ("negation", "word_order") for i in range(3)]
    resumed = Runner(get_registry(), store, progress=False).resume(run["id"])  # finished: nothing changes
    assert resumed.result == run["result"] and resumed.queries == run["result"]["summary"]["model_queries"]


def test_bad_test_name_is_a_one_line_error(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from robust.cli import app

    monkeypatch.setenv("ROBUST_HOME", str(tmp_path))
    out = CliRunner().invoke(app, ["run", "--bench", "byod", "--test", "negashun", "-q"])
    assert out.exit_code != 0 and isinstance(out.exception, RobustError)
    assert str(out.exception).startswith("unknown BYOD test 'negashun'") and "\n" not in str(out.exception)


@pytest.mark.slow
def test_default_run_smollm2_on_movie_reviews(tmp_path):
    """No --model/--data: the embedded smollm2 on the embedded 1,500 reviews (a handful of examples)."""
    try:
        from robust.core.context import RunContext

        RunContext.default().resource("mr")
        get_registry().model("smollm2").source  # noqa: B018 - converted once and cached
    except Exception as exc:  # noqa: BLE001 - missing embedded resources on this machine
        pytest.skip(f"embedded resources unavailable: {exc}")
    settings = {"max_new_tokens": 5, **({"badwords_path": str(BADWORDS)} if BADWORDS.is_file() else {})}
    config = RunConfig(bench="byod", model="smollm2", limit=2, settings=settings)
    run = Runner(get_registry(), Store(tmp_path / "r.db"), progress=False).start(config)
    s = run.result["summary"]
    assert s["mode"] == "clean" and all(s[f"{t}_n"] == 2 for t in ("negation", "toxicity", "lrs", "word_order",
                                                                   "tokenization", "entropy"))
    # a trained LM is context- and order-sensitive (docs/validation/byod.md: random init ≈ 0)
    assert s["lrs"] > 0.01 and s["word_order_median_jsd"] > 0 and s["tokenization_mean_jsd"] > 0
    assert 0 < s["next_token_entropy"] < 10.8  # below ln(49152): far from uniform
    assert s["degenerate"] is False and s["health_log_ppl"] < s["health_log_vocab"] - 3
