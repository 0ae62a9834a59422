"""Executors compute work items and hand back records. `in-process` runs them here; a distributed executor
rebuilds the benchmark and model on its workers from `Job.config` (the stored run configuration) and runs
the items whose ids it is given, so no live object ever crosses a process boundary.

Executors other than `in-process` are found by name in the entry-point group `robust.executors` (robust's
own `ray` is one), so the core never imports what they need until one is asked for with `--executor NAME`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol

from robust.core.errors import RobustError, unknown
from robust.core.interfaces import WorkItem

Work = Callable[[Sequence[WorkItem]], list[dict[str, Any]]]
GROUP = "robust.executors"
IN_PROCESS = "in-process"


class OnDone(Protocol):
    def __call__(self, chunk: Sequence[WorkItem], records: list[dict[str, Any]], queries: int = 0) -> None:
        """Commit a finished chunk's records; `queries` counts model queries made outside this process."""


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


def chunked(items: Sequence[WorkItem], size: int) -> list[Sequence[WorkItem]]:
    """Consecutive chunks of `size` items (every executor cuts the same chunks, so model batches match)."""
    size = max(1, size)
    return [items[start : start + size] for start in range(0, len(items), size)]


class InProcessExecutor:
    """Runs chunks one after another in this process."""

    name = IN_PROCESS

    def run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        for chunk in chunked(items, job.chunk_size):
            records = job.work(chunk)
            check_records(chunk, records)
            on_done(chunk, records)


def executor_names() -> list[str]:
    return [IN_PROCESS, *sorted({ep.name for ep in metadata.entry_points(group=GROUP)} - {IN_PROCESS})]


def make_executor(name: str = IN_PROCESS, **options: Any) -> Executor:
    """The executor `name` (`in-process`, or one registered under `robust.executors`), given the options
    that were set (`address`, `workers`, ...); any problem is one line."""
    options = {key: value for key, value in options.items() if value is not None}
    if name == IN_PROCESS:
        if options:
            raise RobustError(f"--{next(iter(options))} is an option of a distributed executor (e.g. --executor ray), "
                              "not of in-process")
        return InProcessExecutor()
    found = [ep for ep in metadata.entry_points(group=GROUP) if ep.name == name]
    if not found:
        raise unknown("executor", name, executor_names())
    try:
        cls = found[0].load()
    except ImportError as exc:
        raise RobustError(f"executor {name!r} cannot be loaded ({exc})") from None
    accepted = inspect.signature(cls).parameters
    for key in options:
        if key not in accepted:
            raise RobustError(f"executor {name!r} takes no --{key}")
    return cls(**options)
