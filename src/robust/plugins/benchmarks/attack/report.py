"""The `attack` report page: how far accuracy falls under each attack (with Wilson intervals), the outcome of
every attacked example, the queries a success cost, the successful attacks as texts with their edits, and the
comparison of several runs (ranked by accuracy under attack, ties within noise marked)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust import Result, RobustError, Table
from robust.toolkit.chance import above_chance, lead_with_chance
from robust.toolkit.stats import proportion_se, wilson

SAMPLES_PER_ATTACK = 5
OUTCOMES = {"succeeded": ("attack succeeded", "tab:red"), "failed": ("attack failed", "tab:green"),
            "budget": ("query budget hit", "tab:orange"), "skipped": ("already wrong (skipped)", "#bbb")}


def _stats(result: Result) -> dict[str, dict[str, Any]]:
    return result.data.get("per_attack") or {}


def _interval(k: int, n: int) -> tuple[float | None, float | None]:
    return wilson(k, n) if n > 0 else (None, None)


def accuracy_interval(s: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """Wilson 95 % interval of the accuracy under attack (examples neither skipped nor flipped, of all)."""
    n = int(s["n"])
    return _interval(n - int(s["skipped"]) - int(s["succeeded"]), n)


def success_interval(s: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """Wilson 95 % interval of the attack success rate (successes of the attacked examples); None if none was
    attacked."""
    return _interval(int(s["succeeded"]), int(s["n"]) - int(s["skipped"]))


def headline(result: Result) -> str:
    """The accuracy drop under the strongest attack, its success rate and cost; the weakest attack beside it."""

    stats = _stats(result)
    if not stats:
        return "No attack was run."
    return lead_with_chance(result.data.get("chance"), _measured(stats))


def _measured(stats: Mapping[str, Any]) -> str:
    from robust import pct

    ranked = sorted(stats.items(), key=lambda kv: kv[1]["accuracy_under_attack"])
    name, s = ranked[0]
    attacked = int(s["n"]) - int(s["skipped"])
    if not attacked:
        return (f"No example was attacked: the model already got all {s['n']} wrong "
                f"(clean accuracy {pct(100 * s['clean_accuracy'])}).")
    low, high = success_interval(s)
    text = (f"Accuracy falls from {pct(100 * s['clean_accuracy'])} (clean) to {pct(100 * s['accuracy_under_attack'])} "
            f"under {name}{', the strongest of ' + str(len(stats)) + ' attacks' if len(stats) > 1 else ''}: "
            f"it succeeds on {s['succeeded']} of {attacked} attacked examples (success rate "
            f"{pct(100 * s['attack_success_rate'])}, 95 % interval {100 * low:.0f}–{100 * high:.0f})")
    if s["succeeded"]:
        text += (f", with {s['mean_queries']:.0f} queries per attacked example and "
                 f"{pct(100 * s['mean_perturbed_word_share'])} of the words changed per success")
    if len(stats) > 1:
        weak, w = ranked[-1]
        text += f"; weakest: {weak} ({pct(100 * w['accuracy_under_attack'])} under attack)"
    return text + "."


def accuracy_figure(result: Result) -> Any:
    """Per attack: clean accuracy (open) and accuracy under attack (filled), each with its Wilson 95 % bar."""
    stats = _stats(result)
    if not stats:
        return None
    from matplotlib.figure import Figure

    names = list(stats)
    fig = Figure(figsize=(7.2, 1.2 + 0.45 * len(names)))
    ax = fig.add_subplot()
    for k, name in enumerate(names):
        s = stats[name]
        clean_k = int(s["n"]) - int(s["skipped"])
        for value, (low, high), style, label in (
                (s["clean_accuracy"], wilson(clean_k, int(s["n"])), "o", "clean accuracy"),
                (s["accuracy_under_attack"], accuracy_interval(s), "s", "accuracy under attack")):
            filled = style == "s"
            bar = [[100 * max(0.0, value - low)], [100 * max(0.0, high - value)]]  # float noise at 0 % and 100 %
            ax.errorbar([100 * value], [k], xerr=bar, fmt=style,
                        color="tab:red" if filled else "tab:blue", mfc="tab:red" if filled else "white",
                        capsize=3, label=label if k == 0 else None, zorder=3)
        ax.annotate("", (100 * s["accuracy_under_attack"], k), (100 * s["clean_accuracy"], k),
                    arrowprops={"arrowstyle": "->", "color": "#888", "lw": 1})
    from robust.toolkit.figures import finish_rows

    return finish_rows(fig, ax, names, "accuracy (%), 95 % Wilson interval")


def outcomes_figure(result: Result) -> Any:
    """Per attack, how the examples ended: succeeded, failed, budget hit, skipped (stacked counts)."""
    stats = _stats(result)
    if not stats:
        return None
    from matplotlib.figure import Figure

    names = list(stats)
    fig = Figure(figsize=(7.2, 1.0 + 0.4 * len(names)))
    ax = fig.add_subplot()
    left = [0] * len(names)
    for status, (label, color) in OUTCOMES.items():
        counts = [int(stats[n][status]) for n in names]
        if any(counts):
            bars = ax.barh(range(len(names)), counts, left=left, color=color, label=label, height=0.6)
            ax.bar_label(bars, [str(c) if c else "" for c in counts], label_type="center", fontsize=8)
            left = [a + b for a, b in zip(left, counts)]
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel("examples")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def queries_figure(records: Mapping[str, dict[str, Any]]) -> Any:
    """Queries per attacked example, successes and the rest apart, per attack; None without attacked examples."""
    by_attack: dict[str, dict[bool, list[int]]] = {}
    for rec in records.values():
        if rec.get("status") not in (None, "skipped"):
            by_attack.setdefault(rec["attack"], {True: [], False: []})[rec["status"] == "succeeded"].append(
                int(rec["queries"]))
    if not by_attack:
        return None
    from matplotlib.figure import Figure

    names = list(by_attack)
    fig = Figure(figsize=(7.2, 1.0 + 0.5 * len(names)))
    ax = fig.add_subplot()
    for k, name in enumerate(names):
        for won, (offset, color, label) in ((True, (-0.12, "tab:red", "succeeded")),
                                            (False, (0.12, "tab:green", "failed or budget hit"))):
            values = by_attack[name][won]
            if values:
                ax.scatter(values, [k + offset] * len(values), s=16, color=color, alpha=0.6,
                           label=label if label not in ax.get_legend_handles_labels()[1] else None)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel("model queries per attacked example")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def samples(records: Mapping[str, dict[str, Any]]) -> list[Any]:
    """The first successful attacks of each attacker, original -> perturbed with the victim's new prediction."""
    from robust import Sample, SampleGroup

    by_attack: dict[str, list[Any]] = {}
    for key in sorted(records):
        rec = records[key]
        chosen = by_attack.setdefault(rec["attack"], [])
        if rec.get("status") == "succeeded" and len(chosen) < SAMPLES_PER_ATTACK:
            note = (f"example {key.split('/', 1)[-1]} · {rec['queries']} queries · "
                    f"{rec['perturbed_words']} of {rec['n_words']} words changed")
            chosen.append(Sample(rec["original"], rec["perturbed"], rec.get("gold", rec.get("label")),
                                 rec.get("pred"), note=note))
    return [SampleGroup(f"Successful attacks: {name}", chosen, "Changed words are marked (removed, added); the "
                        "prediction is the victim's on the perturbed text.") for name, chosen in by_attack.items()
            if chosen]


