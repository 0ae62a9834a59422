"""Can the classifier do the task at all? Its clean accuracy with a Wilson 95 % interval over the examples, beside
the majority-class rate (what always answering the commonest gold class scores). A model whose interval reaches
down to that rate is not shown to do better than chance, and its robustness numbers rank nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from robust.toolkit.stats import wilson


def chance_check(golds: Sequence[Any], correct: Sequence[bool]) -> dict[str, Any]:
    """`clean_accuracy` with `clean_accuracy_ci_low/high` (Wilson 95 %, over the n examples), `majority_rate`,
    `majority_class` and `above_chance` (the interval's lower end is above the majority rate)."""
    n = len(golds)
    if not n:
        return {}
    k = sum(bool(c) for c in correct)
    low, high = wilson(k, n)
    (majority, count), = Counter(golds).most_common(1)
    rate = count / n
    return {"clean_accuracy": k / n, "clean_accuracy_ci_low": low, "clean_accuracy_ci_high": high, "n": n,
            "majority_rate": rate, "majority_class": majority, "above_chance": bool(low > rate)}


def chance_sentence(check: dict[str, Any], name: Any = None) -> str:
    """The sentence a report leads with when the model is not above chance ('' when it is)."""
    if not check or check["above_chance"]:
        return ""
    return (f"The model cannot do this task: its clean accuracy {100 * check['clean_accuracy']:.0f}\u00a0% "
            f"(95 % interval {100 * check['clean_accuracy_ci_low']:.0f}–{100 * check['clean_accuracy_ci_high']:.0f}"
            f", {check['n']} examples) is not above the {100 * check['majority_rate']:.0f}\u00a0% of always answering "
            f"{name if name is not None else check['majority_class']!r}, so its robustness numbers rank nothing.")


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
