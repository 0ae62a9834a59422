"""`accuracy`: clean accuracy of a classifier on a labelled dataset (degree 0 of every robustness test)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust.core.context import RunContext
from robust.core.datasets import resolve_examples
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import Benchmark, WorkItem
from robust.core.labels import label_index
from robust.core.results import Result, Table


class Accuracy(Benchmark):
    name = "accuracy"
    description = "Clean accuracy of a classifier on a labelled dataset (default: MR test split)"
    needs = frozenset({"classify"})
    default_model = "probe:minilm"
    settings = {"text_column": "text", "label_column": "label"}
    chunk_size = 64

    def prepare(self, ctx: RunContext) -> None:
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        examples = resolve_examples(ctx.data or "mr", ctx.registry, seed=ctx.seed, **cols)
        self.examples = examples[: ctx.limit] if ctx.limit else examples

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        return [WorkItem(ex.id, ex) for ex in self.examples]

    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        probs = ctx.model.classify([it.payload.text for it in items])
        out = []
        for it, p in zip(items, probs):
            gold = label_index(ctx.model, it.payload.label)
            out.append({"label": gold, "pred": int(p.argmax()), "correct": bool(p.argmax() == gold),
                        "confidence": float(p.max())})
        return out

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        n = len(records)
        correct = sum(r["correct"] for r in records.values())
        by_label: dict[int, list[bool]] = {}
        for r in records.values():
            by_label.setdefault(r["label"], []).append(r["correct"])
        rows = [[lab, len(v), round(sum(v) / len(v), 4)] for lab, v in sorted(by_label.items())]
        return Result({"accuracy": correct / n if n else 0.0, "n": n},
                      [Table("Accuracy by gold label", ["label", "n", "accuracy"], rows)])

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result:
        ranked = sorted(results, key=lambda lr: -lr[1].summary["accuracy"])
        rows = [[rank, label, res.summary["accuracy"], res.summary["n"]] for rank, (label, res) in enumerate(ranked, 1)]
        return Result({"best": ranked[0][0]}, [Table("Ranking by accuracy", ["rank", "model", "accuracy", "n"], rows)])


@hookimpl
def register_benchmarks(register):
    register(Accuracy)
