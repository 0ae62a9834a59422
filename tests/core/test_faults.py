"""Fault tests: every built-in benchmark is stopped with SIGTERM, then its resume with SIGKILL, each at a seeded
random point, and resumed again; the run must end `finished` with the records of an uninterrupted run, its
statuses on the way must be `interrupted` (with the cause), and a resume racing a live run is refused.

Runs are slowed down by a test plugin that sleeps before every chunk (and, if asked, for every item of it), so
they can be stopped between and inside chunks; the models are cheap (robust-example's `keywords`, the tiny GPT-2
of conftest). A RobTest run killed inside a chunk keeps the chunks it finished (its chunks adapt to take a
bounded time), where fixed chunks of its `chunk_size` (56) lost everything."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import robust
from tests.core.conftest import in_process

DELAY = 0.6  # seconds slept before each chunk
SRC = Path(robust.__file__).resolve().parents[1]  # the robust under test, for the subprocesses
SLOW_CHUNKS = '''"""Test scaffolding: every chunk of a run starts after ROBUST_TEST_CHUNK_DELAY seconds, plus
ROBUST_TEST_ITEM_DELAY seconds for each of its items."""
import os
import time

from robust.engine import executor

_run = executor.InProcessExecutor.run


def _slow_run(self, job, items, on_done):
    def work(chunk):
        time.sleep(float(os.environ.get("ROBUST_TEST_CHUNK_DELAY", "0"))
                   + len(chunk) * float(os.environ.get("ROBUST_TEST_ITEM_DELAY", "0")))
        return job.work(chunk)

    return _run(self, executor.Job(job.run_id, job.config, job.chunk_size, work), items, on_done)


executor.InProcessExecutor.run = _slow_run
'''


@pytest.fixture(scope="module")
def site(example_site):
    """robust-example (registered in this process too) and the chunk-slowing plugin, for subprocesses."""
    (example_site / "slow_chunks.py").write_text(SLOW_CHUNKS)
    info = example_site / "slow_chunks-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slow-chunks\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[robust]\nslow = slow_chunks\n")
    return example_site


def robust(home, site, *args, delay=DELAY, **env_vars):
    env = {**os.environ, "ROBUST_HOME": str(home), "PYTHONPATH": os.pathsep.join([str(site), str(SRC)]),
           "ROBUST_TEST_CHUNK_DELAY": str(delay), **env_vars}
    return subprocess.Popen([sys.executable, "-m", "robust", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(home, *args):
    """`robust --store HOME/robust.db ARGS` to completion, in this process; its JSON output."""
    home.mkdir(exist_ok=True)
    code, out, err = in_process("--store", home / "robust.db", *args)
    assert code == 0, err
    return json.loads(out)


def stored(home):
    """(records, runs) of a store: {item id: record}, [(id, status, error, queries, seconds)]."""
    try:
        db = sqlite3.connect(home / "robust.db")
        try:
            records = {i: json.loads(p) for i, p in db.execute("SELECT item_id, payload FROM records")}
            runs = db.execute("SELECT id, status, error, queries, seconds FROM runs").fetchall()
        finally:
            db.close()
    except sqlite3.OperationalError:  # not created yet
        return {}, []
    return records, runs


def stop(home, site, args, sig, rng, total, chunk, leave=1, on_live=None):
    """Start `robust ARGS`, wait until a random number of its items are committed (at least `leave` chunks of
    `chunk` items, the most a chunk holds, left), then wait a random part of a chunk and send `sig`. Returns
    (exit code, stderr)."""
    start = len(stored(home)[0])
    assert start < total - leave * chunk, "the configuration leaves no room to stop a run mid-way"
    target = int(rng.integers(start + 1, total - leave * chunk + 1))
    proc = robust(home, site, *args)
    if on_live is not None:
        on_live(proc)
    deadline = time.time() + 240
    while len(stored(home)[0]) < target and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(float(rng.uniform(0, DELAY / 2)))
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def same(a, b, abs_tol=1e-9):
    """Equal records; floats to 1e-6 relative or `abs_tol` (a resumed run batches its model calls differently)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-6,
                                                                                             abs_tol=abs_tol)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k], abs_tol) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y, abs_tol) for x, y in zip(a, b))
    return a == b


def race_is_refused(home, proc):
    """Once `proc` holds the run, a second resume of it is refused in one line and changes nothing."""
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        runs = stored(home)[1]
        holder = _holder(home) if runs and runs[0][1] == "running" else ""
        if holder.split(":")[1:2] == [str(proc.pid)]:
            break
        time.sleep(0.02)
    run_id = stored(home)[1][0][0]
    code, _, err = in_process("--store", home / "robust.db", "run", "--resume", run_id, "--quiet")
    assert code == 1 and err.splitlines() == [
        f"error: run {run_id} is being computed by another process ({holder.rsplit(':', 1)[0]}); "
        "wait for it or stop it first"]
    assert stored(home)[1][0][1] == "running" and _holder(home) == holder


def _holder(home):
    db = sqlite3.connect(home / "robust.db")
    try:
        return db.execute("SELECT lease_owner FROM runs").fetchone()[0] or ""
    finally:
        db.close()


