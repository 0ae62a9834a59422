"""Throughput of `--executor ray` against the number of local workers, its overhead against the in-process
executor on the same machine, and an estimate of RobTest's paper protocol on N workers from the measured cost
per model query.

    python benchmarks/ray_scaling.py --attack typo-G --limit 12 --aug-num 10 --chunk-size 12 --workers 1 2

Every run starts from a cold output cache (a fresh model per run and per worker) and computes the same items
with the same chunks (`--chunk-size` overrides RobTest's 56 for both executors, so a small sample still has
enough chunks to share between workers). Ray is started once, before the runs, and its start is reported
apart. CPU seconds are those of this process and all its descendants (Ray's raylet, GCS and workers), read from
/proc while the runs go: on a machine shared with other jobs they are steadier than wall time.
Results go to stdout as Markdown (recorded in docs/scaling.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

TICK = os.sysconf("SC_CLK_TCK")


# CPU time of this process tree -----------------------------------------------------------------------------
def _tree_cpu() -> dict[int, float]:
    """CPU seconds (user + system) of this process and every descendant, by pid."""
    parents, cpu = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone
        parents[int(entry.name)] = int(fields[1])
        cpu[int(entry.name)] = (int(fields[11]) + int(fields[12])) / TICK
    tree, frontier = {os.getpid()}, [os.getpid()]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent and pid not in tree]
        tree.update(children)
        frontier += children
    return {pid: cpu[pid] for pid in tree if pid in cpu}


class CpuMeter(threading.Thread):
    """Samples the tree's CPU times every `period` s, so processes that end count up to their last sample;
    `used()` is the CPU spent since the meter was made."""

    def __init__(self, period: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.period, self.halt, self.lock = period, threading.Event(), threading.Lock()
        self.base = _tree_cpu()
        self.last = dict(self.base)

    def run(self) -> None:
        while not self.halt.wait(self.period):
            self.used()

    def used(self) -> float:
        now = _tree_cpu()
        with self.lock:
            self.last.update(now)
            return sum(t - self.base.get(pid, 0.0) for pid, t in self.last.items())

    def stop(self) -> float:
        self.halt.set()
        self.join()
        return self.used()


# one run -------------------------------------------------------------------------------------------------
class Timed:
    """Wraps an executor: when each chunk was committed, the CPU used by then, and the commit's own time."""

    def __init__(self, inner: Any, meter: CpuMeter) -> None:
        self.inner, self.meter, self.marks = inner, meter, []

    def run(self, job: Any, items: Any, on_done: Any) -> None:
        def timed(chunk: Any, records: Any, queries: int = 0) -> None:
            start = time.perf_counter()
            on_done(chunk, records, queries)
            done = time.perf_counter()
            self.marks.append((done, len(chunk), done - start, self.meter.used()))

        self.inner.run(job, items, timed)


def measure(config: Any, executor: Any, label: str) -> dict[str, Any]:
    """One run on a fresh store. `steady` is what follows the first committed chunk (start-up excluded:
    imports, model loads, planning, the first chunk); `start` is what precedes it."""
    from robust.core.plugins import get_registry
    from robust.core.runner import Runner
    from robust.core.store import Store

    meter = CpuMeter()
    timed = Timed(executor, meter)
    meter.start()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        run = Runner(get_registry(), Store(Path(tmp) / "runs.db"), timed, progress=False).start(config)
    wall = time.perf_counter() - start
    cpu = meter.stop()
    (t0, n0, _, cpu0), (t1, _, _, cpu1) = timed.marks[0], timed.marks[-1]
    items = sum(n for _, n, _, _ in timed.marks)
    return {"label": label, "wall": wall, "cpu": cpu, "queries": run.queries, "items": items,
            "chunks": len(timed.marks), "start_wall": t0 - start, "start_cpu": cpu0,
            "steady_rate": (items - n0) / (t1 - t0), "steady_cpu_per_item": (cpu1 - cpu0) / (items - n0),
            "commit_ms": 1000 * sum(c for _, _, c, _ in timed.marks) / len(timed.marks)}


