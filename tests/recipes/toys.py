"""Tiny victims, a tiny sentence encoder and the checks the recipe tests share (each check has a negative
control in the tests: a deliberately wrong attacker or result must fail it)."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import numpy as np

from robust import FunctionModel
from robust.core.context import RunContext
from robust.core.interfaces import AttackResult, Example
from robust.plugins.recipes.charset import HOMOGLYPHS
from robust.plugins.recipes.lexicon import stopwords, wordnet_substitutes
from robust.plugins.recipes.tokens import wordpunct

POSITIVE = {"good": 2.0, "great": 2.0, "fun": 1.5, "nice": 1.0, "clever": 1.0}
NEGATIVE = {"bad": -2.0, "dull": -2.0, "awful": -1.5, "boring": -1.0}
LABELS = ["neg", "pos"]


def lexicon_probs(texts: Sequence[str]) -> np.ndarray:
    """P(pos) = sigmoid(sum of word weights over WordPunct tokens, case-insensitive): a homoglyph or a synonym
    outside the lexicon removes a word's weight. Labels ['neg', 'pos']."""
    weights = {**POSITIVE, **NEGATIVE}
    scores = np.array([sum(weights.get(w.lower(), 0.0) for w in wordpunct(t).words) - 0.25 for t in texts])
    p = 1.0 / (1.0 + np.exp(-scores))
    return np.stack([1.0 - p, p], axis=1)


def victim(fn: Callable[[list[str]], np.ndarray] = lexicon_probs) -> FunctionModel:
    return FunctionModel(fn, "classify", labels=LABELS, batch_size=10_000)


class Spy:
    """A classify function that records every text it is asked, so queries can be counted independently."""

    def __init__(self, fn: Callable[[list[str]], np.ndarray] = lexicon_probs) -> None:
        self.fn, self.seen = fn, set()

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.seen.update(texts)
        return self.fn(texts)


def hashed_embed(texts: Sequence[str]) -> np.ndarray:
    """A tiny deterministic sentence encoder: words hashed into 64 buckets (bag of words)."""
    out = np.zeros((len(texts), 64))
    for row, text in enumerate(texts):
        for word in text.lower().split():
            out[row, zlib.crc32(word.encode()) % 64] += 1.0
    return out


def context(encoder: Callable[[Sequence[str]], np.ndarray] = hashed_embed, seed: int = 0) -> RunContext:
    """A run context whose helper model `toy-encoder` is `encoder` (TextFooler's similarity)."""
    ctx = RunContext.default()
    ctx = RunContext("t", seed, None, ctx.registry)
    ctx._models["toy-encoder"] = FunctionModel(encoder, "embed")
    return ctx


REVIEWS = [
    Example("p1", "A good film , really clever and fun to watch .", "pos"),
    Example("p2", "It was a great movie with a nice cast and a good plot overall .", "pos"),
    Example("p3", "Fun , clever , good : the best of the year by far for me and my friends .", "pos"),
    Example("n1", "A bad , dull film that nobody should watch again .", "neg"),
    Example("n2", "The plot was boring and the acting was awful .", "neg"),
    Example("w1", "A good film .", "neg"),  # misclassified: the victim says pos
    Example("e1", "", "neg"),
    Example("e2", ". . . !", "neg"),
]


# --- checks ------------------------------------------------------------------------------------------------------
def spied_queries(attacker, examples: Sequence[Example], budget: int | None, rngs=None) -> list[tuple[int, int]]:
    """(texts the victim really saw, queries the result reports) per example, each attacked alone with a spy."""
    out = []
    for k, ex in enumerate(examples):
        spy = Spy()
        rng = [rngs[k]] if rngs is not None else [np.random.default_rng(k)]
        result = attacker.attack([ex], victim(spy), budget=budget, rngs=rng)[0]
        out.append((len(spy.seen), result.queries))
    return out


def budget_violations(attacker, examples: Sequence[Example], budget: int) -> list[str]:
    """Examples where the victim saw more than `budget` texts, or a different number than reported."""
    return [f"{ex.id}: saw {seen}, reported {reported}, budget {budget}"
            for ex, (seen, reported) in zip(examples, spied_queries(attacker, examples, budget))
            if seen > budget or seen != reported]


def flip_violations(results: Sequence[AttackResult], examples: Sequence[Example], targets: Sequence[int]) -> list[str]:
    """Results whose success does not match the victim's prediction on the perturbed text (success = the
    prediction differs from the target class); a skipped example must be one the model already gets wrong."""
    bad = []
    for ex, res, target in zip(examples, results, targets):
        if res.status == "skipped":
            if res.success or int(lexicon_probs([ex.text])[0].argmax()) == target:
                bad.append(f"{ex.id}: skipped although the model predicts the target")
            continue
        flipped = int(lexicon_probs([res.perturbed])[0].argmax()) != target
        if res.success != flipped or (res.success != (res.status == "succeeded")):
            bad.append(f"{ex.id}: success {res.success}, status {res.status}, prediction flipped {flipped}")
    return bad


def homoglyph_violations(original: str, perturbed: str, power: int = 5) -> list[str]:
    """DeepWordBug (OpenAttack) constraints: same WordPunct tokens but at most `power` changed, each changed
    token in exactly one character, replaced by its homoglyph from the table."""
    a, b = wordpunct(original).words, perturbed.split(" ") if perturbed else []
    if len(a) != len(b):
        return [f"token count {len(a)} -> {len(b)}"]
    changed = [(x, y) for x, y in zip(a, b) if x != y]
    bad = [f"{len(changed)} tokens changed > {power}"] if len(changed) > power else []
    for x, y in changed:
        diffs = [(c, d) for c, d in zip(x, y) if c != d]
        if len(x) != len(y) or len(diffs) != 1 or HOMOGLYPHS.get(diffs[0][0]) != diffs[0][1]:
            bad.append(f"{x!r} -> {y!r} is not one homoglyph")
    return bad


def synonym_violations(ctx: RunContext, result: AttackResult) -> list[str]:
    """PWWS/TextFooler constraints: every edit replaces a non-stop word by one of its WordNet substitutes."""
    stop = stopwords(ctx)
    bad = []
    for e in result.edits:
        before, after = e["before"], e["after"]
        if before.lower() in stop:
            bad.append(f"stop word {before!r} replaced")
        if after.lower() not in wordnet_substitutes(before.lower()):
            bad.append(f"{after!r} is not a WordNet substitute of {before!r}")
    return bad
