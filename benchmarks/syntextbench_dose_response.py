"""Dose-response validation of SynTextBench (docs/validation/syntextbench.md, §4.1): embedders of known,
decreasing quality must be ranked in that order, stably across seeds.

    python benchmarks/syntextbench_dose_response.py --seeds 0 1 2 --n 256 --out dose.json

Every embedder sees the same synthetic corpus per seed. Embeddings are cached per model, so the scoring
variants (default = debiased d_inter; `faithful` = literal d_inter) cost nothing extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).parent))
from syntextbench_embedders import dose_series, run_syntextbench  # noqa: E402

VARIANTS = {"default": {}, "faithful (debias=false)": {"debias": False}}
DOSE = ["E1 MiniLM", "E2 MiniLM, 25% word rows permuted", "E2 MiniLM, 50% word rows permuted",
        "E2 MiniLM, 75% word rows permuted"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--levels", type=float, nargs="+", default=None, help="p grid (default: the paper's 20)")
    ap.add_argument("--skip", nargs="*", default=[], help="embedder names to leave out")
    ap.add_argument("--only", nargs="*", default=None, help="run only these embedders")
    ap.add_argument("--out", default="syntextbench_dose_response.json")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench

    registry = get_registry()
    lists = SynTextBench().word_lists
    out_path = Path(args.out)
    rows: list[dict] = json.loads(out_path.read_text()) if out_path.exists() else []
    done = {(r["seed"], r["embedder"], r["variant"]) for r in rows}
    for seed in args.seeds:
        for name, model in dose_series(lists).items():  # fresh models per seed: caches stay small
            if name in args.skip or (args.only is not None and name not in args.only):
                continue
            for variant, settings in VARIANTS.items():
                if args.levels:
                    settings = {**settings, "levels": args.levels}
                if (seed, name, variant) in done:
                    continue
                t0 = time.time()
                res = run_syntextbench(model, seed, registry, n=args.n, **settings)
                s = res.summary
                rows.append({"seed": seed, "embedder": name, "variant": variant, "score": s["score"],
                             "score_aT0.6": s["score_aT0.6"], "mean_accuracy": s["mean_accuracy"],
                             "accuracy_by_level": [lv["accuracy"] for lv in res.data["levels"]],
                             "seconds": time.time() - t0})
                print(f"seed {seed} {variant:24s} {name:36s} score {s['score']:.4f} "
                      f"(a_T=0.6: {s['score_aT0.6']:.4f}) acc {s['mean_accuracy']:.3f} "
                      f"[{time.time() - t0:.0f}s]", flush=True)
                out_path.write_text(json.dumps(rows, indent=1))
    report(rows, args.seeds)


def report(rows: list[dict], seeds: list[int]) -> None:
    names = list(dict.fromkeys(r["embedder"] for r in rows))
    for variant in VARIANTS:
        print(f"\n## {variant}: score (a_T = 0.7) per seed, mean ± std\n")
        print("| embedder | " + " | ".join(f"seed {s}" for s in seeds) + " | mean ± std | a_T=0.6 mean |")
        print("|---|" + "---|" * (len(seeds) + 2))
        table = {}
        for name in names:
            sc = [next((r["score"] for r in rows if (r["seed"], r["embedder"], r["variant"]) == (s, name, variant)),
                       np.nan) for s in seeds]
            s6 = [r["score_aT0.6"] for r in rows if r["embedder"] == name and r["variant"] == variant]
            table[name] = sc
            print(f"| {name} | " + " | ".join(f"{x:.4f}" for x in sc)
                  + f" | {np.nanmean(sc):.4f} ± {np.nanstd(sc):.4f} | {np.mean(s6):.4f} |")
        print()
        for i, s in enumerate(seeds):
            dose = [table[n][i] for n in DOSE if n in table]
            rho = spearmanr(range(len(dose)), dose)[0] if len(dose) > 2 else float("nan")
            order = sorted(names, key=lambda n: -table[n][i])
            print(f"seed {s}: Spearman(dose, score) over the E1/E2 series = {rho:+.2f}; ranking: "
                  + " > ".join(order))
        key = {"E0": "E0 lexical oracle", "E1": "E1 MiniLM", "E2": "E2 MiniLM, 75% word rows permuted",
               "E3": "E3 MiniLM, random init", "E4": "E4 random vectors"}
        if all(v in table for v in key.values()):
            m = {k: np.nanmean(table[v]) for k, v in key.items()}
            print(f"criteria: E0 >= E1: {m['E0'] >= m['E1']}; E1 > E2(0.75): {m['E1'] > m['E2']}; "
                  f"E2(0.75) > E3: {m['E2'] > m['E3']}; E3 >= E4: {m['E3'] >= m['E4']}; "
                  f"E4 <= 0.01: {m['E4'] <= 0.01}")


if __name__ == "__main__":
    main()
