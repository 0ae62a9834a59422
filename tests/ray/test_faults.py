"""Exactly-once records under failures on a local Ray: a worker killed with SIGKILL mid-run (replaced, its
unfinished chunks queued again), a worker that stays dead (the run fails, and resumes), and a driver stopped
by SIGTERM and by SIGKILL (resumed on Ray, then in-process). The benchmark is robust-hello's, slowed per chunk
so kills land mid-run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import robust
from robust.core import plugins
from robust.core.errors import RobustError
from robust.engine.runner import RunConfig, Runner
from robust.engine.store import Store

from .conftest import records, run

N = 48  # items, in chunks of at most robust-hello's 4 (1, 2, then 4: each costs a 0.3 s sleep)
CONFIG = RunConfig(bench="hello-dropout", model="keywords", seed=7, settings={"n": N, "sleep": 0.3})


@pytest.fixture
def hello(plugin_site, monkeypatch):
    """robust-hello registered here, and importable by the workers (the executor forwards PYTHONPATH)."""
    site = plugin_site("robust-hello")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(Path(robust.__file__).resolve().parents[1])]))
    import robust_hello

    plugins.register_plugin(robust_hello, "hello", "robust-hello", "0.1.0")
    yield site
    plugins.unregister_plugin("hello")


def _count(db) -> int:
    try:
        return sqlite3.connect(db).execute("SELECT COUNT(*) FROM records").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def _wait_for(db, at_least: int, timeout: float = 120) -> int:
    deadline = time.time() + timeout
    while (done := _count(db)) < at_least:
        assert time.time() < deadline, f"only {done} records after {timeout} s"
        time.sleep(0.05)
    return done


class Killer(threading.Thread):
    """SIGKILLs the first ready worker of `executor` once `at_least` records are committed."""

    def __init__(self, db, executor, at_least: int) -> None:
        super().__init__(daemon=True)
        self.db, self.executor, self.at_least = db, executor, at_least
        self.victim, self.seen = None, None

    def run(self) -> None:
        self.seen = _wait_for(self.db, self.at_least)
        self.victim = self.executor.pids[0]
        os.kill(self.victim, signal.SIGKILL)


def test_worker_killed_mid_run_loses_and_duplicates_nothing(local_ray, hello, tmp_path):
    from robust.engine.ray_executor import RayExecutor

    run(CONFIG, tmp_path / "local.db")
    expected, _ = records(tmp_path / "local.db")
    executor = RayExecutor(workers=2, chunks_per_task=3)
    killer = Killer(tmp_path / "ray.db", executor, at_least=8)
    killer.start()
    finished = run(CONFIG, tmp_path / "ray.db", executor)
    killer.join()

    got, rows = records(tmp_path / "ray.db")
    assert killer.victim is not None and killer.seen < N  # killed mid-run
    assert finished.status == "finished" and rows == N and got == expected
    assert executor.deaths == 1 and killer.victim == executor.pids[0]
    assert sum(executor.items_by_pid.values()) == N  # every item delivered once: nothing lost or replayed


def test_worker_that_stays_dead_fails_the_run_which_resumes(local_ray, hello, tmp_path):
    """Negative control of the replacement: without it the kill fails the run (one line), keeping what was
    committed, and a resumed run (in-process) ends with exactly the records of an uninterrupted one."""
    from robust.engine.ray_executor import RayExecutor

    run(CONFIG, tmp_path / "local.db")
    expected, _ = records(tmp_path / "local.db")
    executor = RayExecutor(workers=2, chunks_per_task=3, retries=0)
    killer = Killer(tmp_path / "ray.db", executor, at_least=8)
    killer.start()
    with pytest.raises(RobustError, match=r"^a Ray worker died .* `robust run --resume 2"):
        run(CONFIG, tmp_path / "ray.db", executor)
    killer.join()

    store = Store(tmp_path / "ray.db")
    failed = store.runs()[0]
    partial, rows = records(tmp_path / "ray.db")
    assert failed.status == "failed" and failed.error.startswith("a Ray worker died")
    assert 8 <= rows < N and all(expected[k] == v for k, v in partial.items())
    resumed = Runner(plugins.get_registry(), store, progress=False).resume(failed.id)
    got, rows = records(tmp_path / "ray.db")
    assert resumed.status == "finished" and rows == N and got == expected


def test_driver_stopped_then_killed_resumes_on_ray_then_in_process(local_ray, hello, tmp_path):
    run(CONFIG, tmp_path / "local.db")
    expected, _ = records(tmp_path / "local.db")
    home = tmp_path / "home"
    db = home / "robust.db"
    env = {**os.environ, "ROBUST_HOME": str(home)}
    ray_args = ["--executor", "ray", "--address", local_ray.get_runtime_context().gcs_address]

    def robust(*args: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "robust", "run", "--quiet", *args], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    # 1. SIGTERM: the driver marks its run interrupted and exits
    first = robust("--bench", "hello-dropout", "--model", "keywords", "--seed", "7", "--set", f"n={N}",
                   "--set", "sleep=0.3", *ray_args)
    _wait_for(db, 4)
    first.send_signal(signal.SIGTERM)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    (status,) = sqlite3.connect(db).execute("SELECT status FROM runs").fetchone()
    assert status == "interrupted"

    # 2. resumed on Ray, then SIGKILL: nothing can be flushed, the committed chunks stay
    second = robust("--resume", "latest", *ray_args)
    at_kill = _wait_for(db, _count(db) + 8)
    second.send_signal(signal.SIGKILL)
    second.wait(timeout=60)
    partial, rows = records(db)
    assert at_kill <= rows < N and all(expected[k] == v for k, v in partial.items())

    # 3. resumed in-process: exactly the records of the uninterrupted run
    third = robust("--resume", "latest", "--json")
    out, err = third.communicate(timeout=120)
    assert third.returncode == 0, err
    assert json.loads(out)["status"] == "finished"
    got, rows = records(db)
    assert rows == N and got == expected


def test_an_error_on_a_worker_fails_the_run_with_its_cause(local_ray, hello, tmp_path):
    """A benchmark raising in `run_batch` on a worker ends the run `failed` with the same one-line cause as
    in-process (here time.sleep refusing robust-hello's negative `sleep`)."""
    from robust.engine.ray_executor import RayExecutor

    broken = RunConfig(bench="hello-dropout", model="keywords", settings={"n": 8, "sleep": -1.0})
    causes = []
    for db, executor in ((tmp_path / "local.db", None), (tmp_path / "ray.db", RayExecutor(workers=2))):
        with pytest.raises(ValueError, match="sleep length must be non-negative"):
            run(broken, db, executor)
        (failed,) = Store(db).runs()
        causes.append((failed.status, failed.error))
    assert causes[0] == causes[1] == ("failed", "ValueError: sleep length must be non-negative")
