"""RobTest, the attack benchmark and BYOD over a real llama.cpp server, through the CLI as a user runs them, each
with its report; and an API key that never reaches the store, the request cache, a report or the output."""

from __future__ import annotations

import json

import pytest

SECRET = "test-key-0123"  # conftest's LLAMA_API_KEY


def _run(cli, *args, env=None, timeout=900):
    done = cli("run", *args, "--quiet", "--json", env=env, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done


def _report(cli, tmp_path, run_id, env=None):
    out = tmp_path / "report"
    done = cli("report", run_id, "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    html = list(out.glob("*.html"))
    assert html and html[0].stat().st_size > 1000
    return out, done


@pytest.mark.parametrize("bench_args", [
    ("--bench", "robtest", "--attack", "typo-M", "--limit", "2", "--set", "degrees=0.1", "--set", "aug_num=2",
     "--set", "access=rule"),
    ("--bench", "attack", "--attack", "deepwordbug", "--limit", "2"),
], ids=["robtest-typo", "attack-deepwordbug"])
def test_classification_benchmarks_over_the_endpoint(cli, tmp_path, llama_server, bench_args):
    run, _ = _run(cli, *bench_args, "--model", "prompt:api:smollm2", "--set", f"api.base_url={llama_server.url}")
    assert run["status"] == "finished" and run["model_queries"] > 0
    assert run["environment"]["model"]["lm_info"]["scoring"] == "next-token"
    assert run["result"]["summary"]["model.api_requests"] > 0
    _report(cli, tmp_path, run["id"])


def test_byod_over_the_endpoint_runs_its_log_probability_and_generation_tests(cli, tmp_path, llama_server):
    run, _ = _run(cli, "--bench", "byod", "--test", "negation,toxicity", "--model", "api:smollm2", "--limit", "2",
                  "--set", f"model.base_url={llama_server.url}", "--set", "byod-toxicity.logits=false",
                  "--set", "health_n=0", "--set", "bootstrap=20")
    summary = run["result"]["summary"]
    assert run["status"] == "finished"
    assert summary["negation_n"] == 2 and summary["toxicity_n"] == 2
    _report(cli, tmp_path, run["id"])


def test_the_api_key_never_reaches_what_robust_writes(cli, tmp_path, llama_server_with_key):
    env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": llama_server_with_key.url}
    run, done = _run(cli, "--bench", "accuracy", "--model", "prompt:api:smollm2", "--limit", "2", env=env)
    assert run["status"] == "finished"
    out, reported = _report(cli, tmp_path, run["id"], env=env)
    shown = cli("show", run["id"], env=env)
    written = [p for p in (tmp_path / "home").rglob("*") if p.is_file()] + [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "api-requests.sqlite" for p in written)  # the answers were kept ...
    for path in written:  # ... and nothing written holds the key
        assert SECRET.encode() not in path.read_bytes(), path
    for text in (done.stdout, done.stderr, reported.stdout, reported.stderr, shown.stdout, shown.stderr):
        assert SECRET not in text
