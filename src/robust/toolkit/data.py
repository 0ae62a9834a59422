"""Examples read and checked for a benchmark: every example of a file or registered dataset (through
`RunContext.open_data`), labelled when required, with unique ids; the held-out ones a model was not trained on."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robust.core.data import ROWS_SUFFIX, where
from robust.core.errors import RobustError
from robust.core.interfaces import DataGenerator, Example
from robust.core.labels import label_index, label_problem

__all__ = ["ROWS_SUFFIX", "content_hash", "held_out_examples", "label_problem", "load_examples", "open_data",
           "same_data", "where"]


def open_data(spec: str, ctx: Any, **options: Any) -> DataGenerator:
    """A DataGenerator for a path (the `file` dataset, configured by `options`) or a registered dataset name."""
    return ctx.open_data(spec, **options)


def _example_at(spec: str, example_id: str) -> str:
    """An example as errors name it: a file's by its line (or row), rows passed in memory by their index."""
    return where(spec, int(example_id)) if Path(spec).exists() else f"{spec}: example {example_id}"


def _label_key(label: Any) -> Any:
    """A label as a set key: its type and value (1 and "1" are two labels; so are 1 and True), or the label's
    identity where it is not a string or an integer (unhashable, and refused anyway)."""
    return (type(label), label) if isinstance(label, (str, int)) else id(label)


def load_examples(spec: str, ctx: Any, labelled: bool = True, labels: Sequence[Any] | None = None,
                  limit: int | None = None, **options: Any) -> list[Example]:
    """Every example of `spec` (at most `limit`), checked: non-empty, labelled when required (by `labels` when
    given), unique ids. `options` configure the `file` dataset when `spec` is a path."""
    out: list[Example] = []
    valid: set[Any] = set()  # labels found valid (a dataset has a few, each checked once)
    for ex in open_data(spec, ctx, **options).examples(ctx.seed):
        if labelled and _label_key(ex.label) not in valid:
            problem = "has no label" if ex.label is None else label_problem(ex.label, labels)
            if problem:
                raise RobustError(f"{_example_at(spec, ex.id)}: {problem}")
            valid.add(_label_key(ex.label))
        out.append(ex)
        if limit is not None and len(out) >= limit:
            break
    if not out:
        raise RobustError(f"{where(spec)}: no examples")
    if len({ex.id for ex in out}) != len(out):
        raise RobustError(f"{where(spec)}: example ids repeat")
    return out


def held_out_examples(spec: str, ctx: Any, model: Any, limit: int | None = None, **options: Any) -> list[Example]:
    """The labelled examples of `spec` that `model` was not trained on (`ModelAdapter.trained_on`), at most
    `limit` of them: what a benchmark may test the model on (a victim is never tested on what it learned from)."""
    trained = model.trained_on(spec) or frozenset()
    stop = None if limit is None else limit + len(trained)
    examples = [ex for ex in load_examples(spec, ctx, labels=model.labels, limit=stop, **options)
                if ex.id not in trained][:limit]
    firsts: dict[Any, Example] = {}
    for ex in examples:
        firsts.setdefault(_label_key(ex.label), ex)
    for ex in firsts.values():  # every gold label is a class of the model, before a run exists (asked once a label)
        try:
            label_index(model, ex.label)
        except RobustError as exc:
            raise RobustError(f"{_example_at(spec, ex.id)}: {exc}") from None
    if not examples:
        raise RobustError(f"{where(spec)}: the model was trained on every example; nothing is left to test it on (give "
                          "other data, or a model that holds out a share of its training data: finetune:)")
    return examples


def same_data(a: str, b: str) -> bool:
    """Whether two data specs name the same data: the same registered name, or paths to the same file (a model's
    `trained_on` asks it of the data a benchmark evaluates and the data the model was trained on)."""
    return a == b or (Path(a).exists() and Path(b).exists() and Path(a).resolve() == Path(b).resolve())


def content_hash(examples: Sequence[Example]) -> str:
    """A short hash of texts and labels, for caching things trained on a dataset."""
    h = hashlib.sha256()
    for ex in examples:
        h.update(f"{ex.text}\x1f{ex.label}\x1e".encode())
    return h.hexdigest()[:16]
