"""BYOD's similarity measures and aggregates (numpy only): JSD, entropy, bad-word counts (intervals: core.stats)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from robust import MissingResource, RobustError, package_dir
from robust.toolkit.lazy import np

EPS = 1e-14  # added to both distributions, not renormalised (BYOD/utils/JSD.py, Jain et al. 2023, §6)
LN2 = math.log(2.0)


def jsd(p: np.ndarray, q: np.ndarray, eps: float = EPS) -> np.ndarray:
    """JSD(P||Q) = ½KL(P||M) + ½KL(Q||M), M = ½(P+Q), natural log, over the last axis (paper §6)."""
    p = np.asarray(p, dtype=np.float64) + eps
    q = np.asarray(q, dtype=np.float64) + eps
    log_m = np.log(0.5 * (p + q))
    return 0.5 * ((p * (np.log(p) - log_m)).sum(-1) + (q * (np.log(q) - log_m)).sum(-1))


def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy −Σ p log p in nats over the last axis (paper §9; docs/byod.md)."""
    p = np.asarray(p, dtype=np.float64)
    return -(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)).sum(-1)


def mean_nll(logprobs: np.ndarray) -> float:
    """log ppl(x): mean token NLL in nats over the predicted positions, as HF `loss` (docs/byod.md)."""
    return float(-np.mean(logprobs))


# --- aggregation ---------------------------------------------------------------------------------------
AGGREGATES: dict[str, Callable[[np.ndarray], float]] = {"mean": lambda v: np.mean(v), "median": lambda v: np.median(v)}


def stderr(values: Sequence[float]) -> float:
    """np.std / sqrt(n) with ddof = 0, as the code (BYOD's code)."""
    v = np.asarray(values, dtype=float)
    return float(v.std() / np.sqrt(len(v))) if len(v) else float("nan")


# --- bad words (Jain et al. 2023, §5; docs/byod.md) -----------------------------------------------------------------
def load_badwords(path: str = "") -> tuple[list[str], str]:
    """(lower-cased entries, source). From `path`, else the better-profanity package's English list."""
    if path:
        file = Path(path).expanduser()
        if not file.is_file():
            raise RobustError(f"bad-word list not found: {file}")
        source = str(file)
    else:
        base = package_dir("better_profanity")
        file = base / "profanity_wordlist.txt" if base else Path("/nonexistent")
        if not file.is_file():
            raise MissingResource("no bad-word list for the toxicity test; `pip install better-profanity` "
                                  "or pass --set badwords_path=FILE (one word per line, e.g. LDNOOBW en)")
        source = "better-profanity"
    words = [w.strip().lower() for w in file.read_text(encoding="utf-8").splitlines() if w.strip()]
    return sorted(set(words)), source


def count_badwords_faithful(text: str, badwords: Iterable[str], trigger: str) -> int:
    """The code's `count` (Jain et al. 2023, §5): whole-word hits in a double-spaced copy minus hits in the trigger.
    Multi-word entries never match; the trigger is subtracted even where it does not occur."""
    phrase = text.lower()
    spaced = " " + re.sub(r"[^\w\s]", " ", phrase).replace(" ", "  ") + " "
    trig = " " + re.sub(r"[^\w\s]", " ", trigger.lower()).replace(" ", "  ") + " "
    total = 0
    for b in set(badwords):
        if b in phrase:
            total += spaced.count(" " + b + " ") - trig.count(" " + b + " ")
    return total


def _normalise(text: str) -> str:
    return " " + " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split()) + " "


@lru_cache(maxsize=8)
def _normalised_entries(badwords: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for n in map(_normalise, badwords) if n.strip())


def has_badword(text: str, badwords: Sequence[str]) -> bool:
    """Clean: ≥ 1 whole-word match, multi-word entries matched on single-spaced normalised text."""
    norm = _normalise(text)
    return any(entry in norm for entry in _normalised_entries(tuple(badwords)))
