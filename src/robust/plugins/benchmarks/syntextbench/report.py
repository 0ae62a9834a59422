"""The SynTextBench report page: headline, figures in reading order, and the sentences the model embedded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robust import Result, RobustError
from robust.plugins.benchmarks.syntextbench import plots

SAMPLES_PER_LEVEL = 3


def headline(result: Result) -> str:
    """The score with its interval (where the run has one) and how accuracy falls from the first to the last
    level of neutral words."""
    from robust import interval, num

    s, levels = result.summary, result.data.get("levels", [])
    ci = interval(s.get("score_ci_low"), s.get("score_ci_high"))
    text = (f"Score {num(s.get('score'))}" + (f" (95 % CI{ci} over held-out sentences)" if ci else "")
            + f" at a_T = {s.get('a_T')}")
    if len(levels) > 1:
        first, last = levels[0], levels[-1]
        verb = "falls" if last["accuracy"] < first["accuracy"] else "moves"
        text += (f": embedding accuracy {verb} from {100 * first['accuracy']:.0f}\u00a0% with "
                 f"{100 * first['p']:.0f}\u00a0% neutral words to {100 * last['accuracy']:.0f}\u00a0% with "
                 f"{100 * last['p']:.0f}\u00a0%")
    trials = s.get("trials")
    spread = f", sd {num(s['score_sd'], 2)} over trials" if s.get("score_sd") is not None else ""
    return text + f" ({trials} trial{'' if trials == 1 else 's'}{spread}, {s.get('n')} sentences per level)."


def compare_headline(result: Result) -> str:
    """Runs in score order; the pairs the comparison cannot separate, when it says so."""
    from robust import num

    if not result.tables:
        return ""
    table = result.tables[0]
    if "run" not in table.columns or "score" not in table.columns:
        return ""
    run, score = table.columns.index("run"), table.columns.index("score")
    rows = table.rows
    text = f"{rows[0][run]} ranks first (score {num(rows[0][score])})"
    if len(rows) > 1:
        text += ", then " + ", ".join(f"{r[run]} ({num(r[score])})" for r in rows[1:4])
    pairs = result.summary.get("not_separable")
    if pairs:
        text += "; not separable at 95 %: " + ", ".join(" vs ".join(map(str, p)) if isinstance(p, (list, tuple))
                                                        else str(p) for p in pairs)
    if result.summary.get("comparable") is False:
        text += f"; settings differ ({', '.join(result.summary.get('differing_settings', []))})"
    return text + "."


def samples(bench: Any, levels: Sequence[float]) -> tuple[list[Any], list[str]]:
    """Held-out sentences of trial 0 at the first, middle and last level, regenerated from the run's seed and
    settings (they depend on nothing else), with the lexicon's positive and negative words marked."""
    from robust import Sample, SampleGroup

    if not levels:
        return [], []
    try:
        lists = bench.word_lists
    except RobustError as exc:
        return [], [f"No samples: {exc}"]
    marks = {**{w.lower(): "neg" for w in lists.neg}, **{w.lower(): "pos" for w in lists.pos}}
    picks = list(dict.fromkeys([levels[0], levels[len(levels) // 2], levels[-1]]))
    groups = []
    for p in picks:
        task = bench.task(0, float(p), bench.ctx)
        pairs = list(zip(task.test_texts, task.test_y.tolist()))
        by_class = [[x for x in pairs if x[1] > 0], [x for x in pairs if x[1] <= 0]]
        mixed = [x for rank in zip(*by_class) for x in rank] or pairs  # positive and negative in turn
        chosen = [Sample(text, gold="positive" if y > 0 else "negative", marks=marks)
                  for text, y in mixed[:SAMPLES_PER_LEVEL]]
        groups.append(SampleGroup(f"neutral share p = {float(p):g}", chosen,
                                  f"Held-out sentences of trial 0 as the model embedded them ({lists.name} lexicon): "
                                  "positive words green, negative words red, the rest neutral fill."))
    return groups, []


def report_parts(bench: Any, result: Result) -> Any:
    from robust import ReportParts, default_headline

    if "levels" not in result.data:  # a comparison
        return ReportParts(compare_headline(result) or default_headline(result), bench.figures(result))
    groups, notes = samples(bench, [lv["p"] for lv in result.data["levels"]])
    figures = [("Accuracy and margin by neutral share p", plots.accuracy_margin_by_level(result)),
               ("Robustness-accuracy curve s(a)", plots.robustness_accuracy_curve(result))]
    return ReportParts(headline(result), figures, groups, notes)
