"""SynBench's closed-form reference and its score as reusable `Scorer` plugins (rows are plain dicts).

`synbench-reference`: rows {"s", "epsilon"?} -> the Bayes-optimal (accuracy, expected scaled bound) of the
input distribution (Theorem 9; Gaussian-I or Gaussian-H). `synbench-score`: rows {"s", "epsilon", "accuracy",
"margin", "ref_accuracy"?, "ref_margin"?} (one per level and ε) -> SynBench-Score per (ε, a_T) (eq. 5.4) and
the recommended ε (Sec. 5.3.3). Both follow the v2 Scorer contract: values / summarize / score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from robust import ModelAdapter, RobustError, Scorer, Setting
from robust.plugins.benchmarks.synbench.constants import A_T_GRID, COVARIANCES, EPS_MODES, GRID_MIN_A_T, INTEGRATIONS
from robust.plugins.benchmarks.synbench.data import parse_shape
from robust.plugins.benchmarks.synbench.scoring import area, recommended_eps, synbench_score
from robust.plugins.benchmarks.synbench.theory import reference_band, reference_identity
from robust.toolkit.lazy import np

Row = Mapping[str, Any]


def _field(row: Row, key: str) -> Any:
    if key not in row:
        raise RobustError(f"synbench scorer row lacks {key!r}: {dict(row)!r}")
    return row[key]


THRESHOLDS = {"thresholds": Setting(list(A_T_GRID), min=0.5, max=0.999, min_items=1)}


def _check(scorer: Scorer) -> None:
    """grid100 integration starts at a = 0.6 (Ko 2024, eq. 5.4)."""
    c = scorer.config
    low = GRID_MIN_A_T if c.get("integration") == "grid100" else 0.5
    for a_T in [*c["thresholds"], c.get("a_T", 0.7)]:
        if not low <= float(a_T) < 1:
            raise RobustError(f"a_T values must be in [{low}, 1), not {a_T!r}")


class ReferenceScorer(Scorer):
    """Accuracy and expected scaled bound of the (ε-robust) Bayes-optimal classifier on the inputs."""

    name = "synbench-reference"
    description = "SynBench's closed-form input reference: Bayes accuracy Φ(·) and expected scaled bound b(a)"
    inputs: ClassVar[frozenset[str]] = frozenset({"s", "epsilon"})
    settings = {"covariance": Setting("identity", choices=COVARIANCES), "shape": "3x224x224",
                "eps_mode": Setting("relative", choices=EPS_MODES), **THRESHOLDS,
                "integration": Setting("exact", choices=INTEGRATIONS)}

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self.shape = parse_shape(self.config["shape"])
        _check(self)

    def values(self, rows: Sequence[Row], model: ModelAdapter | None = None) -> list[dict[str, float]]:
        out = []
        for row in rows:
            s, eps = float(_field(row, "s")), float(row.get("epsilon", 0.0))
            relative = self.config["eps_mode"] == "relative"
            if s <= 0 or eps < 0 or (relative and eps >= 1):
                raise RobustError(f"reference needs s > 0 and ε in [0, {'1)' if relative else 'inf)'}, got s={s}, "
                                  f"ε={eps}")
            if self.config["covariance"] == "identity":
                a, b = (float(v[0]) for v in reference_identity([s]))
            else:
                channels = self.shape[0] if len(self.shape) == 3 else 1
                a, b = reference_band(s, eps, channels, int(np.prod(self.shape)) // channels,
                                      eps_mode=self.config["eps_mode"])
            out.append({"accuracy": a, "margin": b})
        return out

    def summarize(self, values: Sequence[Mapping[str, float]], rows: Sequence[Row]) -> dict[str, float]:
        acc = [v["accuracy"] for v in values]
        bnd = [v["margin"] for v in values]
        return {"mean_accuracy": float(np.mean(acc)) if acc else 0.0,
                **{f"area_aT{a_T:g}": area(acc, bnd, float(a_T), self.config["integration"])
                   for a_T in self.config["thresholds"]}}

    def score(self, rows: Sequence[Row], model: ModelAdapter | None = None) -> dict[str, float]:
        return self.summarize(self.values(rows, model), rows)


class SynBenchScorer(Scorer):
    """SynBench-Score of representation points against the reference, per (ε, a_T), and ε*."""

    name = "synbench-score"
    description = "SynBench-Score (eq. 5.4) of per-level (accuracy, scaled bound) points, per ε and a_T"
    inputs: ClassVar[frozenset[str]] = frozenset({"s", "epsilon", "accuracy", "margin"})
    settings = {**THRESHOLDS, "a_T": Setting(0.7, min=0.5, max=0.999),
                "integration": Setting("grid100", choices=INTEGRATIONS)}

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        _check(self)

    @staticmethod
    def reference(row: Row) -> tuple[float, float]:
        """The row's own reference if given, else Gaussian-I's Φ(s), b(Φ(s))."""
        if "ref_accuracy" in row:
            return float(row["ref_accuracy"]), float(row["ref_margin"])
        a, b = reference_identity([float(_field(row, "s"))])
        return float(a[0]), float(b[0])

    def values(self, rows: Sequence[Row], model: ModelAdapter | None = None) -> list[float | None]:
        """Each row's integrand b_k·(a_k − a_T)_+ at the headline a_T (None without a bound)."""
        a_T = float(self.config["a_T"])
        return [None if r.get("margin") is None else float(r["margin"]) * max(float(_field(r, "accuracy")) - a_T, 0.0)
                for r in rows]

    def summarize(self, values: Sequence[Any], rows: Sequence[Row]) -> dict[str, float]:
        groups: dict[float, list[Row]] = {}
        for row in rows:
            groups.setdefault(float(_field(row, "epsilon")), []).append(row)
        if not groups:
            raise RobustError("synbench-score needs at least one row")
        integration, headline = self.config["integration"], float(self.config["a_T"])
        out: dict[str, float] = {}
        at_headline = {}
        for eps, rs in sorted(groups.items()):
            rs = sorted(rs, key=lambda r: float(r["s"]))
            acc = [float(_field(r, "accuracy")) for r in rs]
            bnd = [np.nan if r.get("margin") is None else float(r["margin"]) for r in rs]
            ref = [self.reference(r) for r in rs]
            for a_T in sorted({*map(float, self.config["thresholds"]), headline}):
                value = synbench_score(acc, bnd, [a for a, _ in ref], [b for _, b in ref], a_T, integration)
                out[f"score_eps{eps:g}_aT{a_T:g}"] = value
                if a_T == headline:
                    at_headline[eps] = value
        first = min(at_headline)
        best = recommended_eps(at_headline)
        return {"score": at_headline[first], "recommended_epsilon": best,
                "score_at_recommended": at_headline[best], **out}

    def score(self, rows: Sequence[Row], model: ModelAdapter | None = None) -> dict[str, float]:
        return self.summarize(self.values(rows, model), rows)
