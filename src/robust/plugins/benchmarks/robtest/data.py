"""The evaluated examples: `--data PATH` or a registered dataset, a deterministic sample, gold label indices."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import Example


def load_examples(spec: str, registry: Any, text_column: str, label_column: str) -> list[Example]:
    """Labelled examples from a file/directory path or a registered dataset name."""
    from robust.core.datasets import resolve_examples

    examples = resolve_examples(spec, registry, text_column=text_column, label_column=label_column)
    missing = [ex.id for ex in examples if ex.label is None]
    if missing:
        raise RobustError(f"robtest needs labelled data; {spec}: example {missing[0]} has no label")
    ids = [ex.id for ex in examples]
    if len(set(ids)) != len(ids):
        raise RobustError(f"robtest needs unique example ids; {spec} repeats some")
    return examples


def sample(examples: Sequence[Example], n: int, seed: int) -> list[Example]:
    """RobTest's test subset: `random.seed(seed); random.sample(test, n)` (spec §1 step 1; seed 123)."""
    if n <= 0 or n >= len(examples):
        return list(examples)
    return random.Random(seed).sample(list(examples), n)


def gold_indices(examples: Sequence[Example], model: Any) -> list[int]:
    """Class index of each gold label in the model's output order (`model.labels`, else HF `id2label`
    names, else integer labels)."""
    labels = getattr(model, "labels", None)
    if not labels:
        id2label = getattr(getattr(getattr(model, "model", None), "config", None), "id2label", None) or {}
        labels = [id2label[i] for i in sorted(id2label)] if id2label else None
    index: dict[str, int] = {}
    if labels:
        index = {str(lab): i for i, lab in enumerate(labels)}
        index.update({str(lab).lower(): i for i, lab in enumerate(labels) if str(lab).lower() not in index})
    out = []
    for ex in examples:
        key = str(ex.label).strip()
        if key in index or key.lower() in index:
            out.append(index.get(key, index.get(key.lower(), -1)))
        elif not labels and key.lstrip("-").isdigit() and int(key) >= 0:
            out.append(int(key))
        else:
            known = f"the model's labels {list(labels)}" if labels else "integer class indices (the model has no labels)"
            raise RobustError(f"label {ex.label!r} of example {ex.id} is not one of {known}")
    return out
