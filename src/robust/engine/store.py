"""The run store: one SQLite database (WAL) holding runs and their item records, committed chunk by chunk.

Its schema has a version (`PRAGMA user_version`, see MIGRATIONS). Opening a store writes nothing if it is up to
date; a new or older one is created or migrated in one write transaction, so any number of processes may open
the same store at once. A lock held by another process is waited for (ROBUST_STORE_TIMEOUT seconds, then one
line saying the store is busy); a file that is not a run store is refused, and never written.

A run ends `finished`, `failed` (with its one-line cause) or `interrupted`. The process computing a run holds
a lease on it, renewed while it works; a run whose holder died without a word (its pid is dead on this host, or
its lease expired on another) is marked `interrupted` by the next command.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from robust.core.environ import env_seconds
from robust.core.errors import RobustError

RUNS = """CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, created REAL NOT NULL, finished REAL, status TEXT NOT NULL, bench TEXT NOT NULL,
    model TEXT NOT NULL, config TEXT NOT NULL, environment TEXT NOT NULL, result TEXT
)"""
RECORDS = """CREATE TABLE IF NOT EXISTS records (
    run_id TEXT NOT NULL REFERENCES runs(id), item_id TEXT NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (run_id, item_id)
)"""
# columns added to `runs` before the schema had a version (such stores are migrated in place)
EXTRA_COLUMNS = {"error": "TEXT", "lease_owner": "TEXT", "lease_until": "REAL",
                 "queries": "INTEGER NOT NULL DEFAULT 0", "seconds": "REAL NOT NULL DEFAULT 0"}
COLUMNS = ("id", "created", "finished", "status", "bench", "model", "config", "environment", "result",
           "error", "lease_owner", "lease_until", "queries", "seconds", "peak_mb")
#: json's encoder of a record, keys sorted (one for all: `json.dumps` with options builds one per call, 3 µs of 8)
_JSON = json.JSONEncoder(sort_keys=True).encode
#: orjson (Rust) writes a RobTest record in ~0.6 µs against json's ~6.4 and reads it in ~2-3 µs against ~7. It
#: writes NaN and ±inf as null, and refuses int keys, ints past 64 bits, lone surrogates, numpy's scalars and (so
#: told) subclasses, dataclasses and datetimes: such records are written by json, so every record reads back as json
#: reads json's text. orjson would read an int past 64 bits as a float, so it reads only what it wrote (`record_of`).
_SORTED = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
           | orjson.OPT_PASSTHROUGH_DATETIME)


def record_json(payload: dict[str, Any]) -> str:
    """A record's JSON text, keys sorted."""
    try:
        text = orjson.dumps(payload, option=_SORTED)
    except TypeError:
        return _JSON(payload)
    return _JSON(payload) if b"null" in text else text.decode()


def record_of(text: str) -> dict[str, Any]:
    """A record from its JSON text. json's separator ': ' follows every key of what json wrote (the records orjson
    could not write, and every record of older stores), which json reads; orjson writes no space there, and reads
    back exactly what it wrote (a text of its with ': ' inside a string goes to json, which reads it as well)."""
    return json.loads(text) if '": ' in text else orjson.loads(text)


LEASE_SECONDS = float(os.environ.get("ROBUST_LEASE_SECONDS", 30))
STALE = "the process running it stopped without a word (stale lease)"
RESUMABLE = ("interrupted", "failed")


def default_store_path() -> Path:
    """`$ROBUST_HOME/robust.db`, else `./robust-runs/robust.db`."""
    home = os.environ.get("ROBUST_HOME")
    return Path(home) / "robust.db" if home else Path("robust-runs") / "robust.db"


