"""The robustness report (Chen et al. 2023, Appendix G): per dimension-tag the table `Method | degrees | Final
Score` and the four curves, radar maps of Final Scores, and the comparison of several runs."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from robust import Result, RobustError, Table
from robust.plugins.benchmarks.robtest.dimensions import DimensionTag
from robust.plugins.benchmarks.robtest.scores import degree_key, final_score
from robust.toolkit.chance import above_chance, chance_check, chance_sentence, lead_with_chance

ACCESS_TITLE = {"rule": "Rule", "score": "Score"}
METRICS = ("average", "worst")


def title(access: str) -> str:
    return ACCESS_TITLE.get(access, access)


def method(access: str, metric: str) -> str:
    """Row name as printed in the paper: Rule-Average, Score-Worst, ..."""
    return f"{title(access)}-{metric.capitalize()}"


def _mean(values: Sequence[Any]) -> float | None:
    numbers = [v for v in values if v is not None]
    return sum(numbers) / len(numbers) if numbers else None


def _fmt(value: float | None) -> Any:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else round(value, 1)


def _rows(records: Mapping[str, dict[str, Any]], tag: str, access: str, degrees: Sequence[float],
          example_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The records of one (tag, access) at every degree, with degree 0 from the shared clean items."""
    out = []
    for eid in example_ids:
        for d in degrees:
            item_id = f"clean/{eid}" if d == 0 else f"{tag}/{access}/{degree_key(d)}/{eid}"
            if item_id not in records:
                raise RobustError(f"robtest run is incomplete (no record for {item_id}); resume it first")
            out.append({**records[item_id], "example": eid, "degree": d})
    return out


