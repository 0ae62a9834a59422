"""The robustness report (spec robtest.md §1 step 5): per dimension-tag the table `Method | degrees | Final
Score` and the four curves, radar maps of Final Scores, and the comparison of several runs."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.results import Result, Table
from robust.plugins.benchmarks.robtest.dimensions import DimensionTag
from robust.plugins.benchmarks.robtest.scores import degree_key, final_score

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
                 degrees: Sequence[float], example_ids: Sequence[str], settings: Mapping[str, Any]) -> Result:
    """Average/Worst curves (from the `robtest-average` and `robtest-worst` scorers), finals and diagnostics."""
    clean = [records[f"clean/{eid}"] for eid in example_ids]
    clean_acc = 100.0 * sum(r["correct"] for r in clean) / len(clean)
    keys = [degree_key(d) for d in degrees]
    curves: dict[str, dict[str, dict[str, list[float]]]] = {}
    finals: dict[str, dict[str, float]] = {}
    variants: dict[str, dict[str, list[float]]] = {}
    achieved: dict[str, dict[str, list[float]]] = {}
    samples: dict[str, dict[str, dict[str, list[str]]]] = {}
    queries: dict[str, dict[str, list[float | None]]] = {}
    capped: dict[str, dict[str, list[int]]] = {}
    for tag in tags:
        curves[tag.name], finals[tag.name], variants[tag.name], achieved[tag.name] = {}, {}, {}, {}
        samples[tag.name], queries[tag.name], capped[tag.name] = {}, {}, {}
        for access in tag.accesses:
            rows = _rows(records, tag.name, access, degrees, example_ids)
            curves[tag.name][access] = {}
            for metric, scorer in zip(METRICS, scorers):
                summary = scorer.summarize(scorer.values(rows), rows)
                curves[tag.name][access][metric] = [summary[k] for k in keys]
                finals[tag.name][method(access, metric)] = summary["final"]
            by_degree = {k: [r for r in rows if degree_key(r["degree"]) == k] for k in keys}
            variants[tag.name][access] = [sum(r["n"] for r in by_degree[k]) / len(by_degree[k]) for k in keys]
            achieved[tag.name][access] = [
                sum(r.get("achieved", 0.0) for r in by_degree[k]) / len(by_degree[k]) for k in keys]
            samples[tag.name][access] = {k: [r["sample"] for r in by_degree[k] if r.get("sample")][:3]
                                         for k in keys[1:]}
            queries[tag.name][access] = [_mean([r.get("queries") for r in by_degree[k]]) for k in keys]
            capped[tag.name][access] = [sum(r.get("status") == "budget" for r in by_degree[k]) for k in keys]
    data = {"kind": "robtest", "degrees": list(degrees), "settings": dict(settings), "clean_accuracy": clean_acc,
            "tags": [t.to_json() for t in tags], "access": sorted({a for t in tags for a in t.accesses}),
            "curves": curves, "finals": finals, "variants": variants, "achieved": achieved, "samples": samples,
            "queries": queries, "capped": capped}
    summary: dict[str, Any] = {"examples": len(example_ids), "clean accuracy": round(clean_acc, 2)}
    if settings.get("budget"):
        hits = sum(sum(v) for by_access in capped.values() for v in by_access.values())
        summary["query budget"] = settings["budget"]
        summary["items that hit the query budget"] = hits
    for tag in tags:
        for name, value in finals[tag.name].items():
            summary[f"{tag.name} {name} final"] = round(value, 2)
    return Result(summary=summary, tables=tables_of(data), data=data)


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
    diag = []
    for t in data["tags"]:
        for a in data["variants"][t["name"]]:
            diag.append([t["name"], title(a), "distinct variants per example"]
                        + [round(v, 2) for v in data["variants"][t["name"]][a]])
            diag.append([t["name"], title(a), "achieved degree (mean)"]
                        + [round(v, 3) for v in data["achieved"][t["name"]][a]])
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
    return Result(summary=summary, tables=tables, data=data)


# figures ------------------------------------------------------------------------------------------------------
STYLE = {("rule", "average"): ("tab:blue", "-"), ("rule", "worst"): ("tab:blue", "--"),
         ("score", "average"): ("tab:red", "-"), ("score", "worst"): ("tab:red", "--")}


def figures(result: Result) -> list[tuple[str, Any]]:
    """Matplotlib figures: curves per dimension-tag and radar maps (one run or a comparison)."""
    data = result.data
    if data.get("kind") == "robtest":
        out = [(f"{t['name']}: robustness vs degree", _curves_figure(t["name"], {"": data})) for t in data["tags"]]
        return out + [(f"Radar maps ({m.capitalize()} Final Score)", _radar_figure(data, m)) for m in METRICS]
    if data.get("kind") == "robtest-compare":
        runs = data["runs"]
        out = [(f"{t['name']}: comparison", _curves_figure(t["name"], runs)) for t in data["tags"]]
        return out + [(f"Radar maps, {label} (Average Final Score)", _radar_figure(runs[label], "average"))
                      for label in data["labels"]]
    return []


def _curves_figure(tag: str, runs: Mapping[str, Mapping[str, Any]]) -> Any:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.0))
    ax = fig.add_subplot()
    markers = "osd^v<>p*h"
    for r, (label, data) in enumerate(runs.items()):
        for access, by_metric in data["curves"].get(tag, {}).items():
            for metric, values in by_metric.items():
                color, line = STYLE.get((access, metric), ("tab:green", "-" if metric == "average" else "--"))
                name = method(access, metric) if not label else f"{label} {method(access, metric)}"
                ax.plot(data["degrees"], values, line, color=color if len(runs) == 1 else f"C{r}",
                        marker=markers[r % len(markers)] if len(runs) > 1 else "o", label=name,
                        alpha=1.0 if access == "rule" or len(runs) == 1 else 0.6)
    ax.set_xlabel("perturbation degree")
    ax.set_ylabel("robustness score (%)")
    ax.set_ylim(0, 100)
    ax.set_title(tag)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
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


def _radar_figure(data: Mapping[str, Any], metric: str) -> Any:
    import numpy as np
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, 4.4))
    for i, access in enumerate(("rule", "score")):
        ax = fig.add_subplot(1, 2, i + 1, projection="polar")
        dims, series = radar_values(data, access, metric)
        angles = np.linspace(0, 2 * np.pi, max(len(dims), 1), endpoint=False).tolist()
        for tag, label, color in (("M", "Malicious(-M)", "tab:red"), ("G", "General(-G)", "tab:blue")):
            values = series[tag]
            if all(math.isnan(v) for v in values):
                continue
            closed = [0.0 if math.isnan(v) else v for v in values]
            ax.plot(angles + angles[:1], closed + closed[:1], "o-", color=color, label=label, markersize=4)
            ax.fill(angles + angles[:1], closed + closed[:1], color=color, alpha=0.15)
        ax.set_xticks(angles)
        ax.set_xticklabels(dims, fontsize=8)
        ax.set_ylim(0, 100)
        ax.set_title(f"{title(access)}-based", fontsize=10)
        ax.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.25, -0.1))
    fig.suptitle(f"Final Scores ({metric.capitalize()})")
    fig.tight_layout()
    return fig
