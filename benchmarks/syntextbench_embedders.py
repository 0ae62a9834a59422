"""Embedders of known, controlled quality for the SynTextBench validation scripts (docs/validation/syntextbench.md).

- `LexicalOracle` (E0): shares of positive/negative/neutral lexicon words, randomly projected, plus noise.
- `DegradedMiniLM` (E1-E3): the embedded MiniLM with a fraction of word-embedding rows permuted, Gaussian
  weight noise, shuffled word order, or random initialisation.
- `BagOfRandomWords`: mean of fixed random word vectors; `RandomVectors` (E4): text-independent noise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from robust.core.interfaces import ModelAdapter
from robust.plugins.models.embedded import MiniLM


def text_seed(text: str, salt: str = "") -> int:
    return int.from_bytes(hashlib.sha256(f"{salt}\x1f{text}".encode()).digest()[:8], "little")


class RandomVectors(ModelAdapter):
    """E4 null control: a fixed Gaussian vector per text, independent of its content."""

    name = "random-vectors"
    capabilities = frozenset({"embed"})
    settings = {"batch_size": 256, "dim": 384}

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        return [np.random.default_rng(text_seed(t, "rv")).normal(size=self.config["dim"]) for t in texts]


class BagOfRandomWords(ModelAdapter):
    """Mean of fixed random word vectors (a lexical but untrained embedder)."""

    name = "bag-of-random-words"
    capabilities = frozenset({"embed"})
    settings = {"batch_size": 256, "dim": 384}

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        dim = self.config["dim"]
        vec = lambda w: np.random.default_rng(text_seed(w, "word")).normal(size=dim)  # noqa: E731
        return [np.mean([vec(w) for w in t.split()], axis=0) for t in texts]


class LexicalOracle(ModelAdapter):
    """E0 ceiling: [#pos, #neg, #neu, length]/length mapped to 64-d by a fixed projection, plus small noise."""

    name = "lexical-oracle"
    capabilities = frozenset({"embed"})
    settings = {"batch_size": 256, "dim": 64, "noise": 0.05}

    def __init__(self, word_lists: Any, **config: Any) -> None:
        super().__init__("", **config)
        self.pos, self.neg, self.neu = set(word_lists.pos), set(word_lists.neg), set(word_lists.neu)
        self.projection = np.random.default_rng(0).normal(size=(self.config["dim"], 4))

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        out = []
        for t in texts:
            words = t.split()
            feats = np.array([sum(w in s for w in words) for s in (self.pos, self.neg, self.neu)] + [len(words)])
            noise = np.random.default_rng(text_seed(t, "oracle")).normal(size=self.config["dim"])
            out.append(self.projection @ (feats / len(words)) + self.config["noise"] * noise)
        return out


class DegradedMiniLM(MiniLM):
    """The embedded MiniLM, degraded in a controlled way (all options off = the plain model)."""

    name = "minilm-degraded"
    settings = {**MiniLM.settings, "permute_frac": 0.0, "weight_noise": 0.0, "random_init": False,
                "shuffle_words": False, "variant_seed": 0}

    @property
    def identity(self) -> str:
        opts = {k: self.config[k] for k in ("permute_frac", "weight_noise", "random_init", "shuffle_words")
                if self.config[k]}
        return "minilm" + "".join(f"[{k}={v}]" for k, v in opts.items())

    @cached_property
    def model(self) -> Any:
        import torch
        from transformers import AutoConfig, AutoModel

        torch.manual_seed(int(self.config["variant_seed"]))
        if self.config["random_init"]:
            return AutoModel.from_config(AutoConfig.from_pretrained(self.source)).eval()
        model = MiniLM.model.func(self)
        gen = torch.Generator().manual_seed(int(self.config["variant_seed"]))
        with torch.no_grad():
            if self.config["permute_frac"] > 0:  # permute a fraction of word-embedding rows
                emb = model.get_input_embeddings().weight
                rows = torch.randperm(emb.shape[0], generator=gen)[: int(self.config["permute_frac"] * emb.shape[0])]
                emb[rows] = emb[rows[torch.randperm(len(rows), generator=gen)]].clone()
            if self.config["weight_noise"] > 0:  # relative Gaussian noise on every weight
                for p in model.parameters():
                    p.add_(torch.randn(p.shape, generator=gen) * p.std() * self.config["weight_noise"])
        return model

    def _embed(self, texts: Sequence[str], pooling: str | None) -> list[np.ndarray]:
        if self.config["shuffle_words"]:
            shuffled = []
            for t in texts:
                words = t.split()
                np.random.default_rng(text_seed(t, "shuffle")).shuffle(words)
                shuffled.append(" ".join(words))
            texts = shuffled
        return super()._embed(texts, pooling)


def dose_series(word_lists: Any) -> dict[str, ModelAdapter]:
    """The validation embedders in their expected order, best first (docs/validation/syntextbench.md, §4.1)."""
    return {
        "E0 lexical oracle": LexicalOracle(word_lists),
        "E1 MiniLM": DegradedMiniLM(),
        "E1 MiniLM, shuffled words": DegradedMiniLM(shuffle_words=True),
        "E2 MiniLM, 25% word rows permuted": DegradedMiniLM(permute_frac=0.25),
        "E2 MiniLM, 50% word rows permuted": DegradedMiniLM(permute_frac=0.5),
        "E2 MiniLM, 75% word rows permuted": DegradedMiniLM(permute_frac=0.75),
        "bag of random word vectors": BagOfRandomWords(),
        "E3 MiniLM, random init": DegradedMiniLM(random_init=True),
        "E4 random vectors": RandomVectors(),
    }


def run_syntextbench(model: ModelAdapter, seed: int = 0, registry: Any = None, **settings: Any) -> Any:
    """One SynTextBench run (prepare, all items, reduce) of `model` in this process; returns the Result."""
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench

    registry = registry or get_registry()
    bench = SynTextBench(**settings)
    ctx = RunContext(f"validation-{seed}", seed, model, registry)
    bench.prepare(ctx)
    records = {item.id: record for item in bench.items(ctx) for record in bench.run_batch([item], ctx)}
    return bench.reduce(records, ctx)