def build_result(records: Mapping[str, dict[str, Any]], tags: Sequence[DimensionTag], scorers: Sequence[Any],
                 degrees: Sequence[float], example_ids: Sequence[str], settings: Mapping[str, Any],
                 names: Mapping[Any, Any] | None = None) -> Result:
    """Average/Worst curves (from the `robtest-average` and `robtest-worst` scorers), finals and diagnostics;
    `names` (class index -> name) name the majority class of the chance check."""
    clean = [records[f"clean/{eid}"] for eid in example_ids]
    clean_acc = 100.0 * sum(r["correct"] for r in clean) / len(clean)
    check = chance_check([r["gold"] for r in clean], [r["correct"] for r in clean], names)
    keys = [degree_key(d) for d in degrees]
    curves: dict[str, dict[str, dict[str, list[float]]]] = {}
    finals: dict[str, dict[str, float]] = {}
    variants: dict[str, dict[str, list[float]]] = {}
    achieved: dict[str, dict[str, list[float]]] = {}
    short: dict[str, dict[str, list[float | None]]] = {}
    samples: dict[str, dict[str, dict[str, list[str]]]] = {}
    queries: dict[str, dict[str, list[float | None]]] = {}
    capped: dict[str, dict[str, list[int]]] = {}
    for tag in tags:
        curves[tag.name], finals[tag.name], variants[tag.name], achieved[tag.name] = {}, {}, {}, {}
        short[tag.name] = {}
        samples[tag.name], queries[tag.name], capped[tag.name] = {}, {}, {}
        for access in tag.accesses:
            rows = _rows(records, tag.name, access, degrees, example_ids)
            curves[tag.name][access] = {}
            for metric, scorer in zip(METRICS, scorers):
                summary = scorer.summarize(scorer.values(rows), rows)
                curves[tag.name][access][metric] = [summary[k] for k in keys]
                finals[tag.name][method(access, metric)] = summary["final"]
            by_degree: dict[str, list[dict[str, Any]]] = {k: [] for k in keys}
            for r in rows:  # every row's degree is one of `degrees`
                by_degree[degree_key(r["degree"])].append(r)
            variants[tag.name][access] = [sum(r["n"] for r in by_degree[k]) / len(by_degree[k]) for k in keys]
            achieved[tag.name][access] = [
                sum(r.get("achieved", 0.0) for r in by_degree[k]) / len(by_degree[k]) for k in keys]
            short[tag.name][access] = [_mean([r.get("short") for r in by_degree[k]]) for k in keys]
            samples[tag.name][access] = {k: [r["sample"] for r in by_degree[k] if r.get("sample")][:3]
                                         for k in keys[1:]}
            queries[tag.name][access] = [_mean([r.get("queries") for r in by_degree[k]]) for k in keys]
            capped[tag.name][access] = [sum(r.get("status") == "budget" for r in by_degree[k]) for k in keys]
    data = {"kind": "robtest", "degrees": list(degrees), "settings": dict(settings), "clean_accuracy": clean_acc,
            "tags": [t.to_json() for t in tags], "access": sorted({a for t in tags for a in t.accesses}),
            "curves": curves, "finals": finals, "variants": variants, "achieved": achieved, "short": short,
            "samples": samples, "queries": queries, "capped": capped, "chance": check,
            "pdr": drop_rates(curves, clean_acc), "perturb": settings.get("perturb", "input")}
    summary: dict[str, Any] = {"examples": len(example_ids), "clean accuracy": round(clean_acc, 2),
                               "clean accuracy_ci_low": round(100 * check["clean_accuracy_ci_low"], 2),
                               "clean accuracy_ci_high": round(100 * check["clean_accuracy_ci_high"], 2),
                               "majority-class rate": round(100 * check["majority_rate"], 2)}
    if not check["above_chance"]:
        summary["cannot do the task"] = chance_sentence(check)
    if settings.get("budget"):
        hits = sum(sum(v) for by_access in capped.values() for v in by_access.values())
        summary["query budget"] = settings["budget"]
        summary["items that hit the query budget"] = hits
    for tag in tags:
        for name, value in finals[tag.name].items():
            summary[f"{tag.name} {name} final"] = round(value, 2)
        for access, by_metric in data["pdr"][tag.name].items():
            shown = [v for v in by_metric["average"] if v is not None]
            if shown:  # PromptBench's PDR of the Average curve, over the perturbed degrees
                key = f"{tag.name} {title(access)}-Average PDR (mean over degrees)"
                summary[key] = round(sum(shown) / len(shown), 3)
    unreached = short_of_degree(data)
    if unreached:
        summary["most draws short of their degree"] = unreached
    return Result(summary=summary, tables=tables_of(data), data=data)


def drop_rates(curves: Mapping[str, Any], clean: float) -> dict[str, Any]:
    """PromptBench's performance drop rate (Zhu et al. 2023, Eq. 1) at each perturbed degree, per tag, access and
    metric: PDR = 1 − Σ M[f(A(P), x), y] / Σ M[f(P, x), y] = 1 − accuracy under the perturbation / clean accuracy
    (None when the clean accuracy is 0); negative when the perturbation helps."""
    return {tag: {access: {metric: [None if clean <= 0 else round(1 - v / clean, 4) for v in curve[1:]]
                           for metric, curve in by_metric.items()}
                  for access, by_metric in by_access.items()} for tag, by_access in curves.items()}


def short_of_degree(data: Mapping[str, Any]) -> str:
    """"synonym from 0.1, syntax from 0.05": each tag's first degree from which most of its rule-based (else its
    first access's) draws fell short of the degree, so its curve above re-measures the same texts."""
    out = []
    for name, by_access in data.get("short", {}).items():
        shares = by_access.get("rule") or next(iter(by_access.values()), [])
        first = next((d for d, v in zip(data["degrees"], shares) if d > 0 and v is not None and v > 0.5), None)
        if first is not None:
            out.append(f"{name} from {degree_key(first)}")
    return ", ".join(out)


def _row(name: str, curve: Sequence[float] | None, degrees: Sequence[float], formula: str) -> list[Any]:
    if curve is None:
        return [name] + ["-"] * (len(degrees) + 1)
    return [name] + [_fmt(v) for v in curve] + [_fmt(final_score(curve, formula))]


