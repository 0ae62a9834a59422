"""A run killed with SIGKILL mid-way and resumed has exactly the records of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import robust

SRC = Path(robust.__file__).resolve().parents[1]  # the robust under test, for the subprocesses

def _records(home):
    db = sqlite3.connect(home / "robust.db")
    rows = db.execute("SELECT item_id, payload FROM records").fetchall()
    return {item_id: json.loads(payload) for item_id, payload in rows}, len(rows)


def test_sigkill_then_resume_equals_clean_run(tmp_path, plugin_site):
    site = plugin_site("robust-hello")
    args = ["run", "--bench", "hello-dropout", "--model", "keywords", "--seed", "7", "--quiet",
            "--set", "n=40", "--set", "sleep=0.15"]

    def env(home):
        return {**os.environ, "ROBUST_HOME": str(home), "PYTHONPATH": os.pathsep.join([str(site), str(SRC)])}

    clean_home, killed_home = tmp_path / "clean", tmp_path / "killed"
    clean = subprocess.run([sys.executable, "-m", "robust", *args], env=env(clean_home),
                           capture_output=True, text=True, timeout=120)
    assert clean.returncode == 0, clean.stderr

    proc = subprocess.Popen([sys.executable, "-m", "robust", *args], env=env(killed_home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait until some, but not all, chunks are committed
        if (killed_home / "robust.db").exists():
            try:
                done = _records(killed_home)[1]
            except sqlite3.OperationalError:
                done = 0
            if done >= 12:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial, n_partial = _records(killed_home)
    assert 0 < n_partial < 40

    resumed = subprocess.run([sys.executable, "-m", "robust", "run", "--resume", "latest", "--json", "--quiet"],
                             env=env(killed_home), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "finished"
    final, n_rows = _records(killed_home)
    expected, _ = _records(clean_home)
    assert n_rows == 40  # none lost, none duplicated
    assert final == expected  # identical records, per-item randomness included
    assert all(final[k] == v for k, v in partial.items())  # finished work was kept, not redone differently
