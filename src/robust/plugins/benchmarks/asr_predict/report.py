"""The asr-predict report page, one per stage: what the build measured (ASR per sub-dataset, and what it cost),
whether the fitted features beat the no-feature baselines (RMSE differences with their bootstrap intervals), and
a prediction with its cross-validated interval against the ASRs the predictor was trained on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from robust import Result
from robust.plugins.benchmarks.asr_predict.constants import BASELINES, MODEL_NAMES, protocol_rank


def _name(model: str) -> str:
    return MODEL_NAMES.get(model, model)


# build ------------------------------------------------------------------------------------------------------
def build_headline(result: Result, rows: Sequence[Mapping[str, Any]]) -> str:
    from robust import num

    s = result.summary
    families = sorted({r["family"] for r in rows})
    attacks = list(rows[0]["asr"]) if rows else []
    text = (f"Built {s['rows']} sub-datasets of {', '.join(families) or '?'}: mean attack success rate "
            f"{num(s['mean_asr'], 2)} (sd {num(s['sd_asr'], 2)}) under {', '.join(attacks) or '?'}, victims' clean "
            f"accuracy {100 * s['mean_victim_clean_accuracy']:.0f}\u00a0%")
    if s.get("mean_seconds_features") is not None:
        cost = s["mean_seconds_victim"] + s["mean_seconds_attacks"]
        text += (f"; per sub-dataset the 13 features took {s['mean_seconds_features']:.1f} s, fine-tuning and "
                 f"attacking {cost:.1f} s")
    return text + "."


def asr_figure(rows: Sequence[Mapping[str, Any]]) -> Any:
    """ASR of every sub-dataset, one row per corpus family, a marker per attack and the mean (the target)."""
    if not rows:
        return None
    from matplotlib.figure import Figure

    families = sorted({r["family"] for r in rows})
    attacks = list(rows[0]["asr"])
    fig = Figure(figsize=(7.6, 1.1 + 0.45 * len(families)))
    ax = fig.add_subplot()
    for k, attack in enumerate([*attacks, None] if len(attacks) > 1 else [None]):
        offset = -0.2 if attack is None and len(attacks) > 1 else 0.0 if attack is None else 0.1 * k
        values = [(r["asr"][attack] if attack else r["target"], families.index(r["family"]) + offset) for r in rows]
        label = attack if attack else ("mean over attacks (the target)" if len(attacks) > 1 else attacks[0])
        ax.scatter(*zip(*values), s=22, marker="o" if attack is None else "^sDv"[k % 4], alpha=0.75,
                   color="tab:red" if attack is None else f"C{k}", label=label)
    from robust.toolkit.figures import finish_rows

    return finish_rows(fig, ax, families, "attack success rate of the fine-tuned victim", (-0.02, 1.02))


def cost_figure(result: Result) -> Any:
    """Mean seconds per sub-dataset: computing the features against fine-tuning the victim and attacking it."""
    s = result.summary
    parts = [("13 features", s.get("mean_seconds_features")), ("fine-tune victim", s.get("mean_seconds_victim")),
             ("attack victim", s.get("mean_seconds_attacks"))]
    if any(v is None for _, v in parts):
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.6, 1.7))
    ax = fig.add_subplot()
    bars = ax.barh(range(3), [v for _, v in parts], color=["tab:green", "tab:orange", "tab:red"], height=0.6)
    ax.bar_label(bars, [f"{v:.1f} s" for _, v in parts], padding=3, fontsize=8)
    ax.set_yticks(range(3), [n for n, _ in parts], fontsize=8)
    ax.set_ylim(2.5, -0.5)
    ax.set_xlabel("mean seconds per sub-dataset")
    ax.margins(x=0.15)
    fig.tight_layout()
    return fig


# fit --------------------------------------------------------------------------------------------------------
def comparisons_figure(result: Result) -> Any:
    """Per protocol of the verdict: RMSE(model) − RMSE(best baseline) with its cluster-bootstrap 95 % interval;
    left of 0 the features help."""
    comps = result.data.get("comparisons") or []
    if not comps:
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.6, 1.2 + 0.5 * len(comps)))
    ax = fig.add_subplot()
    for k, c in enumerate(comps):
        color = "tab:green" if c["high"] < 0 else "tab:red" if c["low"] > 0 else "tab:gray"
        ax.errorbar([c["diff"]], [k], xerr=[[c["diff"] - c["low"]], [c["high"] - c["diff"]]], fmt="o",
                    color=color, capsize=4)
    ax.axvline(0, color="#444", lw=1, ls=":")
    ax.set_yticks(range(len(comps)), [f"{c['protocol']}\n{c['model']} vs {c['baseline']}" for c in comps],
                  fontsize=8)
    ax.set_ylim(len(comps) - 0.5, -0.5)
    ax.set_xlabel("RMSE difference, features − baseline (95 % interval; < 0: the features help)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


def rmse_figure(result: Result) -> Any:
    """Pooled RMSE of every model (filled) and baseline (open) per protocol, against the label-noise floor."""
    protocols = result.data.get("protocols") or {}
    if not protocols:
        return None
    from matplotlib.figure import Figure

    names = list(dict.fromkeys(n for by in protocols.values() for n in by))
    order = sorted(protocols, key=protocol_rank)
    fig = Figure(figsize=(7.6, 1.3 + 0.55 * len(order)))
    ax = fig.add_subplot()
    for k, name in enumerate(names):
        points = [(protocols[p][name]["pooled_rmse"], i + 0.1 * (k - (len(names) - 1) / 2))
                  for i, p in enumerate(order) if name in protocols[p]]
        baseline = name in BASELINES
        ax.plot(*zip(*points), ls="none", marker="osD^v"[k % 5], ms=7, color=f"C{k}",
                mfc="white" if baseline else f"C{k}", label=_name(name))
    noise = result.data.get("noise") or {}
    if "binomial_low" in noise and "binomial_high" in noise:
        ax.axvspan(noise["binomial_low"], noise["binomial_high"], color="#999", alpha=0.2, lw=0,
                   label="label-noise floor (binomial)")
    ax.set_yticks(range(len(order)), order, fontsize=8)
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.set_xlim(left=0)
    ax.set_xlabel("pooled RMSE of the predicted ASR (lower is better)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def fit_headline(result: Result) -> str:
    """The verdict and the numbers of its hardest protocol (extrapolation to an unseen corpus)."""
    verdict = (result.data.get("verdict") or "").splitlines()
    comps = result.data.get("comparisons") or []
    if not comps:
        return verdict[0] if verdict else ""
    c = comps[-1]
    return (f"{verdict[0].rstrip('.')}: on {c['protocol']} the {_name(c['model'])} errs by pooled RMSE "
            f"{c['model_rmse']:.3f} against {c['baseline_rmse']:.3f} for the {_name(c['baseline'])} (difference "
            f"{c['diff']:+.3f}, 95 % cluster-bootstrap CI {c['low']:+.3f} to {c['high']:+.3f}).")


# predict ----------------------------------------------------------------------------------------------------
def prediction_figure(result: Result) -> Any:
    """The predicted ASR with its interval on [0, 1], over the range of ASRs in the predictor's training table."""
    from robust.toolkit.figures import Strip, strips_figure

    s, meta = result.summary, result.data.get("predictor_meta") or {}
    span = meta.get("asr_range")
    return strips_figure([Strip(f"predicted attack success rate {s['predicted_asr']:.3f} (95 % interval, "
                                f"{s.get('error_basis')} basis)", s["predicted_asr"], s.get("asr_low"),
                                s.get("asr_high"), (0.0, 1.0), tuple(span) if span else None,
                                f"ASRs of the {meta.get('rows', '?')} training rows" if span else "")])


