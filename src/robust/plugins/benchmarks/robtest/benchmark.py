"""The `robtest` benchmark: RobTest's evaluation protocol (Chen et al. 2023,
"From Adversarial Arms Race to Model-centric Evaluation: Motivating a Unified Automatic Robustness Evaluation
Framework", Findings of ACL 2023, §2.2 and §4.1; the main loop of RobTest's code, src/robtest.py).

Work items are (dimension-tag, access, degree, example), e.g. `typo-M/rule/0.1/000042`, plus one shared
degree-0 item per example (`clean/000042`). Worst(d) is cumulative and computed in `reduce`, from records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from robust import (
    AttackResult,
    Benchmark,
    Entry,
    Example,
    Result,
    RobustError,
    RunContext,
    Setting,
    WorkItem,
    add_scores,
    check_pairing,
    held_out_examples,
    label_index,
    load_examples,
    summarize_scores,
)
from robust.plugins.benchmarks.robtest.data import sample
from robust.plugins.benchmarks.robtest.dimensions import Cell, DimensionTag, plan
from robust.plugins.benchmarks.robtest.prompt import PAIR, instruction_variants, pairs
from robust.plugins.benchmarks.robtest.report import build_result, compare, figures, report_parts
from robust.plugins.benchmarks.robtest.rule import rule_variants
from robust.plugins.benchmarks.robtest.scores import DEGREES, degree_key
from robust.plugins.benchmarks.robtest.search import expected_queries
from robust.toolkit.chance import class_names
from robust.toolkit.prompting import predict_pairs, search_instruction
from robust.toolkit.text import word_modification_rate, words
from robust.toolkit.transforms import measured, reaches

#: sizes per preset: quick finishes in minutes on a CPU; paper = Chen et al. 2023, §4.1 (1,000 examples, 100 draws)
PRESETS = {"quick": {"n": 50, "aug_num": 20}, "paper": {"n": 1000, "aug_num": 100}}
SAMPLE_CHARS = 300
MAX_EDITS = 20  # edits kept per record


#: a query's time grows as (words + LENGTH_OFFSET): MiniLM's classify on a CPU took 1.2 ms a text of 5 words and
#: 11.7 ms one of 80, 9.8x (84 / 9 = 9.3x); robust's draws grow with the text too
LENGTH_OFFSET = 4


def length_weights(examples: Sequence[Example]) -> list[float]:
    """What a query of each example's texts costs against one of the examples' mean length, in words (the item
    costs' weights: an example's items query or search texts of about its length). Without them a run's long
    examples ran late against an ETA measured on its shorter ones: 8 examples of 10-56 words were at 0.65-0.83 of
    the real time, and 0.87-1.02 with them, replayed on the same run (docs/performance/own-cost.md, nineteenth pass)."""
    lengths = [len(words(ex.text)) + LENGTH_OFFSET for ex in examples]
    mean = sum(lengths) / len(lengths) if lengths else 1.0
    return [n / mean for n in lengths]


class RobTest(Benchmark):
    name = "robtest"
    description = ("RobTest: robustness per dimension (typo, glyph, phonetic, synonym, ...) under rule- and "
                   "score-based access; Average/Worst vs degree and the Final Score")
    needs = frozenset({"classify"})
    default_model = "probe:minilm"  # the offline victim: MiniLM + a head trained on the MR training split
    default_data = "mr"  # the MR test split (disjoint from the probe's training data)
    accepts_attacks = True
    scorers = ("robtest-average", "robtest-worst")
    score_fields = frozenset({"example", "text", "label", "gold", "degree", "tag", "access", "texts", "preds",
                              "correct", "n", "all_correct"})
    chunk_size = 56
    settings = {
        "mode": Setting("evaluate", choices=("evaluate", "augment"),
                        help="augment: write perturbed copies of the data (Chen et al. 2023, §3)"),
        "preset": Setting("quick", choices=tuple(PRESETS), help="quick finishes in minutes; paper = the paper's §4.1"),
        "n": Setting(0, min=0, help="examples sampled (0: from the preset)"),
        "aug_num": Setting(0, min=0, help="rule-based draws per example and degree (0: from the preset)"),
        "access": Setting(["rule", "score"], choices=("rule", "score"), min_items=1),
        "rule_attacker": Setting("rule-sampling", help="the Attacker of rule-based access"),
        "score_attacker": Setting("saliency-greedy", help="the Attacker of score-based access"),
        "degrees": Setting(list(DEGREES), min=0.0, max=1.0, min_items=1),
        "variant": Setting("clean", choices=("clean", "faithful"),
                           help="clean: docs/robtest.md's resolutions; faithful: the public code's quirks"),
        "final": Setting("code", choices=("code", "eq1"), help="code reproduces the printed finals; eq1: Eq. 1"),
        "text_column": "text",
        "label_column": "label",
        "sample_seed": Setting(123, help="random.seed(123); random.sample(test, n) as in src/robtest.py"),
        "ratio": Setting(0.15, min=0.01, max=1.0, help="score-based: share of words edited per saliency round"),
        "mask_token": "[MASK]",
        "stop_on_flip": False,
        "budget": Setting(None, item=int, min=1, help="score-based access: model queries per example and degree; "
                          "none (the default) = no cap"),
        "score_skip": Setting(["syntax"], help="dimension-tags without a score-based setting (the paper prints '-')"),
        "degree": Setting(0.1, min=0.0, max=1.0, help="augment mode: the degree of the written copies"),
        "perturb": Setting("input", choices=("input", "instruction", "both"),
                           help="what the dimensions perturb: the input text, a prompted model's instruction "
                                "(PromptBench), or both (rule-based access)"),
        "output": Setting("", help="augment mode: output JSONL (default: <run dir>/augmented.jsonl)"),
    }

    @classmethod
    def default_model_for(cls, data: str | None, settings: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """Without --data: the MR probe (trained on the MR training split). With --data: `finetune:minilm`
        trained on that data; its held-out share is what the run evaluates (see `prepare`)."""
        if not data:
            return super().default_model_for(data, settings)
        return "finetune:minilm", {"train": data, **{k: settings[k] for k in ("text_column", "label_column")
                                                     if k in settings}}

    # configuration ----------------------------------------------------------------------------------------
    def _size(self, key: str) -> int:
        return int(self.config[key]) or PRESETS[self.config["preset"]][key]

    @property
    def augmenting(self) -> bool:
        return self.config["mode"] == "augment"

    @property
    def faithful(self) -> bool:
        return self.config["variant"] == "faithful"

    @property
    def degrees(self) -> list[float]:
        return sorted({float(d) for d in self.config["degrees"]} | {0.0})

    @property
    def prompting(self) -> bool:
        """Whether the prompt's instruction is perturbed (perturb=instruction or both)."""
        return self.config["perturb"] != "input"

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        if self.augmenting:
            return frozenset()
        return super().required_capabilities(ctx) | ({"instruction"} if self.prompting else frozenset())

    def plan(self, ctx: RunContext) -> list[DimensionTag]:
        defaults = {a: self.config[f"{a}_attacker"] for a in self.config["access"]}
        return plan(ctx.attacks, ctx.registry, defaults, self.config["score_skip"])

    def _transform(self, ctx: RunContext, entry: Entry) -> Any:
        """A selected transform, told this run's variant unless the user set its mode."""
        mode = "mode" in entry.settings and "mode" not in ctx.settings_for(entry)
        return ctx.create("transform", entry, **({"mode": self.config["variant"]} if mode else {}))

    def _attacker(self, ctx: RunContext, entry: Entry, tag: DimensionTag) -> Any:
        """An access's attacker, given the protocol knobs it declares (aug_num draws, the greedy's ratio, ...)."""
        quirks = self.faithful
        knobs = {"draws": self._size("aug_num"), "ratio": float(self.config["ratio"]),
                 "mask_token": self.config["mask_token"], "faithful": quirks,
                 "stop_on_flip": bool(self.config["stop_on_flip"]),
                 "dedupe": not (quirks and tag.dimension.lower() == "phonetic"),
                 "drop_original": not quirks or tag.dimension.lower() in ("synonym", "contextual", "inflection")}
        given = ctx.settings_for(entry)
        return ctx.create("attacker", entry, **{k: v for k, v in knobs.items()
                                                if k in entry.settings and k not in given})

    def describe_limit(self, limit: int) -> str:
        return (f"{limit} examples sampled from the data (in place of the preset's n; seed sample_seed), each run "
                "through every dimension, access and degree")

    # setup ------------------------------------------------------------------------------------------------
    def prepare(self, ctx: RunContext) -> None:
        spec = ctx.data or self.default_data
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        examples = (load_examples(spec, ctx, **cols) if self.augmenting  # no model: every example
                    else held_out_examples(spec, ctx, ctx.model, **cols))
        self.examples: list[Example] = sample(examples, ctx.limit or self._size("n"), int(self.config["sample_seed"]))
        self.length_weights = length_weights(self.examples)
        self.tags = self.plan(ctx)
        for tag in self.tags:
            if tag.entry.kind == "transform":
                tag.transform = self._transform(ctx, tag.entry)
                check_pairing(tag.transform, None, (), "robtest")
                tag.transform.warm_up()  # e.g. compiled draws load while the model does
        if self.prompting:
            self._check_prompting()
            self._instructions: dict[tuple[str, str], tuple[list[str], list[float]]] = {}
        self.attackers = {(t.name, a): self._attacker(ctx, entry, t)
                          for t in self.tags for a, entry in t.accesses.items()}
        self.gold = [] if self.augmenting else [label_index(ctx.model, ex.label) for ex in self.examples]

    def _check_prompting(self) -> None:
        """perturb=instruction|both: refused in one line where it has no meaning."""
        perturb = self.config["perturb"]
        if self.augmenting:
            raise RobustError(f"perturb={perturb} evaluates a prompted model; mode=augment writes perturbed inputs")
        if self.config["rule_attacker"] != "rule-sampling" and "rule" in self.config["access"]:
            raise RobustError(f"perturb={perturb} draws the rule-based variants itself; drop rule_attacker")
        searches = sorted({a for t in self.tags for a in t.accesses if a != "rule"})
        if perturb == "both" and searches:
            raise RobustError(f"perturb=both runs the rule-based access only ({', '.join(searches)} searches the "
                              "instruction alone); add --set access=rule or use perturb=instruction")
        if any(t.transform is None for t in self.tags):
            raise RobustError(f"perturb={perturb} needs transforms; "
                              f"{next(t.name for t in self.tags if t.transform is None)!r} is an attacker")

    # items ------------------------------------------------------------------------------------------------
    def items(self, ctx: RunContext) -> list[WorkItem]:
        exs = list(enumerate(self.examples))
        if self.augmenting:
            d = degree_key(self.config["degree"])
            return [WorkItem(f"augment/{t.name}/{d}/{ex.id}", Cell("augment", t, float(d), e))
                    for t in self.tags for e, ex in exs]
        out = [WorkItem(f"clean/{ex.id}", Cell("clean", None, 0.0, e)) for e, ex in exs]
        nonzero = [d for d in self.degrees if d > 0]
        # example-major, as its searches: one example's items of a kind are one group (`item_group`)
        out += [WorkItem(f"{t.name}/rule/{degree_key(d)}/{ex.id}", Cell("rule", t, d, e))
                for t in self.tags if "rule" in t.accesses for e, ex in exs for d in nonzero]
        # searches: example-major too, so one example's degrees share a greedy path (and the output cache)
        out += [WorkItem(f"{t.name}/{a}/{degree_key(d)}/{ex.id}", Cell(a, t, d, e))
                for t in self.tags for a in t.accesses if a != "rule" for e, ex in exs for d in nonzero]
        return out

    def item_kind(self, item: WorkItem) -> str:
        """clean, or a dimension-tag's access (typo-G's searches run ten times faster than typo-M's)."""
        cell = item.payload
        return "clean" if cell.kind == "clean" else f"{cell.tag.name}/{cell.kind}"

    def item_group(self, item: WorkItem) -> str:
        """One example's items of a kind (its degrees, which a search walks on one greedy path)."""
        return f"{self.item_kind(item)}/{item.payload.example}"

    def item_cost(self, item: WorkItem) -> float:
        """Model queries an item is expected to cost (the ETA's unit across kinds), each weighed by its example's
        length (`length_weights`): 1 (clean), `aug_num` draws (rule, augment; twice when faithful: the Worst pass
        draws again), and for a search what the greedy search adds on the way from the example's previous degree
        to this one (`expected_queries`, by the transform's unit: a word-unit search needs ~6x fewer rounds than a
        char-unit one), plus its final variant's query."""
        cell = item.payload
        if cell.kind == "clean":
            queries = 1.0
        elif cell.kind in ("rule", "augment"):
            queries = float(self._size("aug_num")) * (2 if self.faithful and cell.kind == "rule" else 1)
        else:
            tag = cell.tag
            unit, text = tag.transform.unit if tag.transform is not None else "word", self.examples[cell.example].text
            below = max((d for d in self.degrees if d < cell.degree), default=0.0)
            queries = 1.0 + max(0, expected_queries(unit, text, cell.degree) - expected_queries(unit, text, below))
        return queries * self.length_weights[cell.example]

    # computing records ------------------------------------------------------------------------------------
    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        if self.augmenting:
            return [self._augment_record(item, ctx) for item in items]
        if self.prompting:
            return self._prompt_batch(items, ctx)
        variants = {it.id: [self.examples[it.payload.example].text] for it in items if it.payload.kind == "clean"}
        worst: dict[str, list[str]] = {}
        groups: dict[tuple[str, str], list[WorkItem]] = {}
        for it in items:
            if it.payload.kind != "clean":
                groups.setdefault((it.payload.tag.name, it.payload.kind), []).append(it)
        attacks: dict[str, AttackResult] = {}
        for (_, access), members in groups.items():
            self._precompute(members)
            attacks.update(self._attack(members, ctx, [self._rng(ctx, it) for it in members]))
            if access == "rule" and self.faithful:  # the code draws again for the Worst pass (docs/robtest.md)
                found = self._attack(members, ctx, [ctx.rng(it.id, "worst") for it in members])
                worst.update({k: r.variants for k, r in found.items()})
        variants.update({k: r.variants for k, r in attacks.items()})
        every = list(dict.fromkeys(t for group in (variants, worst) for texts in group.values() for t in texts))
        predicted = dict(zip(every, ctx.model.classify(every).argmax(1).tolist(), strict=True)) if every else {}
        reached = self._reached(groups.values(), variants)
        records = [self._record(it, variants[it.id], worst.get(it.id), predicted, attacks.get(it.id),
                                reached.get(it.id)) for it in items]
        scorers = self.extra_scorers(ctx)  # what they see of each item, built only for them
        rows = [self._row(it, variants[it.id], predicted, rec) for it, rec in zip(items, records)] if scorers else []
        return add_scores(records, rows, scorers, ctx.model)

    def _reached(self, groups: Iterable[Sequence[WorkItem]],
                 variants: Mapping[str, list[str]]) -> dict[str, list[float]]:
        """Each perturbed item's variants' degrees, a group (tag, access) measured at once (`measured`: a sentence
        transform's embeddings in one call, not one per variant)."""
        out: dict[str, list[float]] = {}
        for members in groups:
            transform = members[0].payload.tag.transform
            pairs = [(self.examples[it.payload.example].text, x) for it in members for x in variants[it.id]]
            found = iter(measured(transform, pairs) if transform is not None
                         else [word_modification_rate(a, b) for a, b in pairs])
            out.update({it.id: [next(found) for _ in variants[it.id]] for it in members})
        return out

    def _precompute(self, members: Sequence[WorkItem]) -> None:
        """The transform prepares the group's texts for the run's whole degree grid, not only the degrees of this
        chunk's items: what it prepares (Distraction's measured chain prefixes decide its draws) then never depends
        on how the items were chunked, and an example's items in later chunks find it done."""
        transform = members[0].payload.tag.transform
        if transform is not None:
            texts = list(dict.fromkeys(self.examples[it.payload.example].text for it in members))
            transform.precompute(texts, [d for d in self.degrees if d > 0])

    def _attack(self, members: Sequence[WorkItem], ctx: RunContext, rngs: list[Any]) -> dict[str, AttackResult]:
        """A group of items of one (tag, access) attacked by that access's attacker in one batched call."""
        access, tag = members[0].payload.kind, members[0].payload.tag
        budget = None if access == "rule" else self.config["budget"]
        results = self.attackers[(tag.name, access)].attack(
            [self.examples[it.payload.example] for it in members], ctx.model, tag.transform,
            [it.payload.degree for it in members], budget, rngs)
        return dict(zip((it.id for it in members), results, strict=True))

    def _rng(self, ctx: RunContext, item: WorkItem) -> Any:
        """Rule access: one stream per item. Searches: one stream per (tag, access, example), shared by its
        degrees, so the greedy path at degree d is a prefix of the path at d' > d (cached queries are reused
        and Score-Worst attacks nest)."""
        cell = item.payload
        if cell.kind == "rule":
            return ctx.rng(item.id)
        return ctx.rng(cell.tag.name, cell.kind, self.examples[cell.example].id)

    def _prompt_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        """Records when the instruction is perturbed (alone, or with the input): see robtest/prompt.py."""
        model, instruction = ctx.model, ctx.model.instruction
        texts: dict[str, list[str]] = {}  # item id -> the variants recorded (instructions, or pairs)
        asked: dict[str, list[tuple[str, str]]] = {}  # item id -> the (instruction, input) each variant is
        reached: dict[str, list[float]] = {}
        attacks: dict[str, AttackResult] = {}
        for it in items:
            kind, tag, degree = it.payload.kind, it.payload.tag, it.payload.degree
            ex = self.examples[it.payload.example]
            if kind == "clean":
                texts[it.id], asked[it.id] = [ex.text], [(instruction, ex.text)]
            elif kind == "rule":
                drawn, measured = self._instruction_draws(ctx, tag, degree)
                inputs = (rule_variants(tag.transform, ex, degree, self._size("aug_num"), ctx.rng(it.id))
                          if self.config["perturb"] == "both" else [ex.text])
                asked[it.id] = pairs(drawn, inputs)
                texts[it.id] = [PAIR.format(instruction=i, text=x) if x != ex.text else i for i, x in asked[it.id]]
                reached[it.id] = [(measured[k % len(drawn)] + tag.transform.measure(ex.text, x)) / (
                    2 if self.config["perturb"] == "both" else 1) for k, (_, x) in enumerate(asked[it.id])]
            else:  # a search over the instruction's words, the example's text fixed
                found, _ = search_instruction(self.attackers[(tag.name, kind)], model, ex, tag.transform, degree,
                                              self.config["budget"], self._rng(ctx, it), ctx)
                attacks[it.id], texts[it.id] = found, found.variants
                asked[it.id] = [(v, ex.text) for v in found.variants]
                reached[it.id] = [tag.transform.measure(instruction, v) for v in found.variants]
        classes = predict_pairs(model, [pair for wanted in asked.values() for pair in wanted])
        predicted = {it.id: {t: classes[pair] for t, pair in zip(texts[it.id], asked[it.id])} for it in items}
        records = [self._record(it, texts[it.id], None, predicted[it.id], attacks.get(it.id), reached.get(it.id))
                   for it in items]
        for it, record in zip(items, records):
            if it.payload.kind != "clean":  # the text its variants perturb
                record["original"] = instruction[:SAMPLE_CHARS]
        rows = [self._row(it, texts[it.id], predicted[it.id], rec) for it, rec in zip(items, records)]
        return add_scores(records, rows, self.extra_scorers(ctx), ctx.model)

    def _instruction_draws(self, ctx: RunContext, tag: DimensionTag, degree: float) -> tuple[list[str], list[float]]:
        """The perturbed instructions of a dimension-tag and degree, the same for every example (their own seed),
        with each one's measured degree: drawn once per process, not once per example."""
        key = (tag.name, degree_key(degree))
        if key not in self._instructions:
            instruction = ctx.model.instruction
            drawn = instruction_variants(tag.transform, instruction, degree, self._size("aug_num"),
                                         ctx.rng(tag.name, "instruction", degree_key(degree)))
            self._instructions[key] = drawn, [tag.transform.measure(instruction, i) for i in drawn]
        return self._instructions[key]

    def _record(self, item: WorkItem, texts: list[str], worst_texts: list[str] | None, predicted: Mapping[str, int],
                attack: AttackResult | None, reached: list[float] | None) -> dict[str, Any]:
        """One item's record; `reached`: each variant's degree (None for a clean item)."""
        kind, tag, degree, e = item.payload.kind, item.payload.tag, item.payload.degree, item.payload.example
        ex, gold = self.examples[e], self.gold[e]
        wrong = [x for x in texts if predicted[x] != gold]
        record: dict[str, Any] = {"example": ex.id, "degree": degree, "n": len(texts),
                                  "correct": len(texts) - len(wrong), "all_correct": not wrong}
        if kind == "clean":
            record.update(text=ex.text[:SAMPLE_CHARS], gold=gold, pred=predicted[texts[0]])
        elif attack is not None:  # the attack's own account: its queries, outcome and a representative text
            record.update(queries=attack.queries, status=attack.status, perturbed=attack.perturbed[:SAMPLE_CHARS],
                          pred=predicted.get(attack.perturbed), edits=attack.edits[:MAX_EDITS])
        if worst_texts is not None:
            record["worst_n"] = len(worst_texts)
            record["all_correct"] = all(predicted[x] == gold for x in worst_texts)
        if kind != "clean":
            record["tag"], record["access"], record["plugin"] = tag.name, kind, tag.entry.qualified
            assert reached is not None  # measured for every perturbed item
            record["achieved"] = sum(reached) / len(reached)
            record["short"] = sum(not reaches(v, degree) for v in reached) / len(reached)
            if wrong:
                record["sample"] = wrong[0][:SAMPLE_CHARS]
        return record

    def _row(self, item: WorkItem, texts: list[str], predicted: Mapping[str, int], record: dict) -> dict[str, Any]:
        """What extra scorers see of an item."""
        ex = self.examples[item.payload.example]
        return {**record, "example": ex.id, "text": ex.text, "label": ex.label, "gold": self.gold[item.payload.example],
                "texts": texts, "preds": [predicted[t] for t in texts], "tag": record.get("tag", "clean"),
                "access": record.get("access", "clean")}

    # augmentation -----------------------------------------------------------------------------------------
    def _augment_record(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        tag, degree = item.payload.tag, item.payload.degree
        if tag.transform is None:
            raise RobustError(f"robtest mode=augment needs transforms; {tag.name!r} is an attacker")
        ex = self.examples[item.payload.example]
        texts = rule_variants(tag.transform, ex, degree, self._size("aug_num"), ctx.rng(item.id))
        return {"example": ex.id, "label": ex.label, "tag": tag.name, "degree": degree,
                "texts": [x for x in texts if x != ex.text]}

    def _write_augmented(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        default = Path(ctx.out_dir) / f"robtest-augmented-{ctx.run_id or 'run'}.jsonl" if ctx.out_dir else ""
        output = self.config["output"] or str(default)
        if not output:
            raise RobustError("robtest mode=augment needs --set output=PATH (no run directory is known)")
        path = Path(output)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = 0
        with path.open("w", encoding="utf-8") as f:
            for item_id in sorted(records):
                rec = records[item_id]
                for j, text in enumerate(rec["texts"]):
                    row = {"id": f"{rec['example']}-{rec['tag']}-{j}", "text": text, "label": rec["label"],
                           "source_id": rec["example"], "attack": rec["tag"], "degree": rec["degree"]}
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                    rows += 1
        summary = {"mode": "augment", "written": rows, "output": str(path),
                   "examples": len({r["example"] for r in records.values()}),
                   "attacks": ", ".join(sorted({r["tag"] for r in records.values()})),
                   "degree": float(self.config["degree"])}
        return Result(summary=summary, data={"kind": "robtest-augment", **summary})

    # result -----------------------------------------------------------------------------------------------
    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        """From records alone (also after `robust show`/re-reduce, where `prepare` was not called)."""
        if self.augmenting:
            return self._write_augmented(records, ctx)
        example_ids = [key.split("/", 1)[1] for key in records if key.startswith("clean/")]
        if not example_ids:
            raise RobustError("robtest run has no records to reduce")
        settings = {"n": len(example_ids), "aug_num": self._size("aug_num"), "variant": self.config["variant"],
                    "final": self.config["final"], "access": self.config["access"], "seed": ctx.seed,
                    "data": ctx.data or self.default_data, "budget": self.config["budget"],
                    "perturb": self.config["perturb"]}
        if ctx.model is not None and ctx.model.trained_on(ctx.data or self.default_data):
            settings["examples"] = "the victim's held-out share of the data (it was trained on the rest)"
        scorers = [ctx.create("scorer", name, final=self.config["final"]) for name in self.scorers]
        clean = [records[f"clean/{eid}"] for eid in example_ids]
        result = build_result(records, self.plan(ctx), scorers, self.degrees, example_ids, settings,
                              class_names(ctx.model, clean))
        result.summary.update(summarize_scores(records.values(), self.extra_scorers(ctx)))
        return result

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        return figures(result)

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        return report_parts(result, records)

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        return compare(results)