def tables_of(data: Mapping[str, Any]) -> list[Table]:
    """The paper's report table per dimension-tag, a Final Score overview and the generation diagnostics."""
    degrees, formula = data["degrees"], data["settings"].get("final", "code")
    columns = ["Method"] + [degree_key(d) for d in degrees] + ["Final Score"]
    accesses = [a for a in ("rule", "score") if a in data["access"]] + sorted(set(data["access"]) - {"rule", "score"})
    methods = [(a, m) for a in accesses for m in METRICS]
    out = []
    for t in data["tags"]:
        rows = [_row(method(a, m), data["curves"][t["name"]].get(a, {}).get(m), degrees, formula) for a, m in methods]
        label = "Malicious" if t["tag"] == "M" else "General"
        out.append(Table(f"{t['name']} ({t['dimension']}, {label})", columns, rows))
    overview = [[t["name"], t["dimension"], t["tag"]] + [_fmt(data["finals"][t["name"]].get(method(a, m)))
                                                         for a, m in methods] for t in data["tags"]]
    out.append(Table("Final Scores", ["Dimension-tag", "Dimension", "Tag"] + [method(a, m) for a, m in methods],
                     overview))
    if data.get("pdr"):
        pdr = [[t["name"], method(a, m)] + data["pdr"][t["name"]][a][m] for t in data["tags"] for a, m in methods
               if a in data["pdr"][t["name"]]]
        out.append(Table(f"PromptBench's performance drop rate, PDR = 1 − accuracy / clean accuracy (Zhu et al. 2023, "
                         f"Eq. 1), perturbing the {data.get('perturb', 'input')}",
                         ["Dimension-tag", "Method"] + [degree_key(d) for d in degrees[1:]], pdr))
    diag = []
    for t in data["tags"]:
        for a in data["variants"][t["name"]]:
            diag.append([t["name"], title(a), "distinct variants per example"]
                        + [round(v, 2) for v in data["variants"][t["name"]][a]])
            diag.append([t["name"], title(a), "achieved degree (mean)"]
                        + [round(v, 3) for v in data["achieved"][t["name"]][a]])
            if a in data.get("short", {}).get(t["name"], {}):
                diag.append([t["name"], title(a), "draws short of the degree (%)"]
                            + [_fmt(None if v is None else 100 * v) for v in data["short"][t["name"]][a]])
            if a in data.get("queries", {}).get(t["name"], {}):
                diag.append([t["name"], title(a), "model queries per example (mean)"]
                            + [_fmt(v) for v in data["queries"][t["name"]][a]])
                diag.append([t["name"], title(a), "examples that hit the query budget"]
                            + data["capped"][t["name"]][a])
    out.append(Table("Generation diagnostics", ["Dimension-tag", "Access", "Quantity"]
                     + [degree_key(d) for d in degrees], diag))
    return out


