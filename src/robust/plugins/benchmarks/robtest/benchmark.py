"""The `robtest` benchmark: RobTest's evaluation protocol (spec robtest.md §1, §3, Appendix A.0).

Work items are (dimension-tag, access, degree, example), e.g. `typo-M/rule/0.1/000042`, plus one shared
degree-0 item per example (`clean/000042`). Worst(d) is cumulative and computed in `reduce`, from records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.interfaces import Benchmark, Example, WorkItem
from robust.core.labels import label_index
from robust.core.results import Result
from robust.plugins.benchmarks.robtest import report
from robust.plugins.benchmarks.robtest.data import load_examples, sample
from robust.plugins.benchmarks.robtest.dimensions import DimensionTag, build
from robust.plugins.benchmarks.robtest.rule import rule_variants
from robust.plugins.benchmarks.robtest.scores import DEGREES, degree_key
from robust.plugins.benchmarks.robtest.search import GreedyConfig, drive, search_for

#: sizes per preset: quick finishes in minutes on a CPU; paper = spec §1 (1,000 examples, 100 draws)
PRESETS = {"quick": {"n": 50, "aug_num": 20}, "paper": {"n": 1000, "aug_num": 100}}
SAMPLE_CHARS = 300


class RobTest(Benchmark):
    name = "robtest"
    description = ("RobTest: robustness per dimension (typo, glyph, phonetic, synonym, ...) under rule- and "
                   "score-based access; Average/Worst vs degree and the Final Score")
    needs = frozenset({"classify"})
    accepts_attacks = True
    chunk_size = 56
    settings = {
        "mode": "evaluate",  # evaluate | augment (write perturbed copies of the data, spec §1 step 6)
        "preset": "quick",  # quick | paper
        "n": 0,  # examples sampled (0: from the preset)
        "aug_num": 0,  # rule-based draws per example and degree (0: from the preset)
        "access": ["rule", "score"],
        "degrees": list(DEGREES),
        "variant": "clean",  # clean (spec §6 resolutions) | faithful (the public code's quirks, spec §5.4)
        "final": "code",  # code (reproduces the printed finals) | eq1 (the paper's Eq. 1 literally)
        "data": "mr",  # used when --data is not given: the MR test split (probe:minilm trains on mr-train)
        "text_column": "text",
        "label_column": "label",
        "sample_seed": 123,  # random.seed(123); random.sample(test, n) as in src/robtest.py
        "ratio": 0.15,  # score-based: share of words edited per saliency round
        "mask_token": "[MASK]",
        "stop_on_flip": False,
        "score_skip": ["syntax"],  # dimension-tags without a score-based setting (the paper prints '-')
        "degree": 0.1,  # augment mode: the degree of the written copies
        "output": "",  # augment mode: output JSONL (default: <run dir>/augmented.jsonl)
    }

    # configuration ----------------------------------------------------------------------------------------
    def _size(self, key: str) -> int:
        preset = self.config["preset"]
        if preset not in PRESETS:
            raise RobustError(f"unknown robtest preset {preset!r}; use one of {', '.join(PRESETS)}")
        return int(self.config[key]) or PRESETS[preset][key]

    @property
    def augmenting(self) -> bool:
        mode = self.config["mode"]
        if mode not in ("evaluate", "augment"):
            raise RobustError(f"unknown robtest mode {mode!r}; use evaluate or augment")
        return mode == "augment"

    @property
    def faithful(self) -> bool:
        variant = self.config["variant"]
        if variant not in ("clean", "faithful"):
            raise RobustError(f"unknown robtest variant {variant!r}; use clean or faithful")
        return variant == "faithful"

    @property
    def degrees(self) -> list[float]:
        degrees = sorted({float(d) for d in self.config["degrees"]} | {0.0})
        if any(d < 0 or d > 1 for d in degrees):
            raise RobustError(f"robtest degrees must lie in [0, 1]; got {self.config['degrees']}")
        return degrees

    @property
    def access(self) -> list[str]:
        access = [a for a in self.config["access"]]
        bad = [a for a in access if a not in ("rule", "score")]
        if bad or not access:
            raise RobustError(f"robtest access must be rule and/or score; got {access}")
        return access

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        return frozenset() if self.augmenting else self.needs

    def greedy_config(self) -> GreedyConfig:
        return GreedyConfig(ratio=float(self.config["ratio"]), mask_token=self.config["mask_token"],
                            faithful=self.faithful, draws=self._size("aug_num"),
                            stop_on_flip=bool(self.config["stop_on_flip"]))

    # setup ------------------------------------------------------------------------------------------------
    def prepare(self, ctx: RunContext) -> None:
        self.augmenting, self.faithful, self.degrees, self.access  # noqa: B018 - validate settings early
        spec = ctx.data or self.config["data"]
        examples = load_examples(spec, ctx.registry, self.config["text_column"], self.config["label_column"])
        n = ctx.limit or self._size("n")
        self.examples: list[Example] = sample(examples, n, int(self.config["sample_seed"]))
        self.tags: list[DimensionTag] = build(ctx.attacks, ctx.registry, ctx.extra.get("attack_settings", {}),
                                              mode=self.config["variant"])
        self.gold = [] if self.augmenting else [label_index(ctx.model, ex.label) for ex in self.examples]

    def _score_tags(self, tags: Sequence[DimensionTag]) -> list[DimensionTag]:
        skip = {s.lower() for s in self.config["score_skip"]}
        return [t for t in tags if t.name.lower() not in skip and t.dimension.lower() not in skip]

    # items ------------------------------------------------------------------------------------------------
    def items(self, ctx: RunContext) -> list[WorkItem]:
        exs = list(enumerate(self.examples))
        tag_index = {t.name: i for i, t in enumerate(self.tags)}
        if self.augmenting:
            d = degree_key(self.config["degree"])
            return [WorkItem(f"augment/{t.name}/{d}/{ex.id}", ("augment", i, float(d), e))
                    for i, t in enumerate(self.tags) for e, ex in exs]
        out = [WorkItem(f"clean/{ex.id}", ("clean", -1, 0.0, e)) for e, ex in exs]
        nonzero = [d for d in self.degrees if d > 0]
        if "rule" in self.access:
            out += [WorkItem(f"{t.name}/rule/{degree_key(d)}/{ex.id}", ("rule", tag_index[t.name], d, e))
                    for t in self.tags for d in nonzero for e, ex in exs]
        if "score" in self.access:  # example-major: one example's degrees share a greedy path (and cache)
            out += [WorkItem(f"{t.name}/score/{degree_key(d)}/{ex.id}", ("score", tag_index[t.name], d, e))
                    for t in self._score_tags(self.tags) for e, ex in exs for d in nonzero]
        return out

    # computing records ------------------------------------------------------------------------------------
    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        if self.augmenting:
            return [self._augment_record(item, ctx) for item in items]
        variants: dict[str, list[str]] = {}
        worst_variants: dict[str, list[str]] = {}
        score_items = [it for it in items if it.payload[0] == "score"]
        for item in items:
            kind, t, degree, e = item.payload
            ex = self.examples[e]
            if kind == "clean":
                variants[item.id] = [ex.text]
            elif kind == "rule":
                variants[item.id] = self._rule(self.tags[t], ex, degree, ctx.rng(item.id))
                if self.faithful:  # the code draws again for the Worst pass (spec §3.3, §6 #5)
                    worst_variants[item.id] = self._rule(self.tags[t], ex, degree, ctx.rng(item.id, "worst"))
        config = self.greedy_config()
        searches = [search_for(self.tags[it.payload[1]].transform, self.examples[it.payload[3]].text,
                               it.payload[2], self._score_rng(ctx, it), config) for it in score_items]
        for item, texts in zip(score_items, drive(searches, ctx.model.classify), strict=True):
            variants[item.id] = texts
        groups = (variants, worst_variants)
        every = list(dict.fromkeys(t for group in groups for texts in group.values() for t in texts))
        predicted = dict(zip(every, ctx.model.classify(every).argmax(1).tolist(), strict=True)) if every else {}
        return [self._record(it, variants[it.id], worst_variants.get(it.id), predicted) for it in items]

    def _rule(self, tag: DimensionTag, ex: Example, degree: float, rng: Any) -> list[str]:
        quirks = self.faithful
        return rule_variants(tag.transform, ex, degree, self._size("aug_num"), rng,
                             dedupe=not (quirks and tag.dimension.lower() == "phonetic"),
                             drop_original=not quirks or tag.dimension.lower() in ("synonym", "contextual",
                                                                                   "inflection"))

    @staticmethod
    def _score_rng(ctx: RunContext, item: WorkItem) -> Any:
        """One stream per (tag, example), shared by its degrees: the greedy path at degree d is then a prefix
        of the path at d' > d, so higher degrees reuse cached queries and Score-Worst attacks nest."""
        return ctx.rng(item.id.split("/")[0], "score", item.id.split("/", 3)[3])

    def _record(self, item: WorkItem, texts: list[str], worst_texts: list[str] | None,
                predicted: Mapping[str, int]) -> dict[str, Any]:
        kind, t, degree, e = item.payload
        ex, gold = self.examples[e], self.gold[e]
        wrong = [x for x in texts if predicted[x] != gold]
        record: dict[str, Any] = {"example": ex.id, "degree": degree, "n": len(texts),
                                  "correct": len(texts) - len(wrong), "all_correct": not wrong}
        if worst_texts is not None:
            record["worst_n"] = len(worst_texts)
            record["all_correct"] = all(predicted[x] == gold for x in worst_texts)
        if kind != "clean":
            tag = self.tags[t]
            record["tag"], record["access"] = tag.name, kind
            record["achieved"] = sum(tag.transform.measure(ex.text, x) for x in texts) / len(texts)
            if wrong:
                record["sample"] = wrong[0][:SAMPLE_CHARS]
        return record

    # augmentation -----------------------------------------------------------------------------------------
    def _augment_record(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        _, t, degree, e = item.payload
        ex, tag = self.examples[e], self.tags[t]
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
        tags = build(ctx.attacks, ctx.registry, {}, instantiate=False)
        example_ids = [key.split("/", 1)[1] for key in records if key.startswith("clean/")]
        if not example_ids:
            raise RobustError("robtest run has no records to reduce")
        settings = {"n": len(example_ids), "aug_num": self._size("aug_num"), "variant": self.config["variant"],
                    "final": self.config["final"], "access": self.access, "seed": ctx.seed,
                    "data": ctx.data or self.config["data"]}
        return report.build_result(records, tags, [t.name for t in self._score_tags(tags)], self.access,
                                   self.degrees, example_ids, settings)

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        return report.figures(result)

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        return report.compare(results)
