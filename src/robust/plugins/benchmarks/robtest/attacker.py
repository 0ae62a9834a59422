"""`saliency-greedy`: RobTest's score-based attacker as a reusable Attacker plugin (spec robtest.md §3.2)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from robust.core.errors import RobustError
from robust.core.interfaces import Attacker, Example, ModelAdapter, Transform
from robust.plugins.benchmarks.robtest.search import GreedyConfig, drive, search_for

if TYPE_CHECKING:
    import numpy as np


class SaliencyGreedy(Attacker):
    name = "saliency-greedy"
    description = ("Greedy by word saliency (mask each word, score the predicted class), 15% of words per round, "
                   "edits from any Transform; RobTest's score-based access")
    needs = frozenset({"classify"})
    settings = {"transform": "typo-G", "ratio": 0.15, "mask_token": "[MASK]", "faithful": False,
                "draws": 100, "stop_on_flip": False, "candidates": 15, "max_steps": 10}

    def __init__(self, transform: Transform | None = None, **config: Any) -> None:
        super().__init__(**config)
        if transform is not None:
            self.__dict__["transform"] = transform

    @cached_property
    def transform(self) -> Transform:
        """The Transform whose unit edits the search applies (setting `transform`, a registered name)."""
        from robust.core.plugins import get_registry

        entry = get_registry().get("attack", self.config["transform"])
        transform = entry.create()
        if not isinstance(transform, Transform):
            raise RobustError(f"saliency-greedy needs a Transform; {self.config['transform']!r} is not one")
        return transform

    @property
    def search_config(self) -> GreedyConfig:
        c = self.config
        return GreedyConfig(ratio=float(c["ratio"]), mask_token=c["mask_token"], faithful=bool(c["faithful"]),
                            draws=int(c["draws"]), stop_on_flip=bool(c["stop_on_flip"]),
                            candidates=int(c["candidates"]), max_steps=int(c["max_steps"]))

    def attack(self, example: Example, model: ModelAdapter, degree: float, rng: np.random.Generator) -> list[Example]:
        search = search_for(self.transform, example.text, degree, rng, self.search_config)
        texts = drive([search], model.classify)[0]
        return [example.with_text(t, attack=self.name, edit=self.transform.name, degree=degree) for t in texts]