# comparison ---------------------------------------------------------------------------------------------------
def compare(results: Sequence[tuple[str, Result]]) -> Result:
    """Rows `<run>-Average`, `<run>-Worst` per dimension-tag and access setting (Figures 16, 17)."""
    runs = [(label, r.data) for label, r in results if r.data.get("kind") == "robtest"]
    if len(runs) < 2:
        raise RobustError("robtest compare needs at least two robtest evaluation runs")
    degrees = runs[0][1]["degrees"]
    tags: list[dict[str, Any]] = []
    for _, d in runs:
        tags += [t for t in d["tags"] if t["name"] not in {x["name"] for x in tags}]
    columns = ["Method"] + [degree_key(x) for x in degrees] + ["Final Score"]
    tables, summary = [], {}
    for access in dict.fromkeys(a for _, d in runs for a in d["access"]):
        for t in tags:
            rows = []
            for label, d in runs:
                curve = d["curves"].get(t["name"], {}).get(access)
                formula = d["settings"].get("final", "code")
                same = curve is not None and d["degrees"] == degrees
                rows += [_row(f"{label}-{m.capitalize()}", curve[m] if same else None, degrees, formula)
                         for m in METRICS]
            if any(cell != "-" for row in rows for cell in row[1:]):
                tables.append(Table(f"{title(access)}-based: {t['name']}", columns, rows))
    for label, d in runs:
        summary[f"{label} clean accuracy"] = round(d["clean_accuracy"], 2)
    data = {"kind": "robtest-compare", "degrees": degrees, "tags": tags, "labels": [lab for lab, _ in runs],
            "runs": {label: d for label, d in runs}}
    from robust import ranking

    unable = [label for label, d in runs if not above_chance(d)]
    if unable:  # a model that cannot do the task is not ranked (as BYOD leaves out a degenerate model)
        summary["not ranked (not above chance)"] = unable
    rows, ties = ranking([e for e in compare_entries(data) if e[0] not in unable], digits=1)
    summary["ranking"] = [row[1] for row in rows]
    summary["within noise"] = [f"{a} vs {b}" for a, b in ties]
    tables.insert(0, Table("Ranking by mean Average Final Score over the shared dimension-tags (± 95 % CI over "
                           "examples, conservative)",
                           ["rank", "run", "mean Average Final", "± 95 % CI (examples)", "vs next"], rows))
    return Result(summary=summary, tables=tables, data=data)


# the report page --------------------------------------------------------------------------------------------
SAMPLES_PER_DEGREE = 2
ACCESS_COLOR = {"rule": "tab:blue", "score": "tab:red"}
METRIC_STYLE = {"average": ("-", "o", 1.0), "worst": ("--", "s", 0.75)}  # line style, marker, alpha


def _color(access: str, accesses: Sequence[str]) -> str:
    return ACCESS_COLOR.get(access, f"C{2 + list(accesses).index(access) % 8}")


def _finals(data: Mapping[str, Any]) -> list[tuple[float, str, str, str]]:
    """(Final Score, tag, access, metric) of every curve the run has."""
    return [(f, t["name"], a, m) for t in data["tags"] for a in t["access"] for m in METRICS
            if (f := data["finals"].get(t["name"], {}).get(method(a, m))) is not None and not math.isnan(f)]


def headline(data: Mapping[str, Any]) -> str:
    """Clean accuracy, where the weakest dimension-tag ends at the largest degree, and the lowest Worst final; first
    of all, that the model cannot do the task when its clean accuracy is not above the majority-class rate."""
    return lead_with_chance(data.get("chance"), _measured(data))


def _measured(data: Mapping[str, Any]) -> str:
    clean, finals = data["clean_accuracy"], _finals(data)
    averages = sorted(f for f in finals if f[3] == "average")
    if not averages:
        return f"Clean accuracy {clean:.0f}\u00a0%; no perturbed degrees were evaluated."
    _, tag, access, _ = averages[0]
    degree, end = data["degrees"][-1], data["curves"][tag][access]["average"][-1]
    verb = "falls" if end < clean - 0.5 else "rises" if end > clean + 0.5 else "stays"
    where = f"at {tag} degree {degree:g} ({_access_phrase(access)})"
    text = (f"Accuracy {verb} from {clean:.0f}\u00a0% (clean) to {end:.0f}\u00a0% {where}" if verb != "stays"
            else f"Accuracy stays at {clean:.0f}\u00a0% {where}")
    if len(averages) > 1:
        text += f", the weakest of {len(averages)} settings"
    worst = min((f for f in finals if f[3] == "worst"), default=None)
    if worst is not None:
        label = f"{worst[1]}, {_access_phrase(worst[2])}"
        text += (f"; lowest Worst-case Final Score {worst[0]:.0f} ({label})" if len(averages) > 1
                 else f"; Worst-case Final Score {worst[0]:.0f}")
    return text + "."


def _access_phrase(access: str) -> str:
    return f"{access}-based" if access in ACCESS_TITLE else f"{access} access"


