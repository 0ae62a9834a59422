"""What a benchmark sees while it runs: the model, its settings, seeds, data and the registry."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robust.core.seeding import derive_seed, rng_for

if TYPE_CHECKING:
    import numpy as np

    from robust.core.interfaces import ModelAdapter
    from robust.core.registry import Registry


@dataclass
class RunContext:
    run_id: str
    seed: int
    model: ModelAdapter | None
    registry: Registry
    data: str | None = None
    limit: int | None = None
    attacks: list[str] = field(default_factory=list)
    out_dir: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def seed_for(self, *parts: object) -> int:
        """The seed of an item (or any labelled random choice) in this run."""
        return derive_seed(self.seed, *parts)

    def rng(self, *parts: object) -> np.random.Generator:
        """A numpy Generator for an item id (or other labels) in this run."""
        return rng_for(self.seed, *parts)
