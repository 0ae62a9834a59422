"""The hand-labelled perturbations (tests/robtest/data/perturbation_labels.tsv, criteria in its header).

1. The labels say what docs/validation/robtest.md reports: the new transforms are accepted more often than
   today's main in every dimension that changed, and Synonym's local meaning check more often than the code
   before it on held-out sentences (its threshold was chosen on the first 50).
2. Regression: the transforms, run again on the labelled originals with the labelled seeds, produce exactly the
   labelled NEW texts, so their acceptance is the labelled one (a behaviour change shows up here and needs
   relabelling, never a silent drop in quality).
3. Negative control: a deliberately worse variant (each transform's `faithful` mode, the public code's
   candidate rules) does not reproduce the accepted texts.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from robust.core.interfaces import Example
from robust.core.plugins import get_registry

LABELS = Path(__file__).parent / "data" / "perturbation_labels.tsv"
BLIND = Path(__file__).parent / "data" / "perturbation_labels_blind.tsv"  # second labels, made blind
CHANGED = {"typo", "glyph", "phonetic", "synonym", "contextual", "inflection", "syntax", "distraction"}
#: dimensions whose regeneration loads only light resources (the others need smollm2 or many embeddings)
FAST = ("typo", "glyph", "phonetic", "synonym", "inflection")


def rows(path: Path = LABELS) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")), delimiter="\t"))


def rates(path: Path = LABELS) -> dict[tuple[str, str], float]:
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for row in rows(path):
        groups[row["dimension"], row["version"]].append(int(row["label"]))
    return {key: float(np.mean(values)) for key, values in groups.items()}


def test_at_least_50_labelled_pairs_per_dimension_and_version():
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for row in rows():
        assert row["label"] in ("0", "1")
        counts[row["dimension"], row["version"]] += 1
    assert counts and all(n >= 50 for n in counts.values())


def test_new_transforms_are_accepted_more_often_where_they_changed():
    r = rates()
    for dimension in CHANGED:
        if (dimension, "new") in r:
            assert r[dimension, "new"] > r[dimension, "old"], dimension
    assert r["synonym", "heldout-new"] > r["synonym", "heldout-prev"]
    assert r["inflection", "new"] > r["inflection", "old"] and r["syntax", "new"] > r["syntax", "old"]


def kappa(a: list[int], b: list[int]) -> float:
    """Cohen's kappa of two binary labellings."""
    observed = np.mean([x == y for x, y in zip(a, b, strict=True)])
    pa, pb = np.mean(a), np.mean(b)
    chance = pa * pb + (1 - pa) * (1 - pb)
    return float((observed - chance) / (1 - chance))


def test_blind_second_labels_agree_and_rank_the_versions_the_same_way():
    """Synonym, contextual, inflection and syntax pairs labelled again by annotators who saw neither version nor
    tool."""
    blind = {(r["dimension"], r["version"], r["index"]): int(r["label"]) for r in rows(BLIND)}
    labelled = {("synonym", "new"), ("synonym", "heldout-prev"), ("synonym", "heldout-new"), ("contextual", "new"),
                ("contextual", "old"), ("inflection", "new"), ("inflection", "old"), ("syntax", "new"),
                ("syntax", "old")}
    author = {(r["dimension"], r["version"], r["index"]): int(r["label"]) for r in rows()
              if (r["dimension"], r["version"]) in labelled}
    assert blind.keys() == author.keys() and len(blind) == 450
    keys = sorted(blind)
    assert kappa([author[k] for k in keys], [blind[k] for k in keys]) > 0.6  # 0.83 over these rows
    shuffled = np.random.default_rng(0).permutation([blind[k] for k in keys])  # negative control: no agreement
    assert kappa([author[k] for k in keys], list(shuffled)) < 0.2
    r = rates(BLIND)
    assert r["contextual", "new"] > r["contextual", "old"]
    assert r["synonym", "heldout-new"] > r["synonym", "heldout-prev"]
    assert r["inflection", "new"] > r["inflection", "old"] and r["syntax", "new"] > r["syntax", "old"]


def regenerate(dimension: str, mode: str | None = None) -> list[tuple[dict[str, str], str]]:
    labelled = [row for row in rows() if row["dimension"] == dimension and row["version"] in ("new", "heldout-new")]
    registry = get_registry()
    rows_of: dict[str, list[dict[str, str]]] = {}
    for row in labelled:
        rows_of.setdefault(row["tag"], []).append(row)
    transforms = {}
    for tag, mine in rows_of.items():  # helper models batched across the rows, as RobTest does
        transforms[tag] = registry.get("transform", tag).create(**({"mode": mode} if mode else {}))
        transforms[tag].precompute([row["original"] for row in mine], sorted({float(row["degree"]) for row in mine}))
    out = []
    for row in labelled:
        rng = np.random.default_rng([0, int(row["index"])])
        variants = transforms[row["tag"]].apply(Example(row["example"], row["original"]), float(row["degree"]), rng)
        out.append((row, variants[int(rng.integers(len(variants)))].text))
    return out


@pytest.mark.parametrize("dimension", FAST)
def test_transforms_reproduce_the_labelled_new_outputs(dimension):
    pairs = regenerate(dimension)
    if not pairs:
        pytest.skip(f"no NEW labels for {dimension}")
    assert [text for _, text in pairs] == [row["perturbed"] for row, _ in pairs]


@pytest.mark.slow
@pytest.mark.parametrize("dimension", ("contextual", "syntax", "distraction"))
def test_model_backed_transforms_reproduce_the_labelled_new_outputs(dimension):
    pairs = regenerate(dimension)
    if not pairs:
        pytest.skip(f"no NEW labels for {dimension}")
    assert [text for _, text in pairs] == [row["perturbed"] for row, _ in pairs]


@pytest.mark.parametrize("dimension", ("phonetic", "synonym", "inflection"))
def test_negative_control_faithful_candidates_miss_the_accepted_texts(dimension):
    accepted = {(row["index"], row["perturbed"]) for row in rows()
                if row["dimension"] == dimension and row["version"] in ("new", "heldout-new") and row["label"] == "1"}
    if not accepted:
        pytest.skip(f"no NEW labels for {dimension}")
    pairs = regenerate(dimension, mode="faithful")
    hits = sum((row["index"], text) in accepted for row, text in pairs)
    assert hits < 0.5 * len(accepted)
