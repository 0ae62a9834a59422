"""Figures of a SynTextBench result: the robustness-accuracy curve s(a) and the per-level read-out."""

from __future__ import annotations

from typing import Any

from robust import Result
from robust.plugins.benchmarks.syntextbench.scoring import goodness, reference_margin
from robust.toolkit.lazy import np
from robust.toolkit.stats import wilson


def _figure(width: float = 6.0, height: float = 4.0) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.add_subplot(1, 1, 1)


def robustness_accuracy_curve(result: Result) -> Any:
    """s(a) per trial (steps), the area ∫_{a_T}^1 s(a) da shaded, the (a_p, δ_p) points and the Gaussian
    reference δ_ref(a) (docs/syntextbench.md)."""
    fig, ax = _figure()
    a_T = float(result.data.get("a_T", 0.7))
    points = result.data.get("points", [])
    if not points:
        return None
    grid = np.linspace(0.5, 1.0, 501)
    for trial in sorted({pt["trial"] for pt in points}):
        pts = [pt for pt in points if pt["trial"] == trial]
        s = goodness(grid, [pt["accuracy"] for pt in pts], [pt["margin"] for pt in pts])
        ax.step(grid, s, where="post", lw=1.2, label=f"s(a), trial {trial}")
        if trial == 0:
            ax.fill_between(grid, s, where=grid >= a_T, step="post", alpha=0.2, label="score area (trial 0)")
    if points:
        ax.scatter([pt["accuracy"] for pt in points], [pt["margin"] for pt in points], s=10, c="k",
                   alpha=0.5, label="(a_p, δ_p)")
    ref_grid = np.linspace(0.55, 0.999, 200)
    ax.plot(ref_grid, reference_margin(ref_grid), "--", c="gray", lw=1, label="Gaussian δ_ref(a)")
    ax.axvline(a_T, c="r", lw=0.8, ls=":")
    top = max([pt["margin"] for pt in points] + [1.0])
    ax.set_ylim(0, min(top * 1.1, 8.0))
    ax.set_xlim(0.5, 1.0)
    ax.set_xlabel("accuracy threshold a")
    ax.set_ylabel("s(a) / scaled margin δ")
    summary = result.summary
    low, high = summary.get("score_ci_low"), summary.get("score_ci_high")
    ci = (f", 95% CI [{low:.4f}, {high:.4f}] over held-out sentences" if low is not None and high is not None
          and low == low else "")
    ax.set_title(f"{summary.get('model', '')} score {summary.get('score', float('nan')):.4f}{ci} (a_T={a_T})",
                 fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def accuracy_margin_by_level(result: Result) -> Any:
    """Accuracy a_p (with the lexicon-rule accuracy) and margin δ_p against the neutral share p."""
    fig, ax = _figure()
    levels = result.data.get("levels", [])
    if not levels:
        return None
    p = [lv["p"] for lv in levels]
    acc = [lv["accuracy"] for lv in levels]
    if all(lv.get("held_out") for lv in levels):  # Wilson: fits a few held-out sentences too
        bounds = [wilson(lv["accuracy"] * lv["held_out"], lv["held_out"]) for lv in levels]  # k may be fractional
        yerr = [[max(a - lo, 0.0) for a, (lo, _) in zip(acc, bounds)],
                [max(hi - a, 0.0) for a, (_, hi) in zip(acc, bounds)]]  # 0 up to rounding at a = 0 or 1
        label = "embedding accuracy a_p (95% Wilson interval over held-out sentences)"
    else:  # results reduced before held_out was kept
        yerr, label = [1.96 * (lv.get("accuracy_se") or 0.0) for lv in levels], "embedding accuracy a_p (95% binomial)"
    ax.errorbar(p, acc, yerr=yerr, marker="o", ms=3, label=label)
    rule = [lv.get("lexicon_rule_accuracy") for lv in levels]
    if all(r is not None for r in rule):  # lexicons without polarity scores have no rule classifier
        ax.plot(p, rule, marker="x", ms=3, ls=":", label="lexicon-rule accuracy")
    ax.set_xlabel("neutral share p")
    ax.set_ylabel("accuracy")
    ax.set_ylim(0.4, 1.02)
    twin = ax.twinx()
    twin.plot(p, [lv["margin"] for lv in levels], c="tab:green", marker="s", ms=3, label="margin δ_p")
    twin.set_ylabel("scaled margin δ_p")
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16),
              ncol=3, frameon=False)  # below the axes: inside, it covered the falling curves
    fig.tight_layout()
    return fig