def samples(data: Mapping[str, Any], records: Mapping[str, dict[str, Any]]) -> list[Any]:
    """Per dimension-tag and degree, a few original -> perturbed texts with the victim's prediction; misclassified
    ones first, one access after another, in example order."""
    from robust import Sample, SampleGroup

    clean = {key.split("/", 1)[1]: rec for key, rec in records.items() if key.startswith("clean/")}
    found: dict[tuple[str, str, str], list[tuple[str, dict[str, Any]]]] = {}
    for key in sorted(records):
        parts = key.split("/", 3)
        if len(parts) == 4 and parts[0] != "clean":
            found.setdefault((parts[0], parts[2], parts[1]), []).append((parts[3], records[key]))
    groups = []
    for t in data["tags"]:
        chosen: list[Any] = []
        shown: set[str] = set()
        for d in data["degrees"][1:]:
            pools = []
            for access in t["access"]:
                pool = [(eid, rec, access) for eid, rec in found.get((t["name"], degree_key(d), access), [])
                        if eid in clean and (rec.get("perturbed") or rec.get("sample"))
                        and (rec.get("perturbed") or rec.get("sample")) != rec.get("original", clean[eid].get("text"))]
                # misclassified first, then examples this dimension-tag has not shown yet
                pool.sort(key=lambda x: (x[1].get("pred") in (None, clean[x[0]].get("gold")), x[0] in shown))
                pools.append(pool)
            picks = [x for rank in zip(*pools) for x in rank] or [x for pool in pools for x in pool]
            for eid, rec, access in picks[:SAMPLES_PER_DEGREE]:
                shown.add(eid)
                note = f"degree {degree_key(d)} · {title(access)}-based · example {eid}"
                if rec.get("status"):
                    queries = rec.get("queries")
                    note += f" · {rec['status']}" + (f" after {queries} quer{'y' if queries == 1 else 'ies'}"
                                                     if queries else "")
                chosen.append(Sample(rec.get("original", clean[eid]["text"]), rec.get("perturbed") or rec["sample"],
                                     clean[eid].get("gold"), rec.get("pred"), note=note))
        if chosen:
            kind = "Malicious" if t["tag"] == "M" else "General"
            groups.append(SampleGroup(f"{t['name']} ({t['dimension']}, {kind})", chosen,
                                      "Changed words are marked (removed, added); the prediction is the victim's "
                                      "on the perturbed text; texts are cut at 300 characters."))
    return groups


def report_parts(result: Result, records: Mapping[str, dict[str, Any]]) -> Any:
    """Headline, headline figure (Final Scores), detail figures and samples of a run or a comparison."""
    from robust import ReportParts, ranking, ranking_sentence
    from robust.toolkit.figures import ranking_figure

    data = result.data
    if data.get("kind") == "robtest":
        caption = "Final Scores per dimension-tag: Average filled, Worst open (clean accuracy dotted)"
        figs = [(caption, final_scores_figure(data))]
        return ReportParts(headline(data), figs + figures(result), samples(data, records))
    if data.get("kind") == "robtest-compare":
        rows, ties = ranking(compare_entries(data), digits=1)
        note = ("Within noise: the difference is under 1.96 standard errors of it, with each run's error bounded "
                "conservatively from its curves and example count (binomial, summed over degrees).")
        hero = ("Mean Average Final Score per run", ranking_figure(rows, "mean Average Final Score"))
        return ReportParts(ranking_sentence(rows, ties, "mean Average Final Score"), [hero, *figures(result)],
                           notes=[note])
    return ReportParts(f"RobTest {data.get('kind', 'result')}: {data.get('written', '')} texts written."
                       if data.get("kind") == "robtest-augment" else "", figures(result))


def final_se(curve: Sequence[float], n: int, formula: str) -> float:
    """A conservative standard error of a Final Score: the score is linear in the per-degree scores θ_j (in %),
    each a mean over n examples of a value in [0, 1], so SE(θ_j) <= 100·sqrt(p_j(1-p_j)/n), and the SE of a
    weighted sum is at most the weighted sum of SEs (whatever their correlation)."""
    out = 0.0
    for j in range(1, len(curve)):
        unit = [0.0] * len(curve)
        unit[j] = 1.0
        p = min(max(curve[j] / 100.0, 0.0), 1.0)
        out += abs(final_score(unit, formula)) * 100.0 * math.sqrt(p * (1 - p) / max(n, 1))
    return out


