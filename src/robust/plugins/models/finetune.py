"""`finetune:<encoder>`: the embedded encoder fine-tuned end to end with a classification head (offline victim).

A stronger offline victim than `probe:` (which freezes the encoder): the whole encoder plus a linear head on
its mean-pooled output is trained on a labelled dataset (default: the MR training split) on the CPU, with a
fixed seed. A held-out share of the training data (`holdout`) is never trained on; its accuracy is reported
by `info()`. The weights are cached on disk by (encoder identity, data content hash, hyper-parameters), so
training happens once per machine (a few minutes for MR on 2 cores).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from robust import Example, ModelAdapter, RobustError, Setting, cache_dir, content_hash, load_examples, same_data
from robust.toolkit.lazy import np
from robust.toolkit.paths import built_in_place

#: hyper-parameters that change the trained weights (part of the cache key)
TRAINING_KEYS = ("epochs", "lr", "train_batch_size", "max_length", "holdout", "seed", "weight_decay", "warmup")
CACHE_VERSION = "v1"


class FineTuned(ModelAdapter):
    name = "finetune"
    description = ("An embedded encoder fine-tuned with a classification head on a labelled dataset "
                   "(offline victim, CPU, cached); finetune:minilm")
    capabilities = frozenset({"classify", "embed"})
    settings = {
        "batch_size": Setting(64, min=1),
        "train": Setting("mr-train", help="a labelled file or registered dataset (text and label columns)"),
        "text_column": "text",
        "label_column": "label",
        "epochs": Setting(3, min=1),
        "lr": Setting(5e-5, min=1e-8, max=1.0),
        "train_batch_size": Setting(32, min=1),
        "max_length": Setting(64, min=8, help="training truncation in word pieces (MR sentences: ~25)"),
        "holdout": Setting(0.1, min=0.0, max=0.9, help="share of the data kept out for the held-out accuracy"),
        "seed": Setting(0, min=0),
        "weight_decay": Setting(0.01, min=0.0),
        "warmup": Setting(0.1, min=0.0, max=1.0, help="share of the steps with a linearly rising learning rate"),
    }

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(arg or "minilm", **config)

    # what is trained --------------------------------------------------------------------------------
    @cached_property
    def encoder(self) -> ModelAdapter:
        """The base encoder adapter (its weights are copied, never modified), loaded through the run context."""
        return self.ctx.load_model(self.arg, {"embed", "checkpoint"}, user="model 'finetune' (a transformers encoder "
                                   "such as minilm or hf:<dir>)")

    @cached_property
    def examples(self) -> list[Example]:
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        examples = load_examples(self.config["train"], self.ctx, **cols)
        labels = {ex.label for ex in examples}
        if len(labels) < 2:
            raise RobustError(f"finetune training data {self.config['train']!r} has fewer than two labels")
        return examples

    @cached_property
    def key(self) -> str:
        """Cache key: encoder identity, training-data content hash and every training hyper-parameter."""
        params = {k: self.config[k] for k in TRAINING_KEYS}
        raw = json.dumps([CACHE_VERSION, self.encoder.identity, content_hash(self.examples), params], sort_keys=True)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]

    @property
    def directory(self) -> Path:
        return cache_dir() / "finetuned" / self.key

    @property
    def identity(self) -> str:
        return f"finetune[{self.encoder.identity}|{self.key}]"

    @cached_property
    def meta(self) -> dict[str, Any]:
        """Training summary (labels, sizes, held-out accuracy); trains first if nothing is cached."""
        path = self.directory / "meta.json"
        if not path.is_file():
            self._train()
        meta = json.loads(path.read_text())
        if meta.get("encoder", self.encoder.identity) != self.encoder.identity:
            raise RobustError(f"fine-tuned weights {self.directory} start from {meta['encoder']}, not "
                              f"{self.encoder.identity}; delete them to retrain")
        return meta

    def preload(self) -> None:
        self.net  # noqa: B018 - trains (first time) or loads the weights

    @property
    def labels(self) -> list[Any]:
        """The training data's classes, in the order training gives them (known without training)."""
        return sorted({ex.label for ex in self.examples}, key=str)

    def info(self) -> dict[str, Any]:
        meta = self.meta
        return {**super().info(), "encoder": self.encoder.identity, "labels": meta["labels"],
                "train": self.config["train"], "train_size": meta["train_size"],
                "holdout_size": meta["holdout_size"], "holdout_accuracy": meta["holdout_accuracy"],
                "train_seconds": meta["train_seconds"]}

    def trained_on(self, data: str) -> frozenset[str] | None:
        """The ids of its training share when `data` names its training data (benchmarks evaluate the rest)."""
        if not same_data(data, self.config["train"]):
            return None
        return frozenset(ex.id for ex in self.split()[0])

    # training ---------------------------------------------------------------------------------------
    def split(self) -> tuple[list[Example], list[Example]]:
        """(train, held-out): a seeded permutation, the first `holdout` share held out."""
        order = np.random.default_rng(int(self.config["seed"])).permutation(len(self.examples))
        n_out = int(round(len(order) * float(self.config["holdout"])))
        held = [self.examples[i] for i in order[:n_out]]
        train = [self.examples[i] for i in order[n_out:]]
        return train, held

    def _train(self) -> None:
        import time

        import torch

        labels = self.labels
        index = {lab: i for i, lab in enumerate(labels)}
        train, held = self.split()
        self.ctx.say(f"fine-tuning the victim: {self.encoder.identity} on {len(train):,} examples of "
                     f"{self.config['train']} for {self.config['epochs']} epochs (once per machine, cached in "
                     f"{self.directory})")
        seed = int(self.config["seed"])
        torch.manual_seed(seed)
        net = _Classifier(self.encoder.source, len(labels))
        tokenizer = self._tokenizer
        batch = int(self.config["train_batch_size"])
        steps = int(self.config["epochs"]) * -(-len(train) // batch)
        optim = torch.optim.AdamW(net.parameters(), lr=float(self.config["lr"]),
                                  weight_decay=float(self.config["weight_decay"]))
        warm = max(1, int(steps * float(self.config["warmup"])))
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optim, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
        rng = np.random.default_rng(seed)
        start = time.perf_counter()
        net.train()
        for _ in range(int(self.config["epochs"])):
            order = rng.permutation(len(train))
            for b in range(0, len(order), batch):
                rows = [train[i] for i in order[b:b + batch]]
                enc = tokenizer([ex.text for ex in rows], truncation=True, padding=True,
                                max_length=int(self.config["max_length"]), return_tensors="pt")
                target = torch.tensor([index[ex.label] for ex in rows])
                loss = torch.nn.functional.cross_entropy(net(enc["input_ids"], enc["attention_mask"]), target)
                optim.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                optim.step()
                schedule.step()
        seconds = time.perf_counter() - start
        net.eval()
        self.__dict__["net"] = net
        accuracy = self._accuracy(held, index) if held else None
        meta = {"labels": labels, "train_size": len(train), "holdout_size": len(held),
                "holdout_accuracy": accuracy, "train_seconds": round(seconds, 1),
                "encoder": self.encoder.identity, "params": {k: self.config[k] for k in TRAINING_KEYS},
                "train": self.config["train"], "data_hash": content_hash(self.examples)}
        with built_in_place(self.directory) as building:
            torch.save(net.state_dict(), building / "weights.pt")
            (building / "meta.json").write_text(json.dumps(meta, indent=1))

    def _accuracy(self, examples: Sequence[Example], index: dict[Any, int]) -> float:
        probs = self._forward_probs([ex.text for ex in examples])
        return float(np.mean(probs.argmax(1) == np.array([index[ex.label] for ex in examples])))

    # inference --------------------------------------------------------------------------------------
    @cached_property
    def _tokenizer(self) -> Any:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(self.encoder.source)

    @cached_property
    def net(self) -> Any:
        import torch

        meta = self.meta  # trains (and sets self.net) when nothing is cached
        if "net" in self.__dict__:
            return self.__dict__["net"]
        net = _Classifier(self.encoder.source, len(meta["labels"]))
        net.load_state_dict(torch.load(self.directory / "weights.pt", map_location="cpu"))
        return net.eval()

    def _forward_probs(self, texts: Sequence[str], pooled: bool = False) -> np.ndarray:
        import torch

        net = self.net  # trains first if nothing is cached: never inside inference mode
        enc = self._tokenizer(list(texts), truncation=True, padding=True, max_length=256, return_tensors="pt")
        with torch.inference_mode():
            out = net(enc["input_ids"], enc["attention_mask"], pooled=pooled)
            return (out if pooled else out.softmax(-1)).float().numpy()

    def _classify(self, texts: Sequence[str]) -> list[np.ndarray]:
        return list(self._forward_probs(texts))

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        return list(self._forward_probs(texts, pooled=True))


def _Classifier(source: str, n_labels: int) -> Any:  # noqa: N802 - a class built lazily (torch is optional here)
    """Encoder + mean pooling + linear head, as a torch Module."""
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()

    class Classifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(source)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, n_labels)

        def forward(self, input_ids: Any, attention_mask: Any, pooled: bool = False) -> Any:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            mask = attention_mask[..., None].to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return mean if pooled else self.head(mean)

    return Classifier()
