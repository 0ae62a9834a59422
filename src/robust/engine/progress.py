"""A run's progress on stderr: items done, model queries per second, elapsed time and an ETA estimated from the
work done so far, weighted by each item's cost (`Benchmark.item_cost`: items of one run can differ a hundredfold).
A run computes its kinds of items side by side (`interleave`), so that the ETA soon goes at rates measured on
every kind and on a sample of all its examples, never at a guess.

In a terminal it is a live bar; anywhere else (a log, a pipe, CI) it is a plain line every `interval` seconds
(`ROBUST_PROGRESS_SECONDS`, default 15) and one at the end, never cut to a width.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO, TypeVar

from robust.core.environ import env_seconds

#: the ETA shows once this share of the work to do (by cost) and this many items are done, and this many seconds
#: passed
MIN_SHARE, MIN_ITEMS, MIN_SECONDS = 0.002, 3, 3.0

T = TypeVar("T")


def clock(seconds: float | None) -> str:
    """`1:02:03`, `4:05`, or `-:--` for an unknown time."""
    if seconds is None or seconds != seconds:
        return "-:--"
    s = int(round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


def spread(n: int) -> list[int]:
    """0..n-1 in a low-discrepancy order (bit-reversed): every prefix samples the whole range about evenly."""
    bits = max(1, (n - 1).bit_length())
    return sorted(range(n), key=lambda j: int(format(j, f"0{bits}b")[::-1], 2))


def interleave(items: Sequence[T], kind: Callable[[T], str], cost: Callable[[T], float],
               group: Callable[[T], str] | None = None) -> list[T]:
    """`items` reordered so that at every point of a run each kind is done to about the same share of its
    expected cost, and that share samples the kind's whole range: each kind's groups (items sharing work, kept
    together in their order) in a `spread` order, the kinds merged by the share of their cost done at each
    group's middle. The time a run has taken then tells what is left, `elapsed * left / done`, however the kinds'
    rates differ, however the benchmark's cost guess is off for some of them and however the machine's load
    changes; and each kind's measured rate covers all its examples (RobTest's mission command on a quiet
    machine: one example's typo-M searches took 0.25 to 2.6 times the kind's median seconds per expected query).
    Items of one kind keep the benchmark's order."""
    groups: dict[str, dict[str, list[T]]] = {}  # kind -> group -> items, in first-seen order
    for k, item in enumerate(items):
        groups.setdefault(kind(item), {}).setdefault(group(item) if group else str(k), []).append(item)
    if len(groups) < 2:
        return list(items)
    keyed: list[tuple[float, int, list[T]]] = []
    for of_kind in groups.values():
        members = list(of_kind.values())
        members = [members[j] for j in spread(len(members))]
        costs = [sum(cost(item) for item in g) for g in members]
        total, done = sum(costs) or 1.0, 0.0
        for g, c in zip(members, costs):
            keyed.append(((done + c / 2) / total, len(keyed), g))
            done += c
    keyed.sort(key=lambda key: key[:2])
    return [item for _, _, g in keyed for item in g]


