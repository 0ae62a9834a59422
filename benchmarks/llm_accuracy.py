"""Clean accuracy of the prompted LM on MR sentences, beside the majority class, the probe victim and a negative
control (verbalizers swapped between the labels), each with its Wilson 95 % interval.

    python benchmarks/llm_accuracy.py [--lm smollm2] [--data mr] [--n 200] [--shots 0,4]

Every row runs the `accuracy` benchmark's own prepare/run/reduce (as `robust run --bench accuracy --limit N`
does) on the same first N examples. Results are recorded in docs/llm.md.
"""

from __future__ import annotations

import argparse
import time

from peak import peak_line

SWAPPED = ["positive=negative", "negative=positive"]


def accuracy(spec: str, data: str, n: int, **settings) -> tuple[dict, float, list[str]]:
    """(summary, seconds per example, gold labels) of one accuracy run."""
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    registry = get_registry()
    model = registry.model(spec, **settings)
    ctx = RunContext("llm-accuracy", 0, model, registry, data, n, model_spec=spec)
    model.bind(ctx)
    bench = ctx.create("benchmark", "accuracy")
    bench.prepare(ctx)
    model.preload()
    items = bench.items(ctx)
    start = time.perf_counter()
    records = {}
    for s in range(0, len(items), bench.chunk_size):
        chunk = items[s: s + bench.chunk_size]
        records.update((it.id, r) for it, r in zip(chunk, bench.run_batch(chunk, ctx)))
    seconds = (time.perf_counter() - start) / len(items)
    return bench.reduce(records, ctx).summary, seconds, [r["label"] for r in records.values()]


def main() -> None:
    import torch

    from robust.toolkit.stats import wilson

    parser = argparse.ArgumentParser()
    parser.add_argument("--lm", default="smollm2")
    parser.add_argument("--data", default="mr")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--shots", default="0,4")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    rows = []
    summary, seconds, gold = accuracy("probe:minilm", args.data, args.n)
    top = max(gold.count(label) for label in set(gold))
    rows.append(("majority class", top / len(gold), *wilson(top, len(gold)), "", len(gold)))
    rows.append(("probe:minilm", summary["accuracy"], summary["accuracy_ci_low"], summary["accuracy_ci_high"],
                 f"{seconds:.3f}", summary["n"]))
    for shots in [int(k) for k in args.shots.split(",")]:
        for label, extra in (("", {}), (", calibrated", {"calibrate": True}),
                             (", verbalizers swapped (negative control)", {"verbalizers": SWAPPED})):
            summary, seconds, _ = accuracy(f"prompt:{args.lm}", args.data, args.n, shots=shots, **extra)
            rows.append((f"prompt:{args.lm}, {shots}-shot{label}", summary["accuracy"], summary["accuracy_ci_low"],
                         summary["accuracy_ci_high"], f"{seconds:.3f}", summary["n"]))
    print(f"data {args.data}, first {args.n} examples, threads {args.threads}")
    print("| model | accuracy | Wilson 95 % interval | s / example | n |")
    print("|---|---|---|---|---|")
    for name, acc, low, high, secs, n in rows:
        print(f"| {name} | {acc:.3f} | {low:.3f}–{high:.3f} | {secs} | {n} |")
    print(peak_line())


if __name__ == "__main__":
    main()
