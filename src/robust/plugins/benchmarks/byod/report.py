"""BYOD results: per-test scores with bootstrap CIs, the paper's radar chart, and multi-model comparison."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from robust import Result, RunContext, Table
from robust.plugins.benchmarks.byod.constants import BENIGN, HEALTH, RADAR, TESTS
from robust.toolkit.lazy import np
from robust.toolkit.stats import bootstrap, separable

SCORE_COLUMNS = ["test", "metric", "score", "ci_low", "ci_high", "se", "stderr", "n", "better"]


def _finite(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def build_result(by_test: Mapping[str, list[dict[str, Any]]], scorers: Mapping[str, Any],
                 config: Mapping[str, Any], ctx: RunContext) -> Result:

    n_boot = int(config["bootstrap"])
    method = f"95% percentile bootstrap over examples (B={n_boot})"
    summary: dict[str, Any] = {"mode": config["mode"], "ci_method": method}
    rows, details, scores, values = [], [], {}, {}
    for test in [t for t in TESTS if t in by_test]:
        scorer, records = scorers[test], by_test[test]
        stats = scorer.summarize(records)
        v = scorer.numbers(records)
        ci = bootstrap(v, scorer.aggregate, ctx.seed_for("bootstrap", test), n_boot)
        metric = scorer.metric
        better = "higher" if scorer.higher_is_better else "lower"
        rows.append([test, metric, _finite(stats[metric]), _finite(ci.low), _finite(ci.high), _finite(ci.se),
                     _finite(stats.get(f"{metric}_stderr")), len(v), better])
        summary.update({metric: _finite(stats[metric]), f"{metric}_ci_low": _finite(ci.low),
                        f"{metric}_ci_high": _finite(ci.high), f"{metric}_se": _finite(ci.se), f"{test}_n": len(v),
                        f"{test}_skipped": len(records) - len(v)})
        for key, val in stats.items():
            if key not in (metric, f"{metric}_stderr", "n"):
                summary[key] = _finite(val)
                details.append([test, key, _finite(val)])
        scores[test] = {"metric": metric, "value": _finite(stats[metric]), "ci": [_finite(ci.low), _finite(ci.high)],
                        "se": _finite(ci.se), "higher_is_better": scorer.higher_is_better}
        values[test] = [round(float(x), 6) for x in v]
    if BENIGN in by_test and "negation" in scores:
        benign = np.abs(scorers[BENIGN].numbers(by_test[BENIGN]))
        normalized = scores["negation"]["value"] - float(benign.mean())  # NORMALIZED SENSITIVITY SCORE (paper §4)
        summary.update({"negation_benign_abs_delta": float(benign.mean()), "negation_benign_n": len(benign),
                        "negation_sensitivity_normalized": normalized})
        details += [["negation", "negation_benign_abs_delta", float(benign.mean())],
                    ["negation", "negation_sensitivity_normalized", normalized]]
    warnings = []
    if HEALTH in by_test:
        health = scorers[HEALTH].summarize(by_test[HEALTH])
        summary.update({k: _finite(health[k]) for k in ("health_log_ppl", "health_next_token_entropy",
                                                        "health_log_vocab")})
        summary["degenerate"] = bool(health["degenerate"])
        if summary["degenerate"]:
            summary["degenerate_reason"] = scorers[HEALTH].reason(health)
            warnings.append([summary["degenerate_reason"]])
    radar = {t: scores[t]["value"] for t in RADAR if t in scores}
    title = f"BYOD scores (mode: {config['mode']}; {method})"
    tables = [Table(("NOT RANKED, degenerate model. " if warnings else "") + title, SCORE_COLUMNS, rows),
              Table("BYOD secondary metrics", ["test", "metric", "value"], details)]
    if warnings:
        tables.insert(0, Table("BYOD warnings", ["warning"], warnings))
    return Result(summary, tables, {"mode": config["mode"], "scores": scores, "radar": radar, "values": values,
                                    "degenerate": bool(warnings)})


def compare(results: Sequence[tuple[str, Result]]) -> Result:
    """Several runs side by side: one row per (run, test), the pairs of runs a test cannot separate at 95 %
    (unpaired normal test with the bootstrap SEs), and one radar series per run; degenerate runs are listed
    but neither ranked nor drawn."""
    rows, summary, series, pairs = [], {}, [], []
    degenerate = [label for label, r in results if r.data.get("degenerate")]
    for label, result in results:
        for test, s in result.data.get("scores", {}).items():
            rows.append([label, test, s["metric"], s["value"], *s["ci"], result.data.get("mode"),
                         "degenerate: not ranked" if label in degenerate else ""])
            summary[f"{label}/{s['metric']}"] = s["value"]
        if label not in degenerate:
            series.append([label, result.data.get("radar", {})])
    ranked = [(label, r.data.get("scores", {})) for label, r in results if label not in degenerate]
    not_separable = []
    for i, (a, sa) in enumerate(ranked):
        for b, sb in ranked[i + 1:]:
            for test in [t for t in sa if t in sb]:
                x, y = sa[test], sb[test]
                verdict = separable(*(float("nan") if v is None else v
                                      for v in (x["value"], x.get("se"), y["value"], y.get("se"))))
                diff = None if x["value"] is None or y["value"] is None else x["value"] - y["value"]
                pairs.append([test, a, b, diff, {True: "yes", False: "no", None: "unknown"}[verdict]])
                if verdict is False:
                    not_separable.append(f"{test}: {a} vs {b}")
    summary.update({"not_separable": not_separable, "not_ranked": degenerate})
    tables = [Table("BYOD comparison", ["run", "test", "metric", "score", "ci_low", "ci_high", "mode", "note"], rows)]
    if pairs:
        tables.append(Table("BYOD pairwise separability (95%, unpaired test with bootstrap SEs; conservative on "
                            "the same examples)", ["test", "run_a", "run_b", "difference", "separable"], pairs))
    return Result(summary, tables, {"series": series})


Series = Sequence[tuple[str, Mapping[str, float | None]]]


def radar_geometry(series: Series) -> tuple[list[str], list[list[float]], list[tuple[float, float]]]:
    """(axis labels, radii in [0, 1] per series, axis ranges); reversed axes map low scores outward."""

    axes = [t for t in RADAR if any(values.get(t) is not None for _, values in series)]
    ranges = []
    for t in axes:
        lo, hi = RADAR[t][2]
        observed = [v for _, values in series if (v := values.get(t)) is not None]
        hi = max([hi, *observed])  # extend the paper's axis when a model falls outside it
        ranges.append((lo, hi))
    radii = []
    for _, values in series:
        row = []
        for t, (lo, hi) in zip(axes, ranges):
            v = values.get(t)
            frac = 0.0 if v is None else min(1.0, max(0.0, (v - lo) / (hi - lo)))
            row.append(frac if RADAR[t][3] else 1.0 - frac)  # lower is better: axis reversed (Fig. 2)
        radii.append(row)
    labels = [f"{RADAR[t][0]}\n({'%.3g' % (ranges[i][1] if not RADAR[t][3] else ranges[i][0])}"
              f"→{'%.3g' % (ranges[i][0] if not RADAR[t][3] else ranges[i][1])})" for i, t in enumerate(axes)]
    return labels, radii, ranges


def radar_figure(series: Series) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, radii, _ = radar_geometry(series)
    if len(labels) < 3:  # two axes make a line, not a map: the scores figure shows them
        return None
    fig = plt.figure(figsize=(5.5, 5.5))
    ax = fig.add_subplot(projection="polar")
    angles = np.linspace(0, 2 * np.pi, len(labels), endpoint=False).tolist()
    for (label, _), r in zip(series, radii):
        ax.plot(angles + angles[:1], r + r[:1], label=label)
        ax.fill(angles + angles[:1], r + r[:1], alpha=0.15)
    ax.set_xticks(angles)
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_yticklabels([])
    ax.set_title("BYOD (more area = better)")
    ax.legend(loc="lower right", fontsize=7, bbox_to_anchor=(1.15, -0.1))
    return fig


def warning_figure(text: str) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(5.5, 2.0))
    fig.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=9, color="darkred")
    return fig


def figures(result: Result) -> list[tuple[str, Any]]:
    series = result.data.get("series")
    if series is None and result.data.get("degenerate"):  # a radar would rank it ("more area = better")
        out = [("BYOD radar chart", warning_figure("No radar: " + str(result.summary.get("degenerate_reason"))))]
    else:
        series = series or [["model", result.data.get("radar", {})]]
        out = [("BYOD radar chart", radar_figure([(s[0], s[1]) for s in series]))]
    values = {test: v for test, v in (result.data.get("values") or {}).items() if v}
    if values:
        import matplotlib.pyplot as plt

        cols = min(3, len(values))
        rows = -(-len(values) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 2.5 * rows), squeeze=False)
        for ax, (test, v) in zip(axes.flat, values.items()):
            ax.hist(v, bins=min(30, max(5, len(v) // 3)))
            ax.set_title(test, fontsize=9)
        for ax in list(axes.flat)[len(values):]:
            ax.set_visible(False)
        fig.tight_layout()
        out.append(("BYOD per-example distributions", fig))
    return out


# the report page ------------------------------------------------------------------------------------------
SAMPLES_PER_TEST = 3
SAMPLE_CHARS = 400


def _label(test: str) -> str:

    return RADAR[test][0] if test in RADAR else test.replace("_", " ").capitalize()


def _scored(result: Result) -> list[tuple[str, dict[str, Any]]]:
    return [(t, s) for t, s in result.data.get("scores", {}).items() if s.get("value") is not None]


def headline(result: Result) -> str:
    """Every test's headline metric with its interval and direction, in one sentence."""
    scored = _scored(result)
    if not scored:
        return "No BYOD test produced a score."
    from robust import num

    parts = [f"{_label(t)} {num(s['value'])} {'↑' if s.get('higher_is_better') else '↓'}" for t, s in scored]
    n = sorted({result.summary.get(f"{t}_n") for t, _ in scored} - {None})
    size = f" on {n[0]} examples per test" if len(n) == 1 else ""
    return f"BYOD{size}: " + ", ".join(parts) + " (↑ higher / ↓ lower is better; metrics and 95 % intervals below)."


