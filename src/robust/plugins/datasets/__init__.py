"""Built-in datasets: the Pang & Lee movie-review sentences (MR), split deterministically."""

from __future__ import annotations

import csv
from collections.abc import Iterator

from robust.core.errors import RobustError
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import DataGenerator, Example
from robust.core.resources import mr_path

MR_LABELS = {"1": "positive", "-1": "negative"}


class MovieReviewSentences(DataGenerator):
    name = "mr"
    description = "Pang & Lee sentence polarity (MR), 4,000 sentences; split test = every 5th (800), train = rest"
    settings = {"split": "test"}

    def examples(self, seed: int = 0) -> Iterator[Example]:
        split = self.config["split"]
        if split not in ("test", "train", "all"):
            raise RobustError(f"unknown split {split!r} for dataset mr; choose test, train or all")
        with mr_path("sentences").open(encoding="utf-8-sig", newline="") as f:
            for i, (label, text) in enumerate(csv.reader(f)):
                held_out = i % 5 == 0
                if split == "all" or held_out == (split == "test"):
                    yield Example(id=f"mr-{i:04d}", text=text.strip(), label=MR_LABELS[label.strip()])


class MovieReviewTrain(MovieReviewSentences):
    name = "mr-train"
    description = "Pang & Lee MR sentences, training split (3,200; disjoint from `mr`)"
    settings = {"split": "train"}


@hookimpl
def register_datasets(register):
    register(MovieReviewSentences)
    register(MovieReviewTrain)
