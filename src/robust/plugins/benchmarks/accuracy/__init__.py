"""`accuracy`: clean accuracy of a classifier on a labelled dataset (degree 0 of every robustness test), and the
`accuracy` scorer that RobTest and third parties reuse."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust import (
    Benchmark,
    ModelAdapter,
    Result,
    RobustError,
    RunContext,
    Scorer,
    Table,
    WorkItem,
    add_scores,
    held_out_examples,
    hookimpl,
    label_index,
    summarize_scores,
)
from robust.toolkit.chance import above_chance, chance_check, chance_summary, class_names, lead_with_chance
from robust.toolkit.stats import proportion_se


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
        self.examples = held_out_examples(ctx.data or self.default_data, ctx, ctx.model, ctx.limit, **cols)

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
        check = chance_check([r["gold"] for r in rows], [r["correct"] for r in rows], class_names(ctx.model, rows))
        if check:  # Wilson 95 % interval of the accuracy
            summary["accuracy_ci_low"], summary["accuracy_ci_high"] = (check["clean_accuracy_ci_low"],
                                                                       check["clean_accuracy_ci_high"])
        summary.update(chance_summary(check))
        summary.update(summarize_scores(rows, self.extra_scorers(ctx)))
        return Result(summary, [Table("Accuracy by gold label", ["label", "n", "accuracy"], table)],
                      {"chance": check})

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result:
        """Runs ranked by accuracy; adjacent runs whose difference is within its 95 % bound (Agresti-Coull standard
        errors, as if the runs were independent: conservative for runs on the same examples) are marked."""
        from robust import ranking

        unable = [label for label, r in results if not above_chance(r.data)]
        entries = [(label, float(r.summary["accuracy"]), proportion_se(r.summary["accuracy"], r.summary["n"]))
                   for label, r in results if label not in unable]
        if not entries:
            raise RobustError("none of these models does better than the majority class: nothing to rank")
        rows, ties = ranking(entries)
        n = {label: r.summary["n"] for label, r in results}
        columns = ["rank", "model", "accuracy", "± 95 % CI (examples)", "vs next", "n"]
        table = Table("Ranking by accuracy (± 95 %, Agresti-Coull)", columns, [[*row, n[row[1]]] for row in rows])
        summary = {"best": rows[0][1], "ranking": [row[1] for row in rows],
                   "within noise": [f"{a} vs {b}" for a, b in ties],
                   **({"not ranked (not above chance)": unable} if unable else {})}
        return Result(summary, [table], {"kind": "accuracy-compare", "ranking": rows})

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        from robust import ReportParts, ranking_sentence
        from robust.toolkit.figures import ranking_figure

        if result.data.get("kind") == "accuracy-compare":
            rows = result.data["ranking"]
            ties = [tuple(pair.split(" vs ")) for pair in result.summary.get("within noise", [])]
            return ReportParts(ranking_sentence(rows, ties, "accuracy"), [("Accuracy by run (± 95 %)",
                                                                          ranking_figure(rows, "accuracy"))])
        rows = list(records.values())
        names = _label_names(rows, labels)
        by_label = [(row[0], row[2]) for row in result.tables[0].rows] if result.tables else []
        s = result.summary
        low, high = s.get("accuracy_ci_low"), s.get("accuracy_ci_high")
        ci = f" (95 % interval {100 * low:.1f}–{100 * high:.1f})" if low is not None and high is not None else ""
        text = f"Accuracy {100 * s['accuracy']:.1f}\u00a0%{ci} on {s['n']} examples"
        text = lead_with_chance(result.data.get("chance"), text)
        if len({acc for _, acc in by_label}) > 1:
            label, acc = min(by_label, key=lambda x: x[1])
            text += f"; lowest on label {label} ({100 * acc:.1f}\u00a0%)"
        return ReportParts(text + ".", [("Confusion matrix (rows: gold label, columns: prediction)",
                                         confusion_figure(rows, names))])


def _label_names(rows: Sequence[Mapping[str, Any]], labels: Sequence[Any] | None) -> dict[int, str]:
    """Class index -> the label as the data writes it (from records that keep both), else the model's class name."""
    names = {i: str(name) for i, name in enumerate(labels or [])}
    names.update({int(r["gold"]): str(r["label"]) for r in rows if "label" in r and "gold" in r})
    return names


def confusion_figure(rows: Sequence[Mapping[str, Any]], names: Mapping[int, str]) -> Any:
    """Counts of (gold, predicted) class, labelled as in the data; None without records."""
    if not rows:
        return None
    from matplotlib.figure import Figure

    classes = sorted({int(r["gold"]) for r in rows} | {int(r["pred"]) for r in rows})
    counts = [[sum(1 for r in rows if r["gold"] == g and r["pred"] == p) for p in classes] for g in classes]
    size = 1.6 + 0.55 * len(classes)
    fig = Figure(figsize=(size + 1.2, size))
    ax = fig.add_subplot()
    ax.imshow(counts, cmap="Blues")
    top = max(max(row) for row in counts) or 1
    for i, row in enumerate(counts):
        for j, c in enumerate(row):
            ax.text(j, i, str(c), ha="center", va="center", color="white" if c > top / 2 else "black", fontsize=9)
    ticks = [names.get(c, str(c)) for c in classes]
    ax.set_xticks(range(len(classes)), ticks, rotation=30 if len(classes) > 3 else 0, fontsize=8)
    ax.set_yticks(range(len(classes)), ticks, fontsize=8)
    ax.set_xlabel("prediction")
    ax.set_ylabel("gold label")
    fig.tight_layout()
    return fig


@hookimpl
def register_benchmarks(register):
    register(Accuracy)


@hookimpl
def register_scorers(register):
    register(AccuracyScore)
