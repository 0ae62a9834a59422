"""The `syntextbench` benchmark: glue between the lexicon, the generator, a model's embeddings and scoring.

Work items are (trial, level) pairs; each record holds that task's numbers (never the embeddings), so a
killed run resumes with the missing tasks only. Every corpus depends only on (run seed, trial, p), so all
models evaluated with the same seed see the same sentences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from robust.core.errors import RobustError
from robust.core.interfaces import Benchmark, WorkItem, add_scores, summarize_scores
from robust.core.lazy import np
from robust.core.results import Result, Table
from robust.core.settings import Setting
from robust.plugins.benchmarks.syntextbench.generator import P_GRID
from robust.plugins.benchmarks.syntextbench.scoring import SCALINGS, reference_margin
from robust.plugins.benchmarks.syntextbench.sentences import SECONDARY_A_T, SynTextBenchScore, SyntheticSentences

if TYPE_CHECKING:
    from robust.core.context import RunContext

POOLINGS = ("auto", "first-last-avg", "last-token", "mean", "cls")
DECODER_CAPABILITIES = frozenset({"generate", "logprobs", "next_token_distribution"})
GENERATOR_SETTINGS = ("lexicon", "lexicon_path", "dedupe", "p_e", "p_n", "max_len", "split", "test_frac")


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
    default_model = "minilm"
    scorers = ("syntextbench",)
    score_fields = frozenset({"train_embeddings", "train_labels", "test_embeddings", "test_labels", "trial", "p",
                              "train_texts", "test_texts"})
    chunk_size = 1
    settings = {
        **{k: SyntheticSentences.settings[k] for k in GENERATOR_SETTINGS},
        "n": Setting(256, min=8, help="sentences per level (paper: 8192; 256 keeps the default run near a minute)"),
        "trials": Setting(1, min=1, help="independent regenerations of all levels (paper: 3)"),
        "levels": Setting(list(P_GRID), min=0.0, max=1.0, min_items=1, help="neutral mixing ratios p"),
        "pooling": Setting("auto", choices=POOLINGS, help="auto: first-last-avg for encoders, last-token for decoders"),
        "energy": SynTextBenchScore.settings["energy"],
        "scaling": Setting("ratio", choices=SCALINGS),
        "direction": Setting("e1", choices=("e1", "random"), help="u: e1 | random (seeded per task)"),
        # d_inter without its sampling bias (consistent for the paper's ||b_1 - b_-1||, which it approaches as n
        # grows); false = the literal sample value, under which text-independent vectors score like MiniLM
        # at small n (docs/validation/syntextbench.md); auto = true below the paper's n = 8192, false at it
        "debias": Setting("auto", choices=("auto", "true", "false")),
        "a_T": SynTextBenchScore.settings["a_T"],
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.config["debias"] = (int(self.config["n"]) < PAPER_N if self.config["debias"] == "auto"
                                 else self.config["debias"] == "true")

    # --- pieces ----------------------------------------------------------------------------------------
    def generator(self, ctx: RunContext, trial: int, p: float) -> SyntheticSentences:
        options = {k: self.config[k] for k in GENERATOR_SETTINGS}
        return ctx.create("dataset", "syntextbench-sentences", n=self.n_sentences(ctx), p=p, trial=trial, **options)

    def task(self, trial: int, p: float, ctx: RunContext) -> Any:
        """The synthetic dataset of one item (depends on run seed, trial and p only)."""
        return self.generator(ctx, trial, p).task(ctx.seed)

    def scorer(self, ctx: RunContext) -> Any:
        c = self.config
        return ctx.create("scorer", "syntextbench", energy=c["energy"], scaling=c["scaling"],
                          debias=bool(c["debias"]), a_T=c["a_T"])

    def prepare(self, ctx: RunContext) -> None:
        self.word_lists  # noqa: B018 - fail early on a missing or unknown lexicon

    @property
    def word_lists(self) -> Any:
        """The lexicon's word lists (read once per process; also when resuming without `prepare`)."""
        return self.generator(self.ctx, 0, 0.0).word_lists()

    def pooling(self, ctx: RunContext) -> str | None:
        """The pooling requested (spec §3.1: encoders average the first and last layer, decoders take the last
        token) as the model really applies it (None: the model has one fixed way to embed)."""
        return ctx.model.pooling_used(choose_pooling(self.config["pooling"], ctx.model.provides()))

    def n_sentences(self, ctx: RunContext) -> int:
        n = int(self.config["n"])
        return max(8, min(n, int(ctx.limit))) if ctx.limit else n

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
        point = self.scorer(ctx).values([row])[0]
        lists = self.word_lists
        feas_rng = ctx.rng("syntextbench", "feasibility", trial, f"{p:.4f}")
        record = {"trial": trial, "p": p, **point, "dim": int(Z.shape[1]), "pooling": pooling or "model's own",
                  "n_train": n_tr, "n_test": len(task.test_texts), "neutral_share": task.neutral_share,
                  "mean_length": task.mean_length, "lexicon": lists.name,
                  "lexicon_rule_accuracy": lexicon_feasibility(task.test_texts, task.test_y, lists.scores, feas_rng)}
        return add_scores([record], [row], self.extra_scorers(ctx), ctx.model)[0]

    # --- results -------------------------------------------------------------------------------------
    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        a_T = float(self.config["a_T"])
        recs = sorted(records.values(), key=lambda r: (r["trial"], r["p"]))
        if not recs:
            raise RobustError("syntextbench has no records to reduce")
        trials = sorted({r["trial"] for r in recs})
        levels = sorted({r["p"] for r in recs})
        scores = self.scorer(ctx).summarize(recs, recs)
        score, score_std = scores["score"], scores["score_std"]
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
            f"score_aT{SECONDARY_A_T}": scores[f"score_aT{SECONDARY_A_T}"],
            f"score_aT{SECONDARY_A_T}_std": scores[f"score_aT{SECONDARY_A_T}_std"],
            "mean_accuracy": float(np.mean([r["accuracy"] for r in recs])),
            "trials": len(trials), "levels": len(levels), "n": int(first["n_train"] + first["n_test"])
            if self.config["split"] == "holdout" else int(first["n_train"]),
            **lex, "pooling": first["pooling"], "scaling": self.config["scaling"],
            "split": self.config["split"], "p_e": float(self.config["p_e"]), "p_n": float(self.config["p_n"]),
            "energy": float(self.config["energy"]), "debias": bool(self.config["debias"]),
            "complete": complete, **summarize_scores(recs, self.extra_scorers(ctx)),
        }
        if ctx.model is not None:
            summary["model"] = ctx.model.identity
        table = Table(f"SynTextBench per level (mean over {len(trials)} trial(s); score "
                      f"{score:.4f} ± {score_std:.4f} at a_T={a_T})", list(curve[0].keys()), rows)
        points = [{"trial": r["trial"], "p": r["p"], "accuracy": r["accuracy"], "margin": r["margin"]}
                  for r in recs]
        per_trial = [self.scorer(ctx).summarize([r for r in recs if r["trial"] == t],
                                                [r for r in recs if r["trial"] == t])["score"] for t in trials]
        return Result(summary, [table], {"levels": curve, "points": points, "scores": per_trial,
                                         "a_T": a_T, "n_levels": len(self.config["levels"])})

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

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        from robust.plugins.benchmarks.syntextbench.compare import compare_results

        return compare_results(results)