CASES = {  # benchmark -> (arguments, items, chunk size)
    "accuracy": (["--bench", "accuracy", "--model", "keywords", "--data", "tiny-reviews",
                  "--set", "tiny-reviews.n=300"], 300, 64),
    "robtest": (["--bench", "robtest", "--model", "keywords", "--data", "tiny-reviews", "--attack", "typo-G",
                 "--limit", "16"], 240, 56),
    "syntextbench": (["--bench", "syntextbench", "--model", "keywords", "--set", "n=32",
                      "--set", "levels=0,0.25,0.5,0.75,1"], 5, 1),
}


def fault_test(tmp_path, site, args, total, chunk, seed, abs_tol=1e-9):
    rng = np.random.default_rng(seed)
    run = ["run", "--quiet", "--json", *args]
    clean = finish(tmp_path / "clean", *run)
    expected, _ = stored(tmp_path / "clean")
    assert clean["status"] == "finished" and len(expected) == total

    home = tmp_path / "stopped"
    code, err = stop(home, site, run, signal.SIGTERM, rng, total, chunk, leave=2)
    records, [(run_id, status, error, q1, s1)] = stored(home)
    assert code == 130 and err.strip().splitlines()[-1] == (
        f"interrupted: run {run_id} is saved; continue with `robust run --resume {run_id}`"), err
    assert (status, error) == ("interrupted", "stopped by SIGTERM") and 0 < len(records) < total

    resume = ["run", "--resume", "latest", "--quiet", "--json"]
    code, err = stop(home, site, resume, signal.SIGKILL, rng, total, chunk,
                     on_live=lambda proc: race_is_refused(home, proc))
    assert code == -signal.SIGKILL
    assert stored(home)[1][0][1] == "running"  # as the killed process left it, until the next command looks
    listed = finish(home, "runs", "--json")
    assert [(r["id"], r["status"], r["error"]) for r in listed] == [
        (run_id, "interrupted", "the process running it stopped without a word (stale lease)")]
    q2, s2 = listed[0]["model_queries"], listed[0]["seconds"]

    done = finish(home, *resume)
    final, runs = stored(home)
    assert done["id"] == run_id and done["status"] == "finished" and len(runs) == 1
    assert final.keys() == expected.keys() and all(same(final[k], expected[k], abs_tol) for k in expected)
    # counters add up over the three processes; a resumed run recomputes with a cold cache, never less
    assert q1 <= q2 <= done["model_queries"] and 0 < s1 < s2 < done["seconds"]
    assert done["model_queries"] >= clean["model_queries"] > 0
    assert done["result"]["summary"]["model_queries"] == done["model_queries"]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("bench", sorted(CASES))
def test_stopped_and_resumed_runs_equal_a_clean_run(tmp_path, site, bench, seed):
    fault_test(tmp_path, site, *CASES[bench], seed)


@pytest.mark.slow
def test_stopped_and_resumed_byod_equals_a_clean_run(tmp_path, site, gpt2_dir, corpus_file):
    args = ["--bench", "byod", "--model", f"hf:{gpt2_dir}", "--data", str(corpus_file), "--test", "negation",
            "--set", "max_examples=100", "--set", "bootstrap=20", "--set", "health_n=0"]
    # a float32 LM's numbers depend on the batch a text is padded in, within 1e-5 (docs/byod.md), and a resumed
    # run's chunks are cut anew
    fault_test(tmp_path, site, args, 100, 32, seed=2, abs_tol=1e-5)


def _kill_after(home, site, args, seconds, **env_vars):
    """Start `robust ARGS`, SIGKILL it `seconds` after its run is recorded; the records stored at that moment."""
    proc = robust(home, site, *args, delay=0, **env_vars)
    deadline = time.time() + 120
    while not stored(home)[1] and proc.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(seconds)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read()
    return stored(home)[0]


@pytest.mark.parametrize("chunk_seconds", ["0.1", "0"])
def test_a_robtest_run_killed_mid_chunk_keeps_its_finished_chunks(tmp_path, site, chunk_seconds):
    """Items cost 20 ms each (a chunk of RobTest's 56 takes 1.1 s); the run is killed 0.4 s after it starts.
    With chunks sized to take 0.1 s, the chunks finished by then are stored; with fixed chunks of 56 (seconds
    0, the negative control: robust before adaptive chunks) none is. Either way the resumed run ends with the
    records of an uninterrupted run, each item once."""
    args, total, _ = CASES["robtest"]
    run = ["run", "--quiet", "--json", *args]
    finish(tmp_path / "clean", *run)
    expected, _ = stored(tmp_path / "clean")

    home = tmp_path / "killed"
    at_kill = _kill_after(home, site, run, 0.4, ROBUST_TEST_ITEM_DELAY="0.02", ROBUST_CHUNK_SECONDS=chunk_seconds)
    if chunk_seconds == "0":
        assert at_kill == {}  # the first chunk of 56 items was still in flight: all finished work lost
    else:
        assert 0 < len(at_kill) < total and all(same(at_kill[k], expected[k]) for k in at_kill)

    done = finish(home, "run", "--resume", "latest", "--quiet", "--json")
    final, runs = stored(home)
    db = sqlite3.connect(home / "robust.db")
    try:
        rows = db.execute("SELECT COUNT(*), COUNT(DISTINCT item_id) FROM records").fetchone()
    finally:
        db.close()
    assert done["status"] == "finished" and len(runs) == 1 and rows == (total, total)
    assert final.keys() == expected.keys() and all(same(final[k], expected[k]) for k in expected)
