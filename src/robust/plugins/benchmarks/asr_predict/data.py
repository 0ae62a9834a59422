"""Labelled corpora available offline for building a regression table (docs/asr_predict.md), their relabelled variants
(Dang et al. 2024, §5: the random label grouping of the authors' `process_data.py`) and the sub-dataset sampling of Dang
et al. 2024, §3.1 with the sizes of docs/asr_predict.md (train / val disjoint, a fixed attack set and a fixed MR set per
variant from a held-out 20 %).

Families: `wn-noun` (noun glosses labelled by their lexicographer file, 26 classes), `wn-verb` (verb glosses,
15 classes), `wn-examples` (the quoted example sentences inside glosses, labelled by lexicographer file),
`mr` (Pang & Lee sentences, positive/negative).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from robust import RobustError

_EXAMPLE = re.compile(r'"([^"]{20,})"')


@dataclass(frozen=True)
class Corpus:
    """Texts with integer labels 0..K-1 (`names` gives each label's original name)."""

    name: str
    family: str
    texts: tuple[str, ...]
    labels: tuple[int, ...]
    names: tuple[str, ...]

    @property
    def n_classes(self) -> int:
        return len(self.names)


def _lexnames(wordnet_dir: Path) -> dict[str, str]:
    out = {}
    for line in (wordnet_dir / "lexnames").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2:
            out[fields[0]] = fields[1]
    return out


def wordnet_corpus(wordnet_dir: Path, family: str) -> Corpus:
    """Glosses (or their example sentences) of WordNet 3.0's data files, labelled by lexicographer file."""
    lexnames = _lexnames(wordnet_dir)
    files = {"wn-noun": ("noun",), "wn-verb": ("verb",), "wn-examples": ("noun", "verb", "adj", "adv")}[family]
    texts, names = [], []
    for pos in files:
        with open(wordnet_dir / f"data.{pos}", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith(" "):
                    continue
                fields, _, gloss = line.partition("|")
                lexname = lexnames[fields.split()[1]]
                if family == "wn-examples":
                    found = _EXAMPLE.findall(gloss)
                    texts += found
                    names += [lexname] * len(found)
                else:
                    definition = re.sub(r'"[^"]*"', "", gloss).strip().strip(";").strip()
                    if len(definition.split()) >= 3:
                        texts.append(definition)
                        names.append(lexname)
    return indexed(family, family, texts, names)


def indexed(name: str, family: str, texts: Sequence[str], names: Sequence[str]) -> Corpus:
    classes = sorted(set(names))
    index = {c: i for i, c in enumerate(classes)}
    return Corpus(name, family, tuple(texts), tuple(index[n] for n in names), tuple(classes))


def relabel(corpus: Corpus, k: int, seed: int) -> Corpus:
    """Dang et al. 2024, §5: interval = K_orig // k; labels 0..interval*k-1 shuffled (seeded, once per corpus and k),
    consecutive groups of `interval` become the new labels; rows with a label >= interval*k are dropped."""
    interval = corpus.n_classes // k
    if interval < 1:
        raise RobustError(f"corpus {corpus.family} has {corpus.n_classes} classes; cannot make {k}")
    kept = list(range(interval * k))
    random.Random(f"{seed}/{corpus.family}/{k}").shuffle(kept)
    new = {old: i // interval for i, old in enumerate(kept)}
    rows = [(t, new[y]) for t, y in zip(corpus.texts, corpus.labels) if y in new]
    return Corpus(f"{corpus.family}_{k}", corpus.family, tuple(t for t, _ in rows), tuple(y for _, y in rows),
                  tuple(str(i) for i in range(k)))


@dataclass(frozen=True)
class SubDataset:
    """One row of the regression table: a variant's train/val sample and the variant's fixed attack/MR sets."""

    variant: str
    family: str
    n_classes: int
    train: tuple[tuple[str, int], ...]
    val: tuple[tuple[str, int], ...]
    attack: tuple[tuple[str, int], ...]
    mr_test: tuple[tuple[str, int], ...]


def sample(corpus: Corpus, index: int, sizes: tuple[int, int, int], seed: int) -> SubDataset:
    """Sub-dataset `index` of a variant (Dang et al. 2024, §3.1, Algorithm 1, with docs/asr_predict.md's sizes): the
    attack set and the MR set are drawn once per variant from its held-out 20 %; train and val (disjoint: the code's
    overlap, docs/asr_predict.md, fixed) are drawn afresh per sub-dataset from the other 80 %."""
    n_train, n_val, n_test = sizes
    rows = list(zip(corpus.texts, corpus.labels))
    order = list(range(len(rows)))
    random.Random(f"{seed}/{corpus.name}/split").shuffle(order)
    cut = len(order) // 5
    held, pool = order[:cut], order[cut:]
    if len(held) < 2 * n_test or len(pool) < n_train + n_val:
        raise RobustError(f"corpus variant {corpus.name} has {len(rows)} texts; too few for {n_train}+{n_val} "
                          f"training and 2x{n_test} held-out texts")
    drawn = random.Random(f"{seed}/{corpus.name}/{index}").sample(pool, n_train + n_val)
    pick = lambda ids: tuple(rows[i] for i in ids)  # noqa: E731
    return SubDataset(corpus.name, corpus.family, corpus.n_classes, pick(drawn[:n_train]), pick(drawn[n_train:]),
                      pick(held[:n_test]), pick(held[n_test: 2 * n_test]))


def plan(families: Sequence[str], class_counts: Sequence[int], n: int, seed: int) -> list[tuple[str, int, int]]:
    """(family, k, index) for `n` sub-datasets spread round-robin over the variants (k = 0: the family as is)."""
    variants = [(f, k) for f in families for k in (class_counts if f != "mr" else (0,))]
    if not variants:
        raise RobustError("no corpus variants: set families and class_counts")
    random.Random(seed).shuffle(variants)
    return [(*variants[i % len(variants)], i // len(variants)) for i in range(n)]
