"""The `synbench` benchmark: Gaussian inputs (its registered DataGenerator) -> the model's `embed_arrays` -> probe
-> its registered Scorers (the closed-form reference per level, the SynBench-Score per trial).

Work items are (trial, level s); a record holds that level's numbers only (accuracy and scaled bound per ε,
the input reference per ε, retained rank, timings), so a killed run resumes with the missing levels. The
inputs depend only on (run seed, trial, split, s) and the input shape, so every model evaluated with the same
seed and shape sees the same samples. The result adds what the scores support: a t interval over trials, ε*
with the ε it cannot be told apart from, and the width-matched reference (lossless.py).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from robust import (
    Benchmark,
    DataGenerator,
    Result,
    RobustError,
    Setting,
    Table,
    WorkItem,
    add_scores,
    cache_dir,
    summarize_scores,
)
from robust.plugins.benchmarks.synbench.constants import (
    A_T_GRID,
    COVARIANCES,
    DENOMINATORS,
    EIG_CUTOFF,
    EPS_GRID,
    EPS_MODES,
    FREE_SHAPE,
    GRID_MIN_A_T,
    IMAGENET_MEAN,
    IMAGENET_STD,
    INTEGRATIONS,
    MIN_N,
    NORMALIZE,
    REFERENCE_MODELS,
    S_GRID,
    TRANSLATIONS,
)
from robust.plugins.benchmarks.synbench.data import format_shape, parse_shape
from robust.plugins.benchmarks.synbench.probe import probe
from robust.plugins.benchmarks.synbench.trials import choose_eps, intervals
from robust.toolkit.lazy import np
from robust.toolkit.paths import write_whole

if TYPE_CHECKING:
    from robust import RunContext

LOSSLESS_VERSION = 1  # bump when the lossless simulation changes (its cache key)


def _num(value: float) -> float | None:
    """A JSON number, or None for a missing one (nan)."""
    return None if value is None or not np.isfinite(value) else float(value)


class SynBench(Benchmark):
    name = "synbench"
    description = ("Robustness-accuracy of image/array representations on synthetic class-conditional Gaussians "
                   "against the Bayes-optimal reference (SynBench, Ko ch. 5)")
    needs = frozenset({"embed_arrays"})
    default_model = "identity"  # `robust run --bench synbench` without --model: the reference representation
    accepts_data = False  # its Gaussian proxy tasks are generated
    scorers = ("synbench-reference", "synbench-score")
    score_fields = frozenset({"train_embeddings", "train_labels", "test_embeddings", "test_labels", "trial", "s"})
    chunk_size = 1
    settings = {
        "shape": Setting("auto", help="auto: the model's native CxHxW (models without one: 3x8x8) | CxHxW | d"),
        "levels": Setting(list(S_GRID), min=1e-9, max=10.0, min_items=1, help="difficulties s (the code's 49)"),
        "n": Setting(2048, min=MIN_N, help="training samples per level (Ko 2024, Table B.4)"),
        "n_test": Setting(2048, min=MIN_N, help="test samples per level"),
        "trials": Setting(1, min=1, help="independent regenerations of the data; scores get a t interval over "
                                         "them (A13)"),
        "epsilons": Setting(list(EPS_GRID), min=0.0, min_items=1, help="ε of the robust classifier, 0 ... 0.8"),
        "thresholds": Setting(list(A_T_GRID), min=0.5, max=0.999, min_items=1, help="a_T values of the table"),
        "a_T": Setting(0.7, min=0.5, max=0.999, help="the headline threshold (Table 5.2)"),
        "eps_mode": Setting("relative", choices=EPS_MODES, help="relative: ε·‖μ̃'‖ (code, docs/synbench.md) | absolute"),
        "integration": Setting("grid100", choices=INTEGRATIONS, help="grid100 (the code) | exact (eq. 5.4)"),
        "covariance": Setting("identity", choices=COVARIANCES, help="identity (Gaussian-I) | heptadiagonal (-H)"),
        "translation": Setting("code", choices=TRANSLATIONS, help="μ̄: code (0.5/pixel) | thesis | none (A2)"),
        "normalize": Setting("auto", choices=NORMALIZE, help="auto: the model's own mean/std | imagenet | none"),
        "denominator": Setting("n-2", choices=DENOMINATORS, help="pooled covariance n1+n2-2 (code) | n-1 (A5)"),
        "cutoff": Setting(EIG_CUTOFF, min=1e-300, max=1.0, help="absolute eigenvalue cut-off of Σ' (docs/synbench.md)"),
        "memory_mb": Setting(256, min=16, help="input chunk size bound (float32)"),
        "lossless": Setting(True, help="also score a lossless representation of the model's width at the same n "
                                       "(the width-matched reference; simulated once, cached)"),
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        c = self.config
        self.levels = sorted(set(c["levels"]))
        self.epsilons = sorted(set(c["epsilons"]))
        if c["eps_mode"] == "relative" and self.epsilons[-1] > 0.8:
            raise RobustError(f"epsilons must lie in [0, 0.8] with eps_mode=relative, not {c['epsilons']}")
        self.thresholds = sorted(set(c["thresholds"]))
        self.a_T, self.cutoff = c["a_T"], c["cutoff"]
        low = GRID_MIN_A_T if c["integration"] == "grid100" else 0.5
        if min(*self.thresholds, self.a_T) < low:
            raise RobustError(f"a_T values must be in [{low}, 1) with integration={c['integration']}")
        if c["shape"] != "auto":
            parse_shape(c["shape"])
        self.setup: dict[str, Any] | None = None

    def describe_limit(self, limit: int) -> str:
        """What `--limit N` limits here, in one line."""
        n, n_test = self.sizes(limit)
        return (f"--limit {limit}: {n} training and {n_test} test samples per level (of n = {self.config['n']}, "
                f"n_test = {self.config['n_test']}; at least {MIN_N}), at each of {len(self.levels)} levels x "
                f"{self.config['trials']} trial(s)")

    # --- setup ---------------------------------------------------------------------------------------
    def input_setup(self, model: Any) -> dict[str, Any]:
        """Shape and normalisation constants: the settings, else the model's `input_spec()`."""
        spec = model.input_spec()
        native = tuple(spec.shape) if spec is not None and spec.shape else None
        given = self.config["shape"]
        shape = parse_shape(given) if given != "auto" else native or parse_shape(FREE_SHAPE)
        norm = self.config["normalize"]
        if norm == "imagenet":
            mean, std = IMAGENET_MEAN, IMAGENET_STD
        elif norm == "auto" and spec is not None and spec.mean is not None:
            mean, std = tuple(spec.mean), tuple(spec.std)
        else:
            mean = std = None
        return {"shape": shape, "mean": mean, "std": std, "native_shape": native}

    def prepare(self, ctx: RunContext) -> None:
        self.setup = self.input_setup(ctx.model)
        self.data(ctx, self.levels[0], MIN_N, "train", 0)  # settings checked (shape, normalisation) before any item
        if ctx.model is not None and ctx.model.name in REFERENCE_MODELS:
            ctx.say(f"synbench: model {ctx.model.identity!r} is a built-in reference representation, not a "
                    "pretrained encoder; score yours with --model hf:DIR, timm:NAME or a Python callable")

    @property
    def shape(self) -> tuple[int, ...]:
        return self.setup["shape"]

    def sizes(self, limit: int | None) -> tuple[int, int]:
        """Training and test samples per level under `--limit` (None: the settings' n and n_test)."""
        n, n_test = int(self.config["n"]), int(self.config["n_test"])
        if limit:
            return max(MIN_N, min(n, int(limit))), max(MIN_N, min(n_test, int(limit)))
        return n, n_test

    # --- the registered pieces ---------------------------------------------------------------------------
    def data(self, ctx: RunContext, s: float, n: int, split: str, trial: int) -> DataGenerator:
        """The registered `synbench-gaussians` generator for one level, split and trial, in the model's shape."""
        if self.setup is None:
            self.setup = self.input_setup(ctx.model)
        c, setup = self.config, self.setup
        return ctx.create("dataset", "synbench-gaussians", shape=format_shape(setup["shape"]), levels=[s], n=n,
                          splits=[split], trial=trial, covariance=c["covariance"], translation=c["translation"],
                          mean=list(setup["mean"] or []), std=list(setup["std"] or []), memory_mb=c["memory_mb"])

    def reference_scorer(self, ctx: RunContext) -> Any:
        """The registered `synbench-reference` scorer for this run's distribution."""
        return ctx.create("scorer", "synbench-reference", covariance=self.config["covariance"],
                          shape=format_shape(self.shape), eps_mode=self.config["eps_mode"])

    def score_scorer(self, ctx: RunContext, integration: str) -> Any:
        """The registered `synbench-score` scorer at this run's thresholds."""
        return ctx.create("scorer", "synbench-score", thresholds=self.thresholds, a_T=self.a_T,
                          integration=integration)

    # --- items ---------------------------------------------------------------------------------------
    def items(self, ctx: RunContext) -> list[WorkItem]:
        return [WorkItem(f"t{t}-s{s:.2f}", (t, s)) for t in range(int(self.config["trials"])) for s in self.levels]

    def embed_split(self, s: float, n: int, split: str, trial: int,
                    ctx: RunContext) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Representations and labels of one split, drawn by the DataGenerator and embedded chunk by chunk."""
        chunks = self.data(ctx, s, n, split, trial).chunks(ctx.seed)
        feats, labels, t_gen, t_model = [], [], 0.0, 0.0
        start = time.perf_counter()
        for x, y in chunks:
            mid = time.perf_counter()
            t_gen += mid - start
            z = np.asarray(ctx.model.embed_arrays(x), dtype=np.float32)
            start = time.perf_counter()
            t_model += start - mid
            feats.append(z.reshape(len(z), -1))
            labels.append(y)
            del x, z  # the chunk's memory goes before the next chunk is drawn (identity's z is x itself)
        return np.concatenate(feats), np.concatenate(labels), t_gen, t_model

    def reference(self, s: float, ctx: RunContext) -> list[dict[str, float]]:
        """(a_in, b_in) per ε: Φ(s) and b(Φ(s)) for Gaussian-I (ε-free); Theorem 9 with Σ_H for Gaussian-H."""
        values = self.reference_scorer(ctx).values([{"s": s, "epsilon": e} for e in self.epsilons])
        return [{"epsilon": e, "accuracy": v["accuracy"], "margin": v["margin"]} for e, v in zip(self.epsilons, values)]

    def run_item(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        trial, s = item.payload
        n, n_test = self.sizes(ctx.limit)
        t0 = time.perf_counter()
        Ztr, ytr, g1, m1 = self.embed_split(s, n, "train", trial, ctx)
        Zte, yte, g2, m2 = self.embed_split(s, n_test, "test", trial, ctx)
        if min(int((ytr == 1).sum()), int((ytr != 1).sum())) < 2:
            raise RobustError(f"level s={s} drew fewer than 2 training samples of a class; increase n")
        t1 = time.perf_counter()
        points, rank = probe(Ztr, ytr, Zte, yte, self.epsilons, self.config["eps_mode"],
                             self.config["denominator"], self.cutoff)
        reference = self.reference(s, ctx)
        t2 = time.perf_counter()
        record = {"trial": trial, "s": s, "shape": format_shape(self.shape), "n_train": len(ytr),
                  "n_test": len(yte), "n_pos_train": int((ytr == 1).sum()),
                  "dim": int(Ztr.shape[1]), "rank": rank,
                  "points": [{"epsilon": p.epsilon, "accuracy": p.accuracy, "margin": p.margin} for p in points],
                  "reference": reference, "seconds_generate": g1 + g2, "seconds_model": m1 + m2,
                  "seconds_probe": t2 - t1, "seconds_total": t2 - t0}
        row = {"train_embeddings": Ztr, "train_labels": ytr, "test_embeddings": Zte, "test_labels": yte,
               "trial": trial, "s": s}  # labels +1 / -1
        return add_scores([record], [row], self.extra_scorers(ctx), ctx.model)[0]

    # --- results -------------------------------------------------------------------------------------
    def trial_scores(self, recs: Sequence[Mapping[str, Any]], scorer: Any,
                     points: str = "points") -> dict[tuple[float, float], float]:
        """SynBench-Score for every (ε, a_T) of one trial's levels (a_T includes the headline), by the scorer."""
        rows = [{"s": r["s"], "epsilon": eps, "accuracy": r[points][i]["accuracy"], "margin": r[points][i]["margin"],
                 "ref_accuracy": r["reference"][i]["accuracy"], "ref_margin": r["reference"][i]["margin"]}
                for r in recs for i, eps in enumerate(self.epsilons)]
        out = scorer.score(rows)
        return {(eps, a_T): out[f"score_eps{eps:g}_aT{a_T:g}"] for eps in self.epsilons
                for a_T in sorted({*self.thresholds, self.a_T})}

    def lossless(self, by_trial: Sequence[Sequence[Mapping[str, Any]]], ctx: RunContext) -> list[list[dict]]:
        """Per trial, per level: the points of a lossless representation of the records' width at their n (spec
        note in lossless.py), read from the cache or simulated once."""
        from scipy.special import ndtri

        from robust.plugins.benchmarks.synbench.lossless import lossless_points

        first = by_trial[0][0]
        width, n, n_test = int(first["dim"]), int(first["n_train"]), int(first["n_test"])
        c = self.config
        if c["covariance"] == "identity":
            shifts = {r["s"]: float(r["s"]) for rs in by_trial for r in rs}
        else:  # the shift whose Bayes accuracy is the reference's at ε = 0
            scorer = self.reference_scorer(ctx)
            shifts = {s: float(ndtri(scorer.values([{"s": s, "epsilon": 0.0}])[0]["accuracy"]))
                      for s in {r["s"] for rs in by_trial for r in rs}}
        out = []
        for rs in by_trial:
            trial = int(rs[0]["trial"])
            levels = [float(shifts[r["s"]]) for r in rs]
            key = json.dumps([LOSSLESS_VERSION, width, levels, n, n_test, self.epsilons, c["eps_mode"],
                              c["denominator"], self.cutoff, ctx.seed, trial])
            path = cache_dir() / "synbench-lossless" / f"{hashlib.sha256(key.encode()).hexdigest()[:20]}.json"
            if path.is_file():
                out.append(json.loads(path.read_text()))
                continue
            ctx.say(f"synbench: scoring a lossless representation of width {width} at n = {n} (the width-matched "
                    f"reference; trial {trial}, once, then cached)")
            pts = lossless_points(width, levels, n, n_test, self.epsilons, ctx.seed, trial, c["eps_mode"],
                                  c["denominator"], self.cutoff)
            rows = [[{"accuracy": p.accuracy, "margin": p.margin} for p in level] for level in pts]
            path.parent.mkdir(parents=True, exist_ok=True)
            write_whole(path, json.dumps(rows))
            out.append(rows)
        return out

    def interval_note(self, trials: int, ctx: RunContext) -> str:
        """What the interval of the score covers, in words."""
        if trials < 2:
            return "one trial: no interval (--set trials=3 for one)"
        seed = (ctx.model.config.get("seed") if ctx.model is not None else None)
        fixed = "the model is fixed" if seed is None else (
            f"the model is fixed, its own seed ({seed}) too: another seed moves a random model's score, rerun with "
            "--set model.seed=N for that")
        return f"95 % t interval of the mean over {trials} trials (each redraws all data; {fixed})"

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        recs = sorted(records.values(), key=lambda r: (r["trial"], r["s"]))
        if not recs:
            raise RobustError("synbench has no records to reduce")
        if [p["epsilon"] for p in recs[0]["points"]] != self.epsilons:
            raise RobustError("stored records were computed for other epsilons; rerun instead of reducing")
        if self.setup is None:
            self.setup = {"shape": parse_shape(recs[0]["shape"]), "mean": None, "std": None, "native_shape": None}
        trials = sorted({r["trial"] for r in recs})
        by_trial = [[r for r in recs if r["trial"] == t] for t in trials]
        integration = self.config["integration"]
        per_trial = {mode: [self.trial_scores(rs, self.score_scorer(ctx, mode)) for rs in by_trial]
                     for mode in INTEGRATIONS}
        stats = intervals(per_trial[integration])
        eps0 = self.epsilons[0]
        head = stats[(eps0, self.a_T)]
        choice = choose_eps([{e: sc[(e, self.a_T)] for e in self.epsilons} for sc in per_trial[integration]])
        best_eps = choice.best
        secs = {key: float(sum(r[key] for r in recs)) for key in ("seconds_generate", "seconds_model",
                                                                    "seconds_probe", "seconds_total")}
        summary: dict[str, Any] = {
            "score": head.mean, **({"score_ci_low": head.low, "score_ci_high": head.high, "score_sd": head.sd}
                                   if len(trials) > 1 else {}),
            "score_interval": self.interval_note(len(trials), ctx),
            "epsilon": eps0, "a_T": self.a_T, "integration": integration,
            **{f"score_{mode}": float(np.mean([sc[(eps0, self.a_T)] for sc in per_trial[mode]]))
               for mode in INTEGRATIONS},
            "recommended_epsilon": best_eps, "score_at_recommended": stats[(best_eps, self.a_T)].mean,
            "recommended_epsilon_note": choice.text(),
            "trials": len(trials), "levels": len({r["s"] for r in recs}), "n": recs[0]["n_train"],
            "n_test": recs[0]["n_test"], "dim": recs[0]["dim"],
            "rank_min": int(min(r["rank"] for r in recs)), "eps_mode": self.config["eps_mode"],
            "covariance": self.config["covariance"], "translation": self.config["translation"],
            "denominator": self.config["denominator"],
            "complete": len(recs) == len(trials) * len(self.levels) and len(trials) == int(self.config["trials"]),
            "share_outside_model": 1 - secs["seconds_model"] / secs["seconds_total"] if secs["seconds_total"] else None,
            **secs,
        }
        summary["shape"] = recs[0]["shape"]
        if ctx.model is not None:
            setup = self.setup
            summary["model"] = ctx.model.identity
            summary["normalization"] = "none" if setup["mean"] is None else f"mean={setup['mean']} std={setup['std']}"
            if ctx.model.name in REFERENCE_MODELS:
                summary["model_note"] = "built-in reference representation, not a pretrained encoder"
        tables = [self.score_table(f"SynBench-Score ({integration}; rows a_T, columns ε; mean over {len(trials)} "
                                   "trial(s))", stats)]
        data: dict[str, Any] = {
            "epsilons": self.epsilons, "thresholds": self.thresholds, "a_T": self.a_T,
            "scores": [{"epsilon": e, "a_T": a, "score": m.mean, "sd": _num(m.sd), "ci_low": _num(m.low),
                        "ci_high": _num(m.high)} for (e, a), m in stats.items()],
            "trial_scores": [sc[(eps0, self.a_T)] for sc in per_trial[integration]],
            "recommended_epsilon": best_eps, "recommended_epsilon_within_noise": choice.within_noise}
        if self.config["lossless"]:
            ref_recs = [[{**r, "lossless": pts} for r, pts in zip(rs, trial)]
                        for rs, trial in zip(by_trial, self.lossless(by_trial, ctx))]
            scorer = self.score_scorer(ctx, integration)
            ref_stats = intervals([self.trial_scores(rs, scorer, "lossless") for rs in ref_recs])
            ref = ref_stats[(eps0, self.a_T)]
            summary.update({"lossless_score": ref.mean, "score_vs_lossless": head.mean / ref.mean if ref.mean > 0
                            else None, "lossless_width": recs[0]["dim"]})
            data["lossless_scores"] = [{"epsilon": e, "a_T": a, "score": m.mean} for (e, a), m in ref_stats.items()]
            tables.append(self.score_table(f"Lossless representation of width {recs[0]['dim']} at n = "
                                           f"{recs[0]['n_train']} (the width-matched reference; 1 = the "
                                           "infinite-sample limit)", ref_stats))
        levels = self.level_curve(recs)
        i_best = self.epsilons.index(best_eps)
        level_rows = [[lv["s"], round(lv["ref_accuracy"][0], 4), round(lv["ref_margin"][0], 4),
                       round(lv["accuracy"][0], 4), _round(lv["margin"][0]), round(lv["accuracy"][i_best], 4),
                       _round(lv["margin"][i_best]), lv["rank"]] for lv in levels]
        tables.append(Table(f"Per level (mean over trials): reference vs representation at ε={eps0:g} and "
                            f"ε*={best_eps:g}",
                            ["s", "a_in", "b_in", "a_rep", "b_rep", "a_rep(ε*)", "b_rep(ε*)", "rank"], level_rows))
        data["levels"] = levels
        for scorer in self.extra_scorers(ctx):  # names that clash with the benchmark's get the scorer's prefix
            for key, value in summarize_scores(recs, [scorer]).items():
                summary[f"{scorer.name}: {key}" if key in summary else key] = value
        return Result(summary, tables, data)

    def score_table(self, title: str, stats: Mapping[tuple[float, float], Any]) -> Table:
        """Rows a_T, columns ε, the mean score over trials."""
        rows = [[a_T, *[round(stats[(e, a_T)].mean, 4) for e in self.epsilons]] for a_T in self.thresholds]
        return Table(title, ["a_T", *[f"eps={e:g}" for e in self.epsilons]], rows)

    def level_curve(self, recs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Per level s: mean over trials of accuracy and bound (lists over ε), the reference, the rank."""
        def avg(at: Sequence[dict[str, Any]], field: str, key: str, i: int) -> float | None:
            vals = [r[field][i][key] for r in at if r[field][i][key] is not None]
            return float(np.mean(vals)) if vals else None

        out = []
        for s in sorted({r["s"] for r in recs}):
            at = [r for r in recs if r["s"] == s]
            out.append({"s": s, "rank": int(np.mean([r["rank"] for r in at])),
                        **{key: [avg(at, "points", field, i) for i in range(len(self.epsilons))]
                           for key, field in (("accuracy", "accuracy"), ("margin", "margin"))},
                        **{f"ref_{field}": [avg(at, "reference", field, i) for i in range(len(self.epsilons))]
                           for field in ("accuracy", "margin")}})
        return out

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        from robust.plugins.benchmarks.synbench import plots

        if "runs" in result.data:  # a comparison of several runs
            return [("SynBench-Score against ε, per run", plots.compare_curves(result))]
        return [("Expected bound E(a_t): representation vs reference (eq. 5.3)", plots.expected_bound_curves(result)),
                ("Robustness-accuracy points per level vs the Bayes curve b(a)", plots.level_points(result)),
                ("SynBench-Score against ε", plots.score_vs_eps(result))]

    def report(self, result: Result, records: Mapping[str, dict[str, Any]], labels: Any = None) -> Any:
        from robust.plugins.benchmarks.synbench.report import report_parts

        return report_parts(self, result)

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        from robust.plugins.benchmarks.synbench.compare import compare_results

        return compare_results(results)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(float(value), digits)
