"""Executors compute work items and hand back records. `in-process` runs them here; a distributed executor
rebuilds the benchmark and model on its workers from `Job.config` (the stored run configuration) and runs
the items whose ids it is given, so no live object ever crosses a process boundary.

Items are computed in chunks whose size adapts (ChunkSizer): each chunk is expected to take about
ROBUST_CHUNK_SECONDS (2 s), never holding more than the benchmark's `chunk_size` items, and its records are
committed as soon as it is done; so a killed run loses only the chunks in flight. A benchmark's records must
not depend on how its items are chunked.

In-process, up to `overlap` chunks are computed at once by a thread pool (ROBUST_OVERLAP, else the model's
`overlap`: 1 for a CPU model): while one chunk's batch is inside the model (a GPU kernel or a server request,
which release the GIL) the next chunk prepares its candidates, so neither waits for the other; the last chunks
are cut smaller, so that the threads finish together. Records stay the same: each item's randomness derives
from its id, never from which chunk or thread computed it.

Executors other than `in-process` are found by name in the entry-point group `robust.executors` (robust's
own `ray` is one), so the core never imports what they need until one is asked for with `--executor NAME`.
"""

from __future__ import annotations

import inspect
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from robust.core.entry_points import plugin_points
from robust.core.environ import env_count, env_seconds
from robust.core.errors import RobustError, unknown
from robust.core.interfaces import WorkItem
from robust.engine.collector import setup_frozen

Work = Callable[[Sequence[WorkItem]], list[dict[str, Any]]]
GROUP = "robust.executors"
IN_PROCESS = "in-process"
T = TypeVar("T")


class OnDone(Protocol):
    def __call__(self, chunk: Sequence[WorkItem], records: list[dict[str, Any]], queries: int = 0,
                 peak_mb: float | None = None) -> None:
        """Commit a finished chunk's records; `queries` counts model queries made outside this process, `peak_mb`
        is the peak memory (MB) of the process that computed the chunk, where that is another one."""


@dataclass
class Job:
    """What an executor needs: the run's stored configuration, the benchmark's chunk size (the most items a
    chunk holds), and the in-process work."""

    run_id: str
    config: dict[str, Any]
    chunk_size: int
    work: Work
    model: Any = None  # the in-process model (its `overlap`)


class Executor(Protocol):
    def run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        """Compute records for `items`; call `on_done(chunk, records)` as each chunk finishes, in any order."""


def check_records(chunk: Sequence[WorkItem], records: list[dict[str, Any]]) -> None:
    if len(records) != len(chunk):
        raise RuntimeError(f"benchmark returned {len(records)} records for {len(chunk)} items")