def compare_entries(data: Mapping[str, Any]) -> list[tuple[str, float, float | None]]:
    """(run, mean Average Final Score over the curves every run has, its conservative SE) per run."""
    runs = data["runs"]
    shared = set.intersection(*({(t, a) for t, by in d["curves"].items() for a in by} for d in runs.values()))
    out = []
    for label, d in runs.items():
        formula = d["settings"].get("final", "code")
        curves = [d["curves"][t][a]["average"] for t, a in sorted(shared)]
        if not curves:
            out.append((label, math.nan, None))
            continue
        finals = [final_score(c, formula) for c in curves]
        ses = [final_se(c, int(d["settings"].get("n", 0)), formula) for c in curves]
        out.append((label, sum(finals) / len(finals), sum(ses) / len(ses)))
    return out


# figures ------------------------------------------------------------------------------------------------------
def figures(result: Result) -> list[tuple[str, Any]]:
    """Matplotlib figures: curves per dimension-tag and, with three or more dimensions, radar maps of the Final
    Scores (one run or a comparison). A radar is drawn only for an access that has Final Scores."""
    data = result.data
    if data.get("kind") == "robtest":
        out = [(f"{t['name']}: robustness vs degree", _curves_figure(t["name"], {"": data})) for t in data["tags"]]
        return out + [(f"Radar maps ({m.capitalize()} Final Score)", _radar_figure(data, m)) for m in METRICS
                      if _radar_accesses(data, m)]
    if data.get("kind") == "robtest-compare":
        runs = data["runs"]
        out = [(f"{t['name']}: comparison", _curves_figure(t["name"], runs)) for t in data["tags"]]
        return out + [(f"Radar maps, {label} (Average Final Score)", _radar_figure(runs[label], "average"))
                      for label in data["labels"] if _radar_accesses(runs[label], "average")]
    return []


def final_scores_figure(data: Mapping[str, Any]) -> Any:
    """One row per dimension-tag: the Final Score of each access, Average (filled circle) and Worst (open
    square), against the clean accuracy; None without any Final Score."""
    from matplotlib.figure import Figure

    finals = _finals(data)
    if not finals:
        return None
    tags = [t["name"] for t in data["tags"] if any(f[1] == t["name"] for f in finals)]
    accesses = list(dict.fromkeys(f[2] for f in finals))
    fig = Figure(figsize=(7.2, max(2.4, 1.0 + 0.34 * len(tags))))
    ax = fig.add_subplot()
    offset = {a: (i - (len(accesses) - 1) / 2) * 0.22 for i, a in enumerate(accesses)}
    for access in accesses:
        for metric in METRICS:
            points = [(f, tags.index(tag) + offset[access]) for f, tag, a, m in finals if a == access and m == metric]
            if points:
                color, (_, marker, _) = _color(access, accesses), METRIC_STYLE[metric]
                ax.scatter([p[0] for p in points], [p[1] for p in points], s=42, marker=marker, zorder=3,
                           facecolors=color if metric == "average" else "white", edgecolors=color, linewidths=1.5,
                           label=method(access, metric))
    for k, tag in enumerate(tags):
        values = [f for f, t, _, _ in finals if t == tag]
        ax.hlines(k, min(values), max(values), color="#bbb", lw=1, zorder=1)
    clean = data["clean_accuracy"]
    ax.axvline(clean, color="#444", ls=":", lw=1.2, label=f"clean accuracy {clean:.0f} %")
    from robust.toolkit.figures import finish_rows

    return finish_rows(fig, ax, tags, "Final Score (%)", fontsize=9)


