"""Real-data check: SynTextBench scores of several embedders against their linear-probe accuracy on the
Pang & Lee MR sentences (4,000 labelled sentences; `robust setup mr`), with rank correlations.

    python benchmarks/syntextbench_mr_correlation.py --out mr.json [--dose-json dose.json]

The probe is a 5-fold cross-validated logistic regression on the embeddings each model gives SynTextBench
(same pooling). SynTextBench scores (default settings, seed 0) are taken from a dose-response JSON when
it has them, else computed here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau, pearsonr, spearmanr

sys.path.insert(0, str(Path(__file__).parent))
from syntextbench_embedders import dose_series, run_syntextbench  # noqa: E402

MODELS = ["E1 MiniLM", "E1 MiniLM, shuffled words", "E2 MiniLM, 25% word rows permuted",
          "E2 MiniLM, 50% word rows permuted", "E2 MiniLM, 75% word rows permuted", "bag of random word vectors",
          "E3 MiniLM, random init", "E4 random vectors"]


def mr_sentences() -> tuple[list[str], np.ndarray]:
    from robust.core.context import RunContext

    examples = list(RunContext.default().create("dataset", "mr", split="all").examples())
    return [e.text for e in examples], np.array([1 if e.label == "positive" else -1 for e in examples])


def probe_accuracy(Z: np.ndarray, y: np.ndarray) -> float:
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
    return float(cross_val_score(clf, Z, y, cv=StratifiedKFold(5, shuffle=True, random_state=0)).mean())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="syntextbench_mr_correlation.json")
    ap.add_argument("--dose-json", default="")
    ap.add_argument("--no-smollm2", action="store_true")
    ap.add_argument("--mr-size", type=int, default=2000, help="balanced subset of the 4,000 MR sentences")
    ap.add_argument("--levels", type=float, nargs="+", default=None, help="SynTextBench p grid (default: 20)")
    ap.add_argument("--models", nargs="*", default=MODELS)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench, choose_pooling

    registry = get_registry()
    lists = SynTextBench().word_lists
    texts, labels = mr_sentences()
    keep = np.sort(np.concatenate([np.flatnonzero(labels == c)[: args.mr_size // 2] for c in (1, -1)]))
    texts, labels = [texts[i] for i in keep], labels[keep]
    series = dose_series(lists)
    models = {name: series[name] for name in args.models}
    if not args.no_smollm2:
        models["SmolLM2-135M last token"] = registry.model("smollm2")
    out_path = Path(args.out)
    rows = {r["embedder"]: r for r in (json.loads(out_path.read_text()) if out_path.exists() else [])}
    save = lambda: out_path.write_text(json.dumps(list(rows.values()), indent=1))  # noqa: E731
    for name, model in models.items():  # 1. linear probes on MR
        if name not in rows:
            t0 = time.time()
            pooling = choose_pooling("auto", frozenset(model.provides()))
            acc = probe_accuracy(np.asarray(model.embed(texts, pooling=pooling)), labels)
            rows[name] = {"embedder": name, "pooling": pooling, "mr_probe_accuracy": acc}
            print(f"{name:36s} {pooling:15s} MR probe acc {acc:.4f} [{time.time() - t0:.0f}s]", flush=True)
            save()
    dose = json.loads(Path(args.dose_json).read_text()) if args.dose_json and Path(args.dose_json).exists() else []
    known = {r["embedder"]: r["score"] for r in dose if r["seed"] == 0 and r["variant"] == "default"}
    for name, model in models.items():  # 2. SynTextBench scores (default settings, seed 0)
        if "syntextbench" not in rows[name]:
            t0 = time.time()
            score = known.get(name)
            if score is None:
                extra = {"levels": args.levels} if args.levels else {}
                score = run_syntextbench(model, 0, registry, **extra).summary["score"]
            rows[name]["syntextbench"] = score
            print(f"{name:36s} SynTextBench {rows[name]['syntextbench']:.4f} [{time.time() - t0:.0f}s]", flush=True)
            save()
    rows = list(rows.values())
    x = [r["syntextbench"] for r in rows]
    y = [r["mr_probe_accuracy"] for r in rows]
    print("\n| embedder | pooling | MR linear-probe accuracy (5-fold) | SynTextBench score |\n|---|---|---|---|")
    for r in sorted(rows, key=lambda r: -r["mr_probe_accuracy"]):
        print(f"| {r['embedder']} | {r['pooling']} | {r['mr_probe_accuracy']:.4f} | {r['syntextbench']:.4f} |")
    print(f"\nover {len(rows)} embedders: Spearman {spearmanr(x, y)[0]:+.3f}, Kendall {kendalltau(x, y)[0]:+.3f}, "
          f"Pearson {pearsonr(x, y)[0]:+.3f}")


if __name__ == "__main__":
    main()
