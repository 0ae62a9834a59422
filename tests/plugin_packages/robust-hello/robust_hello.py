"""A complete third-party plugin for robust: a model, a transform and a benchmark in one module."""

from __future__ import annotations

import time

import numpy as np

import robust
from robust import Benchmark, Example, ModelAdapter, Result, Table, Transform, WorkItem

POSITIVE = {"good", "great", "fun", "best", "love", "wonderful", "excellent"}
NEGATIVE = {"bad", "boring", "worst", "dull", "hate", "awful", "mess"}


class KeywordModel(ModelAdapter):
    """Classifies by counting positive and negative words: no torch, instant."""

    name = "keywords"
    description = "Toy sentiment classifier counting positive/negative words"
    capabilities = frozenset({"classify"})
    labels = ["negative", "positive"]

    def _classify(self, texts):
        out = []
        for text in texts:
            words = text.lower().split()
            score = sum(w in POSITIVE for w in words) - sum(w in NEGATIVE for w in words)
            p = 1 / (1 + np.exp(-score))
            out.append(np.array([1 - p, p]))
        return out


class WordDropout(Transform):
    """Deletes a share `degree` of the words at random positions."""

    name = "word-dropout"
    description = "Delete ceil(degree * words) random words"

    def apply(self, example, degree, rng):
        words = example.text.split()
        k = int(np.ceil(degree * len(words)))
        drop = set(rng.choice(len(words), size=min(k, len(words) - 1), replace=False).tolist())
        return [example.with_text(" ".join(w for i, w in enumerate(words) if i not in drop))]

    def measure(self, original, perturbed):
        return 1 - len(perturbed.split()) / len(original.split())


class DropoutAccuracy(Benchmark):
    """Accuracy of a classifier when random words are dropped."""

    name = "hello-dropout"
    description = "Accuracy under random word dropout (third-party example benchmark)"
    needs = frozenset({"classify"})
    settings = {"degree": 0.3, "n": 40, "sleep": 0.0}
    chunk_size = 4

    def items(self, ctx):
        rng = np.random.default_rng(0)
        items = []
        for i in range(self.config["n"]):
            pos = rng.choice(sorted(POSITIVE), 2).tolist()
            neg = rng.choice(sorted(NEGATIVE), 1).tolist()
            label = "positive" if i % 2 == 0 else "negative"
            words = pos + neg if label == "positive" else neg + neg + pos[:1]
            text = "the film was " + " and ".join(words) + " in every scene"
            items.append(WorkItem(f"ex-{i:03d}", Example(f"ex-{i:03d}", text, label)))
        return items

    def run_batch(self, items, ctx):
        time.sleep(self.config["sleep"])
        transform = WordDropout()
        texts = [transform.apply(it.payload, self.config["degree"], ctx.rng(it.id))[0].text for it in items]
        probs = ctx.model.classify(texts)
        labels = ctx.model.labels
        return [{"text": t, "pred": labels[int(p.argmax())], "correct": labels[int(p.argmax())] == it.payload.label}
                for it, t, p in zip(items, texts, probs)]

    def reduce(self, records, ctx):
        acc = sum(r["correct"] for r in records.values()) / max(len(records), 1)
        return Result({"accuracy": acc}, [Table("records", ["n"], [[len(records)]])])


@robust.hookimpl
def register_models(register):
    register(KeywordModel)


@robust.hookimpl
def register_transforms(register):
    register(WordDropout)


@robust.hookimpl
def register_benchmarks(register):
    register(DropoutAccuracy)
