"""Tiny Transforms and a keyword victim for testing the RobTest protocol without the real attack plugins."""

from __future__ import annotations

from typing import Any

import numpy as np

from robust.core.interfaces import Example, Transform
from robust.core.registry import Entry, Registry
from robust.toolkit.transforms import budget, char_degree, join, word_modification_rate, words


class ToyChar(Transform):
    """-M style: replace characters by 'x' (random positions); `edit` x-es one char of a word."""

    name = "toy-M"
    dimension = "Toy"
    unit = "char"

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        chars = list(example.text)
        spots = [i for i, c in enumerate(chars) if c not in " x"]
        for p in rng.permutation(spots)[: budget(len(chars), degree)]:
            chars[int(p)] = "x"
        return [example.with_text("".join(chars))]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        tokens = words(text)
        spots = [i for i, c in enumerate(tokens[index]) if c != "x"] if index < len(tokens) else []
        if not spots:
            return None
        i = int(rng.choice(spots))
        tokens[index] = tokens[index][:i] + "x" + tokens[index][i + 1 :]
        return join(tokens)

    def measure(self, original: str, perturbed: str) -> float:
        return char_degree(original, perturbed)


class ToyWord(Transform):
    """-G style: replace whole words by 'zzz'."""

    name = "toy-G"
    dimension = "Toy"
    unit = "word"

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        tokens = words(example.text)
        for p in rng.permutation(len(tokens))[: budget(len(tokens), degree)]:
            tokens[int(p)] = "zzz"
        return [example.with_text(join(tokens))]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        tokens = words(text)
        if index >= len(tokens) or tokens[index] == "zzz":
            return None
        tokens[index] = "zzz"
        return join(tokens)

    def measure(self, original: str, perturbed: str) -> float:
        return word_modification_rate(original, perturbed)


class OneWord(ToyWord):
    """A word transform that can change only the first word, whatever the degree (it runs out of edits)."""

    name = "one-word"
    dimension = "Capped"

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        tokens = words(example.text)
        return [example.with_text(join(["zzz", *tokens[1:]]) if degree > 0 else example.text)]


class Shout(ToyWord):
    """A third-party Transform without `dimension`: its own dimension."""

    name = "shout"
    dimension = None  # type: ignore[assignment]


def keyword_probs(texts: list[str]) -> np.ndarray:
    """P(pos) = 0.9 with the word 'good', 0.1 with 'bad', else 0.4 (so 'neg' wins): labels ['neg', 'pos']."""
    out = []
    for text in texts:
        ws = text.split()
        p = 0.9 if "good" in ws else 0.1 if "bad" in ws else 0.4
        out.append([1 - p, p])
    return np.array(out)


class CountingFn:
    """A classify function that counts its calls and texts."""

    def __init__(self) -> None:
        self.calls, self.texts = 0, 0

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        return keyword_probs(texts)


def registry_with(*transforms: Any) -> Registry:
    """A registry holding only the toy transforms, RobTest, its attackers and scorers, and the `file` dataset that
    reads `--data PATH`."""
    from robust.plugins.benchmarks.robtest import AverageScore, RobTest, RuleSampling, SaliencyGreedy, WorstScore
    from robust.plugins.datasets.file import FileDataset

    registry = Registry()
    for target in transforms:
        registry.add(Entry("transform", target.name, target, "tests", "local", "0"))
    for kind, target in (("attacker", RuleSampling), ("attacker", SaliencyGreedy), ("benchmark", RobTest),
                         ("scorer", AverageScore), ("scorer", WorstScore), ("dataset", FileDataset)):
        registry.add(Entry(kind, target.name, target, "tests", "local", "0"))
    return registry


FILLER = "the plot of this long film was {} for me in the end"


def write_reviews(path: Any, n_pos: int = 12, n_neg: int = 6) -> Any:
    """JSONL reviews: positives carry exactly one 'good', negatives one 'bad' (11 words each)."""
    import json

    rows = [{"text": FILLER.format("good") + f" number {i}", "label": "pos"} for i in range(n_pos)]
    rows += [{"text": FILLER.format("bad") + f" number {i}", "label": "neg"} for i in range(n_neg)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
