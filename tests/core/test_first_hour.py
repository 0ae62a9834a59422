"""What a newcomer sees: each slow phase named before it starts, an ETA once some items are done, whole progress
lines in a log and a live bar in a terminal, honest answers about a run that is still computing, and bad data
refused before any model loads."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import robust
from robust.engine.progress import Estimate, clock

ETA = re.compile(r"ETA (\d+:\d\d)")


def _hello(plugin_site, tmp_path, *extra: str, env: dict | None = None) -> tuple[list[str], dict]:
    """`robust run --bench hello-dropout` (40 items, a pause per chunk) with its command line and environment."""
    site = plugin_site("robust-hello")
    args = [sys.executable, "-m", "robust", "run", "--bench", "hello-dropout", "--model", "keywords",
            "--set", "sleep=0.4", "--set", "n=40", *extra]
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
            "ROBUST_HOME": str(tmp_path / "home"), "ROBUST_PROGRESS_SECONDS": "0.5", **(env or {})}
    return args, full


def test_in_a_log_the_phases_come_first_then_whole_progress_lines_with_an_eta(plugin_site, tmp_path):
    args, env = _hello(plugin_site, tmp_path)
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    order = [next(i for i, line in enumerate(lines) if line.startswith(prefix))
             for prefix in ("preparing hello-dropout", "loading the model keywords", "hello-dropout · keywords: ")]
    assert order == sorted(order)  # said before it happens
    progress = [line for line in lines if line.startswith("hello-dropout · keywords: ")]
    assert len(progress) >= 3 and progress[-1].startswith("hello-dropout · keywords: 40/40 items (100 %)")
    assert progress[0].endswith("ETA -:--")  # nothing done yet: no guess
    assert any(ETA.search(line) for line in progress[1:-1])  # then a real estimate
    assert max(len(line) for line in progress) > 80  # and lines are never cut to a terminal's width


def test_in_a_terminal_the_bar_shows_an_eta(plugin_site, tmp_path):
    args, env = _hello(plugin_site, tmp_path, env={"COLUMNS": "160"})
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdout=follower, stderr=follower, env=env, cwd=tmp_path)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=300) == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
    assert "preparing hello-dropout" in text and "━" in text  # a live bar
    assert ETA.search(text) and "40/40 items (100 %)" in text


def test_a_running_run_is_reported_as_running_and_exported_only_as_partial(plugin_site, tmp_path):
    from robust.engine.store import Store

    args, env = _hello(plugin_site, tmp_path, "--set", "sleep=1", "--set", "n=400", "--quiet")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    cli = [sys.executable, "-m", "robust"]
    run = lambda *a: subprocess.run([*cli, *a], capture_output=True, text=True, env=env, cwd=tmp_path)  # noqa: E731
    try:
        for _ in range(600):
            path = tmp_path / "home" / "robust.db"
            runs = Store(path).runs() if path.exists() else []
            if runs and runs[0].status == "running" and Store(path).done_ids(runs[0].id):
                break
            time.sleep(0.2)
        report, export, partial = run("report", "latest"), run("export", "latest"), run("export", "latest", "-f",
                                                                                          "jsonl", "--partial")
    finally:
        proc.terminate()  # SIGTERM: the run ends interrupted
        proc.wait(timeout=300)
    assert report.returncode == 1 and "is still running" in report.stderr and "when it has finished" in report.stderr
    assert export.returncode == 1 and "is still running" in export.stderr and "--partial" in export.stderr
    rows = [json.loads(line) for line in partial.stdout.splitlines()]
    assert rows and all(row["partial"] is True for row in rows)
    stopped = run("report", "latest")
    assert stopped.returncode == 1 and "interrupted" in stopped.stderr and "resume it first" in stopped.stderr


class Recording(robust.ModelAdapter):
    """A classifier that records every call that would load or run weights."""

    name = "recording"
    capabilities = frozenset({"classify"})
    labels = ["negative", "positive"]
    calls: list[str] = []

    def preload(self) -> None:
        self.calls.append("preload")

    def _classify(self, texts):
        self.calls.append("classify")
        return [np.array([0.5, 0.5]) for _ in texts]


def test_bad_data_is_refused_before_any_model_loads(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine", "label": "positive"}\n{"text": "", "label": "negative"}\n')
    Recording.calls = []
    with pytest.raises(robust.RobustError, match="bad.jsonl:2: empty or non-text value in column 'text'"):
        robust.run("accuracy", model=Recording(), data=str(bad), store=tmp_path / "r.db")
    assert Recording.calls == []
    good = robust.run("accuracy", model=Recording(), data=[{"text": "fine", "label": "positive"}],
                      store=tmp_path / "r.db")
    assert good.status == "finished" and Recording.calls[0] == "preload"  # the control: a good run loads it


def test_the_probe_victim_knows_its_labels_without_training(monkeypatch):
    from robust.plugins.models.probe import Probe

    probe = Probe()
    monkeypatch.setattr(Probe, "_train", lambda self, examples: pytest.fail("trained to answer labels"))
    monkeypatch.setattr(Probe, "train_examples", [robust.Example("1", "a", "pos"), robust.Example("2", "b", "neg")])
    assert probe.labels == ["neg", "pos"]


def test_the_eta_weighs_items_by_cost_and_learns_each_kind(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    todo = {f"cheap{i}": ("cheap", 1.0) for i in range(3)} | {f"dear{i}": ("dear", 49.0) for i in range(3)}
    estimate = Estimate(total=6, done=0, todo=todo)
    assert estimate.eta is None
    now[0] = 3.0
    estimate.advance(["cheap0", "cheap1", "cheap2"])  # 2 % of the cost in 3 s: the rest takes 147 s, not 3 s
    assert estimate.eta == pytest.approx(147.0)
    now[0] = 13.0
    estimate.advance(["dear0"])  # a dear item took 10 s, not 49: the two left take 20 s
    assert estimate.eta == pytest.approx(20.0)
    now[0] = 18.0  # time since the last finished item is already spent on the next
    assert estimate.eta == pytest.approx(15.0)
    assert clock(147.0) == "2:27" and clock(3725) == "1:02:05" and clock(None) == "-:--"
    alike = Estimate(total=6, done=0, todo={f"x{i}": ("", 1.0) for i in range(6)})  # control: items alike
    now[0] += 3.0
    alike.advance(["x0", "x1", "x2"])
    assert alike.eta == pytest.approx(3.0)
