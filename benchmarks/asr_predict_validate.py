"""Validation of the RobustText ASR predictor on the authors' stored tables (Dang et al. 2024, §5).

    python benchmarks/asr_predict_validate.py [--data DIR] [--splits 202] [--out out.json]

For data_bert.csv and data_roberta.csv (DistilRoBERTa): the paper's interpolation protocol (202 random
60/32/8 splits), repeated 5-fold, leave-one-corpus-out without leakage, the same folds with 30 leaked rows,
the released (leaky) extrapolation protocol, both no-feature baselines, the noise floor, the verdict, and the
coverage of the predictor's error bars in nested cross-validation. Prints Markdown (docs/validation/asr_predict.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from robust.plugins.benchmarks.asr_predict import predictor as PR
from robust.plugins.benchmarks.asr_predict import protocols as P
from robust.plugins.benchmarks.asr_predict.table import load_table

PAPER = {  # Table 3, interpolation / extrapolation: RMSE, R², MAE, EVS, MAPE (the "±" are variances)
    "bert": {"interp": {"rf": (0.055, 0.904, 0.037, 0.907, 0.071), "gb": (0.059, 0.892, 0.040, 0.895, 0.077),
                        "lr": (0.072, 0.841, 0.053, 0.846, 0.101)},
             "extrap": {"rf": (0.063, 0.885, 0.045, 0.908, 0.102), "gb": (0.169, 0.394, 0.128, 0.522, 0.278),
                        "lr": (0.063, 0.871, 0.040, 0.892, 0.086)}},
    "roberta": {"interp": {"rf": (0.031, 0.972, 0.025, 0.972, 0.048), "gb": (0.037, 0.959, 0.028, 0.961, 0.054),
                           "lr": (0.056, 0.907, 0.044, 0.911, 0.083)},
                "extrap": {"rf": (0.061, 0.900, 0.044, 0.922, 0.095), "gb": (0.206, 0.139, 0.176, 0.309, 0.385),
                           "lr": (0.073, 0.829, 0.042, 0.846, 0.083)}},
}
METRICS = ("rmse", "r2", "mae", "evs", "mape")


def models() -> tuple[str, ...]:
    try:
        import lightgbm  # noqa: F401

        return ("rf", "gb", "lgbm", "lr")
    except ImportError:
        return ("rf", "gb", "lr")


def split_table(result: P.ProtocolResult, paper: dict | None) -> list[str]:
    head = "| model | RMSE | R² | MAE | EVS | MAPE | RMSE std | R² var | R² std | paper RMSE / R² / MAE / EVS / MAPE |"
    lines = [head, "|---|---|---|---|---|---|---|---|---|---|"]
    for name in result.names:
        s = result.summary(name)
        ref = (paper or {}).get(name)
        ref_text = " / ".join(f"{v:.3f}" for v in ref) if ref else ""
        cells = " | ".join(f"{s[f'{m}_mean']:.3f}" for m in METRICS)
        lines.append(f"| {name} | {cells} | {s['rmse_std']:.3f} | {s['r2_var']:.4f} | {s['r2_std']:.3f} | {ref_text} |")
    return lines


def pooled_table(results: list[P.ProtocolResult]) -> list[str]:
    names = results[0].names
    lines = ["| protocol | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for r in results:
        cells = " | ".join(f"{r.pooled(n)['rmse']:.3f} ({r.pooled(n)['r2']:+.2f})" for n in names)
        lines.append(f"| {r.protocol} | {cells} |")
    return lines


def coverage(table, seed: int = 0) -> dict[str, float]:
    """Nested CV: does the predictor's interval contain held-out truths? Unseen corpus = nested leave-one-
    corpus-out; known corpus = nested 5-fold. Also the trees' +/-1.96 sd, which is not an error bar."""
    hits = {"unseen-corpus interval": [], "trees ±1.96 sd (unseen corpus)": [], "known-corpus interval": []}
    for family in np.unique(table.family):
        held = table.family == family
        out = PR.fit_predictor(table.subset(np.flatnonzero(~held)), seed, repeats=1).predict(table.X[held])
        hits["unseen-corpus interval"] += [p.low <= t <= p.high for p, t in zip(out, table.y[held])]
        hits["trees ±1.96 sd (unseen corpus)"] += [abs(p.asr - t) <= 1.96 * p.tree_sd
                                                   for p, t in zip(out, table.y[held])]
    for s in P.repeated_kfold_splits(len(table), 5, 1, seed, val_fraction=0.0):
        out = PR.fit_predictor(table.subset(s.train), seed, repeats=1).predict(table.X[s.test], "known-corpus")
        hits["known-corpus interval"] += [p.low <= t <= p.high for p, t in zip(out, table.y[s.test])]
    return {k: float(np.mean(v)) for k, v in hits.items()}


