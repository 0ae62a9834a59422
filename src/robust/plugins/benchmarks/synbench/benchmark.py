"""The `synbench` benchmark: Gaussian inputs -> the model's `embed_arrays` -> probe -> SynBench-Score.

Work items are (trial, level s); a record holds that level's numbers only (accuracy and scaled bound per ε,
the input reference per ε, retained rank, timings), so a killed run resumes with the missing levels. The
inputs depend only on (run seed, trial, split, s) and the input shape, so every model evaluated with the same
seed and shape sees the same samples.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from robust.core.errors import RobustError
from robust.core.interfaces import Benchmark, WorkItem
from robust.core.lazy import np
from robust.core.results import Result, Table
from robust.core.settings import Setting
from robust.plugins.benchmarks.synbench.data import (
    COVARIANCES,
    IMAGENET_MEAN,
    IMAGENET_STD,
    TRANSLATIONS,
    SynBenchGaussians,
    format_shape,
    parse_shape,
    rows_for_memory,
)
from robust.plugins.benchmarks.synbench.probe import DENOMINATORS, EPS_MODES, probe
from robust.plugins.benchmarks.synbench.scoring import GRID_MIN_A_T, INTEGRATIONS, recommended_eps, synbench_score
from robust.plugins.benchmarks.synbench.theory import (
    A_T_GRID,
    EIG_CUTOFF,
    EPS_GRID,
    S_GRID,
    reference_band,
    reference_identity,
)

if TYPE_CHECKING:
    from robust.core.context import RunContext

FREE_SHAPE = "3x8x8"  # models without a native input size (identity, projections, callables), spec §7.3
NORMALIZE = ("auto", "imagenet", "none")
REFERENCE_MODELS = ("identity", "random-projection", "random-vit")
MIN_N = 16


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    arr = np.asarray(values, dtype=float)
    return float(arr.mean()), float(arr.std()) if len(arr) > 1 else 0.0


class SynBench(Benchmark):
    name = "synbench"
    description = ("Robustness-accuracy of image/array representations on synthetic class-conditional Gaussians "
                   "against the Bayes-optimal reference (SynBench, Ko ch. 5)")
    needs = frozenset({"embed_arrays"})
    default_model = "identity"  # `robust run --bench synbench` without --model: the reference representation
    chunk_size = 1
    settings = {
        "shape": Setting("auto", help="auto: the model's native CxHxW (models without one: 3x8x8) | CxHxW | d"),
        "levels": Setting(list(S_GRID), min=1e-9, max=10.0, min_items=1, help="difficulties s (the code's 49)"),
        "n": Setting(2048, min=MIN_N, help="training samples per level (spec A12)"),
        "n_test": Setting(2048, min=MIN_N, help="test samples per level"),
        "trials": Setting(1, min=1, help="independent regenerations; scores are mean ± std over trials (A13)"),
        "epsilons": Setting(list(EPS_GRID), min=0.0, min_items=1, help="ε of the robust classifier, 0 ... 0.8"),
        "thresholds": Setting(list(A_T_GRID), min=0.5, max=0.999, min_items=1, help="a_T values of the table"),
        "a_T": Setting(0.7, min=0.5, max=0.999, help="the headline threshold (Table 5.2)"),
        "eps_mode": Setting("relative", choices=EPS_MODES, help="relative: ε·‖μ̃'‖ (code, spec A4) | absolute"),
        "integration": Setting("grid100", choices=INTEGRATIONS, help="grid100 (the code) | exact (eq. 5.4)"),
        "covariance": Setting("identity", choices=COVARIANCES, help="identity (Gaussian-I) | heptadiagonal (-H)"),
        "translation": Setting("code", choices=TRANSLATIONS, help="μ̄: code (0.5/pixel) | thesis | none (A2)"),
        "normalize": Setting("auto", choices=NORMALIZE, help="auto: the model's own mean/std | imagenet | none"),
        "denominator": Setting("n-2", choices=DENOMINATORS, help="pooled covariance n1+n2-2 (code) | n-1 (A5)"),
        "cutoff": Setting(EIG_CUTOFF, min=1e-300, max=1.0, help="absolute eigenvalue cut-off of Σ' (spec A6)"),
        "memory_mb": Setting(256, min=16, help="input chunk size bound (float32)"),
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
        self.generator: SynBenchGaussians | None = None
        self.setup: dict[str, Any] | None = None

    # --- setup ---------------------------------------------------------------------------------------
    def input_setup(self, model: Any) -> dict[str, Any]:
        """Shape and normalisation constants: the settings, else the model's `input_spec()`."""
        spec = model.input_spec() if hasattr(model, "input_spec") else None
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
        setup = self.input_setup(ctx.model)
        c = self.config
        self.generator = SynBenchGaussians(shape=format_shape(setup["shape"]), levels=self.levels,
                                           covariance=c["covariance"], translation=c["translation"],
                                           mean=list(setup["mean"] or []), std=list(setup["std"] or []))
        self.setup = setup
        if ctx.model is not None and ctx.model.name in REFERENCE_MODELS:
            print(f"synbench: model {ctx.model.identity!r} is a built-in reference representation, not a "
                  "pretrained encoder; score yours with --model hf:DIR, timm:NAME or a Python callable",
                  file=sys.stderr)

    def sizes(self, ctx: RunContext) -> tuple[int, int]:
        n, n_test = int(self.config["n"]), int(self.config["n_test"])
        if ctx.limit:
            return max(MIN_N, min(n, ctx.limit)), max(MIN_N, min(n_test, ctx.limit))
        return n, n_test

    # --- items ---------------------------------------------------------------------------------------
    def items(self, ctx: RunContext) -> list[WorkItem]:
        return [WorkItem(f"t{t}-s{s:.2f}", (t, s)) for t in range(int(self.config["trials"])) for s in self.levels]

    def embed_split(self, s: float, n: int, split: str, trial: int,
                    ctx: RunContext) -> tuple[np.ndarray, np.ndarray, float, float]:
        """Representations and labels of one split, generated and embedded chunk by chunk."""
        if self.generator is None:
            self.prepare(ctx)
        sampler = self.generator.sampler
        rows = rows_for_memory(sampler.spec.d, int(self.config["memory_mb"]))
        feats, labels, t_gen, t_model = [], [], 0.0, 0.0
        start = time.perf_counter()
        for x, y in sampler.draw(s, n, ctx.seed, trial, split, max_rows=rows):
            mid = time.perf_counter()
            t_gen += mid - start
            z = np.asarray(ctx.model.embed_arrays(x), dtype=np.float32)
            start = time.perf_counter()
            t_model += start - mid
            feats.append(z.reshape(len(z), -1))
            labels.append(y)
            del x, z  # the chunk's memory goes before the next chunk is drawn (identity's z is x itself)
        return np.concatenate(feats), np.concatenate(labels), t_gen, t_model

    def reference(self, s: float) -> list[dict[str, float]]:
        """(a_in, b_in) per ε: Φ(s) and b(Φ(s)) for Gaussian-I (ε-free); Theorem 9 with Σ_H for Gaussian-H."""
        if self.config["covariance"] == "identity":
            a, b = reference_identity([s])
            return [{"epsilon": e, "accuracy": float(a[0]), "margin": float(b[0])} for e in self.epsilons]
        spec = self.generator.spec
        out = []
        for e in self.epsilons:
            a, b = reference_band(s, e, spec.channels, spec.block, eps_mode=self.config["eps_mode"])
            out.append({"epsilon": e, "accuracy": a, "margin": b})
        return out

    def run_item(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        trial, s = item.payload
        n, n_test = self.sizes(ctx)
        t0 = time.perf_counter()
        Ztr, ytr, g1, m1 = self.embed_split(s, n, "train", trial, ctx)
        Zte, yte, g2, m2 = self.embed_split(s, n_test, "test", trial, ctx)
        if min(int((ytr == 1).sum()), int((ytr != 1).sum())) < 2:
            raise RobustError(f"level s={s} drew fewer than 2 training samples of a class; increase n")
        t1 = time.perf_counter()
        points, rank = probe(Ztr, ytr, Zte, yte, self.epsilons, self.config["eps_mode"],
                             self.config["denominator"], self.cutoff)
        reference = self.reference(s)
        t2 = time.perf_counter()
        return {"trial": trial, "s": s, "shape": format_shape(self.generator.spec.shape), "n_train": len(ytr),
                "n_test": len(yte), "n_pos_train": int((ytr == 1).sum()),
                "dim": int(Ztr.shape[1]), "rank": rank,
                "points": [{"epsilon": p.epsilon, "accuracy": p.accuracy, "margin": p.margin} for p in points],
                "reference": reference, "seconds_generate": g1 + g2, "seconds_model": m1 + m2,
                "seconds_probe": t2 - t1, "seconds_total": t2 - t0}

    # --- results -------------------------------------------------------------------------------------
    def trial_scores(self, recs: Sequence[dict[str, Any]], integration: str) -> dict[tuple[float, float], float]:
        """SynBench-Score for every (ε, a_T) of one trial's levels (a_T includes the headline)."""
        out = {}
        for i, eps in enumerate(self.epsilons):
            acc = [r["points"][i]["accuracy"] for r in recs]
            bnd = [r["points"][i]["margin"] if r["points"][i]["margin"] is not None else np.nan for r in recs]
            racc = [r["reference"][i]["accuracy"] for r in recs]
            rbnd = [r["reference"][i]["margin"] for r in recs]
            for a_T in sorted({*self.thresholds, self.a_T}):
                out[(eps, a_T)] = synbench_score(acc, bnd, racc, rbnd, a_T, integration)
        return out

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        recs = sorted(records.values(), key=lambda r: (r["trial"], r["s"]))
        if not recs:
            raise RobustError("synbench has no records to reduce")
        if [p["epsilon"] for p in recs[0]["points"]] != self.epsilons:
            raise RobustError("stored records were computed for other epsilons; rerun instead of reducing")
        trials = sorted({r["trial"] for r in recs})
        by_trial = [[r for r in recs if r["trial"] == t] for t in trials]
        integration = self.config["integration"]
        per_trial = {mode: [self.trial_scores(rs, mode) for rs in by_trial] for mode in INTEGRATIONS}
        keys = list(per_trial[integration][0])
        mean = {k: _mean_std([sc[k] for sc in per_trial[integration]]) for k in keys}
        headline = {eps: mean[(eps, self.a_T)][0] for eps in self.epsilons}
        best_eps = recommended_eps(headline)
        eps0 = self.epsilons[0]
        secs = {key: float(sum(r[key] for r in recs)) for key in ("seconds_generate", "seconds_model",
                                                                    "seconds_probe", "seconds_total")}
        summary: dict[str, Any] = {
            "score": mean[(eps0, self.a_T)][0], "score_std": mean[(eps0, self.a_T)][1],
            "epsilon": eps0, "a_T": self.a_T, "integration": integration,
            **{f"score_{mode}": _mean_std([sc[(eps0, self.a_T)] for sc in per_trial[mode]])[0]
               for mode in INTEGRATIONS},
            "recommended_epsilon": best_eps, "score_at_recommended": headline[best_eps],
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
            setup = self.setup or self.input_setup(ctx.model)
            summary["model"] = ctx.model.identity
            summary["normalization"] = "none" if setup["mean"] is None else f"mean={setup['mean']} std={setup['std']}"
            if ctx.model.name in REFERENCE_MODELS:
                summary["model_note"] = "built-in reference representation, not a pretrained encoder"
        score_rows = [[a_T, *[round(mean[(e, a_T)][0], 4) for e in self.epsilons]] for a_T in self.thresholds]
        score_table = Table(f"SynBench-Score ({integration}; rows a_T, columns ε; mean over {len(trials)} trial(s))",
                            ["a_T", *[f"eps={e:g}" for e in self.epsilons]], score_rows)
        levels = self.level_curve(recs)
        i_best = self.epsilons.index(best_eps)
        level_rows = [[lv["s"], round(lv["ref_accuracy"][0], 4), round(lv["ref_margin"][0], 4),
                       round(lv["accuracy"][0], 4), _round(lv["margin"][0]), round(lv["accuracy"][i_best], 4),
                       _round(lv["margin"][i_best]), lv["rank"]] for lv in levels]
        level_table = Table(f"Per level (mean over trials): reference vs representation at ε={eps0:g} and "
                            f"ε*={best_eps:g}",
                            ["s", "a_in", "b_in", "a_rep", "b_rep", "a_rep(ε*)", "b_rep(ε*)", "rank"], level_rows)
        data = {"epsilons": self.epsilons, "thresholds": self.thresholds, "a_T": self.a_T, "levels": levels,
                "scores": [{"epsilon": e, "a_T": a, "score": m, "std": sd} for (e, a), (m, sd) in mean.items()],
                "recommended_epsilon": best_eps}
        return Result(summary, [score_table, level_table], data)

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