def chunked(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """Consecutive chunks of `size` items."""
    size = max(1, size)
    return [items[start : start + size] for start in range(0, len(items), size)]


def chunk_seconds() -> float:
    """ROBUST_CHUNK_SECONDS: the seconds a chunk is sized to take (2 by default; 0: chunks of `chunk_size`)."""
    return env_seconds("ROBUST_CHUNK_SECONDS", 2)


class ChunkSizer:
    """The size of the next chunk, so that each chunk is expected to take at most `seconds`: the first holds one
    item; each next one as many as fit in `seconds` at the highest seconds per item of the last RECENT chunks
    (items often differ in cost), at most twice its predecessor's size and never more than `cap` (the
    benchmark's chunk_size, which bounds batching). A chunk of items dearer than all recent ones takes longer,
    once; one that took over twice `seconds` (items got much dearer, or one item alone takes that long) makes
    the next start again from one item. `seconds` = 0: every chunk holds `cap` items."""

    RECENT = 3

    def __init__(self, cap: int, seconds: float | None = None) -> None:
        self.cap = max(1, cap)
        self.seconds = chunk_seconds() if seconds is None else seconds
        self.size = 1 if self.seconds > 0 else self.cap
        self.rates: deque[float] = deque(maxlen=self.RECENT)  # seconds per item of the last chunks

    def observe(self, n: int, elapsed: float) -> None:
        """A chunk of `n` items took `elapsed` seconds."""
        if self.seconds > 0 and n > 0:
            self.rates.append(elapsed / n)
            rate = max(self.rates)
            fit = int(self.seconds / rate) if rate > 0 else self.cap
            self.size = 1 if elapsed > 2 * self.seconds else max(1, min(self.cap, 2 * n, fit))


def run_chunks(items: Sequence[WorkItem], work: Work, sizer: ChunkSizer) -> Iterator[tuple[Sequence[WorkItem],
                                                                                         list[dict[str, Any]]]]:
    """(chunk, records) of consecutive chunks of `items`, cut as `sizer` says and computed by `work`, each
    yielded as soon as it is done."""
    start = 0
    while start < len(items):
        chunk = items[start : start + sizer.size]
        began = time.monotonic()
        records = work(chunk)
        sizer.observe(len(chunk), time.monotonic() - began)
        check_records(chunk, records)
        yield chunk, records
        start += len(chunk)


def _timed(work: Work, chunk: Sequence[WorkItem]) -> tuple[list[dict[str, Any]], float]:
    began = time.monotonic()
    records = work(chunk)
    return records, time.monotonic() - began


def run_overlapped(items: Sequence[WorkItem], work: Work, sizer: ChunkSizer, overlap: int) -> Iterator[
        tuple[Sequence[WorkItem], list[dict[str, Any]]]]:
    """As `run_chunks`, with up to `overlap` chunks computed at once by a thread pool, none holding more than
    1/overlap of the items left; each (chunk, records) is yielded in this thread as soon as it is done (in any
    order). An error in one chunk cancels the chunks not yet started and is raised here once the running ones
    end. The garbage collector leaves the run's setup alone meanwhile (`robust.engine.collector`)."""
    with setup_frozen() as first_chunk_done:
        for chunk, records in _overlapped(items, work, sizer, overlap):
            first_chunk_done()
            yield chunk, records


def _overlapped(items: Sequence[WorkItem], work: Work, sizer: ChunkSizer, overlap: int) -> Iterator[
        tuple[Sequence[WorkItem], list[dict[str, Any]]]]:
    if overlap <= 1:
        yield from run_chunks(items, work, sizer)
        return
    pool = ThreadPoolExecutor(overlap, thread_name_prefix="robust-chunk")
    running: dict[Future, Sequence[WorkItem]] = {}
    start = 0

    def refill() -> None:
        nonlocal start
        while start < len(items) and len(running) < overlap:
            # guided self-scheduling (Polychronopoulos & Kuck 1987): at most 1/overlap of what is left, so that
            # the last chunks shrink and the threads finish together instead of one computing alone
            chunk = items[start : start + min(sizer.size, -(-(len(items) - start) // overlap))]
            running[pool.submit(_timed, work, chunk)] = chunk
            start += len(chunk)

    try:
        refill()
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            finished = []
            for future in done:
                chunk = running.pop(future)
                records, elapsed = future.result()
                sizer.observe(len(chunk), elapsed)
                check_records(chunk, records)
                finished.append((chunk, records))
            refill()  # before the records are handed over: a thread never waits while this one stores them
            yield from finished
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def overlap_for(model: Any) -> int:
    """Chunks computed at once in this process: ROBUST_OVERLAP, else the model's `overlap` (1 without a model)."""
    return env_count("ROBUST_OVERLAP", int(getattr(model, "overlap", 1) or 1))


class InProcessExecutor:
    """Runs chunks in this process: one after another, or `overlap` at once (`None`: `overlap_for` the model)."""

    name = IN_PROCESS

    def __init__(self, overlap: int | None = None) -> None:
        self.overlap = overlap

    def run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        overlap = self.overlap if self.overlap is not None else overlap_for(job.model)
        for chunk, records in run_overlapped(items, job.work, ChunkSizer(job.chunk_size), overlap):
            on_done(chunk, records)


def executor_names() -> list[str]:
    return [IN_PROCESS, *sorted({ep.name for ep in plugin_points(GROUP)} - {IN_PROCESS})]


def make_executor(name: str = IN_PROCESS, **options: Any) -> Executor:
    """The executor `name` (`in-process`, or one registered under `robust.executors`), given the options
    that were set (`address`, `workers`, ...); any problem is one line."""
    options = {key: value for key, value in options.items() if value is not None}
    if name == IN_PROCESS:
        if options:
            key = next(iter(options))
            raise RobustError(f"--{key} ({key}= from Python) is an option of a distributed executor (e.g. --executor "
                              "ray), not of in-process")
        return InProcessExecutor()
    found = [ep for ep in plugin_points(GROUP) if ep.name == name]
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
