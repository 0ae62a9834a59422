"""Built-in datasets: the Pang & Lee movie-review sentences (MR), split deterministically."""

from __future__ import annotations

import csv
from collections.abc import Iterator

import numpy as np

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
            rows = list(csv.reader(f))
        # the file is sorted by label: a fixed permutation (independent of the run seed) mixes it once
        order = np.random.default_rng(20040101).permutation(len(rows))
        for rank, i in enumerate(order):
            held_out = rank % 5 == 0
            if split == "all" or held_out == (split == "test"):
                label, text = rows[i]
                yield Example(id=f"mr-{i:04d}", text=text.strip(), label=MR_LABELS[label.strip()])


class MovieReviewTrain(MovieReviewSentences):
    name = "mr-train"
    description = "Pang & Lee MR sentences, training split (3,200; disjoint from `mr`)"
    settings = {"split": "train"}


@hookimpl
def register_datasets(register):
    register(MovieReviewSentences)
    register(MovieReviewTrain)
