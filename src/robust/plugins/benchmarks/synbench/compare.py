"""`robust compare` for SynBench: rank encoders by their headline score; flag runs that are not comparable."""

from __future__ import annotations

from collections.abc import Sequence

from robust.core.results import Result, Table

#: settings that must agree for scores to be comparable (absolute scores depend on n and shape, spec A6)
COMPARABLE_KEYS = ("n", "n_test", "levels", "a_T", "epsilon", "integration", "eps_mode", "covariance",
                   "translation", "denominator")


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None or value != value else round(float(value), digits)


def compare_results(results: Sequence[tuple[str, Result]]) -> Result:
    """A ranking (best first) by the headline score, and every run's score against ε at its headline a_T."""
    ranked = sorted(results, key=lambda lr: -float(lr[1].summary.get("score") or 0.0))
    rows = [[rank, label, s.get("model"), _round(s.get("score")), _round(s.get("score_std")),
             s.get("recommended_epsilon"), _round(s.get("score_at_recommended")), s.get("shape"), s.get("dim"),
             s.get("n")]
            for rank, (label, res) in enumerate(ranked, 1) for s in [res.summary]]
    columns = ["rank", "run", "model", "score", "score_std", "best_eps", "score(best_eps)", "shape", "dim", "n"]
    differing = [k for k in COMPARABLE_KEYS if len({repr(r.summary.get(k)) for _, r in results}) > 1]
    eps = sorted({s["epsilon"] for _, r in results for s in r.data.get("scores", [])})
    eps_rows = []
    for label, res in ranked:
        a_T = res.data.get("a_T")
        by_eps = {s["epsilon"]: s["score"] for s in res.data.get("scores", []) if s["a_T"] == a_T}
        eps_rows.append([label, *[_round(by_eps.get(e), 3) for e in eps]])
    summary = {"ranking": [label for label, _ in ranked], "best": ranked[0][0] if ranked else None,
               "comparable": not differing, "differing_settings": differing}
    tables = [Table("SynBench ranking (higher score is better)", columns, rows),
              Table("SynBench-Score against ε at the headline a_T", ["run", *[f"eps={e:g}" for e in eps]], eps_rows)]
    return Result(summary, tables, {"scores": {label: r.summary.get("score") for label, r in results},
                                    "runs": [{"label": label, "scores": r.data.get("scores", []),
                                              "a_T": r.data.get("a_T")} for label, r in results]})
