"""`robust compare` for SynBench: rank encoders by their headline score with its t interval over trials (adjacent
runs a Welch t test cannot separate marked); runs of different widths are ranked by the score relative to a
lossless representation of their own width (or warned about when a run lacks it); runs that are not
comparable are flagged."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from robust import Result, Table
from robust.toolkit.stats import MeanInterval, sample_sd, welch_separable

#: settings that must agree for scores to be comparable (absolute scores depend on n and shape, docs/synbench.md)
COMPARABLE_KEYS = ("n", "n_test", "levels", "a_T", "epsilon", "integration", "eps_mode", "covariance",
                   "translation", "denominator")


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or value != value else round(float(value), digits)


def score_interval(summary: Mapping[str, Any], scale: float = 1.0) -> MeanInterval:
    """The headline score over trials as a MeanInterval (divided by `scale`); older results stored np.std."""
    n = int(summary.get("trials") or 1)
    mean = float(summary.get("score", math.nan)) / scale
    sd = summary.get("score_sd")
    if sd is None and summary.get("score_std") is not None and n > 1:
        sd = sample_sd(summary["score_std"], n)
    return MeanInterval.from_sd(mean, None if sd is None else float(sd) / scale, n)


def ci_text(m: MeanInterval) -> str:
    """'[0.95, 0.96]' or why there is none (one trial)."""
    return f"[{m.low:.4f}, {m.high:.4f}]" if m.n > 1 and math.isfinite(m.low) else "none: 1 trial"


def width_warning(results: Sequence[tuple[str, Result]], normalised: bool) -> str | None:
    """A sentence when the runs' representation widths differ (None when they agree)."""
    widths = {r.summary.get("dim") for _, r in results}
    if len(widths) < 2:
        return None
    lossless = {r.summary.get("dim"): r.summary.get("lossless_score") for _, r in results}
    known = [f"{lossless[w]:.3f} at width {w}" for w in sorted(lossless, key=lambda w: w or 0) if lossless[w]]
    text = (f"representation widths differ ({', '.join(str(w) for w in sorted(widths, key=lambda w: w or 0))}): the "
            "probe's finite-sample loss grows with the width at a fixed n, so raw scores rank widths as much as "
            "encoders")
    if known:
        text += f" (a lossless representation scores {', '.join(known)})"
    return text + ("; ranked by score / lossless reference of the same width instead" if normalised else
                   "; rerun every run with --set lossless=true to rank them by the width-normalised score")


def ranking_rows(entries: Sequence[tuple[str, MeanInterval]]) -> tuple[list[list[Any]], list[tuple[str, str]]]:
    """Rows `rank, run, value, CI half-width, vs next` (best first) and the adjacent pairs within noise."""
    ordered = sorted(entries, key=lambda e: (math.isnan(e[1].mean), -e[1].mean if not math.isnan(e[1].mean) else 0))
    rows, ties = [], []
    for i, (label, m) in enumerate(ordered):
        verdict = None if i + 1 == len(ordered) else welch_separable(m, ordered[i + 1][1])
        if verdict is False:
            ties.append((label, ordered[i + 1][0]))
        vs_next = {True: "ahead", False: "within noise", None: "–"}[verdict]
        rows.append([i + 1, label, _round(m.mean), _round(m.halfwidth) if m.n > 1 else None, vs_next])
    return rows, ties


def compare_results(results: Sequence[tuple[str, Result]]) -> Result:
    """A ranking (best first) by the headline score (or by the score relative to the lossless representation of
    the same width, when widths differ) with its 95 % t interval over trials, whether each run is ahead of the
    next or within noise (Welch), and every run's score against ε at its headline a_T."""
    widths = {r.summary.get("dim") for _, r in results}
    normalised = len(widths) > 1 and all(r.summary.get("lossless_score") for _, r in results)
    scale = {label: float(r.summary["lossless_score"]) if normalised else 1.0 for label, r in results}
    intervals = {label: score_interval(r.summary, scale[label]) for label, r in results}
    rows, ties = ranking_rows(list(intervals.items()))
    by_label = dict(results)
    what = "score / lossless" if normalised else "score"
    columns = ["rank", "run", what, "95 % CI (t over trials)", "vs next", "model", "width", "score",
               "lossless at width", "sd over trials", "trials", "best_eps", "score(best_eps)", "shape", "n"]
    table_rows = [[row[0], row[1], row[2], ci_text(intervals[row[1]]), row[4], s.get("model"), s.get("dim"),
                   _round(s.get("score")), _round(s.get("lossless_score")), _round(score_interval(s).sd),
                   s.get("trials"), s.get("recommended_epsilon"), _round(s.get("score_at_recommended")),
                   s.get("shape"), s.get("n")]
                  for row in rows for s in [by_label[row[1]].summary]]
    differing = [k for k in COMPARABLE_KEYS if len({repr(r.summary.get(k)) for _, r in results}) > 1]
    eps = sorted({s["epsilon"] for _, r in results for s in r.data.get("scores", [])})
    eps_rows = []
    for row in rows:
        res = by_label[row[1]]
        a_T = res.data.get("a_T")
        by_eps = {s["epsilon"]: s["score"] for s in res.data.get("scores", []) if s["a_T"] == a_T}
        eps_rows.append([row[1], *[_round(by_eps.get(e), 3) for e in eps]])
    summary: dict[str, Any] = {"ranking": [row[1] for row in rows], "best": rows[0][1] if rows else None,
                               "ranked_by": what, "within noise": [f"{a} vs {b}" for a, b in ties],
                               "comparable": not differing, "differing_settings": differing}
    warning = width_warning(results, normalised)
    if warning:
        summary["width_warning"] = warning
    title = (f"SynBench ranking by {what} (higher is better; 95 % CI: t interval over each run's trials of the data, "
             "the model fixed; vs next: Welch t test at 95 %)")
    tables = [Table(title, columns, table_rows),
              Table("SynBench-Score against ε at the headline a_T", ["run", *[f"eps={e:g}" for e in eps]], eps_rows)]
    return Result(summary, tables, {"scores": {label: r.summary.get("score") for label, r in results},
                                    "ranking": rows, "ties": ties, "ranked_by": what,
                                    "runs": [{"label": label, "scores": r.data.get("scores", []),
                                              "a_T": r.data.get("a_T")} for label, r in results]})
