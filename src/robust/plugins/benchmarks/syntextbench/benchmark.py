"""The `syntextbench` benchmark: glue between the lexicon, the generator, a model's embeddings and scoring.

Work items are (trial, level) pairs; each record holds that task's numbers (never the embeddings), so a
killed run resumes with the missing tasks only. Every corpus depends only on (run seed, trial, p), so all
models evaluated with the same seed see the same sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from robust.core.errors import RobustError, unknown
from robust.core.interfaces import Benchmark, WorkItem
from robust.core.results import Result, Table
from robust.plugins.benchmarks.syntextbench.generator import P_GRID, GeneratorConfig, make_task
from robust.plugins.benchmarks.syntextbench.lexicon import (
    LexiconGenerator,
    WordLists,
    word_lists_from_examples,
)
from robust.plugins.benchmarks.syntextbench.scoring import (
    SCALINGS,
    reference_margin,
    syntextbench_score,
    task_point,
)

if TYPE_CHECKING:
    from robust.core.context import RunContext

DEFAULT_LEXICON = "afinn"
POOLINGS = ("auto", "first-last-avg", "last-token", "mean", "cls")
DECODER_CAPABILITIES = frozenset({"generate", "logprobs", "next_token_distribution"})
SECONDARY_A_T = 0.6  # spec §6 A2: also report a_T = 0.6


def choose_pooling(setting: str, capabilities: frozenset[str]) -> str:
    """Spec §3.1: encoders average the first and last layer, decoders take the last token."""
    if setting != "auto":
        return setting
    return "last-token" if capabilities & DECODER_CAPABILITIES else "first-last-avg"


def lexicon_feasibility(texts: Sequence[str], ys: np.ndarray, scores: Mapping[str, float],
                        rng: np.random.Generator) -> float | None:
    """Accuracy of the lexicon-rule classifier sign(Σ_w score(w)), ties at random (spec §2.7)."""
    if not scores:
        return None
    totals = np.array([sum(scores.get(w, 0.0) for w in t.split()) for t in texts])
    pred = np.where(totals > 0, 1, np.where(totals < 0, -1, rng.choice([-1, 1], size=len(totals))))
    return float(np.mean(pred == ys))


def _mean_std(values: Sequence[float | None]) -> tuple[float | None, float]:
    arr = np.asarray([v for v in values if v is not None], dtype=float)
    if not len(arr):
        return None, 0.0
    return float(arr.mean()), float(arr.std()) if len(arr) > 1 else 0.0


PAPER_N = 8192  # sentences per level in the paper (spec §2.5)


class SynTextBench(Benchmark):
    name = "syntextbench"
    description = ("Real-data-free robustness-accuracy score of sentence embeddings on synthetic "
                   "sentiment sentences (Ko et al. 2023)")
    needs = frozenset({"embed"})
    default_model = "minilm"  # `robust run --bench syntextbench` without --model
    chunk_size = 1
    settings = {
        "lexicon": "",  # a registered lexicon; "" = sentiwordnet if lexicon_path is set, else afinn
        "lexicon_path": "",  # SentiWordNet file (else $ROBUST_SENTIWORDNET or an NLTK data dir)
        "dedupe": False,  # dedupe the word lists (not the paper's counts, spec §2.1)
        "n": 256,  # sentences per level (paper: 8192; 256 keeps the default run near a minute)
        "trials": 1,  # independent regenerations of all levels (paper: 3)
        "levels": list(P_GRID),  # neutral mixing ratios p
        "p_e": 1 / 12,
        "p_n": 0.5,
        "max_len": 128,
        "split": "holdout",  # holdout (stratified test_frac of n) | independent (n more for test)
        "test_frac": 0.1,
        "pooling": "auto",  # auto: first-last-avg for encoders, last-token for decoders
        "energy": 0.99,
        "scaling": "ratio",  # ratio (spec resolution) | literal | pooled
        "direction": "e1",  # u: e1 | random (seeded per task)
        # d_inter without its sampling bias (consistent for the paper's ||b_1 - b_-1||, which it approaches as n
        # grows); false = the literal sample value, under which text-independent vectors score like MiniLM
        # at small n (docs/validation/syntextbench.md); auto = true below the paper's n = 8192, false at it
        "debias": "auto",
        "a_T": 0.7,
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        c = self.config
        if c["split"] not in ("holdout", "independent"):
            raise RobustError(f"split must be holdout or independent, not {c['split']!r}")
        debias = str(c["debias"]).lower()
        if debias not in ("auto", "true", "false", "1", "0", "yes", "no"):
            raise RobustError(f"debias must be auto, true or false, not {c['debias']!r}")
        c["debias"] = int(c["n"]) < PAPER_N if debias == "auto" else debias in ("true", "1", "yes")
        if c["scaling"] not in SCALINGS:
            raise RobustError(f"scaling must be one of {', '.join(SCALINGS)}, not {c['scaling']!r}")
        if c["pooling"] not in POOLINGS:
            raise RobustError(f"pooling must be one of {', '.join(POOLINGS)}, not {c['pooling']!r}")
        if c["direction"] not in ("e1", "random"):
            raise RobustError(f"direction must be e1 or random, not {c['direction']!r}")
        if int(c["n"]) < 8 or int(c["trials"]) < 1 or not c["levels"]:
            raise RobustError("syntextbench needs n >= 8, trials >= 1 and at least one level")
        if not 0 < float(c["test_frac"]) < 1 or not 0 < float(c["energy"]) <= 1:
            raise RobustError("test_frac must be in (0, 1) and energy in (0, 1]")
        self.word_lists: WordLists | None = None

    # --- setup ---------------------------------------------------------------------------------------
    def lexicon_name(self) -> str:
        return self.config["lexicon"] or ("sentiwordnet" if self.config["lexicon_path"] else DEFAULT_LEXICON)

    def load_word_lists(self, registry: Any) -> WordLists:
        """The lexicon plugin named by the settings, as word lists."""
        name = self.lexicon_name()
        if name not in registry.entries["dataset"]:
            raise unknown("lexicon (dataset)", name, registry.entries["dataset"])
        entry = registry.get("dataset", name)
        options: dict[str, Any] = {}
        target_settings = getattr(entry.target, "settings", {}) or {}
        if self.config["lexicon_path"]:
            if "path" not in target_settings:
                raise RobustError(f"lexicon {name!r} takes no lexicon_path")
            options["path"] = self.config["lexicon_path"]
        if "dedupe" in target_settings:
            options["dedupe"] = self.config["dedupe"]
        lexicon = entry.create(**options)
        if isinstance(lexicon, LexiconGenerator):
            return lexicon.word_lists()
        lists = word_lists_from_examples(name, lexicon.examples(0))
        return lists.deduped() if self.config["dedupe"] else lists

    def prepare(self, ctx: RunContext) -> None:
        self.word_lists = self.load_word_lists(ctx.registry)

    def lexicon_info(self, ctx: RunContext, recorded: str | None) -> dict[str, Any]:
        """Name, source and list sizes of the lexicon (loaded again when reducing stored records)."""
        if self.word_lists is None:
            try:
                self.prepare(ctx)
            except RobustError:  # e.g. the SentiWordNet file has moved since the run
                return {"lexicon": recorded}
        return self.word_lists.info()

    def pooling(self, ctx: RunContext) -> str:
        model = ctx.model
        caps = model.provides() if hasattr(model, "provides") else frozenset(getattr(model, "capabilities", ()))
        return choose_pooling(self.config["pooling"], frozenset(caps))

    def n_sentences(self, ctx: RunContext) -> int:
        n = int(self.config["n"])
        return max(8, min(n, int(ctx.limit))) if ctx.limit else n

    # --- items ---------------------------------------------------------------------------------------
    def items(self, ctx: RunContext) -> list[WorkItem]:
        return [WorkItem(f"t{t}-p{float(p):.2f}", (t, float(p)))
                for t in range(int(self.config["trials"])) for p in self.config["levels"]]

    def task(self, trial: int, p: float, ctx: RunContext):
        """The synthetic dataset of one item (depends on run seed, trial and p only)."""
        if self.word_lists is None:
            self.prepare(ctx)
        lists = self.word_lists
        c = self.config
        cfg = GeneratorConfig(float(c["p_e"]), float(c["p_n"]), int(c["max_len"]))
        rng = ctx.rng("syntextbench", "corpus", trial, f"{p:.4f}")
        return make_task(self.n_sentences(ctx), p, lists.pos, lists.neg, lists.neu, rng, cfg,
                         c["split"], float(c["test_frac"]))

    def run_item(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        trial, p = item.payload
        task = self.task(trial, p, ctx)
        pooling = self.pooling(ctx)
        Z = np.asarray(ctx.model.embed(task.texts, pooling=pooling), dtype=np.float64)
        n_tr = len(task.train_texts)
        direction = None
        if self.config["direction"] == "random":
            direction = ctx.rng("syntextbench", "direction", trial, f"{p:.4f}").normal(size=Z.shape[1])
        point = task_point(Z[:n_tr], task.train_y, Z[n_tr:], task.test_y, float(self.config["energy"]),
                           self.config["scaling"], direction, bool(self.config["debias"]))
        feas_rng = ctx.rng("syntextbench", "feasibility", trial, f"{p:.4f}")
        return {"trial": trial, "p": p, **point.to_dict(), "dim": int(Z.shape[1]), "pooling": pooling,
                "n_train": n_tr, "n_test": len(task.test_texts), "neutral_share": task.neutral_share,
                "mean_length": task.mean_length, "lexicon": self.word_lists.name,
                "lexicon_rule_accuracy": lexicon_feasibility(task.test_texts, task.test_y,
                                                             self.word_lists.scores, feas_rng)}

    # --- results -------------------------------------------------------------------------------------
    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        a_T = float(self.config["a_T"])
        recs = sorted(records.values(), key=lambda r: (r["trial"], r["p"]))
        if not recs:
            raise RobustError("syntextbench has no records to reduce")
        trials = sorted({r["trial"] for r in recs})
        levels = sorted({r["p"] for r in recs})
        by_trial = {t: [r for r in recs if r["trial"] == t] for t in trials}
        scores = [syntextbench_score([r["accuracy"] for r in rs], [r["margin"] for r in rs], a_T)
                  for rs in by_trial.values()]
        scores_06 = [syntextbench_score([r["accuracy"] for r in rs], [r["margin"] for r in rs],
                                        SECONDARY_A_T) for rs in by_trial.values()]
        score, score_std = _mean_std(scores)
        score06, score06_std = _mean_std(scores_06)
        rows, curve = [], []
        for p in levels:
            at = [r for r in recs if r["p"] == p]
            acc, acc_sd = _mean_std([r["accuracy"] for r in at])
            mar, mar_sd = _mean_std([r["margin"] for r in at])
            row = {"p": p, "accuracy": acc, "accuracy_std": acc_sd, "margin": mar, "margin_std": mar_sd,
                   "margin_gaussian": float(reference_margin(acc)) if 0.5 < acc <= 1 else None,
                   "K": _mean_std([r["k"] for r in at])[0], "D": _mean_std([r["separation"] for r in at])[0],
                   "neutral_share": _mean_std([r["neutral_share"] for r in at])[0],
                   "mean_length": _mean_std([r["mean_length"] for r in at])[0],
                   "lexicon_rule_accuracy": _mean_std([r["lexicon_rule_accuracy"] for r in at])[0]}
            curve.append(row)
            rows.append([round(v, 4) if isinstance(v, float) else v for v in row.values()])
        first = recs[0]
        lex = self.lexicon_info(ctx, first.get("lexicon"))
        complete = len(recs) == len(trials) * len(levels) and len(levels) == len(self.config["levels"])
        summary = {
            "score": score, "score_std": score_std, "a_T": a_T,
            f"score_aT{SECONDARY_A_T}": score06, f"score_aT{SECONDARY_A_T}_std": score06_std,
            "mean_accuracy": float(np.mean([r["accuracy"] for r in recs])),
            "trials": len(trials), "levels": len(levels), "n": int(first["n_train"] + first["n_test"])
            if self.config["split"] == "holdout" else int(first["n_train"]),
            **lex, "pooling": first["pooling"], "scaling": self.config["scaling"],
            "split": self.config["split"], "p_e": float(self.config["p_e"]), "p_n": float(self.config["p_n"]),
            "energy": float(self.config["energy"]), "debias": bool(self.config["debias"]),
            "complete": complete,
        }
        if ctx.model is not None:
            summary["model"] = ctx.model.identity
        table = Table(f"SynTextBench per level (mean over {len(trials)} trial(s); score "
                      f"{score:.4f} ± {score_std:.4f} at a_T={a_T})", list(curve[0].keys()), rows)
        points = [{"trial": r["trial"], "p": r["p"], "accuracy": r["accuracy"], "margin": r["margin"]}
                  for r in recs]
        return Result(summary, [table], {"levels": curve, "points": points, "scores": scores,
                                         "a_T": a_T, "n_levels": len(self.config["levels"])})

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        from robust.plugins.benchmarks.syntextbench import plots

        return [("Robustness-accuracy curve s(a)", plots.robustness_accuracy_curve(result)),
                ("Accuracy and margin by neutral share p", plots.accuracy_margin_by_level(result))]

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        from robust.plugins.benchmarks.syntextbench.compare import compare_results

        return compare_results(results)
