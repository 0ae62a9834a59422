"""Can the classifier do the task at all? Its clean accuracy with a Wilson 95 % interval over the examples, beside
the majority-class rate (what always answering the commonest gold class scores). A model whose interval reaches
down to that rate is not shown to do better than chance, and its robustness numbers rank nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from robust.toolkit.stats import wilson


def class_names(model: Any, rows: Iterable[Mapping[str, Any]]) -> dict[Any, Any]:
    """Class index -> name: the model's `labels`, else the data's labels of the records' `gold` indices."""
    labels = getattr(model, "labels", None)
    if labels:
        return dict(enumerate(labels))
    return {r["gold"]: r["label"] for r in rows if "label" in r and "gold" in r}


def chance_check(golds: Sequence[Any], correct: Sequence[bool],
                 names: Mapping[Any, Any] | None = None) -> dict[str, Any]:
    """`clean_accuracy` with `clean_accuracy_ci_low/high` (Wilson 95 %, over the n examples), `majority_rate`,
    `majority_class` (the commonest gold), `majority_label` (its name in `names`, see `class_names`; else the
    gold itself) and `above_chance` (the interval's lower end is above the majority rate)."""
    n = len(golds)
    if not n:
        return {}
    k = sum(bool(c) for c in correct)
    low, high = wilson(k, n)
    (majority, count), = Counter(golds).most_common(1)
    rate = count / n
    return {"clean_accuracy": k / n, "clean_accuracy_ci_low": low, "clean_accuracy_ci_high": high, "n": n,
            "majority_rate": rate, "majority_class": majority,
            "majority_label": (names or {}).get(majority, majority), "above_chance": bool(low > rate)}


def _percent(share: float) -> str:
    return f"{100 * share:.0f}\u00a0%"


def chance_sentence(check: dict[str, Any], name: Any = None) -> str:
    """The sentence a report leads with when the model is not above chance ('' when it is): its clean accuracy
    with the interval, and either that the accuracy itself is not above the majority rate or that the interval
    reaches down to it, naming the majority class by its label (`name`, else the check's `majority_label`)."""
    if not check or check["above_chance"]:
        return ""
    label = name if name is not None else check.get("majority_label", check["majority_class"])
    accuracy, low, high, rate = (check["clean_accuracy"], check["clean_accuracy_ci_low"],
                                 check["clean_accuracy_ci_high"], check["majority_rate"])
    always = f"the {_percent(rate)} that always answering {str(label)!r} would score"
    measured = (f"its clean accuracy is {_percent(accuracy)} (95 % interval {100 * low:.0f}–{_percent(high)}, "
                f"{check['n']} examples)")
    if accuracy <= rate:
        return (f"The model cannot do this task: {measured}, no better than {always}, "
                "so its robustness numbers rank nothing.")
    reach = "past" if low < rate else "to"
    return (f"The model is not shown to do this task: {measured}, but that interval reaches down {reach} {always}, "
            "so it is not clearly above chance and its robustness numbers rank nothing.")


def chance_summary(check: dict[str, Any]) -> dict[str, Any]:
    """The summary's `majority_rate` and, when the model is not above chance, its `cannot do the task` sentence."""
    if not check:
        return {}
    return {"majority_rate": check["majority_rate"],
            **({} if check["above_chance"] else {"cannot do the task": chance_sentence(check)})}


def above_chance(data: Mapping[str, Any]) -> bool:
    """Whether a result's data shows its model above chance (a result without a `chance` check is taken to)."""
    return bool((data.get("chance") or {"above_chance": True})["above_chance"])


def lead_with_chance(check: dict[str, Any], text: str) -> str:
    """A headline led by the chance sentence when the model is not above chance."""
    unable = chance_sentence(check or {})
    return f"{unable} {text}" if unable else text
