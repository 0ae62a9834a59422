"""The evaluated examples: `--data PATH` or a registered dataset, and RobTest's deterministic sample."""

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
