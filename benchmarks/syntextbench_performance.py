"""SynTextBench throughput: sentences per second of a whole run, and the ratio of total run time to pure
embedding time of the same sentences (target overhead <= 10 %).

    python benchmarks/syntextbench_performance.py [--model minilm] [--n 256] [--repeats 2]

Each repeat uses fresh model instances (no embedding cache), warmed up once so that model loading counts
in neither time. The ratio is measured twice: against the time spent inside `model.embed` during the run
itself (robust to a shared, fluctuating CPU), and against a separate pure-embedding pass over the same
sentences. The breakdown re-times generation and scoring alone.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from peak import peak_line


def timed_embed(model) -> list[float]:
    """Wrap `model.embed` so the seconds spent inside it accumulate in the returned one-element list."""
    spent = [0.0]
    embed = model.embed

    def wrapper(texts, pooling=None):
        t0 = time.perf_counter()
        try:
            return embed(texts, pooling=pooling)
        finally:
            spent[0] += time.perf_counter() - t0

    model.embed = wrapper
    return spent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="minilm")
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench
    from robust.plugins.benchmarks.syntextbench.scoring import task_point

    registry = get_registry()

    def fresh_model():
        model = registry.model(args.model)
        model.embed(["warm up the model"], pooling="first-last-avg")
        return model

    for rep in range(args.repeats):
        bench = SynTextBench(n=args.n)
        ctx = RunContext("perf", rep, fresh_model(), registry)
        inside = timed_embed(ctx.model)
        t0 = time.perf_counter()
        bench.prepare(ctx)
        records = {i.id: r for i in bench.items(ctx) for r in bench.run_batch([i], ctx)}
        result = bench.reduce(records, ctx)
        total = time.perf_counter() - t0
        pooling = records[next(iter(records))]["pooling"]
        t0 = time.perf_counter()
        tasks = [bench.task(*item.payload, ctx) for item in bench.items(ctx)]
        gen = time.perf_counter() - t0
        model = fresh_model()
        t0 = time.perf_counter()
        embeddings = [np.asarray(model.embed(task.texts, pooling=pooling)) for task in tasks]
        embed = time.perf_counter() - t0
        t0 = time.perf_counter()
        for task, Z in zip(tasks, embeddings):
            k = len(task.train_texts)
            task_point(Z[:k], task.train_y, Z[k:], task.test_y)
        score = time.perf_counter() - t0
        n_sent = sum(len(t.texts) for t in tasks)
        print(f"repeat {rep}: time inside model.embed during the run {inside[0]:.1f}s; ratio run/embed-in-run "
              f"{total / inside[0]:.3f} (same load for both)")
        print(f"repeat {rep}: {n_sent} sentences; run {total:.1f}s = {n_sent / total:.1f} sentences/s; "
              f"pure embedding {embed:.1f}s = {n_sent / embed:.1f} sentences/s; ratio run/embedding "
              f"{total / embed:.3f}; generation {gen:.2f}s, scoring {score:.2f}s; score {result.summary['score']:.4f}",
              flush=True)
    print(peak_line())


if __name__ == "__main__":
    main()