class Estimate:
    """What is left of a run and how long it will take. Each kind of item (`Benchmark.item_kind`) goes at the
    seconds per unit of cost (`Benchmark.item_cost`, the model queries an item is expected to make) that its own
    finished items took here. A kind not seen yet goes at the run's seconds per model query actually made: the
    machine's and model's speed, which every kind shares, where a seen kind's seconds per unit of cost also carry
    how far the benchmark's cost guess was off for that kind (RobTest: a char-unit search's guess says nothing of
    a word-unit one's); with the run's kinds interleaved, only for its first seconds. Without query counts, at the
    rate of all finished items. `clock` is for tests."""

    def __init__(self, total: int, done: int, todo: Mapping[str, tuple[str, float]],
                 clock: Callable[[], float] | None = None) -> None:
        self.total, self.done, self.done_here = total, done, 0
        self.todo = dict(todo)  # item id -> (kind, cost), until it finishes
        self.left: dict[str, float] = {}  # kind -> cost still to do
        for kind, cost in self.todo.values():
            self.left[kind] = self.left.get(kind, 0.0) + cost
        self.todo_cost = sum(self.left.values())
        self.seconds: dict[str, float] = {}  # kind -> seconds its finished items took here
        self.cost: dict[str, float] = {}  # kind -> their cost
        self.query_seconds, self.queries = 0.0, 0  # seconds of the chunks whose model queries are known, and those
        self.clock = clock or (lambda: time.monotonic())
        self.start = self.last = self.clock()

    def advance(self, ids: Iterable[str], queries: int | None = None) -> None:
        """Items finished now, with the model queries made since the last ones (None: unknown): the time since
        the last ones is shared among them by their expected seconds (cost times their kind's rate so far: an
        interleaved run's chunks hold several kinds)."""
        now = self.clock()
        took, self.last = now - self.last, now
        finished = [self.todo.pop(i) for i in ids if i in self.todo]
        rate = self._rates()
        weight = sum(cost * rate.get(kind, 1.0) for kind, cost in finished) or 1.0
        for kind, cost in finished:
            self.seconds[kind] = self.seconds.get(kind, 0.0) + took * cost * rate.get(kind, 1.0) / weight
            self.cost[kind] = self.cost.get(kind, 0.0) + cost
            self.left[kind] -= cost
        if queries is not None and finished:
            self.query_seconds += took
            self.queries += queries
        self.done += len(finished)
        self.done_here += len(finished)

    @property
    def elapsed(self) -> float:
        return self.clock() - self.start

    @property
    def eta(self) -> float | None:
        """Seconds left, the time since the last finished items already counted (None until enough is done)."""
        spent = sum(self.cost.values())
        if (spent <= 0 or spent < MIN_SHARE * self.todo_cost or self.done_here < MIN_ITEMS
                or self.elapsed < MIN_SECONDS):
            return None
        rate = self._rates()
        left = sum(max(0.0, cost) * rate[k] for k, cost in self.left.items())
        return max(0.0, left - (self.clock() - self.last))

    def _rates(self) -> dict[str, float]:
        """Seconds per unit of cost of every kind (empty before anything finished)."""
        spent = sum(self.cost.values())
        if spent <= 0:
            return {}
        unseen = self.query_seconds / self.queries if self.queries > 0 else sum(self.seconds.values()) / spent
        return {k: self.seconds[k] / self.cost[k] if self.cost.get(k) else unseen for k in self.left}


def progress_seconds() -> float:
    """Seconds between the plain progress lines of a log (`ROBUST_PROGRESS_SECONDS`; 0 means the default 15)."""
    return env_seconds("ROBUST_PROGRESS_SECONDS", 15) or 15


class RunProgress:
    """`with RunProgress(...) as p: p.advance(item_ids)`; silent when disabled."""

    def __init__(self, title: str, estimate: Estimate, queries: Callable[[], int], enabled: bool = True,
                 stream: TextIO | None = None, interval: float | None = None, live: bool | None = None) -> None:
        self.title, self.estimate, self.queries, self.enabled = title, estimate, queries, enabled
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.interval = interval or progress_seconds()
        self.base_queries = self._queries = queries()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._bar: Any = None

    def line(self) -> str:
        """`robtest · probe:minilm: 310/1,450 items (21 %) · 12.3 queries/s · 1:02 elapsed · ETA 3:51`."""
        e = self.estimate
        rate = (self.queries() - self.base_queries) / max(e.elapsed, 1e-9)
        share = f" ({100 * e.done / e.total:.0f} %)" if e.total else ""
        return (f"{self.title}: {e.done:,}/{e.total:,} items{share} · {rate:,.1f} queries/s · "
                f"{clock(e.elapsed)} elapsed · ETA {clock(e.eta)}")

    def __enter__(self) -> RunProgress:
        if not self.enabled:
            return self
        if self.live:
            self._bar = _live_bar(self)
            self._bar.start()
        else:
            self._print()
            self._thread = threading.Thread(target=self._tick, name="robust-progress", daemon=True)
            self._thread.start()
        return self

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._print()

    def _print(self) -> None:
        try:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
        except OSError:  # the reader went away (`| head`): the run goes on without progress lines
            self.enabled = False
            self._stop.set()

    def advance(self, ids: Iterable[str]) -> None:
        now = self.queries()
        self.estimate.advance(ids, now - self._queries)
        self._queries = now

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
        elif self._thread is not None:
            self._stop.set()
            self._thread.join()
            if self.enabled:
                self._print()


def _live_bar(progress: RunProgress) -> Any:
    """A rich live display of `progress.line()` with a bar, refreshed four times a second."""
    from rich.console import Console
    from rich.live import Live
    from rich.progress_bar import ProgressBar
    from rich.table import Table

    class Render:
        def __rich__(self) -> Any:
            e = progress.estimate
            grid = Table.grid(padding=(0, 1))
            grid.add_row(ProgressBar(total=max(e.total, 1), completed=e.done, width=30), progress.line())
            return grid

    return Live(Render(), console=Console(file=progress.stream), refresh_per_second=4, transient=False)
