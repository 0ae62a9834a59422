"""Fixtures for the ASR-predictor tests: the authors' stored tables (skipped when absent) and synthetic tables
whose ground truth is known (features that do / do not carry over between corpora)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robust.plugins.benchmarks.asr_predict.constants import FEATURE_KEYS
from robust.plugins.benchmarks.asr_predict.table import Table

REPO = Path(__file__).resolve().parents[2]
CANDIDATES = (REPO.parent / "shared" / "data" / "robusttext",)


def robusttext_dir() -> Path | None:
    """The authors' tables in the data folder beside the repository (`CANDIDATES`), if present."""
    for path in CANDIDATES:
        if (path / "data_bert.csv").is_file() and (path / "data_roberta.csv").is_file():
            return path
    return None


@pytest.fixture(scope="session")
def robusttext() -> Path:
    path = robusttext_dir()
    if path is None:
        pytest.skip("the authors' regression tables data_bert.csv / data_roberta.csv are not in "
                    f"{' or '.join(map(str, CANDIDATES))} (they are never committed)")
    return path


def synthetic_table(kind: str, n_families: int = 6, per_variant: int = 15, seed: int = 0) -> Table:
    """Two variants per family. kind='fingerprint': each family has its own feature region and its own ASR level,
    unrelated across families (features identify the corpus but do not transfer). kind='transfer': ASR is the
    same linear function of two features in every family (features transfer)."""
    rng = np.random.default_rng(seed)
    X, y, variant, family = [], [], [], []
    for f in range(n_families):
        centre = rng.normal(0, 3, len(FEATURE_KEYS))
        level = rng.uniform(0.2, 0.9)
        for v in range(2):
            for _ in range(per_variant):
                x = centre + rng.normal(0, 0.3, len(FEATURE_KEYS))
                if kind == "fingerprint":
                    target = level + rng.normal(0, 0.02)
                else:
                    target = 0.5 + 0.05 * x[0] - 0.04 * x[1] + rng.normal(0, 0.02)
                X.append(x)
                y.append(target)
                variant.append(f"fam{f}_{2 + 2 * v}")
                family.append(f"fam{f}")
    return Table(np.array(X), np.array(y), np.array(variant), np.array(family), FEATURE_KEYS)
