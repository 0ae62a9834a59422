"""`accuracy`: clean accuracy of a classifier on a labelled dataset (degree 0 of every robustness test), and the
`accuracy` scorer that RobTest and third parties reuse."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust.core.context import RunContext
from robust.core.data import load_examples
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import Benchmark, ModelAdapter, Scorer, WorkItem, add_scores, summarize_scores
from robust.core.labels import label_index
from robust.core.results import Result, Table


class AccuracyScore(Scorer):
    name = "accuracy"
    description = "Share of rows whose predicted class is the gold class"
    inputs = frozenset({"gold", "pred"})

    def values(self, rows: Sequence[Mapping[str, Any]], model: ModelAdapter | None = None) -> list[bool]:
        return [r["pred"] == r["gold"] for r in rows]


class Accuracy(Benchmark):
    name = "accuracy"
    description = "Clean accuracy of a classifier on a labelled dataset (default: MR test split)"
    needs = frozenset({"classify"})
    default_model = "probe:minilm"
    default_data = "mr"
    scorers = ("accuracy",)
    score_fields = frozenset({"text", "label", "gold", "pred", "probs"})
    settings = {"text_column": "text", "label_column": "label"}
    chunk_size = 64

    def prepare(self, ctx: RunContext) -> None:
        cols = {"text_column": self.config["text_column"], "label_column": self.config["label_column"]}
        self.examples = load_examples(ctx.data or self.default_data, ctx, labels=ctx.model.labels,
                                      limit=ctx.limit, **cols)

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        return [WorkItem(ex.id, ex) for ex in self.examples]

    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        probs = ctx.model.classify([it.payload.text for it in items])
        rows = [{"text": it.payload.text, "label": it.payload.label, "gold": label_index(ctx.model, it.payload.label),
                 "pred": int(p.argmax()), "probs": p} for it, p in zip(items, probs)]
        correct = ctx.create("scorer", "accuracy").values(rows)
        records = [{"label": r["label"], "gold": r["gold"], "pred": r["pred"], "correct": ok,
                    "confidence": float(r["probs"].max())} for r, ok in zip(rows, correct)]
        return add_scores(records, rows, self.extra_scorers(ctx), ctx.model)

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        rows = list(records.values())
        summary = {**ctx.create("scorer", "accuracy").summarize([r["correct"] for r in rows], rows), "n": len(rows)}
        by_label: dict[Any, list[bool]] = {}
        for r in rows:
            by_label.setdefault(r["label"], []).append(r["correct"])
        table = [[lab, len(v), round(sum(v) / len(v), 4)] for lab, v in sorted(by_label.items(), key=str)]
        summary.pop("accuracy_n")
        summary.update(summarize_scores(rows, self.extra_scorers(ctx)))
        return Result(summary, [Table("Accuracy by gold label", ["label", "n", "accuracy"], table)])

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result:
        ranked = sorted(results, key=lambda lr: -lr[1].summary["accuracy"])
        rows = [[rank, label, res.summary["accuracy"], res.summary["n"]] for rank, (label, res) in enumerate(ranked, 1)]
        return Result({"best": ranked[0][0]}, [Table("Ranking by accuracy", ["rank", "model", "accuracy", "n"], rows)])


@hookimpl
def register_benchmarks(register):
    register(Accuracy)


@hookimpl
def register_scorers(register):
    register(AccuracyScore)
