"""SynTextBench's precision curve: how the score, its spread over seeds and its bootstrap interval depend on the
sentences per level n and on cross-fitting, for MiniLM, a clearly degraded MiniLM and text-independent vectors.

    python benchmarks/syntextbench_precision.py --seeds 0 1 2 3 --n 128 256 512 1024 --out precision.json

Per seed, each level's corpus is generated once at the largest n (the benchmark's generator, trial 0); a
smaller n takes the first n/2 sentences of each class (the order is random), which is distributed exactly as
a fresh corpus of that size. Embeddings are cached in --cache (resumable); results are appended to --out.
Variants per (model, seed, n): folds = 1 (one 90/10 split, the paper) and 10 (cross-fitting), debias as
`debias=auto`, and the same vectors L2-normalised.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from syntextbench_embedders import dose_series  # noqa: E402

MODELS = ["E1 MiniLM", "E2 MiniLM, 50% word rows permuted", "E4 random vectors"]
VARIANTS = {"folds=1": {"folds": 1}, "folds=10": {"folds": 10}, "folds=10, L2-normalised": {"folds": 10, "l2": True}}


def corpus(seed: int, n: int, levels: list[float]) -> dict[float, tuple[list[str], np.ndarray]]:
    """Per level: the benchmark's sentences (pooled train + test, in their random order) and labels."""
    from robust.core.context import RunContext
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench

    bench = SynTextBench(n=n)
    ctx = RunContext(f"precision-{seed}", seed, None, RunContext.default().registry)
    out = {}
    for p in levels:
        task = bench.task(0, p, ctx)
        out[p] = (task.texts, np.concatenate([task.train_y, task.test_y]))
    return out


def subset(y: np.ndarray, n: int) -> np.ndarray:
    """Indices of the first n/2 sentences of each class, in corpus order."""
    keep = np.concatenate([np.flatnonzero(y == c)[: n // 2] for c in (1, -1)])
    return np.sort(keep)


def rows_for(Z: np.ndarray, y: np.ndarray, p: float, folds: int) -> dict:
    """A scorer row: for folds = 1 the last 10 % of each class is the test set (the benchmark's split)."""
    test = np.zeros(len(y), dtype=bool)
    for c in (1, -1):
        idx = np.flatnonzero(y == c)
        test[idx[len(idx) - int(round(0.1 * len(idx))):]] = True
    if folds > 1:
        test[:] = False
    return {"train_embeddings": Z[~test], "train_labels": y[~test], "test_embeddings": Z[test],
            "test_labels": y[test], "trial": 0, "p": p}


def embeddings(model, name: str, seed: int, texts: list[str], cache: Path, tag: str = "") -> np.ndarray:
    path = cache / f"{name.replace(' ', '_').replace('%', 'pct').replace(',', '')}-seed{seed}{tag}.npy"
    if path.exists():
        return np.load(path)
    t0 = time.time()
    Z = np.asarray(model.embed(texts, pooling="first-last-avg"), dtype=np.float32)
    print(f"  embedded {len(texts)} sentences with {name} in {time.time() - t0:.0f} s "
          f"({len(texts) / (time.time() - t0):.0f}/s)", flush=True)
    np.save(path, Z)
    return Z


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3])
    ap.add_argument("--n", type=int, nargs="+", default=[128, 256, 512, 1024])
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--cap", nargs="*", default=["E2 MiniLM, 50% word rows permuted=512"],
                    help="MODEL=N: largest n for that model (only its first N/2 per class are embedded)")
    ap.add_argument("--out", default="syntextbench_precision.json")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "syntextbench_precision"))
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from robust.core.context import RunContext
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench
    from robust.plugins.benchmarks.syntextbench.constants import DEBIAS_BELOW, P_GRID

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else []
    done = {(r["model"], r["seed"], r["n"], r["variant"]) for r in results}
    series = dose_series(SynTextBench().word_lists)
    ctx = RunContext.default()
    n_max, levels = max(args.n), list(P_GRID)
    caps = {k: int(v) for k, _, v in (c.rpartition("=") for c in args.cap)}
    for seed in args.seeds:
        data = corpus(seed, n_max, levels)
        for name in args.models:
            sizes = [n for n in args.n if n <= caps.get(name, n_max)]
            if all((name, seed, n, v) in done for n in sizes for v in VARIANTS):
                continue
            top = max(sizes)  # embed the sentences of the largest subset only
            subsets = {p: subset(data[p][1], top) for p in levels}
            texts = [data[p][0][i] for p in levels for i in subsets[p]]
            Z_all = embeddings(series[name], name, seed, texts, cache, "" if top == n_max else f"-n{top}")
            offsets = np.cumsum([0] + [len(subsets[p]) for p in levels])
            for n in sizes:
                for variant, opts in VARIANTS.items():
                    if (name, seed, n, variant) in done:
                        continue
                    scorer = ctx.create("scorer", "syntextbench", folds=opts["folds"], debias=n < DEBIAS_BELOW)
                    rows = []
                    for i, p in enumerate(levels):
                        y_all = data[p][1][subsets[p]]
                        keep = subset(y_all, n)
                        Z = Z_all[offsets[i]:offsets[i + 1]][keep].astype(np.float64)
                        if opts.get("l2"):
                            Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
                        rows.append(rows_for(Z, y_all[keep], p, opts["folds"]))
                    t0 = time.time()
                    values = scorer.values(rows)
                    s = scorer.summarize(values, rows)
                    results.append({"model": name, "seed": seed, "n": n, "variant": variant, "score": s["score"],
                                    "ci_low": s["score_ci_low"], "ci_high": s["score_ci_high"],
                                    "se": s["score_se"], "mean_accuracy": float(np.mean([v["accuracy"]
                                                                                         for v in values])),
                                    "scoring_seconds": time.time() - t0})
                    print(f"seed {seed} n {n:5d} {variant:24s} {name:34s} score {s['score']:.4f} "
                          f"[{s['score_ci_low']:.4f}, {s['score_ci_high']:.4f}] ({time.time() - t0:.1f} s)",
                          flush=True)
                    out.write_text(json.dumps(results, indent=1))
    report(results)


def report(results: list[dict]) -> None:
    print("\n| model | variant | n | mean score | sd over seeds | mean bootstrap se | se / sd | CI covers the "
          "seed mean | seeds |\n|---|---|---|---|---|---|---|---|---|")
    keys = sorted({(r["model"], r["variant"], r["n"]) for r in results})
    for model, variant, n in keys:
        rs = [r for r in results if (r["model"], r["variant"], r["n"]) == (model, variant, n)]
        sc = np.array([r["score"] for r in rs])
        sd = sc.std(ddof=1) if len(sc) > 1 else float("nan")
        se = float(np.mean([r["se"] for r in rs]))
        cover = np.mean([r["ci_low"] <= sc.mean() <= r["ci_high"] for r in rs])
        print(f"| {model} | {variant} | {n} | {sc.mean():.4f} | {sd:.4f} | {se:.4f} | {se / sd:.2f} | "
              f"{cover:.2f} | {len(rs)} |")


if __name__ == "__main__":
    main()
