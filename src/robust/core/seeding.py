"""Every random choice flows from (run seed, item id), so order and resumption never change results."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed from a base seed and any labels (item id, trial, ...), stable across runs and platforms."""
    text = "\x1f".join([str(int(seed)), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def rng_for(seed: int, *parts: object) -> np.random.Generator:
    """A numpy Generator seeded by `derive_seed`."""
    import numpy as np

    return np.random.default_rng(derive_seed(seed, *parts))
