"""The run store: one SQLite database (WAL) holding runs and their item records, committed as they finish."""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robust.core.errors import RobustError

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    finished REAL,
    status TEXT NOT NULL,
    bench TEXT NOT NULL,
    model TEXT NOT NULL,
    config TEXT NOT NULL,
    environment TEXT NOT NULL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS records (
    run_id TEXT NOT NULL REFERENCES runs(id),
    item_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, item_id)
);
"""


def default_store_path() -> Path:
    """`$ROBUST_HOME/robust.db`, else `./robust-runs/robust.db`."""
    home = os.environ.get("ROBUST_HOME")
    return Path(home) / "robust.db" if home else Path("robust-runs") / "robust.db"


@dataclass
class Run:
    id: str
    created: float
    finished: float | None
    status: str
    bench: str
    model: str
    config: dict[str, Any]
    environment: dict[str, Any]
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created": _iso(self.created), "finished": _iso(self.finished),
                "status": self.status, "bench": self.bench, "model": self.model, "config": self.config,
                "environment": self.environment, "result": self.result}


def _iso(t: float | None) -> str | None:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t)) if t else None


class Store:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_store_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # runs -----------------------------------------------------------------------------------
    def create_run(self, bench: str, model: str, config: dict[str, Any], environment: dict[str, Any]) -> str:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_id = f"{stamp}-{bench}-{uuid.uuid4().hex[:6]}"
        self.db.execute(
            "INSERT INTO runs (id, created, status, bench, model, config, environment) VALUES (?,?,?,?,?,?,?)",
            (run_id, time.time(), "running", bench, model, json.dumps(config), json.dumps(environment)),
        )
        return run_id

    def get(self, ref: str) -> Run:
        """A run by id, unique id prefix, or `latest`."""
        if ref == "latest":
            row = self.db.execute("SELECT * FROM runs ORDER BY created DESC LIMIT 1").fetchone()
            if row is None:
                raise RobustError(f"no runs in {self.path}")
            return self._run(row)
        rows = self.db.execute("SELECT * FROM runs WHERE id = ? OR id LIKE ? || '%'", (ref, ref)).fetchall()
        exact = [r for r in rows if r[0] == ref]
        if exact or len(rows) == 1:
            return self._run((exact or rows)[0])
        if not rows:
            raise RobustError(f"no run {ref!r} in {self.path}; see `robust runs`")
        raise RobustError(f"run {ref!r} is ambiguous: {', '.join(r[0] for r in rows[:5])}")

    def runs(self) -> list[Run]:
        return [self._run(r) for r in self.db.execute("SELECT * FROM runs ORDER BY created")]

    def set_status(self, run_id: str, status: str) -> None:
        self.db.execute("UPDATE runs SET status = ? WHERE id = ?", (status, run_id))

    def finish(self, run_id: str, result: dict[str, Any]) -> None:
        self.db.execute("UPDATE runs SET status = 'finished', finished = ?, result = ? WHERE id = ?",
                        (time.time(), json.dumps(result), run_id))

    @staticmethod
    def _run(row: tuple) -> Run:
        rid, created, finished, status, bench, model, config, env, result = row
        return Run(rid, created, finished, status, bench, model, json.loads(config), json.loads(env),
                   json.loads(result) if result else None)

    # records --------------------------------------------------------------------------------
    def done_ids(self, run_id: str) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT item_id FROM records WHERE run_id = ?", (run_id,))}

    def add_records(self, run_id: str, records: Iterable[tuple[str, dict[str, Any]]]) -> None:
        """Commit a batch of (item id, payload) atomically; an id already stored is kept, never duplicated."""
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            (seq,) = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM records WHERE run_id = ?",
                                     (run_id,)).fetchone()
            for item_id, payload in records:
                seq += 1
                self.db.execute("INSERT OR IGNORE INTO records VALUES (?,?,?,?)",
                                (run_id, item_id, seq, json.dumps(payload, sort_keys=True)))

    def records(self, run_id: str) -> dict[str, dict[str, Any]]:
        rows = self.db.execute("SELECT item_id, payload FROM records WHERE run_id = ? ORDER BY seq", (run_id,))
        return {item_id: json.loads(payload) for item_id, payload in rows}