def owner_token() -> str:
    """Who holds a lease: host, pid and a random part (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


_LEASE = "SELECT status, lease_owner, lease_until FROM runs WHERE id = ?"  # what `_refuse_held` reads


def _refuse_held(run_id: str, status: str, holder: str | None, until: float | None) -> None:
    if status == "running" and not _gone(holder, until):
        who = (holder or "").rsplit(":", 1)[0]
        raise RobustError(f"run {run_id} is being computed by another process ({who}); wait for it or stop it first")


def _gone(owner: str | None, until: float | None) -> bool:
    """Whether a lease holder has stopped: on this host, its pid is dead (whatever the lease says, so a killed
    process is found at once and a busy one is never taken over); elsewhere, its lease has expired."""
    if not owner:
        return True
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return (until or 0) < time.time()
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        pass
    return False


# schema -------------------------------------------------------------------------------------------------
def _v1(db: sqlite3.Connection) -> None:
    """Version 0 is every store written before the schema had a version: create what is missing, tables and
    the columns added since the first release."""
    db.execute(RUNS)
    db.execute(RECORDS)
    have = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    for column, decl in EXTRA_COLUMNS.items():
        if column not in have:
            db.execute(f"ALTER TABLE runs ADD COLUMN {column} {decl}")


def _v2(db: sqlite3.Connection) -> None:
    """Index a run's records by their order: committing a batch reads the run's largest `seq`, and reading the
    records orders by it, each of which scanned every record of the run without one (a run of 50,000 records
    took 14 ms a commit instead of 0.15 ms)."""
    db.execute("CREATE INDEX IF NOT EXISTS records_by_seq ON records (run_id, seq)")


def _v3(db: sqlite3.Connection) -> None:
    """The peak memory of the processes that computed a run (MB; NULL where it was not measured: runs stored
    before, or computed where the platform does not tell)."""
    db.execute("ALTER TABLE runs ADD COLUMN peak_mb REAL")


#: MIGRATIONS[v] takes a store from schema version v (`PRAGMA user_version`) to v + 1; a change of the schema
#: is one more step here
MIGRATIONS = (_v1, _v2, _v3)
SCHEMA_VERSION = len(MIGRATIONS)


class Unusable(Exception):
    """The file is not a run store (another program's SQLite database, or not SQLite at all)."""


class Newer(Exception):
    """The store has a schema version this robust does not know (a newer robust migrated it)."""


def _busy(exc: sqlite3.Error) -> bool:
    """Whether an SQLite error is another connection's lock (SQLITE_BUSY or SQLITE_LOCKED, any extended code)."""
    return ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _version(db: sqlite3.Connection) -> int:
    """The store's schema version; Unusable if its tables are not a run store's (such a file is never written)."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    have = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    if tables and not ({"runs", "records"} <= tables and set(COLUMNS[:9]) <= have):
        raise Unusable(f"its tables ({', '.join(sorted(tables))}) are not a run store's")
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise Newer(version)
    return version


def _prepare(db: sqlite3.Connection) -> None:
    """Bring a store to SCHEMA_VERSION: nothing to write if it is there already; else switch it to WAL and run
    the missing migrations in one write transaction that looks again first (a concurrent process may have
    created or migrated it meanwhile), so any number of processes may open a new or old store at once."""
    if _version(db) == SCHEMA_VERSION:
        return
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        db.execute("PRAGMA journal_mode=WAL")  # outside a transaction; needs a moment alone with the file
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _version(db)
        for migrate in MIGRATIONS[version:]:
            migrate(db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def busy_seconds() -> float:
    """ROBUST_STORE_TIMEOUT: how long a store locked by another process is waited for (30 s by default)."""
    return env_seconds("ROBUST_STORE_TIMEOUT", 30)


def _open(path: Path) -> sqlite3.Connection:
    """A connection to an up-to-date store. A lock held by another process (busy) is waited for, with retries,
    up to busy_seconds(); a file that is not a run store is refused at once. Either way, one line."""
    limit = busy_seconds()
    start = time.monotonic()
    pause = 0.005
    while True:
        left = limit - (time.monotonic() - start)
        db = None
        try:
            db = sqlite3.connect(path, timeout=max(left, 0.01), isolation_level=None, check_same_thread=False)
            _prepare(db)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(f"PRAGMA busy_timeout = {int(limit * 1000)}")
            return db
        except BaseException as exc:
            if db is not None:
                db.close()
            if isinstance(exc, Newer):
                raise RobustError(f"{path} was written by a newer robust (schema version {exc}; this one reads up "
                                  f"to {SCHEMA_VERSION}); upgrade robust or pass --store OTHER.db") from None
            if not isinstance(exc, (sqlite3.DatabaseError, Unusable)):
                raise
            if isinstance(exc, sqlite3.Error) and _busy(exc):
                waited = time.monotonic() - start
                if waited < limit:  # some locks (switching to WAL, lock upgrades) are not waited for
                    # back off, by a factor that differs between processes so that they do not retry in step
                    time.sleep(min(pause * (1 + os.getpid() % 10 / 10), limit - waited))
                    pause = min(2 * pause, 0.25)
                    continue
                raise RobustError(f"{path} is busy (locked by another process) after {waited:.0f} s; try again "
                                  "when it is free, or wait longer with ROBUST_STORE_TIMEOUT=SECONDS") from None
            raise RobustError(f"{path} is not a usable robust run store ({exc}); "
                              "move it away or pass --store OTHER.db") from None


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
    error: str | None = None
    lease_owner: str | None = None
    lease_until: float | None = None
    queries: int = 0
    seconds: float = 0.0
    peak_mb: float | None = None

    @property
    def queries_per_second(self) -> float | None:
        """Model queries a second of the run's computing (every session's seconds, a resumed run's too)."""
        return self.queries / self.seconds if self.seconds > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "created": _iso(self.created), "finished": _iso(self.finished),
                "status": self.status, "error": self.error, "bench": self.bench, "model": self.model,
                "model_queries": self.queries, "seconds": round(self.seconds, 3),
                "peak_memory_mb": None if self.peak_mb is None else round(self.peak_mb, 1), "config": self.config,
                "environment": self.environment, "result": self.result}


