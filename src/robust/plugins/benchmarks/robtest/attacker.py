"""RobTest's two accesses as reusable Attackers: `rule-sampling` (random draws of a transform) and
`saliency-greedy` (greedy by word saliency, Chen et al. 2023, §2.2). Both are batched over examples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from robust import AttackResult, Example, ModelAdapter, RobustError, SearchAttacker, Setting, Transform, label_index
from robust.plugins.benchmarks.robtest.rule import rule_variants
from robust.plugins.benchmarks.robtest.search import End, GreedyConfig, search_degrees, search_for, search_helpers
from robust.toolkit.search import drive
from robust.toolkit.text import word_edits

if TYPE_CHECKING:
    import numpy as np


def _per_example(value: Any, n: int, what: str) -> list[Any]:
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != n:
            raise RobustError(f"{what}: {len(value)} values for {n} examples")
        return list(value)
    return [value] * n


def _results(examples: Sequence[Example], variants: Sequence[list[str]], queries: Sequence[int],
             model: ModelAdapter, capped: Sequence[bool]) -> list[AttackResult]:
    """Each example's outcome from its variants: success if any variant is misclassified (gold label)."""
    every = list(dict.fromkeys(t for texts in variants for t in texts))
    predicted = dict(zip(every, model.classify(every).argmax(1).tolist())) if every else {}
    out = []
    for ex, texts, used, cap in zip(examples, variants, queries, capped):
        gold = label_index(model, ex.label)
        wrong = [t for t in texts if predicted[t] != gold]
        perturbed = wrong[0] if wrong else (texts[-1] if texts else ex.text)
        status = "succeeded" if wrong else ("budget" if cap else "failed")
        out.append(AttackResult(ex.text, perturbed, bool(wrong), used, status, word_edits(ex.text, perturbed),
                                list(texts)))
    return out


class RuleSampling(SearchAttacker):
    name = "rule-sampling"
    access = "rule"
    description = "RobTest's rule-based access: `draws` random applications of the transform at the degree"
    settings = {
        "draws": Setting(20, min=1, help="random draws per example (RobTest's aug_num)"),
        "dedupe": Setting(True, help="drop repeated variants"),
        "drop_original": Setting(True, help="drop unperturbed copies when anything else was produced"),
    }

    def attack(self, examples: Sequence[Example], model: ModelAdapter, transform: Transform | None = None,
               degree: float | Sequence[float] | None = None, budget: int | None = None,
               rngs: Sequence[np.random.Generator] | None = None) -> list[AttackResult]:
        if transform is None:
            raise RobustError("rule-sampling needs a transform")
        draws = int(self.config["draws"])
        degrees = _per_example(0.0 if degree is None else degree, len(examples), "degree")
        rngs = rngs or [self.ctx.rng("rule-sampling", ex.id) for ex in examples]
        transform.precompute([ex.text for ex in examples], degrees)
        variants = [rule_variants(transform, ex, d, draws, rng, dedupe=bool(self.config["dedupe"]),
                                  drop_original=bool(self.config["drop_original"]))
                    for ex, d, rng in zip(examples, degrees, rngs)]
        capped = [bool(budget) and len(v) > budget for v in variants]
        variants = [v[:budget] if budget else v for v in variants]  # each variant is one query
        return _results(examples, variants, [len(v) for v in variants], model, capped)


class SaliencyGreedy(SearchAttacker):
    name = "saliency-greedy"
    access = "score"
    description = ("Greedy by word saliency (mask each word, score the predicted class), 15% of words per round, "
                   "edits from any Transform; RobTest's score-based access")
    settings = {
        "ratio": Setting(0.15, min=0.01, max=1.0, help="share of words edited per saliency round"),
        "mask_token": Setting("[MASK]", help="literal mask text"),
        "faithful": Setting(False, help="the code's quirks: char-Levenshtein stop, text kept across draws"),
        "draws": Setting(100, min=1, help="draws in faithful mode (aug_num)"),
        "stop_on_flip": Setting(False, help="stop when the prediction changes (not in the code)"),
        "candidates": Setting(15, min=1, help="sentence-level: candidates per step"),
        "max_steps": Setting(10, min=1, help="sentence-level: max steps"),
    }

    @property
    def search_config(self) -> GreedyConfig:
        c = self.config
        return GreedyConfig(ratio=float(c["ratio"]), mask_token=c["mask_token"], faithful=bool(c["faithful"]),
                            draws=int(c["draws"]), stop_on_flip=bool(c["stop_on_flip"]),
                            candidates=int(c["candidates"]), max_steps=int(c["max_steps"]))

    def attack(self, examples: Sequence[Example], model: ModelAdapter, transform: Transform | None = None,
               degree: float | Sequence[float] | None = None, budget: int | None = None,
               rngs: Sequence[np.random.Generator] | None = None) -> list[AttackResult]:
        if transform is None:
            raise RobustError("saliency-greedy needs a transform whose edits it searches over")
        degrees = _per_example(0.1 if degree is None else degree, len(examples), "degree")
        rngs = rngs or [self.ctx.rng("saliency-greedy", ex.id) for ex in examples]
        transform.precompute([ex.text for ex in examples], degrees)
        config = self.search_config
        # clean: saliency of the gold class; faithful: of the prediction, as the authors' code (Chen et al. 2023, §2.2)
        golds = [None if config.faithful else label_index(model, ex.label) for ex in examples]
        if budget is None and (transform.unit == "sentence" or not config.faithful):  # faithful word draws chain
            return self._shared(examples, model, transform, degrees, rngs, golds)
        searches = [search_for(transform, ex.text, d, rng, config, gold)
                    for ex, d, rng, gold in zip(examples, degrees, rngs, golds)]
        outcomes = drive(searches, model.classify, budget, helpers=search_helpers(transform))
        used = [len(o.seen | set(o.texts)) for o in outcomes]  # distinct texts, the final check included
        return _results(examples, [o.texts for o in outcomes], used, model, [o.capped for o in outcomes])

    def _shared(self, examples: Sequence[Example], model: ModelAdapter, transform: Transform, degrees: list[float],
                rngs: Sequence[np.random.Generator], golds: list[int | None]) -> list[AttackResult]:
        """The searches of one text with one generator stream (RobTest gives an example's degrees one stream) run
        as one path to the largest degree (`search_degrees`): the same variants and query counts as separate
        searches, each query asked once."""
        groups: dict[tuple, list[int]] = {}
        for i, (ex, rng, gold) in enumerate(zip(examples, rngs, golds)):
            groups.setdefault((ex.text, gold, repr(rng.bit_generator.state)), []).append(i)
        paths = [sorted({degrees[i] for i in members}) for members in groups.values()]
        searches = [search_degrees(transform, examples[m[0]].text, path, rngs[m[0]], self.search_config, golds[m[0]])
                    for m, path in zip(groups.values(), paths)]
        ends: dict[int, End] = {}
        outcomes = drive(searches, model.classify, helpers=search_helpers(transform))
        for members, path, outcome in zip(groups.values(), paths, outcomes):
            for i in members:
                ends[i] = outcome.value[path.index(degrees[i])]
        return _results(examples, [ends[i].texts for i in range(len(examples))],
                        [ends[i].queries for i in range(len(examples))], model, [False] * len(examples))
