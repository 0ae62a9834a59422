"""Figures of a SynBench result: E(a_t) of the representation against the reference (Fig. 5-1 step 3), the
per-level (accuracy, bound) points on the Bayes curve b(a) (Fig. 5-2(b)), and the score against ε."""

from __future__ import annotations

from typing import Any

from robust import Result
from robust.plugins.benchmarks.synbench.scoring import expected_bound
from robust.plugins.benchmarks.synbench.theory import b_ref
from robust.toolkit.lazy import np


def _figure(width: float = 8.4, height: float = 4.0) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.add_subplot(1, 1, 1)


def _shown_eps(result: Result) -> list[int]:
    eps = result.data.get("epsilons", [])
    best = result.data.get("recommended_epsilon")
    idx = [0] + ([eps.index(best)] if best in eps and eps.index(best) != 0 else [])
    return idx + ([len(eps) - 1] if len(eps) - 1 not in idx else [])


def _title(result: Result, what: str) -> str:
    return f"{result.summary.get('model', '')}: {what}"


#: per shown ε (ε = 0, ε*, the largest): line style and marker, so overlapping curves stay apart
STYLES = (("-", "o"), ("--", "^"), (":", "s"))


def _legend_outside(ax: Any) -> None:
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)


def expected_bound_curves(result: Result) -> Any:
    """E_ref(a_t) and E_rep(a_t) for ε = 0, ε* and the largest ε; area over [a_T, 1] shaded."""
    fig, ax = _figure()
    levels = result.data.get("levels", [])
    eps = result.data.get("epsilons", [])
    a_T = float(result.data.get("a_T", 0.7))
    grid = np.linspace(0.5, 1.0, 501)
    if levels:
        ref = expected_bound(grid, [lv["ref_accuracy"][0] for lv in levels], [lv["ref_margin"][0] for lv in levels])
        ax.step(grid, ref, where="post", c="k", lw=1.5, label="reference (inputs), ε=0")
        ax.fill_between(grid, ref, where=grid >= a_T, step="post", color="gray", alpha=0.15,
                        label="reference area above a_T")
        for k, i in enumerate(_shown_eps(result)):
            acc = [lv["accuracy"][i] for lv in levels]
            bnd = [np.nan if lv["margin"][i] is None else lv["margin"][i] for lv in levels]
            rep = expected_bound(grid, acc, bnd)
            ax.step(grid, rep, where="post", lw=1.4, ls=STYLES[k][0], color=f"C{k}",
                    label=f"representation, ε={eps[i]:g}")
            if i == 0:
                ax.fill_between(grid, rep, where=grid >= a_T, step="post", color="C0", alpha=0.25,
                                label="its area above a_T (score = blue / grey+blue)")
        top = float(np.nanmax(ref[grid >= 0.6])) if np.any(grid >= 0.6) else 1.0
        ax.set_ylim(0, max(top * 1.1, 0.1))
    ax.axvline(a_T, c="r", lw=0.8, ls=":", label=f"a_T = {a_T:g}")
    ax.set_xlim(0.5, 1.0)
    ax.set_xlabel("threshold accuracy a_t")
    ax.set_ylabel("E(a_t), expected scaled bound")
    score = result.summary.get("score", float("nan"))
    ax.set_title(_title(result, f"score {score:.3f} (ε={result.summary.get('epsilon', 0):g}, a_T={a_T:g})"), fontsize=9)
    _legend_outside(ax)
    fig.tight_layout()
    return fig


def level_points(result: Result) -> Any:
    """(a_k, b_k) per level for the representation and the inputs, on the universal curve b(a) (Ko 2024, §5.2.2, Theorem
    9)."""
    fig, ax = _figure()
    levels = result.data.get("levels", [])
    eps = result.data.get("epsilons", [])
    curve = np.linspace(0.52, 0.9999, 300)
    ax.plot(curve, b_ref(curve), "--", c="gray", lw=1, label="Bayes curve b(a)")
    ax.scatter([lv["ref_accuracy"][0] for lv in levels], [lv["ref_margin"][0] for lv in levels], s=12, c="k",
               marker="x", label="inputs (reference)")
    for k, i in enumerate(_shown_eps(result)):
        pts = [(lv["accuracy"][i], lv["margin"][i]) for lv in levels if lv["margin"][i] is not None]
        if pts:
            ax.scatter(*zip(*pts), s=14, marker=STYLES[k][1], facecolors="none" if k else f"C{k}",
                       edgecolors=f"C{k}", alpha=0.8, label=f"representation, ε={eps[i]:g}")
    ax.set_xlim(0.45, 1.01)
    ax.set_ylim(0, 6)
    ax.set_xlabel("accuracy a_k")
    ax.set_ylabel("mean scaled bound b_k of correct points")
    ax.set_title(_title(result, "per-level robustness vs accuracy"), fontsize=9)
    _legend_outside(ax)
    fig.tight_layout()
    return fig


def score_vs_eps(result: Result) -> Any:
    """SynBench-Score(ε) for every a_T (Table B.4 as curves); the recommended ε marked."""
    fig, ax = _figure()
    scores = result.data.get("scores", [])
    for a_T in result.data.get("thresholds", []):
        pts = sorted((s["epsilon"], s["score"]) for s in scores if s["a_T"] == a_T)
        if pts:
            ax.plot(*zip(*pts), marker="o", ms=3, label=f"a_T={a_T:g}")
    best = result.data.get("recommended_epsilon")
    if best is not None:
        ax.axvline(best, c="r", lw=0.8, ls=":", label=f"ε* = {best:g}")
    ax.set_xlabel("ε (robust classifier radius)")
    ax.set_ylabel("SynBench-Score")
    ax.set_title(_title(result, "score against ε"), fontsize=9)
    _legend_outside(ax)
    fig.tight_layout()
    return fig


def compare_curves(result: Result) -> Any:
    """Score against ε at each run's headline a_T, one line per run (a `robust compare` result)."""
    fig, ax = _figure()
    for k, run in enumerate(result.data.get("runs", [])):
        pts = sorted((s["epsilon"], s["score"]) for s in run["scores"] if s["a_T"] == run["a_T"])
        if pts:
            ax.plot(*zip(*pts), marker="os^Dv<>p"[k % 8], ls=("-", "--", ":", "-.")[k % 4], ms=4, label=run["label"])
    ax.set_xlabel("ε")
    ax.set_ylabel("SynBench-Score at the headline a_T")
    _legend_outside(ax)
    fig.tight_layout()
    return fig
