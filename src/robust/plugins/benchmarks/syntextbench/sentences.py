"""SynTextBench's registered pieces: the synthetic sentence generator (a DataGenerator) and the score (a Scorer)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from robust.core.errors import RobustError, unknown
from robust.core.interfaces import DataGenerator, Example, ModelAdapter, Scorer
from robust.core.lazy import np
from robust.core.seeding import rng_for
from robust.core.settings import Setting
from robust.plugins.benchmarks.syntextbench.generator import GeneratorConfig, SyntheticTask, make_task
from robust.plugins.benchmarks.syntextbench.lexicon import LexiconGenerator, WordLists, word_lists_from_examples
from robust.plugins.benchmarks.syntextbench.scoring import (
    SCALINGS,
    crossfit_point,
    score_replicates,
    syntextbench_score,
    task_point,
)
from robust.toolkit.stats import interval

DEFAULT_LEXICON = "afinn"
SECONDARY_A_T = 0.6  # spec §6 A2: also report a_T = 0.6
PROBABILITY = {"min": 0.0, "max": 1.0}


class SyntheticSentences(DataGenerator):
    name = "syntextbench-sentences"
    description = "SynTextBench's synthetic sentiment sentences at neutral share p (labels +1/-1, spec §2)"
    settings = {
        "lexicon": Setting("", help="a registered lexicon; '' = sentiwordnet if lexicon_path is set, else afinn"),
        "lexicon_path": Setting("", help="SentiWordNet file (else $ROBUST_SENTIWORDNET or an NLTK data dir)"),
        "dedupe": Setting(False, help="dedupe the word lists (not the paper's counts, spec §2.1)"),
        "n": Setting(256, min=8, help="sentences (paper: 8192)"),
        "p": Setting(0.0, **PROBABILITY, help="neutral mixing ratio"),
        "trial": Setting(0, min=0, help="independent regeneration index"),
        "p_e": Setting(1 / 12, min=1e-6, max=1.0, help="<eos> probability (mean length 1/p_e)"),
        "p_n": Setting(0.5, **PROBABILITY, help="probability to pop the last unpaired word"),
        "max_len": Setting(128, min=1, help="safety truncation, not in the paper"),
        "split": Setting("holdout", choices=("holdout", "independent")),
        "test_frac": Setting(0.1, min=0.01, max=0.99, help="held-out share of n (split=holdout)"),
    }

    def lexicon_name(self) -> str:
        return self.config["lexicon"] or ("sentiwordnet" if self.config["lexicon_path"] else DEFAULT_LEXICON)

    def word_lists(self) -> WordLists:
        """The lexicon plugin named by the settings, as word lists (read once per process)."""
        name = self.lexicon_name()
        if not self.ctx.registry.has("dataset", name):
            lexicons = [e.name for e in self.ctx.registry if e.kind == "dataset" and hasattr(e.target, "word_lists")]
            raise unknown("lexicon", name, lexicons)
        entry = self.ctx.registry.get("dataset", name)
        options: dict[str, Any] = {}
        accepted = entry.settings
        if self.config["lexicon_path"]:
            if "path" not in accepted:
                raise RobustError(f"lexicon {name!r} takes no lexicon_path")
            options["path"] = self.config["lexicon_path"]
        if "dedupe" in accepted:
            options["dedupe"] = self.config["dedupe"]
        key = (entry.qualified, tuple(sorted(options.items())), bool(self.config["dedupe"]))
        if key not in _WORD_LISTS:
            _WORD_LISTS[key] = _word_lists(entry, options, bool(self.config["dedupe"]))
        return _WORD_LISTS[key]

    def task(self, seed: int) -> SyntheticTask:
        """The labelled dataset at level p of trial `trial` (depends on seed, trial and p only)."""
        c = self.config
        lists = self.word_lists()
        rng = rng_for(seed, "syntextbench", "corpus", c["trial"], f"{c['p']:.4f}")
        cfg = GeneratorConfig(float(c["p_e"]), float(c["p_n"]), int(c["max_len"]))
        return make_task(int(c["n"]), float(c["p"]), lists.pos, lists.neg, lists.neu, rng, cfg, c["split"],
                         float(c["test_frac"]))

    def examples(self, seed: int = 0) -> Iterator[Example]:
        task = self.task(seed)
        for split, texts, ys in (("train", task.train_texts, task.train_y), ("test", task.test_texts, task.test_y)):
            for i, (text, y) in enumerate(zip(texts, ys)):
                yield Example(f"{split}-{i:05d}", text, int(y), meta={"split": split})


_WORD_LISTS: dict[tuple, WordLists] = {}  # read once per process


def _word_lists(entry: Any, options: dict[str, Any], dedupe: bool) -> WordLists:
    lexicon = entry.create(**options)
    if isinstance(lexicon, LexiconGenerator):
        return lexicon.word_lists()
    lists = word_lists_from_examples(entry.name, lexicon.examples(0))
    return lists.deduped() if dedupe else lists


class SynTextBenchScore(Scorer):
    name = "syntextbench"
    description = "SynTextBench score: robustness-accuracy of embeddings on synthetic tasks vs the Bayes reference"
    inputs = frozenset({"train_embeddings", "train_labels", "test_embeddings", "test_labels", "trial", "p"})
    settings = {
        "energy": Setting(0.99, min=1e-6, max=1.0, help="spectral energy kept by the whitening"),
        "scaling": Setting("ratio", choices=SCALINGS),
        "debias": Setting(True, help="d_inter without its finite-sample bias"),
        "a_T": Setting(0.7, min=0.5, max=0.999, help="accuracy threshold of the score (eq. 5.4)"),
        "folds": Setting(1, min=1, help="1 = the given train/test split (the paper); K = K-fold cross-fitting "
                                        "of train + test"),
        "bootstrap": Setting(1000, min=0, help="resamples of the held-out sentences for the interval"),
    }

    def values(self, rows: Sequence[Mapping[str, Any]], model: ModelAdapter | None = None) -> list[dict[str, Any]]:
        """(a_p, δ_p, K, D, d_inter, d_intra) of each task ([P] Alg. 1 lines 4-7) and the signed scaled margin
        of every held-out sentence, per class (for the bootstrap)."""
        c = self.config
        options = {"energy": float(c["energy"]), "scaling": c["scaling"], "debias": bool(c["debias"])}
        out = []
        for r in rows:
            if int(c["folds"]) > 1:
                Z = np.vstack([r["train_embeddings"], r["test_embeddings"]])
                y = np.concatenate([r["train_labels"], r["test_labels"]])
                point = crossfit_point(Z, y, int(c["folds"]), direction=r.get("direction"), **options)
            else:
                point = task_point(r["train_embeddings"], r["train_labels"], r["test_embeddings"],
                                   r["test_labels"], direction=r.get("direction"), **options)
            out.append(point.to_dict())
        return out

    def summarize(self, values: Sequence[Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """The score per trial over its levels, then mean and spread over trials, at a_T and at 0.6; and a 95 %
        percentile bootstrap interval over the held-out sentences (`score_ci_low/high`, `score_se`)."""
        out: dict[str, float] = {}
        by_trial: dict[int, list[tuple[float, dict]]] = {}
        for value, row in zip(values, rows):
            by_trial.setdefault(row["trial"], []).append((row["p"], value))
        ordered = [sorted(pts, key=lambda t: t[0]) for pts in by_trial.values()]
        a_T = float(self.config["a_T"])
        for threshold, key in ((a_T, "score"), (SECONDARY_A_T, f"score_aT{SECONDARY_A_T}")):
            scores = [syntextbench_score([v["accuracy"] for _, v in pts], [v["margin"] for _, v in pts], threshold)
                      for pts in ordered]
            out[key] = float(np.mean(scores))
            out[f"{key}_std"] = float(np.std(scores)) if len(scores) > 1 else 0.0
        tasks = [(row["trial"], value["margins"]) for value, row in zip(values, rows) if value.get("margins")]
        usable = len(tasks) == len(values) and int(self.config["bootstrap"]) > 0
        margins = [(t, [np.array(m, dtype=float) for m in ms]) for t, ms in tasks]  # None -> NaN (chance)
        for threshold, key in ((a_T, "score"), (SECONDARY_A_T, f"score_aT{SECONDARY_A_T}")):
            # the same resamples for both thresholds (same seed); records without margins (older runs): NaN
            ci = interval(score_replicates(margins, threshold, int(self.config["bootstrap"]),
                                           self.ctx.seed_for("syntextbench", "bootstrap")) if usable else [])
            out.update({f"{key}_ci_low": ci.low, f"{key}_ci_high": ci.high, f"{key}_se": ci.se})
        return out
