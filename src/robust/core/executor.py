"""Executors compute work items and hand back records. `in-process` runs them here; a distributed executor
rebuilds the benchmark and model on its workers from `Job.config` (the stored run configuration) and runs
the items whose ids it is given, so no live object ever crosses a process boundary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from robust.core.interfaces import WorkItem

Work = Callable[[Sequence[WorkItem]], list[dict[str, Any]]]
OnDone = Callable[[Sequence[WorkItem], list[dict[str, Any]]], None]


@dataclass
class Job:
    """What an executor needs: the run's stored configuration, its chunk size, and the in-process work."""

    run_id: str
    config: dict[str, Any]
    chunk_size: int
    work: Work


class Executor(Protocol):
    def run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        """Compute records for `items`; call `on_done(chunk, records)` as each chunk finishes, in any order."""


def check_records(chunk: Sequence[WorkItem], records: list[dict[str, Any]]) -> None:
    if len(records) != len(chunk):
        raise RuntimeError(f"benchmark returned {len(records)} records for {len(chunk)} items")


class InProcessExecutor:
    """Runs chunks one after another in this process."""

    def run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        size = max(1, job.chunk_size)
        for start in range(0, len(items), size):
            chunk = items[start : start + size]
            records = job.work(chunk)
            check_records(chunk, records)
            on_done(chunk, records)
