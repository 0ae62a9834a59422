"""The 13 RobustText features on real text with the offline substitutes (docs/asr_predict.md), true vs shuffled labels.

    python benchmarks/asr_features_demo.py [--corpus mr|wordnet] [--train 450] [--test 50] [--sentences 2]

Texts: `mr` = the first `--sentences` sentences of Pang & Lee movie reviews (`mr-reviews`, needs `robust setup
mr`), labels pos/neg; `wordnet` = glosses of random noun synsets from four lexicographer files (artifact,
person, plant, animal; WordNet from `robust setup`), labels = the file (like `wn-noun`, docs/asr_predict.md).
Embeddings: the embedded MiniLM (384-d, instead of USE-v4); tokens: MiniLM's uncased WordPiece
tokenizer without truncation (instead of bert-base-cased); char-CNN at the default scaled-down size. Shuffling
the labels must erase class separation (FR, CHI fixed -> ~0 / small, MR fixed -> ~0.5) and leave the token and
clustering features unchanged. Prints a Markdown table and per-step timings.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def movie_reviews(args) -> tuple[list[str], list[str]]:
    from robust import load_examples
    from robust.core.context import RunContext

    examples = load_examples("mr-reviews", RunContext.default())
    order = np.random.default_rng(args.seed).permutation(len(examples))[: args.train + args.test]
    return [" ".join(examples[i].meta["sentences"][: args.sentences]) for i in order], [examples[i].label
                                                                                        for i in order]


def wordnet_glosses(args) -> tuple[list[str], list[str]]:
    from robust.core.context import RunContext
    from robust.plugins.benchmarks.asr_predict.data import wordnet_corpus

    corpus = wordnet_corpus(RunContext.default().resource("wordnet"), "wn-noun")
    keep = {corpus.names.index(n) for n in ("noun.artifact", "noun.person", "noun.plant", "noun.animal")}
    rows = [(t, corpus.names[y]) for t, y in zip(corpus.texts, corpus.labels) if y in keep]
    order = np.random.default_rng(args.seed).permutation(len(rows))[: args.train + args.test]
    return [rows[i][0] for i in order], [rows[i][1] for i in order]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=("mr", "wordnet"), default="mr")
    parser.add_argument("--train", type=int, default=450)
    parser.add_argument("--test", type=int, default=50)
    parser.add_argument("--sentences", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import torch

    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.asr_predict import scorers

    torch.set_num_threads(1)
    texts, labels = (movie_reviews if args.corpus == "mr" else wordnet_glosses)(args)
    timings = {}
    t = time.time()
    minilm = get_registry().model("minilm")
    embeddings = minilm.embed(texts)
    timings["MiniLM embeddings"] = time.time() - t
    t = time.time()
    tokens = [minilm.tokenizer(text)["input_ids"] for text in texts]  # no truncation (docs/asr_predict.md)
    timings["tokenization"] = time.time() - t
    splits = ["train"] * args.train + ["test"] * args.test
    rng = np.random.default_rng(args.seed + 1)  # shuffled within train and within test: same class counts
    shuffled = list(rng.permutation(labels[: args.train])) + list(rng.permutation(labels[args.train:]))
    columns = {}
    for tag, labs in (("true labels", labels), ("shuffled labels", shuffled)):
        rows = [{"text": x, "label": y, "embedding": e, "tokens": k, "split": s}
                for x, y, e, k, s in zip(texts, labs, embeddings, tokens, splits)]
        for mode in ("faithful", "fixed"):
            t = time.time()
            columns[f"{tag}, {mode}"] = scorers.DatasetFeatures(mode=mode, seed=args.seed).score(rows)
            timings[f"13 features ({tag}, {mode})"] = time.time() - t
    names = list(columns)
    print(f"{args.train} training + {args.test} held-out texts, mean {np.mean([len(k) for k in tokens]):.1f} tokens\n")
    print("| feature | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for key in next(iter(columns.values())):
        print(f"| {key} | " + " | ".join(f"{columns[n][key]:.4g}" for n in names) + " |")
    print("\n| step | seconds |\n|---|---|")
    for step, seconds in timings.items():
        print(f"| {step} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
