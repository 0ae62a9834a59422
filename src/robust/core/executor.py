"""Executors run work items and hand back records. In-process today; a distributed engine plugs in here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from robust.core.interfaces import WorkItem

Work = Callable[[Sequence[WorkItem]], list[dict[str, Any]]]
OnDone = Callable[[Sequence[WorkItem], list[dict[str, Any]]], None]


class Executor(Protocol):
    def run(self, items: Sequence[WorkItem], chunk_size: int, work: Work, on_done: OnDone) -> None:
        """Compute records for `items` in chunks; call `on_done(chunk, records)` as each chunk finishes."""


class InProcessExecutor:
    """Runs chunks one after another in this process."""

    def run(self, items: Sequence[WorkItem], chunk_size: int, work: Work, on_done: OnDone) -> None:
        size = max(1, chunk_size)
        for start in range(0, len(items), size):
            chunk = items[start : start + size]
            records = work(chunk)
            if len(records) != len(chunk):
                raise RuntimeError(f"benchmark returned {len(records)} records for {len(chunk)} items")
            on_done(chunk, records)
