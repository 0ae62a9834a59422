"""`attack`: run Attackers over labelled examples; per example success, queries, perturbed words and texts.

Reduce (TextAttack's summary conventions): attack success rate = succeeded / attacked (skipped = already
misclassified, not attacked), accuracy under attack = (attacked - succeeded) / all, mean queries over attacked
examples, mean perturbed-word share (changed whitespace words / words of the original) over successful attacks,
and PromptBench's performance drop rate, 1 − accuracy under attack / clean accuracy (Zhu et al. 2023, Eq. 1).
`perturb=instruction` searches a prompted model's instruction instead of the input, per example.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from robust import (
    Attacker,
    AttackResult,
    Benchmark,
    Entry,
    Example,
    Result,
    RobustError,
    RunContext,
    Setting,
    Table,
    Transform,
    WorkItem,
    add_scores,
    attack_specs,
    check_pairing,
    held_out_examples,
    label_index,
    summarize_scores,
)
from robust.plugins.benchmarks.attack.report import accuracy_interval, success_interval
from robust.toolkit.chance import chance_check, chance_summary, class_names
from robust.toolkit.prompting import search_instruction
from robust.toolkit.text import changed_words, words

SUMMARY_KEYS = ("attack_success_rate", "accuracy_under_attack", "clean_accuracy", "performance_drop_rate",
                "mean_queries", "mean_perturbed_word_share", "seconds_per_example")


def perturbed_words(original: str, result: AttackResult) -> int:
    """The words an attack replaced: its own word edits where it reports them by position (a recipe that
    re-tokenizes and lower-cases the text, as OpenAttack's do in faithful mode, edits tokens, and re-spacing or
    case is no perturbation: OpenAttack's modification rate counts tokens changed), else the whitespace words of
    the original that differ in its final text."""
    if result.edits and all(edit.get("index") is not None for edit in result.edits):
        return len({edit["index"] for edit in result.edits})
    return changed_words(original, result.perturbed)


@dataclass
class Arm:
    """One `--attack` value: an attacker and the transform it searches over (None for recipes)."""

    name: str
    attacker: Attacker
    transform: Transform | None
    plugins: dict[str, str | None]  # the qualified names of its attacker and transform (each record carries them)


@dataclass(frozen=True)
class Target:
    """What an attack work item attacks: one example, with the `--attack` value (arm) attacking it."""

    arm: str
    example: Example


class AttackBenchmark(Benchmark):
    name = "attack"
    description = ("Attack success rate, queries and perturbed words of one or more Attackers on labelled data "
                   "(default: probe:minilm on the MR test split)")
    needs = frozenset({"classify"})
    accepts_attacks = True
    #: per attacked example: the attack's account (`original`, `perturbed`, `success`, `status`, `queries`, `edits`),
    #: the example (`example` id, `text`, `label`, `gold`), the model's class before (`clean_pred`) and after (`pred`)
    score_fields = frozenset({"attack", "example", "text", "label", "gold", "clean_pred", "pred", "original",
                              "perturbed", "success", "status", "queries", "edits", "n_words", "perturbed_words",
                              "word_share"})
    default_model = "probe:minilm"
    default_data = "mr"
    chunk_size = 8
    settings = {
        "text_column": "text",
        "label_column": "label",
        "budget": Setting(None, item=int, min=1, help="max classify queries per example; none (the default) = no cap"),
        "degree": Setting(0.3, min=0.0, max=1.0, help="perturbation degree for attackers driven by a Transform"),
        "attacker": Setting("saliency-greedy", help="the attacker of an --attack that names only a transform"),
        "examples_shown": Setting(10, min=0, help="successful attacks listed per attacker in the report"),
        "perturb": Setting("input", choices=("input", "instruction"),
                           help="what the attackers search over: the input text, or a prompted model's instruction "
                                "(PromptBench's adversarial prompts, per example)"),
    }

    def prepare(self, ctx: RunContext) -> None:
        self.arms = {name: Arm(name, ctx.create("attacker", attacker),
                               ctx.create("transform", transform) if transform else None,
                               {"attacker": attacker.qualified, "transform": transform and transform.qualified})
                     for name, (attacker, transform) in self._resolve(ctx).items()}
        for arm in self.arms.values():
            check_pairing(arm.transform, None, (), "the attack benchmark")
            if arm.transform is not None:
                arm.transform.warm_up()  # e.g. compiled draws load while the examples are read and the model loads
            if arm.attacker.semantics():
                ctx.say(f"{arm.name}: {arm.attacker.semantics()}")
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        self.examples = held_out_examples(ctx.data or self.default_data, ctx, ctx.model, ctx.limit, **cols)
        if self.examples:  # load the model now, so seconds_per_example times attacks only (the text is cached)
            ctx.model.classify([self.examples[0].text])
        for arm in self.arms.values():  # e.g. a TextAttack recipe imports textattack and builds itself
            arm.attacker.warm_up(ctx.model)

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        # called before the run is recorded: the place to refuse unusable --attack values with one line
        needs = set(super().required_capabilities(ctx)) | ({"instruction"} if self.prompting else set())
        for attacker, _ in self._resolve(ctx).values():
            needs |= set(attacker.target.needs)
        return frozenset(needs)

    def _resolve(self, ctx: RunContext) -> dict[str, tuple[Entry, Entry | None]]:
        """`--attack` values -> (attacker entry, transform entry or None), each resolved once and checked."""
        if not ctx.attacks:
            raise RobustError("the attack benchmark needs --attack (see `robust list attackers`), e.g. "
                              "textattack:deepwordbug, saliency-greedy:typo-G or a transform such as typo-G")
        out = {}
        for spec in attack_specs(ctx.attacks, ctx.registry):
            attacker = spec.attacker or ctx.registry.get("attacker", self.config["attacker"])
            name = spec.text if spec.attacker else f"{ctx.registry.display(attacker)}:{spec.text}"
            if attacker.target.uses_transform and spec.transform is None:
                raise RobustError(f"attacker {attacker.name!r} searches over a transform's edits; name one, "
                                  f"e.g. --attack {attacker.name}:typo-G")
            attacker.target.check_available()
            out[name] = (attacker, spec.transform)
        return out

    @property
    def prompting(self) -> bool:
        return self.config["perturb"] == "instruction"

    def _search(self, arm: Arm, examples: Sequence[Any], ctx: RunContext, name: str) -> tuple[list[Any], list[int]]:
        """The attack results of examples the model gets right, and the model's class on each final text: the
        input searched, or (perturb=instruction) the instruction searched per example with its text fixed."""
        budget, degree = self.config["budget"], float(self.config["degree"])
        rngs = [ctx.rng("attack", name, ex.id) for ex in examples]
        if not self.prompting:
            found = arm.attacker.attack(examples, ctx.model, arm.transform, degree, budget, rngs) if examples else []
            return found, ctx.model.classify([r.perturbed for r in found]).argmax(1).tolist() if found else []
        found, final = [], []
        for ex, rng in zip(examples, rngs):
            result, view = search_instruction(arm.attacker, ctx.model, ex, arm.transform, degree, budget, rng, ctx)
            found.append(result)
            final.append(int(view.classify([result.perturbed]).argmax(1)[0]))
        return found, final

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        return [WorkItem(f"{name}/{ex.id}", Target(name, ex)) for name in self.arms for ex in self.examples]

    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        records: dict[str, dict[str, Any]] = {}
        rows: dict[str, dict[str, Any]] = {}  # what extra scorers see of each item
        for name in dict.fromkeys(it.payload.arm for it in items):  # a chunk rarely spans two attackers
            group = [it for it in items if it.payload.arm == name]
            examples = [it.payload.example for it in group]
            arm = self.arms[name]
            start = time.perf_counter()
            # TextAttack's convention for every attacker: an example the model already gets wrong is skipped
            clean = ctx.model.classify([ex.text for ex in examples]).argmax(1)
            right = [ex for ex, p in zip(examples, clean) if int(p) == label_index(ctx.model, ex.label)]
            found, classes = self._search(arm, right, ctx, name)
            by_id = {ex.id: (res, c) for ex, res, c in zip(right, found, classes)}
            # the attacker takes the chunk's examples together: a record holds its share of their time (their
            # mean over a run is the run's seconds per example, however the items were chunked)
            share = (time.perf_counter() - start) / len(examples)
            for it, ex, p in zip(group, examples, clean):
                original = ctx.model.instruction if self.prompting else ex.text
                # a skipped example keeps its prediction; an attacked one the model's class on its final text
                res, pred = by_id.get(ex.id) or (AttackResult(original, original, False, 1, "skipped"), int(p))
                n_words = len(words(original))
                changed = perturbed_words(original, res)
                record = {k: v for k, v in res.to_json().items() if k != "variants"}
                records[it.id] = {**record, "attack": name, **arm.plugins, "label": ex.label,
                                  "gold": label_index(ctx.model, ex.label), "pred": int(pred), "n_words": n_words,
                                  "perturbed_words": changed, "word_share": changed / max(n_words, 1),
                                  "chunk_seconds_share": share}
                rows[it.id] = {**records[it.id], "example": ex.id, "text": original, "clean_pred": int(p)}
        ordered = [records[it.id] for it in items]
        return add_scores(ordered, [rows[it.id] for it in items], self.extra_scorers(ctx), ctx.model)

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        by_attack: dict[str, list[dict[str, Any]]] = {}
        for rec in records.values():
            by_attack.setdefault(rec["attack"], []).append(rec)
        stats = {name: summarize(recs) for name, recs in by_attack.items()}
        columns = ["attack", "n", "succeeded", "failed", "budget", "skipped", *SUMMARY_KEYS]
        tables = [Table("Attack summary", columns, [[name] + [s[c] for c in columns[1:]] for name, s in stats.items()])]
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
        first = next(iter(by_attack.values()), [])  # every attack sees the same examples and skips the wrong ones
        check = chance_check([r["gold"] for r in first], [r["status"] != "skipped" for r in first],
                             class_names(ctx.model, first))
        summary.update(chance_summary(check))
        summary.update(summarize_scores(records.values(), self.extra_scorers(ctx)))
        return Result(summary, tables, {"per_attack": stats, "chance": check})

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        from robust.plugins.benchmarks.attack.report import report_parts

        return report_parts(result, records)

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result:
        from robust.plugins.benchmarks.attack.report import compare

        return compare(results)


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """TextAttack-style attack summary of one attacker's records, with Wilson 95 % intervals of the rates."""
    n = len(records)
    count = {s: sum(r["status"] == s for r in records) for s in ("succeeded", "failed", "budget", "skipped")}
    attacked = [r for r in records if r["status"] != "skipped"]
    wins = [r for r in records if r["status"] == "succeeded"]
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    out = {"n": n, **count,
           "attack_success_rate": count["succeeded"] / len(attacked) if attacked else 0.0,
           "accuracy_under_attack": (len(attacked) - count["succeeded"]) / n if n else 0.0,
           "clean_accuracy": len(attacked) / n if n else 0.0,
           "mean_queries": mean([r["queries"] for r in attacked]),
           "mean_perturbed_word_share": mean([r["word_share"] for r in wins]),
           "seconds_per_example": mean([r.get("chunk_seconds_share", r.get("seconds", 0.0)) for r in records])}
    # PromptBench's performance drop rate (Zhu et al. 2023, Eq. 1): 1 − accuracy under attack / clean accuracy
    out["performance_drop_rate"] = 1 - out["accuracy_under_attack"] / out["clean_accuracy"] if attacked else None
    out["attack_success_rate_ci_low"], out["attack_success_rate_ci_high"] = success_interval(out)
    out["accuracy_under_attack_ci_low"], out["accuracy_under_attack_ci_high"] = accuracy_interval(out)
    return out
