"""`robust compare` for SynBench: rank encoders by their headline score (differences within the noise over trials
marked); flag runs that are not comparable."""

from __future__ import annotations

from collections.abc import Sequence

from robust.core.results import Result, Table

#: settings that must agree for scores to be comparable (absolute scores depend on n and shape, spec A6)
COMPARABLE_KEYS = ("n", "n_test", "levels", "a_T", "epsilon", "integration", "eps_mode", "covariance",
                   "translation", "denominator")


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or value != value else round(float(value), digits)


def compare_results(results: Sequence[tuple[str, Result]]) -> Result:
    """A ranking (best first) by the headline score with its ± 95 % over trials and whether each run is ahead
    of the next or within noise, and every run's score against ε at its headline a_T."""
    from robust.core.reporting import ranking
    from robust.plugins.benchmarks.synbench.report import ranking_entries

    rows, ties = ranking(ranking_entries(results))
    by_label = dict(results)
    columns = ["rank", "run", "score", "± 95 %", "vs next", "model", "score_std", "trials", "best_eps",
               "score(best_eps)", "shape", "dim", "n"]
    table_rows = [[*row, s.get("model"), _round(s.get("score_std")), s.get("trials"), s.get("recommended_epsilon"),
                   _round(s.get("score_at_recommended")), s.get("shape"), s.get("dim"), s.get("n")]
                  for row in rows for s in [by_label[row[1]].summary]]
    differing = [k for k in COMPARABLE_KEYS if len({repr(r.summary.get(k)) for _, r in results}) > 1]
    eps = sorted({s["epsilon"] for _, r in results for s in r.data.get("scores", [])})
    eps_rows = []
    for row in rows:
        res = by_label[row[1]]
        a_T = res.data.get("a_T")
        by_eps = {s["epsilon"]: s["score"] for s in res.data.get("scores", []) if s["a_T"] == a_T}
        eps_rows.append([row[1], *[_round(by_eps.get(e), 3) for e in eps]])
    summary = {"ranking": [row[1] for row in rows], "best": rows[0][1] if rows else None,
               "within noise": [f"{a} vs {b}" for a, b in ties], "comparable": not differing,
               "differing_settings": differing}
    tables = [Table("SynBench ranking (higher score is better; ± 95 % from the spread over trials)", columns,
                    table_rows),
              Table("SynBench-Score against ε at the headline a_T", ["run", *[f"eps={e:g}" for e in eps]], eps_rows)]
    return Result(summary, tables, {"scores": {label: r.summary.get("score") for label, r in results},
                                    "ranking": rows, "ties": ties,
                                    "runs": [{"label": label, "scores": r.data.get("scores", []),
                                              "a_T": r.data.get("a_T")} for label, r in results]})
