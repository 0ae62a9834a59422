"""examples/robust-example, a separate distribution with one plugin of each kind, installed into the environment
and run through every built-in benchmark that can use it: its transform through RobTest and BYOD, its attacker
on RobTest, its scorer on SynTextBench, its model, dataset and resource everywhere they fit."""

from __future__ import annotations

import json

import pytest

from tests.conftest import error_lines

KINDS = {"transform": "leetspeak", "attacker": "random-search", "model": "keywords", "dataset": "tiny-reviews",
         "scorer": "centroid-gap", "resource": "keyword-lexicon", "benchmark": "perturbed-accuracy"}


@pytest.fixture
def example(cli, plugin_site, tmp_path):
    """`robust ARGS` with robust-example installed and a private cache (its resource starts missing)."""
    site = plugin_site("robust-example")
    env = {"ROBUST_CACHE": str(tmp_path / "cache")}
    return lambda *args, **kw: cli(*args, site=site, env=env, **kw)


def _run(example, *args):
    proc = example("run", *args, "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_every_kind_is_listed_with_its_origin(example):
    proc = example("list", "--json")
    assert proc.returncode == 0, proc.stderr
    listed = {(e["kind"], e["name"]): e for e in json.loads(proc.stdout) if e["kind"] != "broken"}
    for kind, name in KINDS.items():
        entry = listed[(kind, name)]
        assert entry["origin"] == "robust-example 0.1.0" and entry["qualified"] == f"robust-example:{name}"


def test_a_missing_resource_is_one_line_until_set_up(example):
    proc = example("run", "--bench", "perturbed-accuracy", "--quiet")
    assert proc.returncode == 1 and len(error_lines(proc.stderr)) == 1
    assert "run `robust setup keyword-lexicon` once" in proc.stderr and "Traceback" not in proc.stderr
    assert "keyword lexicon ->" in example("setup", "keyword-lexicon").stdout
    result = _run(example, "--bench", "perturbed-accuracy")
    assert 0.0 <= result["result"]["summary"]["accuracy"] <= 1.0 and result["result"]["summary"]["items"] == 40


def test_its_transform_and_attacker_run_through_robtest(example):
    example("setup", "keyword-lexicon")
    run = _run(example, "--bench", "robtest", "--model", "keywords", "--data", "tiny-reviews", "--attack",
               "leetspeak,random-search:leetspeak", "--set", "degrees=0.5", "--set", "aug_num=3", "--limit", "12")
    data = run["result"]["data"]
    assert data["tags"] == [{"name": "leetspeak", "dimension": "leetspeak", "tag": "G",
                             "access": ["rule", "score", "random"], "plugin": "robust-example:leetspeak"}]
    finals = data["finals"]["leetspeak"]
    assert set(finals) == {"Rule-Average", "Rule-Worst", "Score-Average", "Score-Worst", "random-Average",
                           "random-Worst"}
    # the keyword model ignores leet-spelled keywords: at degree 0.5 robustness falls below clean accuracy
    assert data["curves"]["leetspeak"]["score"]["average"][1] < data["clean_accuracy"]


def test_its_transform_runs_through_byod(example, gpt2_dir, corpus_file):
    run = _run(example, "--bench", "byod", "--model", f"hf:{gpt2_dir}", "--data", str(corpus_file), "--test",
               "word_order", "--set", "transforms=word_order=leetspeak", "--set", "max_examples=6")
    records = json.loads(example("export", run["id"], "-f", "jsonl").stdout.replace("}\n{", "},{").join("[]"))
    records = [r for r in records if r["test"] != "health"]  # the degenerate-model check runs with every test
    assert len(records) == 6 and all(r["x_prime"] != r["x"] for r in records)
    assert any(ch in records[0]["x_prime"] for ch in "43105")  # leet-spelled
    assert run["result"]["summary"]["word_order_median_jsd"] >= 0.0


def test_its_scorer_and_model_run_on_syntextbench(example):
    example("setup", "keyword-lexicon")
    run = _run(example, "--bench", "syntextbench", "--model", "keywords", "--scorer", "centroid-gap",
               "--set", "n=64", "--set", "levels=0,1")
    summary = run["result"]["summary"]
    assert summary["centroid-gap_n"] == 2.0 and summary["centroid-gap"] > 0
    assert summary["pooling"] == "model's own"  # the keyword model declares no poolings: none is recorded


def test_a_scorer_that_reads_fields_a_benchmark_lacks_is_refused_before_the_run(example):
    example("setup", "keyword-lexicon")
    proc = example("run", "--bench", "accuracy", "--model", "keywords", "--data", "tiny-reviews",
                   "--scorer", "centroid-gap")
    assert proc.returncode == 1 and "reads test_embeddings, test_labels, which benchmark 'accuracy'" in proc.stderr
    assert example("runs", "--json").stdout.strip() == "[]"


def test_the_minimal_plugin_of_the_docs_installs_and_runs(cli, plugin_site, tmp_path):
    # docs/plugins.md opens with this package: one WordTransform of 15 lines, run by RobTest next to
    # robust-example's model and data
    site = plugin_site("robust-example", "robust-minimal")
    env = {"ROBUST_CACHE": str(tmp_path / "cache")}
    assert cli("setup", "keyword-lexicon", site=site, env=env).returncode == 0
    proc = cli("run", "--bench", "robtest", "--model", "keywords", "--data", "tiny-reviews", "--attack", "shout",
               "--set", "degrees=1.0", "--set", "aug_num=2", "--set", "access=rule", "--limit", "6", "--json",
               "--quiet", site=site, env=env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)["result"]["data"]
    assert data["tags"][0]["plugin"] == "robust-minimal:shout"
