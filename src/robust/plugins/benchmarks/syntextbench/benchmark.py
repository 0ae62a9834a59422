"""The `syntextbench` benchmark: glue between the lexicon, the generator, a model's embeddings and scoring.

Work items are (trial, level) pairs; each record holds that task's numbers (never the embeddings), so a
killed run resumes with the missing tasks only. Every corpus depends only on (run seed, trial, p), so all
models evaluated with the same seed see the same sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from robust import Benchmark, Result, RobustError, Setting, Table, WorkItem, add_scores, summarize_scores
from robust.plugins.benchmarks.syntextbench.constants import (
    DEBIAS_BELOW,
    DECODER_CAPABILITIES,
    GENERATOR_SETTINGS,
    P_GRID,
    PAPER,
    POOLINGS,
    SCALINGS,
    SECONDARY_A_T,
)
from robust.plugins.benchmarks.syntextbench.data import SyntheticSentences
from robust.plugins.benchmarks.syntextbench.scorers import SynTextBenchScore
from robust.toolkit.lazy import LazyModule, np

scoring = LazyModule("robust.plugins.benchmarks.syntextbench.scoring")  # imported when a run is summarised

if TYPE_CHECKING:
    from robust import RunContext


def choose_pooling(setting: str, capabilities: frozenset[str]) -> str:
    """Ko et al. 2023, §3: encoders average the first and last layer, decoders take the last token."""
    if setting != "auto":
        return setting
    return "last-token" if capabilities & DECODER_CAPABILITIES else "first-last-avg"


def lexicon_feasibility(texts: Sequence[str], ys: np.ndarray, scores: Mapping[str, float],
                        rng: np.random.Generator) -> float | None:
    """Accuracy of the lexicon-rule classifier sign(Σ_w score(w)), ties at random (Ko et al. 2023, §2.2, Fig. 4); None
    without polarity scores or sentences."""
    if not scores or not len(texts):
        return None
    totals = np.array([sum(scores.get(w, 0.0) for w in t.split()) for t in texts])
    pred = np.where(totals > 0, 1, np.where(totals < 0, -1, rng.choice([-1, 1], size=len(totals))))
    return float(np.mean(pred == ys))


def _mean_sd(values: Sequence[float | None]) -> tuple[float | None, float | None]:
    """Mean and sample sd (ddof 1; None with one value) of the values that exist (None and nan left out)."""
    arr = np.asarray([v for v in values if v is not None and v == v], dtype=float)
    if not len(arr):
        return None, None
    return float(arr.mean()), float(arr.std(ddof=1)) if len(arr) > 1 else None


def _held_out(record: Mapping[str, Any]) -> int:
    """Held-out sentences behind a record's accuracy (all n when cross-fitted)."""
    margins = record.get("margins")
    return sum(len(m) for m in margins) if margins else int(record["n_test"])


