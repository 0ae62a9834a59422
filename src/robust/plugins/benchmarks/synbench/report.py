"""The SynBench report page: the score as a share of the reference's area (eq. 5.4) with its spread over trials,
the figure of that area first, then the per-level points and the score against ε; for a comparison, the
ranking with the differences that are within noise. SynBench feeds synthetic arrays, not text: no samples."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from robust.core.results import Result


def score_se(summary: Mapping[str, Any]) -> float | None:
    """Standard error of the mean score over trials (None with one trial: no spread was measured)."""
    trials, std = summary.get("trials") or 1, summary.get("score_std")
    return None if trials < 2 or std is None else float(std) / math.sqrt(trials - 1)  # score_std is np.std


def headline(result: Result) -> str:
    from robust.core.reporting import num

    s = result.summary
    score, trials = s.get("score"), s.get("trials") or 1
    spread = f" ± {num(s.get('score_std'), 2)} (sd over {trials} trials)" if trials > 1 else ""
    text = (f"SynBench-Score {num(score)}{spread} at ε = {s.get('epsilon', 0):g}, a_T = {s.get('a_T')}: "
            f"the representation of {s.get('model', 'the model')} keeps {100 * (score or 0):.0f}\u00a0% of the "
            "expected robustness-accuracy area of the raw inputs above a_T")
    best = s.get("recommended_epsilon")
    if best is not None and best != s.get("epsilon"):
        text += f"; ε-robust probing at ε* = {best:g} gives {num(s.get('score_at_recommended'))}"
    return text + "."


def notes(result: Result) -> list[str]:
    s = result.summary
    out = ["1 = the Bayes-optimal classifier on the raw Gaussian inputs (the reference); higher is better. "
           f"{s.get('levels')} levels, n = {s.get('n')} samples per level, input shape {s.get('shape')}: compare "
           "encoders only at the same n and shape (the score depends on both)."]
    if (s.get("trials") or 1) < 2:
        out.append("One trial: no spread of the score was measured (--set trials=3 for one).")
    if s.get("model_note"):
        out.append(f"{s.get('model')}: {s['model_note']}.")
    if s.get("complete") is False:
        out.append("Incomplete run: not every level of every trial has a record; resume it.")
    return out


def ranking_entries(results: Sequence[tuple[str, Result]]) -> list[tuple[str, float, float | None]]:
    """(run, headline score, standard error over trials) per run."""
    return [(label, float(r.summary.get("score", math.nan)), score_se(r.summary)) for label, r in results]


def report_parts(bench: Any, result: Result) -> Any:
    from robust.core.reporting import ReportParts, ranking_sentence
    from robust.toolkit.figures import ranking_figure

    if "runs" in result.data:  # a comparison
        rows = result.data.get("ranking") or []
        ties = [tuple(t) for t in result.data.get("ties", [])]
        text = ranking_sentence(rows, ties, "score")
        if result.summary.get("comparable") is False:
            text = text.rstrip(".") + f"; settings differ ({', '.join(result.summary['differing_settings'])})."
        noise = ("Within noise: the difference is under 1.96 standard errors of it (standard errors from the spread "
                 "over trials; runs with one trial have none, and their order is not tested).")
        return ReportParts(text, [("SynBench-Score by run (± 95 % over trials)", ranking_figure(rows, "score")),
                                  *bench.figures(result)], notes=[noise])
    return ReportParts(headline(result), bench.figures(result), notes=notes(result))