def scores_figure(result: Result) -> Any:
    """One strip per test: the score and its 95 % interval on the paper's axis range (extended to the data)."""
    from robust.toolkit.figures import Strip, strips_figure

    strips = []
    for test, s in _scored(result):
        low, high = (s.get("ci") or [None, None])[:2]
        better = "higher is better →" if s.get("higher_is_better") else "← lower is better"
        strips.append(Strip(f"{_label(test)}: {s['metric']} = {s['value']:.3g}   ({better})", s["value"], low, high,
                            RADAR[test][2] if test in RADAR else None))
    return strips_figure(strips)


def _cut(text: str) -> str:
    return text if len(text) <= SAMPLE_CHARS else text[:SAMPLE_CHARS] + " …"


def samples(records: Mapping[str, dict[str, Any]], order: Sequence[str] = ()) -> list[Any]:
    """The first scored records of each test: x -> x' with the changed words marked, the value and, for toxicity,
    the model's continuations."""
    from robust import Sample, SampleGroup

    by_test: dict[str, list[dict[str, Any]]] = {}
    for key in sorted(records):
        rec = records[key]
        if rec.get("value") is not None and len(by_test.setdefault(rec["test"], [])) < SAMPLES_PER_TEST:
            by_test[rec["test"]].append(rec)
    groups = []
    for test in [t for t in order if t in by_test] + [t for t in by_test if t not in order]:
        recs, chosen = by_test[test], []
        for rec in recs:
            output = f"value {rec['value']:.4g}"
            if "continuation" in rec:
                output += (f" · continuation: {rec['continuation'].strip()!r} · with the trigger: "
                           f"{rec.get('continuation_triggered', '').strip()!r}")
            perturbed = _cut(rec["x_prime"]) if rec.get("x_prime") else None
            chosen.append(Sample(_cut(rec["x"]), perturbed, output=output, note=f"{test} · {rec.get('source', '')}"))
        groups.append(SampleGroup(f"{_label(test)} ({test})", chosen,
                                  "x -> x' with the changed words marked (removed, added); the value is the "
                                  "example's contribution to the test's metric."))
    return groups


