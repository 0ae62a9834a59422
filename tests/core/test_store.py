"""The run store under concurrent first use: 8 processes released at once on a new store, and on a store of the
first release's schema being migrated, all succeed and leave a sound store of the current version (negative
control: the same race with the old, non-transactional schema code fails). A store locked by another process
is busy (waited for, then one line saying so), never "not a usable run store"; files that are not run stores
are refused at once and left as they were."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robust
from robust.core.errors import RobustError
from robust.engine import store as store_module
from robust.engine.store import COLUMNS, SCHEMA_VERSION, Counted, Store
from tests.core.conftest import in_process

SRC = Path(robust.__file__).resolve().parents[1]
PROCESSES = 8
UNUSABLE = "is not a usable robust run store"
# what each racing process runs: it waits for `go`, opens the store, then creates a run or lists the runs
RACER = '''
import os, sqlite3, sys, time
from robust.core.errors import RobustError
from robust.engine import store

path, ready, go, action = sys.argv[1:]


def legacy_prepare(db):
    """The schema code before version 1 (negative control): columns read first, added outside a transaction."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    have = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    if tables and not ({"runs", "records"} <= tables and set(store.COLUMNS[:9]) <= have):
        raise sqlite3.DatabaseError("its tables are not a run store's")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(store.RUNS)
    db.execute(store.RECORDS)
    for column, decl in {**store.EXTRA_COLUMNS, "peak_mb": "REAL"}.items():  # and the column of version 3
        if column not in have:
            db.execute(f"ALTER TABLE runs ADD COLUMN {column} {decl}")


if os.environ.get("LEGACY_SCHEMA_CODE"):
    store._prepare = legacy_prepare
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.001)
try:
    opened = store.Store(path)
    if action == "create":
        opened.create_run("bench", "model", {}, {}, "owner")
    else:
        opened.runs()
except RobustError as exc:
    print(exc)
    sys.exit(1)
