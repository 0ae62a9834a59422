"""Every answered request to an endpoint, kept on disk under a key made of the request itself (endpoint, model,
route and JSON body; never the API key), so a resumed run (or a rerun) re-asks nothing it already has.

One SQLite file (the standard library's; WAL, so readers never wait for the writer), written as each answer
arrives: a server that dies mid-run loses none of the answers it gave.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

_KEY_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode  # built once


def request_key(*parts: Any) -> str:
    """A stable digest of a request's parts (JSON with sorted keys)."""
    raw = _KEY_JSON(parts)
    return hashlib.sha256(raw.encode()).hexdigest()


class RequestCache:
    """key -> answer (any JSON value), persistent; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer TEXT NOT NULL)")
        self.hits = 0

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start: start + 500]
                marks = ",".join("?" * len(part))
                for key, answer in self._db.execute(f"SELECT key, answer FROM answers WHERE key IN ({marks})", part):
                    found[key] = json.loads(answer)
            self.hits += len(found)
        return found

    def put_many(self, answers: Mapping[str, Any]) -> None:
        rows = [(key, json.dumps(value, separators=(",", ":"))) for key, value in answers.items()]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO answers (key, answer) VALUES (?, ?)", rows)

    def close(self) -> None:
        with self._lock:
            self._db.close()
