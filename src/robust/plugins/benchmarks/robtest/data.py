"""RobTest's deterministic sample of the evaluated examples."""

from __future__ import annotations

import random
from collections.abc import Sequence

from robust import Example


def sample(examples: Sequence[Example], n: int, seed: int) -> list[Example]:
    """RobTest's test subset: `random.seed(seed); random.sample(test, n)` (Chen et al. 2023, §4.1; seed 123)."""
    if n <= 0 or n >= len(examples):
        return list(examples)
    return random.Random(seed).sample(list(examples), n)