def _curves_figure(tag: str, runs: Mapping[str, Mapping[str, Any]]) -> Any:
    """Average (solid, filled circles) and Worst (dashed, open squares) per access (colour); for several runs
    the colour is the run and the marker the access."""
    from matplotlib.figure import Figure

    if not any(data["curves"].get(tag) for data in runs.values()):
        return None
    fig = Figure(figsize=(6.6, 3.8))
    ax = fig.add_subplot()
    access_markers = "o^Dv<>p*h"
    for r, (label, data) in enumerate(runs.items()):
        accesses = list(data["curves"].get(tag, {}))
        for access, by_metric in data["curves"].get(tag, {}).items():
            for metric, values in by_metric.items():
                line, marker, alpha = METRIC_STYLE.get(metric, ("-.", "x", 1.0))
                color = _color(access, accesses) if len(runs) == 1 else f"C{r}"
                if len(runs) > 1:
                    marker = access_markers[accesses.index(access) % len(access_markers)]
                name = method(access, metric) if not label else f"{label} {method(access, metric)}"
                ax.plot(data["degrees"], values, line, color=color, marker=marker, alpha=alpha, label=name,
                        markerfacecolor=color if metric == "average" else "white", markersize=5)
    ax.set_xlabel("perturbation degree")
    ax.set_ylabel("robustness score (%)")
    ax.set_ylim(0, 102)
    ax.set_title(tag)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def radar_values(data: Mapping[str, Any], access: str, metric: str) -> tuple[list[str], dict[str, list[float]]]:
    """Radar axes (dimensions, report order) and the Final Score per tag series (NaN where absent)."""
    dims: list[str] = []
    for t in data["tags"]:
        if t["dimension"] not in dims:
            dims.append(t["dimension"])
    series = {"M": [math.nan] * len(dims), "G": [math.nan] * len(dims)}
    for t in data["tags"]:
        value = data["finals"].get(t["name"], {}).get(method(access, metric))
        if value is not None:
            series[t["tag"]][dims.index(t["dimension"])] = value
    return dims, series


RADAR_MIN_AXES = 3  # fewer dimensions make a point or a line, not a map


def _radar_accesses(data: Mapping[str, Any], metric: str) -> list[str]:
    """The accesses whose radar has at least three dimensions with a Final Score."""
    out = []
    for access in [a for a in ("rule", "score") if a in data["access"]] + [a for a in data["access"]
                                                                          if a not in ("rule", "score")]:
        dims, series = radar_values(data, access, metric)
        filled = [i for i in range(len(dims)) if any(not math.isnan(v[i]) for v in series.values())]
        if len(filled) >= RADAR_MIN_AXES:
            out.append(access)
    return out


def _radar_figure(data: Mapping[str, Any], metric: str) -> Any:
    import numpy as np
    from matplotlib.figure import Figure

    accesses = _radar_accesses(data, metric)
    if not accesses:
        return None
    fig = Figure(figsize=(4.6 * len(accesses), 4.4))
    for i, access in enumerate(accesses):
        ax = fig.add_subplot(1, len(accesses), i + 1, projection="polar")
        dims, series = radar_values(data, access, metric)
        angles = np.linspace(0, 2 * np.pi, len(dims), endpoint=False).tolist()
        for tag, label, color, line in (("M", "Malicious (-M)", "tab:red", "o-"), ("G", "General (-G)", "tab:blue",
                                                                                  "s--")):
            values = series[tag]
            if all(math.isnan(v) for v in values):
                continue
            closed = [0.0 if math.isnan(v) else v for v in values]
            ax.plot(angles + angles[:1], closed + closed[:1], line, color=color, label=label, markersize=4)
            ax.fill(angles + angles[:1], closed + closed[:1], color=color, alpha=0.12)
        ax.set_xticks(angles)
        ax.set_xticklabels(dims, fontsize=8)
        ax.set_ylim(0, 100)
        ax.set_title(f"{title(access)}-based", fontsize=10)
        ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.25, -0.1))
    fig.suptitle(f"Final Scores ({metric.capitalize()})")
    fig.tight_layout()
    return fig
