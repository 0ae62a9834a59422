"""CLI flows and error paths: every user mistake is one line on stderr and a non-zero exit."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests.conftest import error_lines

BAD = [
    (["run", "--bench", "acuracy"], "did you mean 'accuracy'"),
    (["run", "--bench", "accuracy", "--model", "nosuch"], "unknown model 'nosuch'"),
    (["run", "--bench", "accuracy", "--model", "minilm"], "needs classify"),
    (["run", "--bench", "accuracy", "--set", "novalue"], "expected key=value"),
    (["run", "--bench", "accuracy", "--set", "text_colum=x", "--model", "minilm"], "did you mean 'text_column'"),
    (["run", "--bench", "accuracy", "--frobnicate"], "No such option"),
    (["run", "--bench", "accuracy", "--attack", "typo", "--model", "minilm"], "takes no --attack"),
    (["run", "--bench", "accuracy", "--model", "hf:"], "needs a hub id or a local directory"),
    (["run", "--bench", "accuracy", "--model", "hf:no-such-org/no-such-model"], "cannot load model"),  # offline hub
    (["show", "no-such-run"], "no run 'no-such-run'"),
    (["export", "latest", "--format", "xml"], None),
    (["list", "gadgets"], "unknown list 'gadgets'"),
    (["run"], "missing --bench"),
    (["setup", "everything"], "unknown resource 'everything'"),
    (["run", "--bench", "accuracy", "--model", "minilm", "--limit", "-5"],
     "--limit (limit= from Python) must be a positive number"),
    (["run", "--bench", "accuracy", "--model", "minilm", "--batch-size", "-3"],
     "--batch-size (batch_size= from Python) must be at least 1"),
    (["run", "--bench", "robtest", "--model", "minilm", "--set", "robtest.aug_num=2"],
     "take no prefix: --set aug_num=2"),
    (["run", "--bench", "robtest", "--model", "minilm", "--set", "aug_num=-2"], "setting 'aug_num'"),
    (["run", "--bench", "syntextbench", "--model", "minilm", "--set", "levels=0,1.5"], "setting 'levels'"),
    (["run", "--bench", "syntextbench", "--model", "minilm", "--set", "p_e=5"], "setting 'p_e'"),
    (["run", "--bench", "syntextbench", "--model", "minilm", "--set", "a_T=2"], "setting 'a_T'"),
    (["run", "--bench", "byod", "--model", "minilm", "--set", "max_examples=-1"], "setting 'max_examples'"),
    (["run", "--bench", "accuracy", "--model", "minilm", "--set", "nosuch.x=1"], "no transform, attacker"),
    (["run", "--bench", "syntextbench", "--model", "minilm", "--data", "mr"],
     "benchmark 'syntextbench' takes no --data (data= from Python)"),
    (["run", "--bench", "synbench", "--model", "identity", "--data", "mr"], "benchmark 'synbench' takes no --data"),
    (["run", "--bench", "robtest", "--model", "minilm", "--attack", "typo", "--set", "typo.mode=faithful"],
     "'typo' is a group of transforms (typo-G, typo-M)"),
    (["--store", "/no/such/dir/r.db", "runs"], "directory /no/such/dir does not exist"),
    (["runs", "delete", "nope"], "no run 'nope'"),
    (["show"], "Missing argument 'RUN'"),
    (["runs", "prune", "--status", "finished"], "--status must be failed or interrupted"),
]


@pytest.mark.parametrize("args,expected", BAD)
def test_user_errors_are_one_line(cli, args, expected):
    proc = cli(*args)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    if expected:
        assert expected in lines[0]


def test_bad_data_is_one_line_naming_file_and_line_and_creates_no_run(cli, tmp_path):
    data = tmp_path / "bad.jsonl"
    data.write_text('{"text": "fine", "label": "positive"}\n{"text": "", "label": "negative"}\n')
    proc = cli("run", "--bench", "accuracy", "--model", "probe:minilm", "--data", str(data))
    assert proc.returncode == 1 and error_lines(proc.stderr) == [
        f"error: {data}:2: empty or non-text value in column 'text'"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    proc = cli("run", "--bench", "accuracy", "--model", "probe:minilm", "--data", str(empty))
    assert proc.returncode == 1 and f"{empty}: no examples" in proc.stderr
    assert json.loads(cli("runs", "--json").stdout) == []


def test_run_show_export_report_compare(cli, plugin_site, tmp_path):
    site = plugin_site("robust-hello")
    first = cli("run", "--bench", "hello-dropout", "--model", "keywords", "--quiet", "--set", "n=8", site=site)
    assert first.returncode == 0, first.stderr
    assert "accuracy" in first.stdout
    # what the run took: its queries (one per example), seconds and throughput, and the process's peak memory
    took = re.search(r"^8 model queries in [\d.]+ s \(([\d.,]+) a second\); peak memory ([\d,]+) MB$",
                     first.stderr, re.M)
    assert took and 20 < int(took[2].replace(",", "")) < 20_000, first.stderr
    stored = json.loads(cli("show", "latest", "--json", site=site).stdout)
    assert float(took[1].replace(",", "")) == pytest.approx(8 / stored["seconds"], rel=0.1)
    second = cli("run", "--bench", "hello-dropout", "--model", "keywords", "--quiet", "--seed", "3",
                 "--set", "degree=0.6", "--set", "n=8", "--json", site=site)
    run = json.loads(second.stdout)
    assert run["config"]["settings"] == {"degree": 0.6, "n": 8} and run["config"]["seed"] == 3  # stored typed
    assert run["environment"]["versions"]["robust"] and run["environment"]["plugins"]

    listing = json.loads(cli("runs", "--json", site=site).stdout)
    assert len(listing) == 2 and all(r["status"] == "finished" for r in listing)
    shown = json.loads(cli("show", run["id"], "--json", site=site).stdout)
    assert shown["result"] == run["result"]
    assert shown["model_queries"] == 8 and shown["seconds"] > 0 and 20 < shown["peak_memory_mb"] < 20_000
    assert f"computing: 8 model queries in {shown['seconds']:.2f} s" in cli("show", run["id"], site=site).stdout

    rows = list(csv.DictReader(io.StringIO(cli("export", run["id"], "--format", "csv", site=site).stdout)))
    assert len(rows) == 8 and {"item_id", "text", "pred", "correct"} <= set(rows[0])
    jsonl = cli("export", run["id"], "--format", "jsonl", site=site).stdout.splitlines()
    assert [json.loads(line)["item_id"] for line in jsonl] == [r["item_id"] for r in rows]

    rep = cli("report", run["id"], "--out", str(tmp_path / "rep"), site=site)
    assert rep.returncode == 0, rep.stderr
    html = (tmp_path / "rep" / f"{run['id']}.html").read_text()
    assert "<table>" in html and "hello-dropout" in html
    page = (tmp_path / "rep" / f"{run['id']}.md").read_text()
    assert page.startswith("# robust report") and "**computing**: 8 model queries in " in page and " MB" in page

    cmp = cli("compare", listing[0]["id"], run["id"], site=site)
    assert cmp.returncode == 1 and "does not support comparison" in cmp.stderr

    # a file the user names is written where asked, its directory made; where it cannot be, one line says why
    nested = tmp_path / "exports" / "of" / "run.json"
    assert cli("export", run["id"], "-o", str(nested), site=site).returncode == 0
    assert json.loads(nested.read_text())["run"]["id"] == run["id"]
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for args in (["export", run["id"], "-o", str(blocker / "x.json")], ["report", run["id"], "--out", str(blocker)]):
        proc = cli(*args, site=site)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode == 1 and len(lines) == 1 and lines[0].startswith(f"error: cannot write {blocker}/")


def test_accuracy_of_probes_end_to_end_and_compare(cli, tmp_path):
    pos = ["a wonderful film", "great acting", "i loved it", "brilliant and funny", "a delight", "superb", "moving"]
    neg = ["a dull mess", "terrible acting", "i hated it", "awful and tedious", "a waste", "poor", "pointless"]
    data, flipped, held = tmp_path / "d.jsonl", tmp_path / "flipped.jsonl", tmp_path / "held.jsonl"
    for path, (a, b), prefix in ((data, ("good", "bad"), ""), (flipped, ("bad", "good"), ""),
                                 (held, ("good", "bad"), "honestly, ")):
        path.write_text("".join(json.dumps({"text": prefix + t, "label": lab}) + "\n"
                                for texts, lab in ((pos, a), (neg, b)) for t in texts))
    runs = []
    for train in (flipped, data):
        proc = cli("run", "--bench", "accuracy", "--data", str(held), "--set", f"model.train={train}",
                   "--set", "model.C=1.0", "--json", "--quiet")
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout))
    assert runs[1]["model"] == "probe:minilm"  # the benchmark's default model
    assert runs[1]["result"]["summary"]["accuracy"] == 1.0  # a trained probe classifies these sentences reworded
    assert runs[0]["result"]["summary"]["accuracy"] == 0.0  # trained on flipped labels: always wrong
    # its own training data is not a test of it: refused in one line
    proc = cli("run", "--bench", "accuracy", "--data", str(data), "--set", f"model.train={data}", "--quiet")
    assert error_lines(proc.stderr) == [f"error: {data}: the model was trained on every example; nothing is left to "
                                        "test it on (give other data, or a model that holds out a share of its "
                                        "training data: finetune:)"]
    cmp = json.loads(cli("compare", runs[0]["id"], runs[1]["id"], "--json").stdout)
    ranking = cmp["tables"][0]["rows"]
    assert [row[1].endswith(runs[1]["id"][-6:] + ")") for row in ranking] == [True]
    # the always-wrong probe does no better than the majority class: it is named, not ranked
    assert [label.endswith(runs[0]["id"][-6:] + ")") for label in cmp["summary"]["not ranked (not above chance)"]] \
        == [True]


def test_missing_resource_says_how_to_provide_it(cli, tmp_path):
    proc = cli("run", "--bench", "accuracy", "--model", "probe:minilm", env={"ROBUST_CACHE": str(tmp_path / "empty")})
    assert proc.returncode == 1
    missing = tmp_path / "empty" / "data"
    assert error_lines(proc.stderr) == [
        f"error: Pang & Lee movie-review data (4,000 labelled sentences, 1,500 reviews) not found at {missing}; "
        "run `robust setup mr` once"]


def test_missing_cells_print_as_a_dash_not_none(capsys):
    """A value a row cannot have (SynTextBench's Gaussian margin at chance accuracy) prints as '–', like the
    reports, never as Python's `None` or `nan`."""
    from robust.cli import _print_table
    from robust.core.results import Table

    _print_table(Table("t", ["p", "margin_gaussian"], [[0.9, 6.629], [0.95, None], [1.0, float("nan")]]))
    out = capsys.readouterr().out
    assert "6.629" in out and "None" not in out and "nan" not in out
    assert out.count("–") == 2


def test_version_is_printed_alone():
    from robust import __version__
    from tests.core.conftest import in_process

    assert in_process("--version") == (0, f"robust {__version__}\n", "")
