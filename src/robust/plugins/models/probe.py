"""`probe:<embedder>`: a classifier made of an embedder plus a logistic-regression head.

The head is trained on a labelled dataset (default: the MR training split) and cached on disk by
(embedder identity, data content hash, C), so the victim costs one training per machine.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from robust import ModelAdapter, RobustError, Setting, cache_dir, content_hash, load_examples, same_data
from robust.plugins.models.hf import POOLINGS
from robust.toolkit.lazy import np
from robust.toolkit.paths import write_whole


class Probe(ModelAdapter):
    name = "probe"
    description = "Embedder + logistic-regression head trained on a labelled dataset (offline victim); probe:minilm"
    capabilities = frozenset({"classify", "embed"})
    settings = {"batch_size": Setting(64, min=1), "train": Setting("mr-train", help="a labelled file or dataset"),
                "text_column": "text", "label_column": "label",
                "C": Setting(0.1, min=1e-9, help="inverse L2 strength of the logistic regression"),
                "pooling": Setting("", choices=("", *POOLINGS), help="the embedder's pooling ('' = its default)")}

    identity_settings = ("pooling",)

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg or "minilm", **config)

    @cached_property
    def embedder(self) -> ModelAdapter:
        return self.ctx.load_model(self.arg, {"embed"}, user="model 'probe'")

    def preload(self) -> None:
        self.embedder.preload()

    @property
    def overlap(self) -> int:  # type: ignore[override]
        return self.embedder.overlap

    @property
    def identity(self) -> str:
        return self.with_settings(f"probe[{self.embedder.identity}|{content_hash(self.train_examples)}|"
                                  f"C={self.config['C']}]")

    def info(self) -> dict[str, Any]:
        head = self.head
        return {**super().info(), "embedder": self.embedder.identity, "labels": head["labels"],
                "train": self.config["train"], "train_size": head["n"], "train_accuracy": head["train_accuracy"]}

    @property
    def labels(self) -> list[Any]:
        """The training data's classes, as the head orders them (known without training it)."""
        return sorted({ex.label for ex in self.train_examples}, key=str)

    def trained_on(self, data: str) -> frozenset[str] | None:
        """Every example of its training data, when `data` names it (the head is fitted on all of it)."""
        return frozenset(ex.id for ex in self.train_examples) if same_data(data, self.config["train"]) else None

    @cached_property
    def train_examples(self) -> list[Any]:
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        return load_examples(self.config["train"], self.ctx, **cols)

    def _features(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(texts, pooling=self.config["pooling"] or None)

    @cached_property
    def head(self) -> dict[str, Any]:
        examples = self.train_examples
        data_hash = content_hash(examples)
        key = f"{self.embedder.identity}|{data_hash}|{self.config['C']}|{self.config['pooling']}"
        path = cache_dir() / "probes" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"
        if path.is_file():
            head = json.loads(path.read_text())
            fitted = head.get("domain", {}).get("embedder", self.embedder.identity)  # older heads record none
            if fitted != self.embedder.identity:
                raise RobustError(f"probe head {path} was trained on {fitted} embeddings, not "
                                  f"{self.embedder.identity}'s; delete it to retrain")
            return head
        self.ctx.say(f"training the probe victim: {self.embedder.identity} + logistic regression on "
                     f"{self.config['train']} ({len(examples):,} examples; once per machine, cached in {path.parent})")
        head = self._train(examples)
        head["data_hash"] = data_hash
        head["domain"] = {"embedder": self.embedder.identity, "pooling": self.config["pooling"] or "default",
                          "train": self.config["train"], "data_hash": data_hash, "C": self.config["C"]}
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, json.dumps(head))
        return head

    def _train(self, examples: list) -> dict[str, Any]:
        from sklearn.linear_model import LogisticRegression

        labels = self.labels
        if len(labels) < 2:
            raise RobustError(f"probe training data {self.config['train']!r} has fewer than two labels")
        index = {lab: i for i, lab in enumerate(labels)}
        x = self._features([ex.text for ex in examples])
        y = np.array([index[ex.label] for ex in examples])
        mean, std = x.mean(0), x.std(0) + 1e-8  # standardised features, the usual linear-probe recipe
        clf = LogisticRegression(C=float(self.config["C"]), max_iter=5000).fit((x - mean) / std, y)
        coef = clf.coef_ if len(labels) > 2 else np.vstack([-clf.coef_, clf.coef_]) / 2
        bias = clf.intercept_ if len(labels) > 2 else np.array([-clf.intercept_[0], clf.intercept_[0]]) / 2
        # fold the standardisation into the linear head: w·(x-m)/s + b = (w/s)·x + (b - w·m/s)
        coef_raw = coef / std
        bias_raw = bias - coef_raw @ mean
        return {"labels": labels, "coef": coef_raw.tolist(), "bias": bias_raw.tolist(), "n": len(examples),
                "train_accuracy": float(clf.score((x - mean) / std, y))}

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        w, b = np.asarray(self.head["coef"]), np.asarray(self.head["bias"])
        z = self._features(texts) @ w.T + b
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return list(p / p.sum(1, keepdims=True))

    def pooling_used(self, pooling: str | None) -> str | None:
        return self.embedder.pooling_used(pooling)

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        return list(self.embedder.embed(texts, pooling=pooling))

