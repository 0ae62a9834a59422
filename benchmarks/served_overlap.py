"""Does a served model wait for robust? A run with `prompt:api:MODEL` at ROBUST_OVERLAP 1 and 2 (chunks computed at
once), alternated: its wall, queries and requests per second, and the share of the wall with a request in flight
(the server's busy share as the client sees it: the union of every request's span / the wall).

    python benchmarks/served_overlap.py --llama                        # llama.cpp's server on the embedded SmolLM2
    python benchmarks/served_overlap.py --base-url URL --model NAME    # any OpenAI-compatible endpoint

Each run has its own store and no request cache, so every query reaches the server; the records of the two
overlaps are compared (equal: the same digest, wall-clock fields left out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import threading
import time
from pathlib import Path

from peak import peak_rss_mb
from served_throughput import add_endpoint_options, endpoint

import robust

WORKLOADS = {  # name -> (benchmark, attack, examples)
    "deepwordbug": ("attack", "deepwordbug", 6),
    "robtest-typo": ("robtest", "typo", 1),
}


class Spans:
    """Every HTTP request's (start, end), from httpx's client (the requests robust's endpoint client sends)."""

    def __init__(self) -> None:
        import httpx

        self.spans: list[tuple[float, float]] = []
        self._lock = threading.Lock()
        original = httpx.Client.request

        def request(client, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            began = time.perf_counter()
            try:
                return original(client, *args, **kwargs)
            finally:
                with self._lock:
                    self.spans.append((began, time.perf_counter()))

        httpx.Client.request = request

    def busy(self, lo: float, hi: float) -> float:
        """Seconds within [lo, hi] with at least one request in flight."""
        total, end = 0.0, lo
        for began, ended in sorted(s for s in self.spans if s[1] > lo and s[0] < hi):
            began, ended = max(began, end), min(ended, hi)
            if ended > began:
                total, end = total + ended - began, ended
        return total


def one(spans: Spans, url: str, name: str, workload: str, overlap: int, concurrency: int) -> dict:
    bench, attack, limit = WORKLOADS[workload]
    os.environ["ROBUST_OVERLAP"] = str(overlap)
    settings = {"api.base_url": url, "api.concurrency": concurrency, "api.request_cache": False}
    with tempfile.TemporaryDirectory() as home:
        cpu, began = time.process_time(), time.perf_counter()
        run = robust.run(bench, model=f"prompt:api:{name}", attack=attack, limit=limit, settings=settings,
                         store=Path(home) / "robust.db")
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    requests = sum(1 for s in spans.spans if s[0] >= began)
    return {"workload": workload, "overlap": overlap, "wall": wall, "queries": run.run.queries,
            "requests": requests, "busy": spans.busy(began, began + wall) / wall, "cpu": cpu,
            "records": digest(run.records)}


def digest(records: dict) -> str:
    """A short hash of the records without their wall-clock fields (`chunk_seconds_share`)."""
    kept = {k: {f: v for f, v in r.items() if "seconds" not in f} for k, r in records.items()}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()[:10]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_endpoint_options(ap)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--concurrency", type=int, default=8, help="requests in flight at most (api.concurrency)")
    ap.add_argument("--rounds", type=int, default=2, help="alternated rounds of overlap 1 and 2")
    args = ap.parse_args()
    proc, url, name = endpoint(args)
    spans = Spans()
    try:
        print(f"prompt:api:{name} at {url}, concurrency {args.concurrency}\n")
        print("| workload | overlap | wall s | queries | queries/s | requests/s | a request in flight "
              "| robust's CPU s | records |")
        print("|---|---|---|---|---|---|---|---|---|")
        for workload in args.workloads.split(","):
            for _ in range(args.rounds):
                for overlap in (1, 2):
                    r = one(spans, url, name, workload, overlap, args.concurrency)
                    print(f"| {workload} | {overlap} | {r['wall']:.1f} | {r['queries']:,} | "
                          f"{r['queries'] / r['wall']:.0f} | {r['requests'] / r['wall']:.1f} | {r['busy']:.0%} | "
                          f"{r['cpu']:.1f} | {r['records']} |", flush=True)
        print(f"\npeak RSS of this process: {peak_rss_mb():.0f} MB")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
