"""Per dimension-tag: seconds per example per degree, and the share of wall time spent outside the victim's
forward passes (the attack's own work: candidate generation, helper models, degree measures).

    python benchmarks/robtest_profile.py [--attack all] [--n 5] [--aug-num 20] [--model probe:minilm]

Each tag runs the rule-based protocol over the full degree grid (0.05 ... 0.6) on the MR test sample, after
an untimed one-example warm-up. Helper models (minilm, smollm2) are loaded once per process and shared, as
the run context will do (CONTRACTS.md `ctx.load_model`); the victim's output cache is cleared per tag.
Works against today's code too (PYTHONPATH=<old checkout>/src), for before/after numbers.
"""

from __future__ import annotations

import argparse
import os
import time

from robtest_common import run_robtest, timed_model, warm

DEGREES = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]


def share_helper_models() -> None:
    """Memoise `registry.model(spec)` for helper specs, so an attack's models load once per process."""
    from robust.core.plugins import get_registry

    registry = get_registry()
    original, loaded = registry.model, {}

    def model(spec, **config):
        if config or not spec.startswith(("minilm", "smollm2")):
            return original(spec, **config)
        if spec not in loaded:
            loaded[spec] = original(spec)
        return loaded[spec]

    registry.model = model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="probe:minilm")
    parser.add_argument("--attack", nargs="+", default=["all"])
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--aug-num", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--access", default="rule")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest.dimensions import select

    share_helper_models()
    model, stats = timed_model(args.model)
    warm(model)
    tags = select(args.attack, get_registry())
    print(f"victim {model.identity}; n={args.n}; aug_num={args.aug_num}; access {args.access}; degrees 0.05-0.6; "
          f"torch threads {args.threads}; load average {os.getloadavg()[0]:.1f}\n")
    print("| tag | seconds | s / example / degree | victim texts | victim seconds | outside victim |")
    print("|---|---|---|---|---|---|")
    for tag in tags:
        run_robtest(model, [tag], n=1, aug_num=2, access=[args.access], degrees=[0, 0.1])  # loads resources
        model.cache.clear()
        if hasattr(model, "embedder"):
            model.embedder.cache.clear()
        for key in ("seconds", "batches", "texts", "classify_calls"):
            setattr(stats, key, 0)
        start = time.perf_counter()
        run_robtest(model, [tag], n=args.n, aug_num=args.aug_num, access=[args.access], degrees=DEGREES)
        seconds = time.perf_counter() - start
        per = seconds / (args.n * (len(DEGREES) - 1))
        print(f"| {tag} | {seconds:.1f} | {per:.2f} | {stats.texts} | {stats.seconds:.1f} | "
              f"{1 - stats.seconds / seconds:.1%} |", flush=True)


if __name__ == "__main__":
    main()
