"""Figures benchmarks share in their reports (matplotlib, imported inside each function): rows of labelled values,
rankings of runs and strips of values with their intervals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from robust.toolkit.reporting import missing


def finish_rows(fig: Any, ax: Any, labels: Sequence[str], xlabel: str, xlim: tuple[float, float] = (-2, 102),
                fontsize: int = 8) -> Any:
    """A figure of one row per label, top to bottom: labels, x range and grid, the legend outside on the right."""
    ax.set_yticks(range(len(labels)), labels, fontsize=fontsize)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlim(*xlim)
    ax.set_xlabel(xlabel)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig


def ranking_figure(rows: Sequence[Sequence[Any]], what: str) -> Any:
    """The rows of `ranking`: each run's value with its ± 95 % bar, best at the top; None without values."""
    shown = [r for r in rows if r[2] is not None]
    if not shown:
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 1.0 + 0.4 * len(shown)))
    ax = fig.add_subplot()
    ax.errorbar([r[2] for r in shown], range(len(shown)), xerr=[r[3] or 0 for r in shown], fmt="o", capsize=4)
    ax.set_yticks(range(len(shown)), [str(r[1]) for r in shown], fontsize=8)
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xlabel(f"{what} (± 95 % CI)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


@dataclass
class Strip:
    """One row of `strips_figure`: a value with its interval (if any) on its own axis."""

    title: str
    value: float
    low: float | None = None
    high: float | None = None
    span: tuple[float, float] | None = None  # the axis range (widened to the values); None: from 0 to the values
    band: tuple[float, float] | None = None  # a shaded reference range, e.g. what a predictor was trained on
    band_label: str = ""


def strips_figure(strips: Sequence[Strip], width: float = 7.0) -> Any:
    """One horizontal strip per value: a dot, its 95 % interval as a bar, an optional shaded band; None without
    values."""
    shown = [s for s in strips if not missing(s.value)]
    if not shown:
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 0.35 + 0.72 * len(shown)))
    axes = fig.subplots(len(shown), 1, squeeze=False)[:, 0]
    for ax, s in zip(axes, shown):
        ends = [v for v in (s.value, s.low, s.high, *(s.band or ())) if not missing(v)]
        lo, hi = s.span or (min(0.0, *ends), max(ends) or 1.0)
        lo, hi = min(lo, *ends), max(hi, *ends)
        pad = 0.04 * (hi - lo or 1.0)
        if s.band is not None:
            ax.axvspan(*s.band, color="#999", alpha=0.18, lw=0, label=s.band_label or None)
        if not missing(s.low) and not missing(s.high):
            ax.hlines(0, s.low, s.high, color="tab:blue", lw=3, alpha=0.5, label="95 % interval")
        ax.plot([s.value], [0], "o", color="tab:blue")
        ax.set_xlim(lo - pad, hi + pad)
        ax.set_yticks([])
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(s.title, fontsize=9, loc="left")
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        if s.band_label:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    return fig