@dataclass(frozen=True)
class Counted:
    """What the processes computing a run spent on it since they last said: model queries, seconds, and the
    largest peak memory among them (MB, each process's high-water mark; None where it is not known)."""

    queries: int = 0
    seconds: float = 0.0
    peak_mb: float | None = None


#: how a commit adds a Counted to a run's counters (the peak is the largest seen, NULL while none is known)
_COUNT = "queries = queries + ?, seconds = seconds + ?, peak_mb = COALESCE(MAX(peak_mb, ?), peak_mb, ?)"


def _counts(counted: Counted) -> tuple[int, float, float | None, float | None]:
    return counted.queries, counted.seconds, counted.peak_mb, counted.peak_mb


def _iso(t: float | None) -> str | None:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t)) if t else None


class Store:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_store_path()
        if path is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.parent.is_dir():
            raise RobustError(f"cannot open run store {self.path}: directory {self.path.parent} does not exist")
        self.db = _open(self.path)
        self._lock = threading.Lock()

    def close(self) -> None:
        self.db.close()

    def _exec(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            return self.db.execute(sql, args)

    # runs -----------------------------------------------------------------------------------
    def create_run(self, bench: str, model: str, config: dict[str, Any], environment: dict[str, Any],
                   owner: str) -> str:
        run_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{bench}-{uuid.uuid4().hex[:6]}"
        self._exec("INSERT INTO runs (id, created, status, bench, model, config, environment, lease_owner, "
                   "lease_until) VALUES (?,?,?,?,?,?,?,?,?)",
                   (run_id, time.time(), "running", bench, model, json.dumps(config), json.dumps(environment),
                    owner, time.time() + LEASE_SECONDS))
        return run_id

    def reap(self) -> None:
        """Mark `running` runs whose holder is gone as `interrupted`."""
        rows = self._exec("SELECT id, lease_owner, lease_until FROM runs WHERE status = 'running'").fetchall()
        for run_id, owner, until in rows:
            if _gone(owner, until):
                self._exec("UPDATE runs SET status = 'interrupted', error = ?, lease_owner = NULL "
                           "WHERE id = ? AND status = 'running' AND lease_owner IS ?", (STALE, run_id, owner))

    def get(self, ref: str) -> Run:
        """A run by exact id, unique id prefix, or `latest`."""
        self.reap()
        if ref == "latest":
            row = self._exec("SELECT id FROM runs ORDER BY created DESC LIMIT 1").fetchone()
            if row is None:
                raise RobustError(f"no runs in {self.path}")
            return self._load(row[0])
        ids = [r[0] for r in self._exec("SELECT id FROM runs")]
        matches = [i for i in ids if i == ref] or [i for i in ids if ref and i.startswith(ref)]
        if not matches:
            raise RobustError(f"no run {ref!r} in {self.path}; see `robust runs`")
        if len(matches) > 1:
            raise RobustError(f"run {ref!r} is ambiguous: {', '.join(sorted(matches)[:5])}")
        return self._load(matches[0])

    def latest_resumable(self) -> Run:
        self.reap()
        row = self._exec("SELECT id FROM runs WHERE status IN (?, ?) ORDER BY created DESC LIMIT 1",
                         RESUMABLE).fetchone()
        if row is None:
            raise RobustError(f"no interrupted or failed run to resume in {self.path}")
        return self._load(row[0])

    def _load(self, run_id: str) -> Run:
        row = self._exec(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE id = ?", (run_id,)).fetchone()
        rid, created, finished, status, bench, model, config, env, result, *rest = row
        return Run(rid, created, finished, status, bench, model, json.loads(config), json.loads(env),
                   json.loads(result) if result else None, *rest)

    def runs(self) -> list[Run]:
        self.reap()
        return [self._load(r[0]) for r in self._exec("SELECT id FROM runs ORDER BY created").fetchall()]

    def refuse_if_held(self, run_id: str) -> None:
        """Refuse in one line if a live process holds the run's lease (before a resume loads anything; `acquire`
        checks again as it takes the lease)."""
        _refuse_held(run_id, *self._exec(_LEASE, (run_id,)).fetchone())

    def acquire(self, run_id: str, owner: str) -> None:
        """Take the lease on a run for this process, or refuse in one line if a live process holds it."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                _refuse_held(run_id, *self.db.execute(_LEASE, (run_id,)).fetchone())
                self.db.execute("UPDATE runs SET status = 'running', error = NULL, lease_owner = ?, "
                                "lease_until = ? WHERE id = ?", (owner, time.time() + LEASE_SECONDS, run_id))
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise

    def renew(self, run_id: str, owner: str) -> None:
        self._exec("UPDATE runs SET lease_until = ? WHERE id = ? AND lease_owner = ?",
                   (time.time() + LEASE_SECONDS, run_id, owner))

    def end(self, run_id: str, owner: str, status: str, counted: Counted = Counted(),
            error: str | None = None, result: dict[str, Any] | None = None) -> None:
        """Release the lease with the final status, adding `counted` to the run's counters."""
        self._exec(f"UPDATE runs SET status = ?, error = ?, lease_owner = NULL, lease_until = NULL, {_COUNT}, "
                   "finished = CASE WHEN ? THEN ? ELSE finished END, "
                   "result = COALESCE(?, result) WHERE id = ? AND lease_owner = ?",
                   (status, error, *_counts(counted), status == "finished", time.time(),
                    json.dumps(result) if result is not None else None, run_id, owner))

    def counters(self, run_id: str) -> tuple[int, float]:
        return self._exec("SELECT queries, seconds FROM runs WHERE id = ?", (run_id,)).fetchone()

    def delete(self, run_ids: Iterable[str]) -> int:
        """Remove runs and their records; a run a live process is computing is refused."""
        self.reap()
        ids = list(run_ids)
        live = [r for r in ids if self._load(r).status == "running"]
        if live:
            raise RobustError(f"run {live[0]} is running; stop it before deleting it")
        with self._lock, self.db:
            self.db.execute("BEGIN IMMEDIATE")
            for run_id in ids:
                self.db.execute("DELETE FROM records WHERE run_id = ?", (run_id,))
                self.db.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        return len(ids)

    # records --------------------------------------------------------------------------------
    def done_ids(self, run_id: str) -> set[str]:
        return {r[0] for r in self._exec("SELECT item_id FROM records WHERE run_id = ?", (run_id,))}

    def add_records(self, run_id: str, owner: str, records: Iterable[tuple[str, dict[str, Any]]],
                    counted: Counted = Counted()) -> None:
        """Commit a batch of (item id, payload) and what was spent on it (`counted`) atomically, while `owner`
        holds the lease (a process whose lease was taken over stops); an id already stored is kept."""
        with self._lock, self.db:
            self.db.execute("BEGIN IMMEDIATE")
            (holder,) = self.db.execute("SELECT lease_owner FROM runs WHERE id = ?", (run_id,)).fetchone()
            if holder != owner:
                raise RobustError(f"run {run_id} was taken over by another process (this one's lease expired); "
                                  "its records so far are kept")
            (seq,) = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM records WHERE run_id = ?",
                                     (run_id,)).fetchone()
            self.db.executemany("INSERT OR IGNORE INTO records VALUES (?,?,?,?)",
                                [(run_id, item_id, seq + k, record_json(payload))
                                 for k, (item_id, payload) in enumerate(records, 1)])
            self.db.execute(f"UPDATE runs SET {_COUNT} WHERE id = ?", (*_counts(counted), run_id))

    def records(self, run_id: str) -> dict[str, dict[str, Any]]:
        rows = self._exec("SELECT item_id, payload FROM records WHERE run_id = ? ORDER BY seq", (run_id,))
        return {item_id: record_of(payload) for item_id, payload in rows.fetchall()}


class Lease:
    """Holds a run's lease while a block runs, renewing it from a background thread."""

    def __init__(self, store: Store, run_id: str, owner: str) -> None:
        self.store, self.run_id, self.owner = store, run_id, owner
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, daemon=True)

    def _renew(self) -> None:
        while not self._stop.wait(LEASE_SECONDS / 4):
            try:
                self.store.renew(self.run_id, self.owner)
            except sqlite3.Error:
                pass  # the next renewal tries again; an expired lease only lets another resume begin

    def __enter__(self) -> Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