class SynTextBench(Benchmark):
    name = "syntextbench"
    description = ("Real-data-free robustness-accuracy score of sentence embeddings on synthetic "
                   "sentiment sentences (Ko et al. 2023)")
    needs = frozenset({"embed"})
    default_model = "minilm"
    accepts_data = False  # its sentences are generated from a sentiment lexicon (syntextbench-sentences.lexicon)
    scorers = ("syntextbench",)
    score_fields = frozenset({"train_embeddings", "train_labels", "test_embeddings", "test_labels", "trial", "p",
                              "train_texts", "test_texts"})
    chunk_size = 1
    settings = {
        "precision": Setting("default", choices=("default", "paper"),
                             help="default: the measured fast setting; paper: the paper's setting exactly (slow)"),
        **{k: SyntheticSentences.settings[k] for k in GENERATOR_SETTINGS},
        "n": Setting(256, min=8, help="sentences per level (paper: 8192)"),
        "trials": Setting(1, min=1, help="independent regenerations of all levels (paper: 3)"),
        "levels": Setting(list(P_GRID), min=0.0, max=1.0, min_items=1, help="neutral mixing ratios p"),
        "folds": Setting(0, min=0, help="0 = auto: round(1/test_frac)-fold cross-fitting for split=holdout "
                                        "(every sentence held out once), 1 for split=independent; 1 = one "
                                        "held-out split (the paper)"),
        "pooling": Setting("auto", choices=POOLINGS, help="auto: first-last-avg for encoders, last-token for decoders"),
        "energy": SynTextBenchScore.settings["energy"],
        "scaling": Setting("ratio", choices=SCALINGS),
        "direction": Setting("e1", choices=("e1", "random"), help="u: e1 | random (seeded per task)"),
        # d_inter without its sampling bias (consistent for the paper's ||b_1 - b_-1||, which it approaches as n
        # grows); false = the literal sample value, under which text-independent vectors score like MiniLM
        # at small n (docs/validation/syntextbench.md); auto = true below n = 4096 (the effective n)
        "debias": Setting("auto", choices=("auto", "true", "false")),
        "a_T": SynTextBenchScore.settings["a_T"],
        "bootstrap": SynTextBenchScore.settings["bootstrap"],
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        if self.config["precision"] == "paper":
            clash = [k for k in PAPER if k in config and self.config[k] != self.settings[k].validate(k, PAPER[k])]
            if clash:
                raise RobustError(f"precision=paper fixes {', '.join(f'{k}={PAPER[k]!r}' for k in clash)}; "
                                  "drop those --set options or leave precision at default")
            self.config.update(PAPER)
        if self.config["split"] == "independent" and int(self.config["folds"]) > 1:
            raise RobustError("split=independent has its own test set: cross-fitting needs split=holdout (or folds=1)")

    @property
    def folds(self) -> int:
        """Folds of the cross-fitting (1 = the single held-out split)."""
        if int(self.config["folds"]):
            return int(self.config["folds"])
        return max(2, round(1 / float(self.config["test_frac"]))) if self.config["split"] == "holdout" else 1

    def debias(self, ctx: RunContext) -> tuple[bool, str]:
        """Whether d_inter is debiased, and why: decided on the n this run really uses (after --limit)."""
        n, setting = self.n_sentences(ctx.limit), self.config["debias"]
        if setting != "auto":
            return setting == "true", f"set: {setting}"
        if n < DEBIAS_BELOW:
            return True, f"auto: n = {n} < {DEBIAS_BELOW}"
        return False, f"auto: n = {n} >= {DEBIAS_BELOW}, the paper's literal d_inter"

    # --- pieces ----------------------------------------------------------------------------------------
    def generator(self, ctx: RunContext, trial: int, p: float) -> SyntheticSentences:
        options = {k: self.config[k] for k in GENERATOR_SETTINGS}
        return ctx.create("dataset", "syntextbench-sentences", n=self.n_sentences(ctx.limit), p=p, trial=trial,
                          **options)

    def task(self, trial: int, p: float, ctx: RunContext) -> Any:
        """The synthetic dataset of one item (depends on run seed, trial and p only)."""
        return self.generator(ctx, trial, p).task(ctx.seed)

    def scorer(self, ctx: RunContext, debias: bool | None = None) -> Any:
        c = self.config
        debias = self.debias(ctx)[0] if debias is None else debias
        return ctx.create("scorer", "syntextbench", energy=c["energy"], scaling=c["scaling"], debias=debias,
                          a_T=c["a_T"], folds=self.folds, bootstrap=c["bootstrap"])

    def prepare(self, ctx: RunContext) -> None:
        self.word_lists  # noqa: B018 - fail early on a missing or unknown lexicon
        if any(ctx.registry.get("scorer", name).name in self.scorers for name in ctx.scorers):
            ctx.say(f"syntextbench: --scorer {', '.join(self.scorers)} is this benchmark's own score (the summary's "
                    "`score`, with this run's settings); it is not computed a second time")

    def describe_limit(self, limit: int) -> str:
        """What `--limit N` limits here, in one line."""
        n = self.n_sentences(limit)
        return (f"--limit {limit}: {n} sentences per level (of n = {self.config['n']}; at least 8), at each of "
                f"{len(self.config['levels'])} levels x {self.config['trials']} trial(s)")

    def extra_scorers(self, ctx: RunContext) -> list[Any]:
        """The `--scorer`s of this run but its own (already the summary's score, with this run's settings)."""
        return [s for s in super().extra_scorers(ctx) if s.name not in self.scorers]

    @property
    def word_lists(self) -> Any:
        """The lexicon's word lists (read once per process; also when resuming without `prepare`)."""
        return self.generator(self.ctx, 0, 0.0).word_lists()

    def pooling(self, ctx: RunContext) -> str | None:
        """The pooling requested (Ko et al. 2023, §3: encoders average the first and last layer, decoders take the last
        token) as the model really applies it (None: the model has one fixed way to embed)."""
        return ctx.model.pooling_used(choose_pooling(self.config["pooling"], ctx.model.provides()))

    def n_sentences(self, limit: int | None) -> int:
        """Sentences per level under `--limit` (None: the setting n)."""
        n = int(self.config["n"])
        return max(8, min(n, int(limit))) if limit else n

    # --- items ---------------------------------------------------------------------------------------
    def items(self, ctx: RunContext) -> list[WorkItem]:
        return [WorkItem(f"t{t}-p{float(p):.2f}", (t, float(p)))
                for t in range(int(self.config["trials"])) for p in self.config["levels"]]

    def run_item(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        trial, p = item.payload
        task = self.task(trial, p, ctx)
        pooling = self.pooling(ctx)
        Z = np.asarray(ctx.model.embed(task.texts, pooling=pooling), dtype=np.float64)
        n_tr = len(task.train_texts)
        row = {"train_embeddings": Z[:n_tr], "train_labels": task.train_y, "test_embeddings": Z[n_tr:],
               "test_labels": task.test_y, "trial": trial, "p": p, "train_texts": task.train_texts,
               "test_texts": task.test_texts}
        if self.config["direction"] == "random":
            row["direction"] = ctx.rng("syntextbench", "direction", trial, f"{p:.4f}").normal(size=Z.shape[1])
        debias = self.debias(ctx)[0]
        point = self.scorer(ctx, debias).values([row])[0]
        lists = self.word_lists
        feas_rng = ctx.rng("syntextbench", "feasibility", trial, f"{p:.4f}")
        # the lexicon rule is read on the sentences behind the accuracy: all of them when cross-fitted
        texts, ys = ((task.texts, np.concatenate([task.train_y, task.test_y])) if self.folds > 1
                     else (task.test_texts, task.test_y))
        record = {"trial": trial, "p": p, **point, "dim": int(Z.shape[1]), "pooling": pooling or "model's own",
                  "debias": debias, "folds": self.folds,
                  "n_train": n_tr, "n_test": len(task.test_texts), "neutral_share": task.neutral_share,
                  "mean_length": task.mean_length, "lexicon": lists.name,
                  "lexicon_rule_accuracy": lexicon_feasibility(texts, ys, lists.scores, feas_rng)}
        return add_scores([record], [row], self.extra_scorers(ctx), ctx.model)[0]

    # --- results -------------------------------------------------------------------------------------
    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        a_T = float(self.config["a_T"])
        recs = sorted(records.values(), key=lambda r: (r["trial"], r["p"]))
        if not recs:
            raise RobustError("syntextbench has no records to reduce")
        trials = sorted({r["trial"] for r in recs})
        levels = sorted({r["p"] for r in recs})
        debias, rule = self.debias(ctx)
        recorded = {r.get("debias", debias) for r in recs}
        if recorded != {debias}:  # e.g. reduced again under another --limit: report what the records used
            debias, rule = (recorded.pop(), "as recorded") if len(recorded) == 1 else (None, "mixed in records")
        scores = self.scorer(ctx, bool(debias)).summarize(recs, recs)
        curve = [self._level_row(p, [r for r in recs if r["p"] == p], len(trials)) for p in levels]
        first = recs[0]
        lex = self.lexicon_info(ctx, first.get("lexicon"))
        complete = len(recs) == len(trials) * len(levels) and len(levels) == len(self.config["levels"])
        ci = (scores["score_ci_low"], scores["score_ci_high"])
        second = f"score_aT{SECONDARY_A_T}"
        spread = {} if len(trials) < 2 else {"score_sd": scores["score_sd"], f"{second}_sd": scores[f"{second}_sd"]}
        summary = {
            "score": scores["score"], "score_ci_low": ci[0], "score_ci_high": ci[1], "score_se": scores["score_se"],
            "score_ci_method": f"95% percentile bootstrap over held-out sentences (B={self.config['bootstrap']}, "
                               "per class and level; fitted whitening held fixed)",
            **({"score_sd": spread["score_sd"]} if spread else {}),
            "score_spread": (f"sd over {len(trials)} trials (each regenerates every level's sentences)" if spread
                             else "one trial: no spread over trials (--set trials=3 for one)"),
            "a_T": a_T, second: scores[second],
            **({f"{second}_sd": spread[f"{second}_sd"]} if spread else {}),
            **{k: scores[k] for k in (f"{second}_ci_low", f"{second}_ci_high")},
            "mean_accuracy": float(np.mean([r["accuracy"] for r in recs])),
            "precision": self.config["precision"], "trials": len(trials), "levels": len(levels),
            "n": int(first["n_train"] + (first["n_test"] if self.config["split"] == "holdout" else 0)),
            "folds": int(first.get("folds", 1)), "held_out_per_level": int(np.mean([_held_out(r) for r in recs])),
            **lex, "pooling": first["pooling"], "scaling": self.config["scaling"],
            "split": self.config["split"], "p_e": float(self.config["p_e"]), "p_n": float(self.config["p_n"]),
            "energy": float(self.config["energy"]), "debias": debias, "debias_rule": rule,
            "complete": complete,
        }
        if all(row["lexicon_rule_accuracy"] is None for row in curve):
            summary["lexicon_rule_accuracy"] = self.no_rule_reason(recs)
            for row in curve:
                del row["lexicon_rule_accuracy"]
        for scorer in self.extra_scorers(ctx):  # names that clash with the benchmark's get the scorer's prefix
            for key, value in summarize_scores(recs, [scorer]).items():
                summary[f"{scorer.name}: {key}" if key in summary else key] = value
        if ctx.model is not None:
            summary["model"] = ctx.model.identity
        rows = [[round(v, 4) if isinstance(v, float) else v for v in row.values()] for row in curve]
        sd_note = "; *_sd: sd over trials" if len(trials) > 1 else ""
        table = Table(f"SynTextBench per level (score {scores['score']:.4f}, 95% CI [{ci[0]:.4f}, {ci[1]:.4f}] over "
                      f"held-out sentences at a_T={a_T}; {len(trials)} trial(s); accuracy_se: binomial over held-out "
                      f"sentences{sd_note})", list(curve[0].keys()), rows)
        points = [{"trial": r["trial"], "p": r["p"], "accuracy": r["accuracy"], "margin": r["margin"]}
                  for r in recs]
        per_trial = [self.scorer(ctx, bool(debias)).summarize([r for r in recs if r["trial"] == t],
                                                              [r for r in recs if r["trial"] == t])["score"]
                     for t in trials]
        return Result(summary, [table], {"levels": curve, "points": points, "scores": per_trial,
                                         "a_T": a_T, "n_levels": len(self.config["levels"])})

    def no_rule_reason(self, recs: Sequence[Mapping[str, Any]]) -> str:
        """Why no level has a lexicon-rule accuracy (Ko et al. 2023, §2.2, Fig. 4), in one phrase."""
        try:
            scored = bool(self.word_lists.scores)
        except RobustError:
            scored = True
        if not scored:
            return f"none: lexicon {recs[0].get('lexicon')!r} gives no polarity scores for the rule"
        return "none: no held-out sentences to read the rule on"

    @staticmethod
    def _level_row(p: float, at: list[dict[str, Any]], trials: int) -> dict[str, Any]:
        """One row of the per-level table: means over trials (and their sd when there are several)."""
        acc, acc_sd = _mean_sd([r["accuracy"] for r in at])
        mar, mar_sd = _mean_sd([r["margin"] for r in at])
        held = sum(_held_out(r) for r in at)
        row = {"p": p, "accuracy": acc, "held_out": held,
               "accuracy_se": float(np.sqrt(acc * (1 - acc) / held)) if held else None,
               "margin": mar, "margin_gaussian": float(scoring.reference_margin(acc)) if 0.5 < acc <= 1 else None}
        if trials > 1:
            row.update({"accuracy_sd": acc_sd, "margin_sd": mar_sd})
        row.update({"K": _mean_sd([r["k"] for r in at])[0], "D": _mean_sd([r["separation"] for r in at])[0],
                    "neutral_share": _mean_sd([r["neutral_share"] for r in at])[0],
                    "mean_length": _mean_sd([r["mean_length"] for r in at])[0],
                    "lexicon_rule_accuracy": _mean_sd([r["lexicon_rule_accuracy"] for r in at])[0]})
        return row

    def lexicon_info(self, ctx: RunContext, recorded: str | None) -> dict[str, Any]:
        """Name, source and list sizes of the lexicon (loaded again when reducing stored records)."""
        try:
            return self.word_lists.info()
        except RobustError:  # e.g. the SentiWordNet file has moved since the run
            return {"lexicon": recorded}

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        from robust.plugins.benchmarks.syntextbench import plots

        return [("Robustness-accuracy curve s(a)", plots.robustness_accuracy_curve(result)),
                ("Accuracy and margin by neutral share p", plots.accuracy_margin_by_level(result))]

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        from robust.plugins.benchmarks.syntextbench.report import report_parts

        return report_parts(self, result)

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        from robust.plugins.benchmarks.syntextbench.compare import compare_results

        return compare_results(results)