# comparison ---------------------------------------------------------------------------------------------------
def compare(results: Sequence[tuple[str, Result]]) -> Result:
    """Runs ranked by accuracy under each attack they share (± 95 %, Agresti-Coull standard errors as if the
    runs were independent: conservative for runs on the same examples), adjacent ties within noise marked."""
    from robust import ranking

    runs = [(label, _stats(r)) for label, r in results if _stats(r)]
    if len(runs) < 2:
        raise RobustError("attack compare needs at least two attack runs")
    unable = [label for label, r in results if not above_chance(r.data)]
    ranked_runs = [(label, s) for label, s in runs if label not in unable]
    shared = [name for name in runs[0][1] if all(name in stats for _, stats in runs)]
    if not shared:
        raise RobustError("these attack runs share no attack; compare runs of the same --attack")
    tables, rankings, summary = [], {}, {}
    for name in shared:
        entries = [(label, 100 * s[name]["accuracy_under_attack"],
                    _pct_se(s[name]["accuracy_under_attack"], s[name]["n"])) for label, s in ranked_runs]
        rows, ties = ranking(entries, digits=1)
        success = {label: s[name] for label, s in runs}
        tables.append(Table(f"Ranking by accuracy under {name} (%, ± 95 %)", ["rank", "run", "accuracy under attack",
                                                                              "± 95 % CI (examples)", "vs next",
                                                                              "success rate",
                                                                              "mean queries", "n"],
                            [[*row, round(success[row[1]]["attack_success_rate"], 3),
                              round(success[row[1]]["mean_queries"], 1), success[row[1]]["n"]] for row in rows]))
        rankings[name] = {"rows": rows, "ties": ties}
        summary[f"{name}: ranking"] = [row[1] for row in rows]
        summary[f"{name}: within noise"] = [f"{a} vs {b}" for a, b in ties]
    if unable:  # a model that cannot do the task is not ranked
        summary["not ranked (not above chance)"] = unable
    return Result(summary, tables, {"kind": "attack-compare", "rankings": rankings, "attacks": shared})


def _pct_se(p: float, n: int) -> float | None:
    se = proportion_se(p, n)
    return None if se is None else 100 * se


def report_parts(result: Result, records: Mapping[str, dict[str, Any]]) -> Any:
    from robust import ReportParts, ranking_sentence
    from robust.toolkit.figures import ranking_figure

    data = result.data
    if data.get("kind") == "attack-compare":
        first = data["attacks"][0]
        ranked = data["rankings"][first]
        ties = [tuple(t) for t in ranked["ties"]]
        text = ranking_sentence(ranked["rows"], ties, f"accuracy under {first}, %")
        figures = [(f"Accuracy under {name} by run (± 95 %)", ranking_figure(data["rankings"][name]["rows"],
                                                                          f"accuracy under {name} (%)"))
                   for name in data["attacks"]]
        notes = ["Within noise: the difference is under 1.96 standard errors of it (Agresti-Coull, as if the runs "
                 "were independent)."] + ([f"Ranked by the first shared attack; the tables rank every one of "
                                           f"{', '.join(data['attacks'])}."] if len(data["attacks"]) > 1 else [])
        return ReportParts(text, figures, notes=notes)
    figures = [("Accuracy, clean and under attack (95 % Wilson intervals)", accuracy_figure(result)),
               ("How each example ended", outcomes_figure(result)),
               ("Queries per attacked example", queries_figure(records))]
    groups = samples(records)
    # the samples show the successful attacks with their edits marked; one attack's summary is the Results list
    hidden = [t.title for t in result.tables if (t.title.startswith("Successful attacks") and groups)
              or (t.title == "Attack summary" and len(_stats(result)) == 1)]
    return ReportParts(headline(result), figures, groups, hidden_tables=hidden)