# the estimate --------------------------------------------------------------------------------------------
def estimate(paper_queries: float, per_query_s: float, efficiency: float, counts: list[int]) -> list[str]:
    rows = []
    for n in counts:
        hours = paper_queries * per_query_s / (n * efficiency) / 3600
        rows.append(f"| {n} | {hours:,.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="probe:minilm")
    parser.add_argument("--data", default="mr")
    parser.add_argument("--attack", nargs="+", default=["typo-G"])
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--aug-num", type=int, default=10)
    parser.add_argument("--chunk-size", type=int, default=12)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--paper-queries", type=float, default=7.7e6, help="victim queries of the paper protocol")
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    args = parser.parse_args()

    import ray
    from robust.core.executor import InProcessExecutor
    from robust.core.plugins import get_registry
    from robust.core.runner import RunConfig
    from robust.plugins.executors.ray import RayExecutor

    get_registry().get("benchmark", "robtest").target.chunk_size = args.chunk_size
    config = RunConfig(bench="robtest", model=args.model, data=args.data, attacks=args.attack, limit=args.limit,
                       settings={"aug_num": args.aug_num})
    print(f"robtest --attack {' '.join(args.attack)} --limit {args.limit} --set aug_num={args.aug_num}, "
          f"chunks of {args.chunk_size}, model {args.model}; cpus {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f} at start\n", flush=True)

    results = [measure(config, InProcessExecutor(), "in-process")]
    keep = signal.getsignal(signal.SIGTERM)
    start = time.perf_counter()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    signal.signal(signal.SIGTERM, keep)
    ray_start = time.perf_counter() - start
    for workers in args.workers:
        results.append(measure(config, RayExecutor(workers=workers), f"ray, {workers} worker(s)"))
    ray.shutdown()

    base = results[0]
    print(f"Ray started in {ray_start:.1f} s (not counted below); load average {os.getloadavg()[0]:.1f} at end\n")
    print("| executor | items | chunks | wall s | speed-up | start-up wall s / CPU s | steady items/s | "
          "steady CPU s/item | steady CPU vs in-process | victim queries | commit ms/chunk |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        extra = 100 * (r["steady_cpu_per_item"] / base["steady_cpu_per_item"] - 1)
        print(f"| {r['label']} | {r['items']} | {r['chunks']} | {r['wall']:.1f} | {base['wall'] / r['wall']:.2f} | "
              f"{r['start_wall']:.1f} / {r['start_cpu']:.1f} | {r['steady_rate']:.2f} | "
              f"{r['steady_cpu_per_item']:.3f} | {extra:+.1f} % | {r['queries']} | {r['commit_ms']:.1f} |")

    # the estimate: the in-process steady cost per query, times the paper's queries, over N workers at the
    # steady-state efficiency measured with the most workers (start-up is minutes; the protocol is hours)
    per_query = base["steady_cpu_per_item"] * base["items"] / base["queries"]
    top = max(int(r["label"].split()[1]) for r in results[1:])
    ray_top = next(r for r in results[1:] if int(r["label"].split()[1]) == top)
    efficiency = ray_top["steady_rate"] / (top * base["steady_rate"])
    print(f"\nMeasured: {1000 * per_query:.1f} ms of CPU per victim query in-process (whole protocol, steady); "
          f"steady-state efficiency at {top} workers {efficiency:.2f} (Ray items/s / ({top} x in-process items/s)); "
          f"driver commit {base['commit_ms']:.1f} ms/chunk.\n")
    print(f"Estimated wall time of {args.paper_queries:,.0f} victim queries (hours) on N workers of this kind:\n")
    print("| N | hours |\n|---|---|")
    print("\n".join(estimate(args.paper_queries, per_query, efficiency, args.counts)))

if __name__ == "__main__":
    main()
