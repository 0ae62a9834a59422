"""RobTest throughput per dimension-tag and access setting: examples/s, victim queries/s, and the share of
wall time spent outside the victim model (target <= 20 %).

    python benchmarks/robtest_perf.py --attack typo --n 20 --aug-num 20 [--model probe:minilm] [--threads 2]

Each (tag, access) runs on a cold victim output cache (after an untimed one-example pass with --warm) over
the full degree grid. Results go to stdout as a Markdown table (recorded in docs/performance/robtest.md).
"""

from __future__ import annotations

import argparse
import os
import time

from robtest_common import run_robtest, timed_model, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="probe:minilm")
    parser.add_argument("--attack", nargs="+", default=["all"])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--aug-num", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--access", nargs="+", default=["rule", "score"])
    parser.add_argument("--warm", action="store_true",
                        help="first run each tag once on one example (loads lexicons, spaCy, embedders) untimed")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest.dimensions import select

    model, stats = timed_model(args.model)
    warm(model)
    tags = select(args.attack, get_registry())
    print(f"model {model.identity}; n={args.n}, aug_num={args.aug_num}, torch threads {args.threads}, "
          f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}\n")
    print("| tag | access | seconds | examples/s | victim queries | queries/s | classify calls | "
          "texts/forward batch | outside victim |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tag in tags:
        for access in args.access:
            if access == "score" and tag == "syntax":
                continue  # no score-based Syntax (the paper prints '-')
            if args.warm:
                run_robtest(model, [tag], n=1, aug_num=1, access=[access], degrees=[0, 0.1])
            model.cache.clear()
            if hasattr(model, "embedder"):
                model.embedder.cache.clear()
            for key in ("seconds", "batches", "texts", "classify_calls"):
                setattr(stats, key, 0)
            start = time.perf_counter()
            run_robtest(model, [tag], n=args.n, aug_num=args.aug_num, access=[access])
            seconds = time.perf_counter() - start
            outside = 1 - stats.seconds / seconds
            per_batch = stats.texts / max(stats.batches, 1)
            print(f"| {tag} | {access} | {seconds:.1f} | {args.n / seconds:.2f} | {stats.texts} | "
                  f"{stats.texts / seconds:.1f} | {stats.classify_calls} | {per_batch:.1f} | {outside:.1%} |",
                  flush=True)


if __name__ == "__main__":
    main()