def time_figure(result: Result) -> Any:
    """Seconds to predict against the build's mean seconds to fine-tune and attack one sub-dataset."""
    s = result.summary
    if s.get("build_seconds") is None:
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.6, 1.4))
    ax = fig.add_subplot()
    values = [s["seconds"], s["build_seconds"]]
    bars = ax.barh([0, 1], values, color=["tab:green", "tab:red"], height=0.6)
    ax.bar_label(bars, [f"{v:.1f} s" for v in values], padding=3, fontsize=8)
    ax.set_yticks([0, 1], ["predict (this run)", "fine-tune + attack (build, mean)"], fontsize=8)
    ax.set_ylim(1.5, -0.5)
    ax.set_xlabel("seconds")
    ax.margins(x=0.15)
    fig.tight_layout()
    return fig


def report_parts(result: Result, records: Mapping[str, dict[str, Any]]) -> Any:
    """The page of a build, fit or predict run (told apart by what its result holds)."""
    from robust import ReportParts, default_headline

    if "mean_asr" in result.summary:
        rows = [records[k] for k in sorted(records)]
        notes = [f"Table written to {result.summary.get('table')}."]
        if rows and len({r["target"] for r in rows}) == 1:
            notes.append(f"Every sub-dataset has the same attack success rate ({rows[0]['target']:g}): a predictor "
                         "cannot learn anything from this table.")
        return ReportParts(build_headline(result, rows) if rows else default_headline(result),
                           [("Attack success rate per sub-dataset", asr_figure(rows)),
                            ("What a sub-dataset costs", cost_figure(result))], notes=notes)
    if "verdict" in result.data:
        verdict = result.data["verdict"].splitlines()
        trust = (result.data.get("trust") or {}).get("sentence")
        return ReportParts(fit_headline(result),
                           [("Do the features beat the best no-feature baseline? (pooled RMSE difference, 95 % "
                             "cluster-bootstrap CI)", comparisons_figure(result)),
                            ("Pooled RMSE per protocol: models filled, baselines open", rmse_figure(result))],
                           notes=[line.lstrip("- ") for line in verdict[1:]]
                           + ([f"The saved predictor: {trust}"] if trust else []), hidden_tables=["Verdict"])
    notes = ["The interval is the 95 % quantile of the predictor's cross-validated absolute errors "
             f"({result.summary.get('error_basis')} basis), not the spread of its trees."]
    for o in result.data.get("out_of_range") or []:
        notes.append(f"{o['feature']} = {o['value']:.4g} lies {o['side']} the predictor's training range "
                     f"({o['low']:.4g}–{o['high']:.4g}): its trees predict there as at the edge.")
    if result.data.get("extractor_mismatch"):
        notes.append("Forced across feature extractors: " + "; ".join(result.data["extractor_mismatch"]) + ".")
    return ReportParts(result.data.get("sentence") or default_headline(result),
                       [("Predicted attack success rate", prediction_figure(result)),
                        ("Time: predicting against fine-tuning and attacking", time_figure(result))],
                       notes=notes, hidden_tables=["Prediction"])
