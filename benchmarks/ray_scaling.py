"""Throughput of `--executor ray` against the number of local workers, its overhead against the in-process
executor on the same machine, and an estimate of RobTest's paper protocol on N workers from the measured cost
per victim query.

    python benchmarks/ray_scaling.py --attack typo-G synonym --limit 16 --aug-num 20 --chunk-size 28 --workers 1 2

Every run starts from a cold output cache (a fresh model per run and per worker) and computes the same items
with the same chunks (`--chunk-size` overrides RobTest's 56 for both executors, so a small sample still has
enough chunks to share between workers; chunks are fixed, ROBUST_CHUNK_SECONDS=0, unless that variable is
set). Ray is started once, before the runs, and its start is reported apart. CPU seconds are those of this
process and all its descendants (Ray's raylet, GCS and workers), read from /proc while the runs go: on a
machine shared with other jobs they are steadier than wall time. "Steady" is what follows the first committed
chunk (imports, model loads and planning excluded).
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

from peak import peak_rss_mb

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


# the victim's forward passes, in this process (in-process runs) ----------------------------------------
VICTIM = {"cpu": 0.0, "queries": 0}


def instrument(model_class: Any) -> None:
    """Count the texts the victim's one-batch `_classify` receives and the thread CPU time it takes."""
    inner = model_class._classify

    def forward(self: Any, texts: Any) -> Any:
        start = time.thread_time()
        try:
            return inner(self, texts)
        finally:
            VICTIM["cpu"] += time.thread_time() - start
            VICTIM["queries"] += len(texts)

    model_class._classify = forward


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
            self.marks.append((done, len(chunk), done - start, self.meter.used(), dict(VICTIM)))

        self.inner.run(job, items, timed)


def measure(config: Any, executor: Any, label: str) -> dict[str, Any]:
    """One run on a fresh store. `steady` is what follows the first committed chunk (start-up excluded:
    imports, model loads, planning, the first chunk); `start` is what precedes it."""
    from robust.core.plugins import get_registry
    from robust.engine.runner import Runner
    from robust.engine.store import Store

    meter = CpuMeter()
    timed = Timed(executor, meter)
    meter.start()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        run = Runner(get_registry(), Store(Path(tmp) / "runs.db"), timed, progress=False).start(config)
    wall = time.perf_counter() - start
    cpu = meter.stop()
    (t0, n0, _, cpu0, v0), (t1, _, _, cpu1, v1) = timed.marks[0], timed.marks[-1]
    items = sum(mark[1] for mark in timed.marks)
    steady_queries = v1["queries"] - v0["queries"]  # counted in this process: in-process runs only
    return {"label": label, "wall": wall, "cpu": cpu, "queries": run.queries, "items": items,
            "chunks": len(timed.marks), "start_wall": t0 - start, "start_cpu": cpu0,
            "steady_rate": (items - n0) / (t1 - t0), "steady_cpu_per_item": (cpu1 - cpu0) / (items - n0),
            "steady_cpu_per_query": (cpu1 - cpu0) / steady_queries if steady_queries else None,
            "victim_cpu_per_query": (v1["cpu"] - v0["cpu"]) / steady_queries if steady_queries else None,
            "queries_per_chunk": steady_queries / (len(timed.marks) - 1) if steady_queries else None,
            "commit_ms": 1000 * sum(mark[2] for mark in timed.marks) / len(timed.marks)}


# the estimate --------------------------------------------------------------------------------------------
def hours(queries: float, seconds_per_query: float, workers: int) -> str:
    return f"{queries * seconds_per_query / workers / 3600:,.1f}"


def print_estimate(args: Any, base: dict[str, Any], overhead: float) -> None:
    """Wall time of the paper protocol's victim queries on N workers: the in-process steady CPU per query
    (attack + victim) times (1 + Ray's CPU overhead), over N; on GPUs the victim's forward is replaced by an
    assumed GPU cost per query and the attack's own CPU work stays."""
    per_query, victim = base["steady_cpu_per_query"], base["victim_cpu_per_query"]
    outside = per_query - victim
    print(f"\nMeasured in-process, steady state: {1000 * per_query:.2f} ms CPU per victim query, of which "
          f"{1000 * victim:.2f} ms in the victim's forward and {1000 * outside:.2f} ms outside it (attack, "
          f"records); Ray's CPU overhead used below {100 * overhead:+.1f} %; driver commit "
          f"{base['commit_ms']:.1f} ms per chunk of {base['queries_per_chunk']:.0f} queries "
          f"(a ceiling of {base['queries_per_chunk'] / base['commit_ms'] * 1000:,.0f} queries/s through the driver).\n")
    gpu = args.gpu_ms
    print(f"Estimated hours for {args.paper_queries:,.0f} victim queries on N workers (one CPU core each, as "
          f"measured; or one GPU each, at an ASSUMED GPU forward cost per query of {', '.join(map(str, gpu))} ms):\n")
    print("| N | CPU workers | " + " | ".join(f"GPUs at {g} ms/query" for g in gpu) + " |")
    print("|---|---|" + "---|" * len(gpu))
    for n in args.counts:
        cpu = hours(args.paper_queries, per_query * (1 + overhead), n)
        gpus = [hours(args.paper_queries, outside * (1 + overhead) + g / 1000, n) for g in gpu]
        print(f"| {n} | {cpu} | " + " | ".join(gpus) + " |")


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
    parser.add_argument("--gpu-ms", type=float, nargs="+", default=[0.1, 0.5],
                        help="assumed GPU forward cost per victim query (not measurable on a CPU-only machine)")
    args = parser.parse_args()

    import ray
    from robust.core.plugins import get_registry
    from robust.engine.executor import InProcessExecutor
    from robust.engine.ray_executor import RayExecutor
    from robust.engine.runner import RunConfig

    os.environ.setdefault("ROBUST_CHUNK_SECONDS", "0")  # fixed chunks: the same ones for every executor
    get_registry().get("benchmark", "robtest").target.chunk_size = args.chunk_size
    instrument(type(get_registry().model(args.model)))
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
    print(f"\npeak RSS of this driver process: {peak_rss_mb():.0f} MB (a high-water mark over all rows, the "
          "in-process run included; Ray's GCS, raylet and workers are other processes, not counted)")

    top = max(results[1:], key=lambda r: int(r["label"].split()[1]))
    overhead = max(0.0, top["steady_cpu_per_item"] / base["steady_cpu_per_item"] - 1)
    print_estimate(args, base, overhead)

if __name__ == "__main__":
    main()
