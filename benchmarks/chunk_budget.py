"""What a kill can lose, and what adaptive chunks cost: RobTest in-process with fixed chunks of its chunk_size
(ROBUST_CHUNK_SECONDS=0) and with chunks sized to take ROBUST_CHUNK_SECONDS (default 2).

    python benchmarks/chunk_budget.py --attack typo-G --limit 8 --repeats 2

Each run starts on a fresh store with a fresh model (cold output cache); the configurations alternate, so a
busy machine slows both alike. "Longest gap" is the longest time between two commits (the first counted from
when the executor starts), i.e. the most finished work a kill at the worst moment loses. Results go to stdout
as Markdown (recorded in docs/scaling.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from peak import peak_line


class Timed:
    """Wraps an executor: when it started, and when each chunk was committed (with its size)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.start, self.marks = inner, 0.0, []

    def run(self, job: Any, items: Any, on_done: Any) -> None:
        def timed(chunk: Any, records: Any, queries: int = 0) -> None:
            on_done(chunk, records, queries)
            self.marks.append((time.perf_counter(), len(chunk)))

        self.start = time.perf_counter()
        self.inner.run(job, items, timed)


def measure(config: Any, seconds: str) -> dict[str, Any]:
    from robust.core.plugins import get_registry
    from robust.engine.executor import InProcessExecutor
    from robust.engine.runner import Runner
    from robust.engine.store import Store

    os.environ["ROBUST_CHUNK_SECONDS"] = seconds
    timed = Timed(InProcessExecutor())
    with tempfile.TemporaryDirectory() as tmp:
        Runner(get_registry(), Store(Path(tmp) / "runs.db"), timed, progress=False).start(config)
    times = [timed.start] + [t for t, _ in timed.marks]
    gaps = [b - a for a, b in zip(times, times[1:])]
    sizes = [n for _, n in timed.marks]
    return {"items": sum(sizes), "chunks": len(sizes), "compute": times[-1] - times[0], "longest": max(gaps),
            "median": statistics.median(gaps), "largest": max(sizes), "rate": sum(sizes) / (times[-1] - times[0])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attack", nargs="+", default=["typo-G"])
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--model", default="probe:minilm")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--budget", default="2", help="ROBUST_CHUNK_SECONDS of the adaptive runs")
    args = parser.parse_args()

    from robust.core.plugins import get_registry
    from robust.engine.runner import RunConfig

    chunk_size = get_registry().get("benchmark", "robtest").target.chunk_size
    config = RunConfig(bench="robtest", model=args.model, attacks=args.attack, limit=args.limit, seed=0)
    labels = {"0": f"fixed chunks of {chunk_size}", args.budget: f"adaptive, {args.budget} s budget"}
    results: dict[str, list[dict[str, Any]]] = {key: [] for key in labels}
    for _ in range(args.repeats):
        for key in labels:
            results[key].append(measure(config, key))
    print(f"RobTest, --attack {' '.join(args.attack)} --limit {args.limit}, model {args.model}, in-process; "
          f"{args.repeats} runs each, alternating; cpus {os.cpu_count()}, load {os.getloadavg()[0]:.2f}\n")
    print("| chunks | items | chunks per run | largest chunk | compute s | items/s | longest gap s | median gap s |")
    print("|---|---|---|---|---|---|---|---|")
    for key, label in labels.items():
        runs = results[key]
        cells = [span(runs, field, digits) for field, digits in (("chunks", 0), ("largest", 0), ("compute", 1),
                                                                  ("rate", 2), ("longest", 2), ("median", 2))]
        print(f"| {label} | {runs[0]['items']} | {' | '.join(cells)} |")
    print(peak_line())


def span(runs: list[dict[str, Any]], field: str, digits: int) -> str:
    """`min–max` of a field over runs (one value if they agree)."""
    low, high = (f"{f(r[field] for r in runs):.{digits}f}" for f in (min, max))
    return low if low == high else f"{low}–{high}"

if __name__ == "__main__":
    main()