def log(message: str, start: float) -> None:
    print(f"[{time.time() - start:6.0f} s] {message}", file=sys.stderr, flush=True)


def run(data: Path, name: str, n_splits: int, seed: int) -> dict:
    start = time.time()
    table = load_table(data / f"data_{name}.csv")
    filtered = load_table(data / f"data_{name}.csv", asr_filter=True)
    ms = models()
    interp = P.evaluate(table, P.paper_interpolation_splits(len(table), n_splits, seed), ms, seed=seed,
                        protocol="interpolation, paper 60/32/8")
    kfold = P.evaluate(table, P.repeated_kfold_splits(len(table), 5, 10, seed), ms, seed=seed,
                       protocol="interpolation, 10x5-fold")
    loco = P.evaluate(table, P.leave_one_group_out_splits(table.family, seed), ms, seed=seed,
                      protocol="extrapolation, leave-one-corpus-out")
    leaky = P.evaluate(table, P.leave_one_group_out_splits(table.family, seed, leak=30), ms, seed=seed,
                       protocol="same folds + 30 leaked rows (LEAKY)")
    # boosting there early-stops on its own training rows, i.e. runs all 5000 rounds: only one booster
    released_models = tuple(m for m in ms if m != "gb") if "lgbm" in ms else ms
    released = P.evaluate(filtered, P.released_extrapolation_splits(filtered.family, n_splits, seed), released_models,
                          seed=seed, protocol="released extrapolation (LEAKY, ASR>=0.1 rows)")
    log(f"{name}: protocols done", start)
    noise = P.noise_floor(table)
    v = P.verdict([(kfold, table.variant), (loco, table.family)], noise, "rf", seed=seed)
    per_family = {f: {"n": int((table.family == f).sum()), "asr_mean": float(table.y[table.family == f].mean()),
                      "rf_rmse": float(np.sqrt(loco.sq_error["rf"][table.family == f].mean())),
                      "mean_rmse": float(np.sqrt(loco.sq_error["global-mean"][table.family == f].mean()))}
                  for f in np.unique(table.family)}
    cover = coverage(table, seed)
    log(f"{name}: coverage done", start)
    lines = [f"### {name} ({len(table)} rows; {len(filtered)} with the ASR >= 0.1 filter)", "",
             f"Paper interpolation protocol, {n_splits} splits (mean over splits):", "",
             *split_table(interp, PAPER[name]["interp"]), "",
             f"Released extrapolation protocol, {n_splits} repetitions (LEAKY; paper's extrapolation columns):", "",
             *split_table(released, PAPER[name]["extrap"]), "",
             "Pooled over rows, RMSE (R²):", "", *pooled_table([interp, kfold, loco, leaky]), "",
             "Leave-one-corpus-out per held-out corpus (RMSE of RF vs training mean):", "",
             "| corpus | rows | mean ASR | RF | global mean |", "|---|---|---|---|---|",
             *(f"| {f} | {d['n']} | {d['asr_mean']:.3f} | {d['rf_rmse']:.3f} | {d['mean_rmse']:.3f} |"
               for f, d in per_family.items()), "",
             "Error-bar coverage in nested cross-validation (nominal 95 %): " +
             ", ".join(f"{k} {v:.2f}" for k, v in cover.items()), "",
             "Verdict:", "", "```", v.text(), "```", "", f"({time.time() - start:.0f} s)", ""]
    print("\n".join(lines), flush=True)
    return {"rows": len(table), "interp": {n: interp.summary(n) for n in interp.names},
            "released": {n: released.summary(n) for n in released.names},
            "pooled": {r.protocol: {n: r.pooled(n) for n in r.names} for r in (interp, kfold, loco, leaky, released)},
            "per_family": per_family, "noise": noise, "coverage": cover, "beats": v.beats,
            "comparisons": [c.__dict__ for c in v.comparisons]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(__file__).resolve().parents[2] / "shared" / "data" / "robusttext"
    parser.add_argument("--data", type=Path, default=shared,
                        help="directory of data_bert.csv and data_roberta.csv (default: %(default)s)")
    parser.add_argument("--splits", type=int, default=202)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message=".*Only training set found.*")
    out = {name: run(args.data, name, args.splits, args.seed) for name in ("bert", "roberta")}
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
