"""`attack`: run Attackers over labelled examples; per example success, queries, perturbed words and texts.

Reduce (TextAttack's summary conventions): attack success rate = succeeded / attacked (skipped = already
misclassified, not attacked), accuracy under attack = not-succeeded and not-skipped / all, mean queries over
attacked examples, mean perturbed-word share (changed whitespace words / words of the original) over
successful attacks.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

from robust.core.context import RunContext
from robust.core.datasets import resolve_examples
from robust.core.errors import RobustError
from robust.core.interfaces import Attacker, Benchmark, WorkItem
from robust.core.results import Result, Table
from robust.plugins.benchmarks.attack.running import run_attacker

SUMMARY_KEYS = ("attack_success_rate", "accuracy_under_attack", "clean_accuracy", "mean_queries",
                "mean_perturbed_word_share", "seconds_per_example")


class AttackBenchmark(Benchmark):
    name = "attack"
    description = ("Attack success rate, queries and perturbed words of one or more Attackers on labelled data "
                   "(default: probe:minilm on the MR test split)")
    needs = frozenset({"classify"})
    accepts_attacks = True
    default_model = "probe:minilm"
    chunk_size = 8
    settings = {"text_column": "text", "label_column": "label",
                "budget": 0,  # max classify queries per example (0 = no cap); attackers that cannot cap ignore it
                "degree": 0.3,  # perturbation degree for attackers driven by a Transform (e.g. saliency-greedy)
                "examples_shown": 10}

    def prepare(self, ctx: RunContext) -> None:
        settings = ctx.extra.get("attack_settings", {})
        self.attackers: dict[str, Attacker] = {name: _create(ctx, name, dict(settings.get(name, {})))
                                               for name in self._attacker_classes(ctx)}
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        examples = resolve_examples(ctx.data or "mr", ctx.registry, seed=ctx.seed, **cols)
        self.examples = examples[: ctx.limit] if ctx.limit else examples
        if self.examples:  # load the model now, so seconds_per_example times attacks only (the text is cached)
            ctx.model.classify([self.examples[0].text])
        for attacker in self.attackers.values():  # e.g. a TextAttack recipe imports textattack and builds itself
            warm_up = getattr(attacker, "warm_up", None)
            if warm_up is not None:
                warm_up(ctx.model)

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        # called before the run is recorded: the place to refuse bad --attack names with one line
        needs = set(self.needs)
        for cls in self._attacker_classes(ctx).values():
            needs |= set(cls.needs)
        return frozenset(needs)

    @staticmethod
    def _attacker_classes(ctx: RunContext) -> dict[str, type[Attacker]]:
        if not ctx.attacks:
            raise RobustError("the attack benchmark needs --attack NAME (see `robust list attacks`, e.g. "
                              "saliency-greedy or textattack:deepwordbug)")
        out = {}
        for name in ctx.attacks:
            target = ctx.registry.get("attack", name).target
            cls = target if isinstance(target, type) else type(target)
            if not issubclass(cls, Attacker):
                raise RobustError(f"{name!r} is a transform, not an attacker; run it through an attacker, e.g. "
                                  f"--attack saliency-greedy --set saliency-greedy.transform={name}")
            check = getattr(cls, "check_available", None)
            if check is not None:
                check()
            out[name] = cls
        return out

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        return [WorkItem(f"{name}/{ex.id}", (name, ex)) for name in self.attackers for ex in self.examples]

    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        records: dict[str, dict[str, Any]] = {}
        for name in dict.fromkeys(it.payload[0] for it in items):  # a chunk rarely spans two attackers
            group = [it for it in items if it.payload[0] == name]
            examples = [it.payload[1] for it in group]
            rngs = [ctx.rng("attack", name, ex.id) for ex in examples]
            start = time.perf_counter()
            results = run_attacker(self.attackers[name], examples, ctx.model, rngs, float(self.config["degree"]),
                                   int(self.config["budget"]) or None)
            seconds = (time.perf_counter() - start) / len(examples)
            for it, ex, res in zip(group, examples, results):
                n_words = len(ex.text.split())
                records[it.id] = {**{k: v for k, v in dataclasses.asdict(res).items() if k != "variants"},
                                  "attack": name, "label": ex.label, "n_words": n_words,
                                  "perturbed_words": len(res.edits), "word_share": len(res.edits) / max(n_words, 1),
                                  "seconds": seconds}
        return [records[it.id] for it in items]

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        by_attack: dict[str, list[dict[str, Any]]] = {}
        for rec in records.values():
            by_attack.setdefault(rec["attack"], []).append(rec)
        stats = {name: summarize(recs) for name, recs in by_attack.items()}
        columns = ["attack", "n", "succeeded", "failed", "budget", "skipped", *SUMMARY_KEYS]
        rows = [[name] + [s[c] for c in columns[1:]] for name, s in stats.items()]
        tables = [Table("Attack summary", columns, rows)]
        shown = int(self.config["examples_shown"])
        for name, recs in by_attack.items():
            wins = [r for r in recs if r["status"] == "succeeded"][:shown]
            if wins:
                tables.append(Table(f"Successful attacks ({name}, first {len(wins)})",
                                    ["original", "perturbed", "queries", "perturbed_words"],
                                    [[r["original"], r["perturbed"], r["queries"], r["perturbed_words"]]
                                     for r in wins]))
        if len(stats) == 1:
            summary = dict(next(iter(stats.values())))
        else:
            summary = {f"{name}/{k}": v for name, s in stats.items() for k, v in s.items()}
        return Result(summary, tables, {"per_attack": stats})


def _create(ctx: RunContext, name: str, config: dict[str, Any]) -> Attacker:
    """An attacker with its settings. Today's `saliency-greedy` takes its Transform as a constructor argument
    that shadows its `transform` setting, so a transform given by name is resolved here first."""
    if isinstance(config.get("transform"), str):
        config["transform"] = ctx.registry.get("attack", config["transform"]).create()
    return ctx.registry.get("attack", name).create(**config)


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """TextAttack-style attack summary of one attacker's records."""
    n = len(records)
    count = {s: sum(r["status"] == s for r in records) for s in ("succeeded", "failed", "budget", "skipped")}
    attacked = [r for r in records if r["status"] != "skipped"]
    wins = [r for r in records if r["status"] == "succeeded"]
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {"n": n, **count,
            "attack_success_rate": count["succeeded"] / len(attacked) if attacked else 0.0,
            "accuracy_under_attack": (len(attacked) - count["succeeded"]) / n if n else 0.0,
            "clean_accuracy": len(attacked) / n if n else 0.0,
            "mean_queries": mean([r["queries"] for r in attacked]),
            "mean_perturbed_word_share": mean([r["word_share"] for r in wins]),
            "seconds_per_example": mean([r["seconds"] for r in records])}
