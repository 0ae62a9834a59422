"""`robust compare` for SynTextBench: rank runs by score with their intervals, say which adjacent runs the
intervals cannot separate, and flag runs that are not comparable."""

from __future__ import annotations

from collections.abc import Sequence

from robust import Result, Table
from robust.toolkit.stats import sample_sd, separable

#: settings that must agree for scores to be comparable
COMPARABLE_KEYS = ("lexicon", "n", "levels", "a_T", "scaling", "split", "p_e", "p_n", "energy", "debias", "folds")


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or value != value else round(float(value), digits)


def _separable(a: Result, b: Result) -> bool | None:
    s, t = a.summary, b.summary
    values = [s.get("score"), s.get("score_se"), t.get("score"), t.get("score_se")]
    return None if any(v is None for v in values) else separable(*(float(v) for v in values))


def _sd_over_trials(summary: dict) -> float | str:
    """The sample sd of the score over trials, or why there is none; results before it was kept stored np.std."""
    trials = int(summary.get("trials") or 1)
    if trials < 2:
        return "none: 1 trial"
    if summary.get("score_sd") is not None:
        return _round(summary["score_sd"])
    old = summary.get("score_std")
    return "–" if old is None else _round(sample_sd(old, trials))


def compare_results(results: Sequence[tuple[str, Result]]) -> Result:
    """A ranking table (best first) of several SynTextBench runs with 95 % intervals, whether each run is
    separable from the next (unpaired normal test on the bootstrap SEs), and their per-level accuracies."""
    ranked = sorted(results, key=lambda lr: -float(lr[1].summary.get("score") or 0.0))
    rows, not_separable = [], []
    for rank, (label, res) in enumerate(ranked, 1):
        s = res.summary
        nxt = ranked[rank][1] if rank < len(ranked) else None
        verdict = None if nxt is None else _separable(res, nxt)
        if verdict is False:
            not_separable.append([label, ranked[rank][0]])
        rows.append([rank, label, s.get("model"), _round(s.get("score")), _round(s.get("score_ci_low")),
                     _round(s.get("score_ci_high")), {True: "yes", False: "no", None: "–"}[verdict],
                     _sd_over_trials(s), _round(s.get("score_aT0.6")), _round(s.get("mean_accuracy")),
                     s.get("trials"), s.get("n"), s.get("lexicon"), s.get("pooling")])
    columns = ["rank", "run", "model", "score", "ci_low", "ci_high", "separable_from_next", "sd over trials",
               "score_aT0.6", "mean_accuracy", "trials", "n", "lexicon", "pooling"]
    differing = [k for k in COMPARABLE_KEYS if len({repr(r.summary.get(k)) for _, r in results}) > 1]
    levels = sorted({lv["p"] for _, r in results for lv in r.data.get("levels", [])})
    acc_rows = []
    for label, res in ranked:
        by_p = {lv["p"]: lv["accuracy"] for lv in res.data.get("levels", [])}
        acc_rows.append([label, *[_round(by_p.get(p), 3) for p in levels]])
    summary = {"ranking": [label for label, _ in ranked], "best": ranked[0][0] if ranked else None,
               "not_separable": not_separable, "comparable": not differing, "differing_settings": differing}
    title = ("SynTextBench ranking (higher score is better; ci_low/ci_high: 95% percentile bootstrap over held-out "
             "sentences; separable_from_next: the difference exceeds 1.96 of its bootstrap standard error)")
    tables = [Table(title, columns, rows),
              Table("Accuracy a_p per level", ["run", *[f"p={p:.2f}" for p in levels]], acc_rows)]
    return Result(summary, tables, {"scores": {label: r.summary.get("score") for label, r in results}})
