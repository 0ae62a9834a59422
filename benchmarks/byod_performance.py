"""BYOD throughput: tokens/second of the benchmark vs the model's pure forward pass on the same batches.

    python benchmarks/byod_performance.py [--model smollm2] [--n 100] [--batch-size 16]

Every forward pass the adapter makes during a BYOD run is recorded (its padded input ids and attention
mask); the same batches are then replayed through `model(input_ids, attention_mask)` alone. Overhead =
BYOD wall time / pure forward time − 1 (target ≤ 10 %). Also checks batch_size=1 vs N agreement.
Results are recorded in docs/performance/byod.md.
"""

from __future__ import annotations

import argparse
import time

from peak import peak_line


def run_byod(model, tests: str, n: int, data: str | None, seed: int = 0) -> tuple[dict, float]:
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.byod import BYOD

    bench = BYOD(test=tests, max_examples=n)
    ctx = RunContext("perf", seed, model, get_registry(), data, None)
    bench.prepare(ctx)
    items = bench.items(ctx)  # corpus sampling is not timed: it is not model work
    t0 = time.perf_counter()
    records = {}
    for start in range(0, len(items), bench.chunk_size):
        chunk = items[start: start + bench.chunk_size]
        records.update((it.id, r) for it, r in zip(chunk, bench.run_batch(chunk, ctx), strict=True))
    return records, time.perf_counter() - t0


def main() -> None:
    import numpy as np
    import torch

    from robust.core.plugins import get_registry

    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--tests", default="negation,lrs,word_order,tokenization")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--data", default=None)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    model = get_registry().model(args.model, batch_size=args.batch_size)
    lm = model.model  # load before timing
    batches: list[tuple[torch.Tensor, torch.Tensor]] = []
    original = model._pad  # every forward pass pads its batch here (whole-model and split-head paths alike)

    def recording_pad(ids, left=False):
        padded = original(ids, left)
        batches.append(padded)
        return padded

    model._pad = recording_pad
    warm, _ = run_byod(model, args.tests, 4, args.data, seed=1)  # warm-up (allocator, kernels)
    batches.clear()
    model.cache.clear()
    records, byod_s = run_byod(model, args.tests, args.n, args.data)
    model._pad = original

    tokens = sum(int(mask.sum()) for _, mask in batches)
    padded = sum(mask.numel() for _, mask in batches)
    # the pure forward: the whole model, or, where the adapter splits off the LM head to run it only at the
    # positions read, the body alone (the head's work at those positions then counts as BYOD's: a conservative
    # overhead)
    net = model._split[0] if model._split is not None else lm
    t0 = time.perf_counter()
    with torch.inference_mode():
        for input_ids, mask in batches:
            net(input_ids=input_ids, attention_mask=mask)
    pure_s = time.perf_counter() - t0

    per_test: dict[str, int] = {}
    for r in records.values():
        per_test[r["test"]] = per_test.get(r["test"], 0) + 1
    print(f"model {model.identity}, batch_size {args.batch_size}, threads {args.threads}, items {per_test}")
    how = "the body, LM head split off" if model._split is not None else "the whole model"
    print(f"forward passes {len(batches)} ({how}), real tokens {tokens}, padded tokens {padded} "
          f"(padding {padded / tokens - 1:.1%})")
    print(f"BYOD run: {byod_s:.1f} s = {tokens / byod_s:.0f} tokens/s")
    print(f"pure forward on the same batches: {pure_s:.1f} s = {tokens / pure_s:.0f} tokens/s")
    print(f"overhead: {byod_s / pure_s - 1:+.1%}")

    # batched vs unbatched agreement on the same items (a smaller run, so both see identical pairs;
    # the batched values come from the batches above where cached)
    small = min(args.n, 20)
    one = get_registry().model(args.model, batch_size=1)
    rec1, t1 = run_byod(one, args.tests, small, args.data)
    recn, _ = run_byod(model, args.tests, small, args.data)
    for test in args.tests.split(","):
        diffs = [abs(rec1[k]["value"] - recn[k]["value"]) for k in rec1 if rec1[k]["test"] == test
                 and rec1[k]["value"] is not None and recn[k]["value"] is not None]
        assert all(rec1[k]["x_prime"] == recn[k]["x_prime"] for k in rec1 if "x_prime" in rec1[k])
        print(f"{test}: batch_size=1 vs {args.batch_size}: {len(diffs)} records, max |Δvalue| = "
              f"{max(diffs):.2e}, mean {np.mean(diffs):.2e}")
    print(f"(batch size 1 took {t1:.1f} s for these)")
    print(peak_line())


if __name__ == "__main__":
    main()
