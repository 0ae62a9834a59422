"""Shared fixtures for the SynTextBench tests: a small context, lexical embedders, the shared SWN file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.context import RunContext
from robust.core.plugins import get_registry

SHARED_SWN = Path(__file__).resolve().parents[3] / "shared" / "data" / "sentiwordnet" / "SentiWordNet_3.0.0.txt"


def text_noise(text: str, dim: int) -> np.ndarray:
    """Deterministic per-text Gaussian noise (so a function embedder is a pure function of the text)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim)


def lexical_embedder(word_lists, noise: float = 1.0, dim: int = 16) -> FunctionModel:
    """Embeds a sentence as its positive/negative word shares (from the lists) plus per-text noise."""
    pos, neg = set(word_lists.pos), set(word_lists.neg)

    def fn(texts: list[str]) -> np.ndarray:
        out = []
        for t in texts:
            words = t.split()
            feat = np.zeros(dim)
            feat[0] = 4 * (sum(w in pos for w in words) - sum(w in neg for w in words)) / len(words)
            out.append(feat + noise * text_noise(t, dim))
        return np.array(out)

    return FunctionModel(fn, "embed", name="lexical")


def random_embedder(dim: int = 16) -> FunctionModel:
    return FunctionModel(lambda texts: np.array([text_noise(t, dim) for t in texts]), "embed", name="random")


@pytest.fixture(scope="session")
def registry():
    return get_registry()


@pytest.fixture(scope="session")
def afinn_lists(registry):
    return registry.get("dataset", "afinn").create().word_lists()


def make_ctx(registry, model, seed: int = 0, limit: int | None = None) -> RunContext:
    return RunContext("test", seed, model, registry, limit=limit)
