"""The SynBench report page: the score as a share of the reference's area (eq. 5.4) with its t interval over
trials, the probe's own finite-sample loss told apart from the representation's (the lossless representation of
the same width), the figure of that area first, then the per-level points and the score against ε; for a
comparison, the ranking with the differences that are within noise. SynBench feeds synthetic arrays, not text:
no samples."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from robust import Result


def interval_clause(s: Mapping[str, Any]) -> str:
    """' (95 % CI 0.95–0.96, t over 3 trials of the data)' or ' (one trial: no interval)'."""
    from robust import num

    trials = s.get("trials") or 1
    if trials < 2 or s.get("score_ci_low") is None:
        return " (one trial: no interval)"
    return f" (95 % CI {num(s['score_ci_low'])}–{num(s['score_ci_high'])}, t over {trials} trials of the data)"


def headline(result: Result) -> str:
    """The score, what its interval covers, and how much of its distance to 1 the probe itself accounts for."""
    from robust import num

    s = result.summary
    score, model = s.get("score") or 0.0, s.get("model", "the model")
    text = f"SynBench-Score {num(score)} at ε = {s.get('epsilon', 0):g}, a_T = {s.get('a_T')}{interval_clause(s)}"
    lossless = s.get("lossless_score")
    if lossless:
        text += (f". A lossless representation of the same width ({s.get('dim')}) scores {num(lossless)} with this "
                 f"linear probe at n = {s.get('n')}: the {100 * (1 - lossless):.0f}\u00a0% it misses is the probe's "
                 f"finite-sample loss, not the representation's (1 is the infinite-sample limit); against it "
                 f"{model} reaches {100 * score / lossless:.0f}\u00a0%")
    else:
        text += (f": {model}'s area above a_T is {100 * score:.0f}\u00a0% of the raw inputs' Bayes reference, the "
                 f"probe's finite-sample loss at n = {s.get('n')} included (not measured: --set lossless=true)")
    best = s.get("recommended_epsilon")
    if best is not None and best != s.get("epsilon"):
        text += f"; ε-robust probing at ε* = {best:g} gives {num(s.get('score_at_recommended'))}"
    return text + "."


def notes(result: Result) -> list[str]:
    s = result.summary
    out = ["1 = the Bayes-optimal classifier on the raw Gaussian inputs (the reference; what any lossless "
           "representation scores with infinitely many samples); higher is better. "
           f"{s.get('levels')} levels, n = {s.get('n')} samples per level, input shape {s.get('shape')}, "
           f"representation width {s.get('dim')}: compare encoders only at the same n and shape, and across widths "
           "only relative to the lossless representation of each width (`robust compare` does)."]
    if s.get("score_interval"):
        out.append(f"Interval: {s['score_interval']}.")
    if s.get("recommended_epsilon") is not None and s.get("recommended_epsilon_note"):
        out.append(f"ε* = {s['recommended_epsilon']:g}: {s['recommended_epsilon_note']}.")
    if s.get("model_note"):
        out.append(f"{s.get('model')}: {s['model_note']}.")
    if s.get("complete") is False:
        out.append("Incomplete run: not every level of every trial has a record; resume it.")
    return out


def report_parts(bench: Any, result: Result) -> Any:
    from robust import ReportParts, ranking_sentence
    from robust.toolkit.figures import ranking_figure

    if "runs" in result.data:  # a comparison
        rows = result.data.get("ranking") or []
        ties = [tuple(t) for t in result.data.get("ties", [])]
        what = result.data.get("ranked_by", "score")
        text = ranking_sentence(rows, ties, what)
        if result.summary.get("comparable") is False:
            text = text.rstrip(".") + f"; settings differ ({', '.join(result.summary['differing_settings'])})."
        noise = ("Within noise: a Welch t test over the two runs' trials cannot separate them at 95 % (the interval "
                 "covers redrawn data with the model fixed; runs with one trial have none, and their order is not "
                 "tested).")
        caveats = [noise] + ([f"Widths: {result.summary['width_warning']}."] if result.summary.get("width_warning")
                             else [])
        return ReportParts(text, [(f"SynBench {what} by run (95 % CI, t over trials)", ranking_figure(rows, what)),
                                  *bench.figures(result)], notes=caveats)
    return ReportParts(headline(result), bench.figures(result), notes=notes(result))
