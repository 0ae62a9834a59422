"""SynTextBench's registered score: a Scorer over per-task embeddings (whitening, Bayes read-out, s(a), the score)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust import ModelAdapter, Scorer, Setting
from robust.plugins.benchmarks.syntextbench.constants import SCALINGS, SECONDARY_A_T
from robust.toolkit.lazy import LazyModule, np

scoring = LazyModule("robust.plugins.benchmarks.syntextbench.scoring")  # imported when a score is computed
stats = LazyModule("robust.toolkit.stats")


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
        """(a_p, δ_p, K, D, d_inter, d_intra) of each task (Ko et al. 2023, Alg. 1 lines 4-7) and the signed scaled
        margin of every held-out sentence, per class (for the bootstrap)."""
        c = self.config
        options = {"energy": float(c["energy"]), "scaling": c["scaling"], "debias": bool(c["debias"])}
        out = []
        for r in rows:
            if int(c["folds"]) > 1:
                Z = np.vstack([r["train_embeddings"], r["test_embeddings"]])
                y = np.concatenate([r["train_labels"], r["test_labels"]])
                point = scoring.crossfit_point(Z, y, int(c["folds"]), direction=r.get("direction"), **options)
            else:
                point = scoring.task_point(r["train_embeddings"], r["train_labels"], r["test_embeddings"],
                                           r["test_labels"], direction=r.get("direction"), **options)
            out.append(point.to_dict())
        return out

    def summarize(self, values: Sequence[Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """The score per trial over its levels, then the mean and sample sd over trials (`score_sd`, nan with one
        trial), at a_T and at 0.6; and a 95 % percentile bootstrap interval over the held-out sentences
        (`score_ci_low/high`, `score_se`)."""
        out: dict[str, float] = {}
        by_trial: dict[int, list[tuple[float, dict]]] = {}
        for value, row in zip(values, rows):
            by_trial.setdefault(row["trial"], []).append((row["p"], value))
        ordered = [sorted(pts, key=lambda t: t[0]) for pts in by_trial.values()]
        a_T = float(self.config["a_T"])
        for threshold, key in ((a_T, "score"), (SECONDARY_A_T, f"score_aT{SECONDARY_A_T}")):
            scores = [scoring.syntextbench_score([v["accuracy"] for _, v in pts], [v["margin"] for _, v in pts],
                                                 threshold) for pts in ordered]
            out[key] = float(np.mean(scores))
            out[f"{key}_sd"] = float(np.std(scores, ddof=1)) if len(scores) > 1 else float("nan")  # over trials
        tasks = [(row["trial"], value["margins"]) for value, row in zip(values, rows) if value.get("margins")]
        usable = len(tasks) == len(values) and int(self.config["bootstrap"]) > 0
        margins = [(t, [np.array(m, dtype=float) for m in ms]) for t, ms in tasks]  # None -> NaN (chance)
        for threshold, key in ((a_T, "score"), (SECONDARY_A_T, f"score_aT{SECONDARY_A_T}")):
            # the same resamples for both thresholds (same seed); records without margins (older runs): NaN
            ci = stats.interval(scoring.score_replicates(margins, threshold, int(self.config["bootstrap"]),
                                                         self.ctx.seed_for("syntextbench", "bootstrap"))
                                if usable else [])
            out.update({f"{key}_ci_low": ci.low, f"{key}_ci_high": ci.high, f"{key}_se": ci.se})
        return out