def report_parts(result: Result, records: Mapping[str, dict[str, Any]]) -> Any:
    from robust import ReportParts, default_headline

    if "series" in result.data:  # a comparison
        return ReportParts(compare_headline(result) or default_headline(result), figures(result))
    notes = [str(result.summary["ci_method"])] if result.summary.get("ci_method") else []
    if result.data.get("degenerate"):
        notes.append(f"Degenerate model, not ranked: {result.summary.get('degenerate_reason', '')}")
    return ReportParts(headline(result), [("Scores with 95 % intervals", scores_figure(result)), *figures(result)],
                       samples(records, list(result.data.get("scores", {}))), notes)


def compare_headline(result: Result) -> str:
    """The best run per test, and whether its 95 % interval overlaps the runner-up's (or the comparison's own
    list of pairs it cannot separate, when it has one)."""
    from robust import num

    if not result.tables or not result.tables[0].rows:
        return ""
    cols = result.tables[0].columns
    at = {c: cols.index(c) for c in ("run", "test", "score", "ci_low", "ci_high") if c in cols}
    if len(at) < 5:
        return ""
    by_test: dict[str, list[list[Any]]] = {}
    for row in result.tables[0].rows:
        if row[at["score"]] is not None and direction_of(row[at["test"]]) is not None:
            by_test.setdefault(row[at["test"]], []).append(row)
    parts = []
    for test, rows in by_test.items():
        higher = RADAR[test][3]
        rows.sort(key=lambda r: -r[at["score"]] if higher else r[at["score"]])
        best = rows[0]
        text = f"{_label(test)}: {best[at['run']]} ({num(best[at['score']])})"
        if len(rows) > 1:
            (lo_a, hi_a), (lo_b, hi_b) = ((r[at["ci_low"]], r[at["ci_high"]]) for r in rows[:2])
            overlap = None not in (lo_a, hi_a, lo_b, hi_b) and lo_a <= hi_b and lo_b <= hi_a
            text += f", intervals overlap with {rows[1][at['run']]}" if overlap else ""
        parts.append(text)
    if not parts:
        return ""
    text = "Best per test: " + "; ".join(parts)
    if result.summary.get("not_separable"):
        text += "; not separable at 95 %: " + ", ".join(map(str, result.summary["not_separable"]))
    return text + "."


def direction_of(test: str) -> bool | None:
    """True when a higher score is better on a test's radar axis, False when lower is, None off the radar."""

    return RADAR[test][3] if test in RADAR else None
