"""The prompted classifier's shared-prefix cache against the naive path (every full prompt encoded whole).

    python benchmarks/prompt_prefix_cache.py [--model smollm2] [--data mr] [--n 64] [--shots 4] [--batch-size 16]

Both paths are `prompt:<model>` adapters on one loaded LM with the same k-shot prompt (instruction and k
demonstrations from the data's training split), differing only in the setting `prefix_cache`; each classifies
the same n test sentences through the adapter's batching (by length), after a warm-up on other sentences, in
alternating rounds. Reported: seconds per example of each path, the speed-up, and the largest absolute
difference between the two paths' class scores (verbalizer log-likelihoods) and probabilities.
Results are recorded in docs/performance/llm.md.
"""

from __future__ import annotations

import argparse
import os
import time

from peak import peak_line


def main() -> None:
    import numpy as np
    import torch

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="smollm2", help="the LM (smollm2, hf:DIR)")
    parser.add_argument("--data", default="mr")
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--shots", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2, help="alternating timed rounds of each path")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    registry = get_registry()
    ctx = RunContext("perf", 0, None, registry, args.data)
    examples = load_examples(args.data, ctx)
    texts = [ex.text for ex in examples[: args.n]]
    warm = [ex.text for ex in examples[args.n: args.n + 4]]
    settings = {"shots": args.shots, "batch_size": args.batch_size}

    def adapter(cache: bool):
        model = registry.model(f"prompt:{args.model}", prefix_cache=cache, **settings).bind(ctx)
        model.preload()
        model.classify(warm)
        return model

    seconds: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.rounds):
        for cache in (False, True):
            model = adapter(cache)  # a fresh output cache: every text is computed
            start = time.perf_counter()
            model.classify(texts)
            seconds[cache].append((time.perf_counter() - start) / len(texts))
    cached, naive = adapter(True), adapter(False)
    size = args.batch_size
    fast = np.concatenate([cached.scores(texts[i: i + size]) for i in range(0, len(texts), size)])
    slow = np.concatenate([naive.scores(texts[i: i + size]) for i in range(0, len(texts), size)])
    prob = np.abs(cached.classify(texts) - naive.classify(texts)).max()
    prefix = len(cached._layout["prefix"])
    segment = float(np.mean([len(s) for s in cached._segments(texts)]))
    best = {c: min(v) for c, v in seconds.items()}
    print(f"model {cached.lm.identity}, data {args.data}, n {len(texts)}, shots {args.shots}, batch_size {size}, "
          f"threads {args.threads}, load average {os.getloadavg()[0]:.1f}")
    print(f"prompt prefix {prefix} tokens, example segment {segment:.1f} tokens on average")
    print(f"seconds per example, rounds: naive {[round(s, 4) for s in seconds[False]]}, "
          f"shared prefix {[round(s, 4) for s in seconds[True]]}")
    print("| path | s / example (best of rounds) | speed-up | max abs Δ class score | max abs Δ probability |")
    print("|---|---|---|---|---|")
    print(f"| naive (prefix_cache=false) | {best[False]:.4f} | 1.0× | | |")
    print(f"| shared prefix | {best[True]:.4f} | {best[False] / best[True]:.1f}× | "
          f"{np.abs(fast - slow).max():.1e} | {prob:.1e} |")
    print(peak_line())


if __name__ == "__main__":
    main()