'''


def race(tmp_path, db, legacy=False):
    """PROCESSES processes, half creating a run and half listing runs, released at the same moment on `db`;
    [(exit code, output)]."""
    script = tmp_path / "racer.py"
    script.write_text(RACER)
    gate = tmp_path / f"gate-{time.monotonic_ns()}"
    gate.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    if legacy:
        env["LEGACY_SCHEMA_CODE"] = "1"
    procs = [subprocess.Popen([sys.executable, str(script), str(db), str(gate / f"ready-{i}"), str(gate / "go"),
                               "create" if i % 2 else "list"], env=env, stdout=subprocess.PIPE, text=True)
             for i in range(PROCESSES)]
    deadline = time.time() + 60
    while len(list(gate.glob("ready-*"))) < PROCESSES and time.time() < deadline:
        time.sleep(0.005)
    (gate / "go").touch()
    return [(proc.wait(timeout=60), proc.stdout.read().strip()) for proc in procs]


def inspect(db):
    """(integrity check, schema version, journal mode, the runs table's columns) of a store."""
    con = sqlite3.connect(db)
    try:
        return (con.execute("PRAGMA integrity_check").fetchone()[0], con.execute("PRAGMA user_version").fetchone()[0],
                con.execute("PRAGMA journal_mode").fetchone()[0],
                tuple(row[1] for row in con.execute("PRAGMA table_info(runs)")))
    finally:
        con.close()


def old_store(db, extra=()):
    """A store as robust wrote it before the schema had a version: the first release's tables (plus the `extra`
    columns some later releases added), rollback journal, no version; one run with two records."""
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, created REAL NOT NULL, finished REAL, status TEXT NOT NULL, "
                "bench TEXT NOT NULL, model TEXT NOT NULL, config TEXT NOT NULL, environment TEXT NOT NULL, "
                "result TEXT" + "".join(f", {column} {decl}" for column, decl in extra) + ")")
    con.execute("CREATE TABLE records (run_id TEXT NOT NULL REFERENCES runs(id), item_id TEXT NOT NULL, "
                "seq INTEGER NOT NULL, payload TEXT NOT NULL, PRIMARY KEY (run_id, item_id))")
    con.execute("INSERT INTO runs (id, created, finished, status, bench, model, config, environment, result) "
                "VALUES ('old-run', 1.5, 2.5, 'finished', 'accuracy', 'keywords', '{\"seed\": 3}', '{}', "
                "'{\"summary\": {\"accuracy\": 0.75}}')")
    con.executemany("INSERT INTO records VALUES ('old-run', ?, ?, ?)",
                    [("a", 1, '{"pred": 1}'), ("b", 2, '{"pred": 0}')])
    con.commit()
    con.close()


def test_eight_processes_create_a_new_store_at_once(tmp_path):
    for round_ in range(3):
        db = tmp_path / f"new-{round_}.db"
        outcomes = race(tmp_path, db)
        assert outcomes == [(0, "")] * PROCESSES
        assert inspect(db) == ("ok", SCHEMA_VERSION, "wal", COLUMNS)
        assert len(Store(db).runs()) == PROCESSES // 2


@pytest.mark.parametrize("extra", [(), (("error", "TEXT"), ("lease_owner", "TEXT"), ("lease_until", "REAL"))],
                         ids=["first-release", "partly-migrated"])
def test_eight_processes_migrate_an_old_store_at_once(tmp_path, extra):
    db = tmp_path / "old.db"
    old_store(db, extra)
    assert inspect(db)[1:3] == (0, "delete")
    outcomes = race(tmp_path, db)
    assert outcomes == [(0, "")] * PROCESSES
    assert inspect(db) == ("ok", SCHEMA_VERSION, "wal", COLUMNS)
    store = Store(db)
    old = store.get("old-run")
    assert (old.created, old.finished, old.status, old.bench, old.model, old.config, old.result) == (
        1.5, 2.5, "finished", "accuracy", "keywords", {"seed": 3}, {"summary": {"accuracy": 0.75}})
    assert (old.error, old.lease_owner, old.queries, old.seconds) == (None, None, 0, 0.0)  # the new columns' defaults
    assert store.records("old-run") == {"a": {"pred": 1}, "b": {"pred": 0}}
    assert len(store.runs()) == 1 + PROCESSES // 2


def test_a_version_1_store_gains_the_index_that_keeps_commits_cheap(tmp_path):
    """A commit reads the run's largest `seq` and reading orders by it: with the index of version 2 SQLite finds
    both from the index instead of scanning every record of the run (a commit's cost grew with the run)."""
    db = tmp_path / "v1.db"
    old_store(db)
    con = sqlite3.connect(db)
    store_module.MIGRATIONS[0](con)  # as version 1 left a store
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    store = Store(db)
    assert inspect(db)[1] == SCHEMA_VERSION
    plan = " ".join(row[3] for row in store.db.execute(
        "EXPLAIN QUERY PLAN SELECT COALESCE(MAX(seq), 0) FROM records WHERE run_id = ?", ("old-run",)))
    assert "records_by_seq" in plan, plan
    plan = " ".join(row[3] for row in store.db.execute(
        "EXPLAIN QUERY PLAN SELECT item_id, payload FROM records WHERE run_id = ? ORDER BY seq", ("old-run",)))
    assert "records_by_seq" in plan and "TEMP B-TREE" not in plan, plan
    store.db.execute("UPDATE runs SET lease_owner = 'me' WHERE id = 'old-run'")
    store.add_records("old-run", "me", [("c", {"pred": 1})])
    assert list(store.records("old-run")) == ["a", "b", "c"]


def test_a_version_2_store_gains_the_runs_peak_memory_unknown_for_its_old_runs(tmp_path):
    """Version 3 records the peak memory of the processes that computed a run: a run stored before has none (not
    0), and the first commit of a resumed one gives it the committing process's peak."""
    db = tmp_path / "v2.db"
    old_store(db)
    con = sqlite3.connect(db)
    for migrate in store_module.MIGRATIONS[:2]:  # as version 2 left a store
        migrate(con)
    con.execute("PRAGMA user_version = 2")
    con.commit()
    con.close()
    store = Store(db)
    assert inspect(db) == ("ok", SCHEMA_VERSION, "wal", COLUMNS)
    old = store.get("old-run")
    assert (old.peak_mb, old.to_json()["peak_memory_mb"]) == (None, None)
    store.db.execute("UPDATE runs SET lease_owner = 'me' WHERE id = 'old-run'")
    store.add_records("old-run", "me", [("c", {"pred": 1})], Counted(1, 0.5))  # a process that could not tell
    assert store.get("old-run").peak_mb is None
    store.add_records("old-run", "me", [("d", {"pred": 0})], Counted(1, 0.5, 123.4))
    assert store.get("old-run").peak_mb == 123.4


@pytest.mark.parametrize("kind", ["new", "old"])
def test_the_same_race_fails_with_the_old_schema_code(tmp_path, kind):
    """Negative control: the schema code before version 1 (columns read before the tables exist, added outside
    a transaction) loses the race, with the misleading "not a usable run store" although the store is sound."""
    failures = []
    for round_ in range(5):
        db = tmp_path / f"{kind}-{round_}.db"
        if kind == "old":
            old_store(db)
        failures = [out for code, out in race(tmp_path, db, legacy=True) if code]
        if failures:
            break
    assert failures, "the old schema code never lost the race: the race test would not catch it"
    # a column added twice, or a half-made store read as someone else's
    assert all(out.startswith(f"{db} {UNUSABLE} (") for out in failures), failures
    assert inspect(db)[0] == "ok"


@pytest.fixture
def patience(monkeypatch):
    """Opening a store waits 1 s for a lock, not 30."""
    monkeypatch.setenv("ROBUST_STORE_TIMEOUT", "1")


def hold(db, how):
    """Another connection holding a write transaction (`how`: BEGIN IMMEDIATE, or BEGIN EXCLUSIVE, which on a
    rollback journal blocks readers too)."""
    con = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    con.execute(how)
    return con


@pytest.mark.parametrize("how", ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"])
def test_a_store_locked_longer_than_the_wait_is_busy_in_one_line(tmp_path, patience, how):
    db = tmp_path / "old.db"
    old_store(db)  # needs migrating: a write lock
    holder = hold(db, how)
    start = time.monotonic()
    code, out, err = in_process("--store", db, "runs")
    waited = time.monotonic() - start
    assert code == 1 and err.splitlines() == [
        f"error: {db} is busy (locked by another process) after 1 s; try again when it is free, or wait longer "
        "with ROBUST_STORE_TIMEOUT=SECONDS"]
    assert 1.0 <= waited < 10
    holder.rollback()
    holder.close()
    code, out, _ = in_process("--store", db, "runs", "--json")  # free again: opened, migrated, listed
    assert code == 0 and [r["id"] for r in json.loads(out)] == ["old-run"]


def test_a_lock_released_within_the_wait_is_waited_for(tmp_path, patience):
    db = tmp_path / "old.db"
    old_store(db)
    holder = hold(db, "BEGIN EXCLUSIVE")
    release = threading.Timer(0.4, lambda: (holder.rollback(), holder.close()))
    release.start()
    start = time.monotonic()
    assert [r.id for r in Store(db).runs()] == ["old-run"]
    assert time.monotonic() - start >= 0.3
    release.join()


def test_an_up_to_date_store_opens_while_another_process_writes(tmp_path, patience):
    db = tmp_path / "r.db"
    run_id = Store(db).create_run("b", "m", {}, {}, "o")
    holder = hold(db, "BEGIN IMMEDIATE")  # WAL: readers are not blocked, and opening writes nothing
    try:
        assert [r.id for r in Store(db).runs()] == [run_id]
    finally:
        holder.rollback()
        holder.close()


def test_files_that_are_not_run_stores_are_unusable_at_once(tmp_path, patience, monkeypatch):
    text = tmp_path / "notes.db"
    text.write_text("not a database, just text\n" * 100)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE people (name TEXT)")
    con.commit()
    con.close()
    newer = tmp_path / "newer.db"
    Store(newer).close()
    con = sqlite3.connect(newer)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    for db, cause in ((text, "file is not a database"), (other, "its tables (people) are not a run store's")):
        before = db.read_bytes()
        code, _, err = in_process("--store", db, "runs")
        assert code == 1 and err.splitlines() == [
            f"error: {db} {UNUSABLE} ({cause}); move it away or pass --store OTHER.db"]
        assert db.read_bytes() == before and not Path(f"{db}-wal").exists()  # never written
    code, _, err = in_process("--store", newer, "runs")
    assert code == 1 and err.splitlines() == [
        f"error: {newer} was written by a newer robust (schema version {SCHEMA_VERSION + 1}; this one reads up "
        f"to {SCHEMA_VERSION}); upgrade robust or pass --store OTHER.db"]
    monkeypatch.setenv("ROBUST_STORE_TIMEOUT", "soon")
    code, _, err = in_process("--store", newer, "runs")
    assert code == 1 and err.splitlines() == [
        "error: ROBUST_STORE_TIMEOUT must be a number of seconds (0 or more), not 'soon'"]
    monkeypatch.setenv("ROBUST_STORE_TIMEOUT", "0.2")
    with pytest.raises(RobustError, match="busy"):  # the control of the line above: a lock is not unusable
        holder = hold(other, "BEGIN EXCLUSIVE")
        try:
            store_module._open(other)
        finally:
            holder.rollback()
            holder.close()


# --- records' JSON: written by orjson where it reads back as json's own would, by json elsewhere -------------
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.text() | st.floats() | st.integers()
    | st.integers(min_value=-(2**80), max_value=2**80),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4) | st.dictionaries(st.integers(-9, 9), inner, max_size=3),
    max_leaves=12)


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN, floats and ints told apart (json reads `1.0` as a float, `1` as an int)."""
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and str(a) == str(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _JSON_VALUES, max_size=6))
def test_a_record_reads_back_as_json_reads_what_json_writes(record):
    """What `record_json` writes reads back (`record_of`) as json's own text does: NaN, ±inf, ints past 64 bits, int
    keys, lone surrogates and numpy's scalars included (those go through json); so do older stores' records, which
    json wrote."""
    expected = json.loads(json.dumps(record, sort_keys=True))
    text = store_module.record_json(record)
    assert _same(json.loads(text), expected)  # what the store holds is JSON that json reads
    assert _same(store_module.record_of(text), expected)
    assert _same(store_module.record_of(json.dumps(record, sort_keys=True)), expected)


def test_records_orjson_cannot_write_faithfully_take_json_s_path():
    import numpy as np

    for record in ({"x": float("nan")}, {"x": [float("-inf")]}, {"seed": 2**70}, {"seed": -(2**63) - 1},
                   {"by": {1: "a"}}, {"s": "\ud800"}, {"p": np.float64(0.25)}):
        text = store_module.record_json(record)
        assert text == json.dumps(record, sort_keys=True)
        assert _same(store_module.record_of(text), json.loads(text))  # read by json: orjson would make 2**70 a float
    with pytest.raises(TypeError):  # what json cannot write fails as before
        store_module.record_json({"n": np.float32(0.5)})
    assert store_module.record_json({"b": [1, 2.5], "a": "é"}) == '{"a":"é","b":[1,2.5]}'  # orjson's, sorted
    assert store_module.record_of('{"a":"x\\": 1","n":18446744073709551615}') == {"a": 'x": 1', "n": 2**64 - 1}
