"""Built-in datasets: `file` (any JSONL, CSV/TSV, plain-text file or saved dataset directory: `--data PATH`), and
from the Pang & Lee movie-review data (`robust setup mr`) the MR sentences, split deterministically, and the full
reviews as multi-sentence passages (BYOD's default corpus)."""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterator
from pathlib import Path

from robust import DataGenerator, Example, Setting, hookimpl
from robust.plugins.datasets.file import FileDataset

MR_LABELS = {"1": "positive", "-1": "negative"}
# the files of the `mr` resource's directory
MR_FILES = {"sentences": "polarity-en-pang&lee2.csv", "reviews": "polarity-en-pang&lee1.csv"}


def _file(directory: Path, kind: str) -> tuple[str, int, int]:
    """One of the `mr` resource's files as the caches below key it: its path, size and modification time (what is
    made from it is made again when it changes)."""
    path = directory / MR_FILES[kind]
    stat = path.stat()
    return str(path), stat.st_size, stat.st_mtime_ns


def _rows(directory: Path, kind: str) -> tuple[tuple[str, ...], ...]:
    """The rows of one of the `mr` resource's files, parsed once per process while the file stays the same (a
    run's fixed cost: ~5 ms for the sentences, each run in a process asked again)."""
    return _parsed(*_file(directory, kind))


@functools.lru_cache(maxsize=4)
def _parsed(path: str, size: int, mtime_ns: int) -> tuple[tuple[str, ...], ...]:
    csv.field_size_limit(10_000_000)  # whole reviews are one field
    with open(path, encoding="utf-8-sig", newline="") as f:
        return tuple(map(tuple, csv.reader(f)))


@functools.lru_cache(maxsize=8)
def _sentences(path: str, size: int, mtime_ns: int, split: str) -> tuple[Example, ...]:
    """The MR sentences of a split, made once per process while the file stays the same (an Example is frozen;
    800 of them cost ~1.5 ms a run to make again). The file is sorted by label: a fixed permutation, independent of
    the run seed, mixes it once; every fifth sentence of it is the test split."""
    import numpy as np

    rows = _parsed(path, size, mtime_ns)
    order = np.random.default_rng(20040101).permutation(len(rows))
    out = []
    for rank, i in enumerate(order):
        held_out = rank % 5 == 0
        if split == "all" or held_out == (split == "test"):
            label, text = rows[i]
            out.append(Example(id=f"mr-{i:04d}", text=text.strip(), label=MR_LABELS[label.strip()]))
    return tuple(out)


class MovieReviewSentences(DataGenerator):
    name = "mr"
    description = "Pang & Lee sentence polarity (MR), 4,000 sentences; split test = every 5th (800), train = rest"
    settings = {"split": Setting("test", choices=("test", "train", "all"))}

    def examples(self, seed: int = 0) -> Iterator[Example]:
        yield from _sentences(*_file(self.ctx.resource("mr"), "sentences"), self.config["split"])


class MovieReviewTrain(MovieReviewSentences):
    name = "mr-train"
    description = "Pang & Lee MR sentences, training split (3,200; disjoint from `mr`)"
    settings = {"split": Setting("train", choices=("test", "train", "all"))}


class MovieReviews(DataGenerator):
    """Pang & Lee polarity v2.0: 1,500 full reviews, one sentence per line (lower-cased, tokenized)."""

    name = "mr-reviews"
    description = "Pang & Lee 1,500 full movie reviews as multi-sentence passages (BYOD's default corpus)"

    def examples(self, seed: int = 0) -> Iterator[Example]:
        for k, row in enumerate(_rows(self.ctx.resource("mr"), "reviews")):
            if len(row) < 2:
                continue
            lines = [s.strip() for s in row[1].splitlines() if s.strip()]
            yield Example(f"mr-review-{k}", " ".join(lines), row[0], meta={"sentences": lines})


@hookimpl
def register_datasets(register):
    for dataset in (FileDataset, MovieReviewSentences, MovieReviewTrain, MovieReviews):
        register(dataset)
