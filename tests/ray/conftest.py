"""A local Ray for the executor tests (2 CPUs, started once, like CI's), and helpers to compare runs."""

from __future__ import annotations

import logging
import signal
import sqlite3
from pathlib import Path

import pytest

from robust.core.plugins import get_registry
from robust.engine.runner import RunConfig, Runner
from robust.engine.store import Store

NO_RAY = "Ray is not installed: pip install 'robust[ray]' (./install.sh --test installs it)"


@pytest.fixture(scope="session")
def local_ray():
    """`ray.init(num_cpus=2)` once for the session; the tests' workers are its actors."""
    ray = pytest.importorskip("ray", reason=NO_RAY)
    keep = signal.getsignal(signal.SIGTERM)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    signal.signal(signal.SIGTERM, keep)
    yield ray
    ray.shutdown()


def records(db: Path) -> tuple[dict[str, str], int]:
    """Every stored record (item id -> payload as stored) and the number of rows, from the database itself."""
    rows = sqlite3.connect(db).execute("SELECT item_id, payload FROM records").fetchall()
    return dict(rows), len(rows)


def run(config: RunConfig, db: Path, executor=None):
    """Start `config` in the store at `db` with `executor` (None: in-process); the finished run."""
    return Runner(get_registry(), Store(db), executor, progress=False).start(config)
