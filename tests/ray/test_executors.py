"""Choosing an executor: names, options, a missing Ray (one line), Ray never imported unless asked, and the
GPU-aware placement of workers (from the cluster's resources; no Ray needed for these)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

import robust
from robust.core.errors import RobustError
from robust.engine.executor import InProcessExecutor, executor_names, make_executor
from tests.conftest import error_lines


def test_names_and_options_are_checked_in_one_line():
    assert executor_names()[:1] == ["in-process"] and "ray" in executor_names()
    assert isinstance(make_executor("in-process", address=None, workers=None), InProcessExecutor)
    with pytest.raises(RobustError, match=r"^unknown executor 'rey' \(did you mean 'ray'\?\); known: in-process, ray"):
        make_executor("rey")
    with pytest.raises(RobustError, match=r"^--address \(address= from Python\) is an option of a distributed "):
        make_executor("in-process", address="auto")
    with pytest.raises(RobustError, match=r"^--workers \(workers= from Python\) is an option of a distributed "):
        robust.run("accuracy", model=lambda texts: [[0.5, 0.5]] * len(texts), workers=2)  # robust.run takes it
    with pytest.raises(RobustError, match=r"^executor 'ray' takes no --colour$"):
        make_executor("ray", colour="blue")


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_core_never_imports_ray_unless_the_ray_executor_is_made():
    pytest.importorskip("ray", reason="the control needs Ray: pip install 'robust[ray]'")
    listing = ("import sys; from robust.core.plugins import get_registry; from robust.engine.runner import Runner; "
               "from robust.engine.executor import make_executor, executor_names; import robust.cli; "
               "get_registry(); make_executor('in-process'); executor_names(); print('ray' in sys.modules)")
    assert _python(listing).stdout.split() == ["False"]
    made = _python("import sys; from robust.engine.executor import make_executor; make_executor('ray'); "
                   "print('ray' in sys.modules)")
    assert made.stdout.split() == ["True"], made.stderr  # the control: the check does see an import


def test_without_ray_the_cli_says_how_to_install_it_in_one_line(tmp_path):
    blocked = tmp_path / "blocked" / "ray"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    env = {**os.environ, "PYTHONPATH": str(blocked.parent), "ROBUST_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "robust", "run", "--bench", "accuracy", "--executor", "ray"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 1
    assert error_lines(proc.stderr) == ["error: --executor ray needs Ray: pip install 'robust[ray]' (Ray 2.x)"]
    runs = sqlite3.connect(tmp_path / "home" / "robust.db").execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    assert runs == 0  # refused before a run exists


class FakeRay:
    def __init__(self, resources):
        self.resources = resources

    def cluster_resources(self):
        return self.resources


@pytest.mark.parametrize(("resources", "env", "workers", "chunks", "expected"), [
    ({"CPU": 4.0}, None, None, 100, (4, 0.0)),  # one worker per CPU
    ({"CPU": 8.0, "GPU": 2.0}, None, None, 100, (2, 1.0)),  # one worker per GPU
    ({"CPU": 8.0, "GPU": 2.0}, "0.5", None, 100, (4, 0.5)),  # two workers share each GPU
    ({"CPU": 8.0, "GPU": 2.0}, "0", None, 100, (8, 0.0)),  # GPUs ignored: CPU workers
    ({"CPU": 8.0}, None, 3, 100, (3, 0.0)),  # --workers
    ({"CPU": 64.0}, None, None, 5, (5, 0.0)),  # never more workers than chunks
])
def test_placement_follows_the_cluster_resources(resources, env, workers, chunks, expected, monkeypatch):
    from robust.engine import ray_executor

    monkeypatch.setattr(ray_executor, "import_ray", lambda: FakeRay(resources))
    if env is None:
        monkeypatch.delenv("ROBUST_RAY_GPUS_PER_WORKER", raising=False)
    else:
        monkeypatch.setenv("ROBUST_RAY_GPUS_PER_WORKER", env)
    assert ray_executor.RayExecutor(workers=workers)._placement(chunks) == expected


def test_bad_worker_options_are_one_line(monkeypatch):
    from robust.engine import ray_executor

    monkeypatch.setattr(ray_executor, "import_ray", lambda: FakeRay({}))
    with pytest.raises(RobustError, match=r"^--workers \(workers= from Python\) must be at least 1, not 0$"):
        ray_executor.RayExecutor(workers=0)
    monkeypatch.setenv("ROBUST_RAY_GPUS_PER_WORKER", "one")
    with pytest.raises(RobustError, match=r"^ROBUST_RAY_GPUS_PER_WORKER must be a number, not 'one'$"):
        ray_executor.RayExecutor()


def test_an_unreachable_cluster_address_is_one_line_at_once():
    from robust.engine.ray_executor import _check_reachable

    with pytest.raises(RobustError, match=r"^cannot reach a Ray cluster at '127.0.0.1:9': Connection refused$"):
        _check_reachable("127.0.0.1:9")
    for address in (None, "auto", "ray://head:10001"):  # answered by ray.init itself
        _check_reachable(address)


def test_a_local_cluster_starts_without_rays_advice_to_opt_out_of_token_authentication():
    """robust starts a local Ray with Ray's defaults (token authentication on) and keeps Ray's notice telling users
    how to turn it off out of its output; the filter drops that notice alone."""
    import logging

    from robust.engine.ray_executor import _no_opt_out_advice

    def record(message):
        return logging.LogRecord("ray", logging.WARNING, __file__, 1, message, None, None)

    assert not _no_opt_out_advice(record("Token authentication is enabled for this Ray cluster. Set RAY_AUTH_MODE"))
    assert _no_opt_out_advice(record("Token authentication is disabled for this Ray cluster. Anyone with access"))
    code = ("from robust.engine.ray_executor import RayExecutor\n"
            "e = RayExecutor(workers=1)\ne.connect()\nimport ray\nprint(ray.is_initialized())\ne.disconnect()")
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}  # unset: Ray's default applies
    started = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert started.stdout.split() == ["True"], started.stderr
    assert "Token authentication" not in started.stderr and "RAY_AUTH_MODE" not in started.stderr
