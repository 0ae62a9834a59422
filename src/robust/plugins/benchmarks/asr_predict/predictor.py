"""A fitted ASR predictor: the paper's random forest, saved as plain JSON (no pickle), with an honest error bar.

The forest's trees are stored as arrays (children, split feature, threshold, leaf value) and evaluated here
with numpy exactly as scikit-learn does (inputs cast to float32, `x <= threshold` goes left), so loading a
file never executes code from it. The error bar comes from cross-validation residuals of the same model
(leave-one-corpus-out for a dataset from an unseen corpus — the default — or repeated 5-fold for a dataset
from a corpus in the training table); the spread of the trees is reported too, but it is not an error bar
(it ignores label noise and corpus shift and is typically far too narrow). Beside each error bar the fit keeps
the best no-feature baseline's error on the same splits, so a prediction can say whether the predictor beats
predicting the table's mean at all; and the predictor's `meta["domain"]` records its feature extractors, each
feature's training range and the table's provenance (domain.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robust import RobustError
from robust.plugins.benchmarks.asr_predict import domain, protocols
from robust.plugins.benchmarks.asr_predict.constants import BASELINES, MODEL_NAMES, POOLED_RMSE
from robust.plugins.benchmarks.asr_predict.table import Table, load_table
from robust.toolkit.lazy import np

FORMAT = "robust-asr-predictor/1"  # additive fields since (domain, baselines): files of either age load


@dataclass(frozen=True)
class Prediction:
    asr: float
    #: RMSE of cross-validated residuals for `basis` (the honest error bar)
    error: float
    #: prediction -/+ the 95 % quantile of the absolute cross-validated residuals, clipped to [0, 1]
    low: float
    high: float
    basis: str
    #: sd of the individual trees' predictions (a diagnostic, not an error bar)
    tree_sd: float


@dataclass
class Predictor:
    features: tuple[str, ...]
    trees: list[dict[str, np.ndarray]]
    #: basis -> {"rmse", "halfwidth" (95 % quantile of |residual|), "n"} from cross-validated residuals
    errors: dict[str, dict[str, float]]
    meta: dict[str, Any] = field(default_factory=dict)

    # -- prediction -----------------------------------------------------------------------------------
    def _matrix(self, features: Mapping[str, float] | Sequence[Mapping[str, float]] | np.ndarray) -> np.ndarray:
        if isinstance(features, np.ndarray):
            X = np.atleast_2d(features).astype(np.float64)
        else:
            rows = [features] if isinstance(features, Mapping) else list(features)
            missing = sorted({k for r in rows for k in self.features if k not in r})
            if missing:
                raise RobustError(f"features missing for the ASR predictor: {', '.join(missing)}")
            X = np.array([[float(r[k]) for k in self.features] for r in rows])
        if X.shape[1] != len(self.features):
            raise RobustError(f"the ASR predictor expects {len(self.features)} features, got {X.shape[1]}")
        if not np.isfinite(X).all():
            raise RobustError("the ASR predictor got a missing or infinite feature value")
        return X

    def tree_predictions(self, X: np.ndarray) -> np.ndarray:
        """[n_trees, n] leaf values, scikit-learn's traversal on float32 inputs."""
        X32 = X.astype(np.float32).astype(np.float64)
        out = np.empty((len(self.trees), len(X)))
        for t, tree in enumerate(self.trees):
            node = np.zeros(len(X), dtype=np.int64)
            while True:
                inner = tree["left"][node] >= 0
                if not inner.any():
                    break
                idx = np.flatnonzero(inner)
                go_left = X32[idx, tree["feature"][node[idx]]] <= tree["threshold"][node[idx]]
                node[idx] = np.where(go_left, tree["left"][node[idx]], tree["right"][node[idx]])
            out[t] = tree["value"][node]
        return out

    @property
    def domain(self) -> dict[str, Any]:
        """Extractor, feature ranges and table provenance ({} for predictors fitted before robust recorded them)."""
        return self.meta.get("domain") or {}

    def out_of_range(self, features: Mapping[str, float]) -> list[dict[str, Any]]:
        """The features outside the training table's range (every one, with its range)."""
        ranges = self.domain.get("feature_ranges")
        return domain.out_of_range(features, ranges) if ranges else []

    def trust(self, basis: str | None = None) -> dict[str, Any]:
        """What the fit says about trusting a prediction: the cross-validated error for `basis` (default: an unseen
        corpus when the table had >= 2 families) beside the best no-feature baseline's on the same splits, whether
        the predictor beats it (the cluster-bootstrap interval of the RMSE difference below 0), and a sentence."""
        basis = basis or ("unseen-corpus" if "unseen-corpus" in self.errors else "known-corpus")
        err = self.errors[basis]
        where = {"unseen-corpus": "a corpus not in its table (leave-one-corpus-out)",
                 "known-corpus": "a corpus already in its table (repeated 5-fold; no unseen-corpus error: the "
                                 "table has one corpus family)"}[basis]
        head = f"On {where} this predictor errs by {POOLED_RMSE.split(' (')[0]} {err['rmse']:.3f}"
        if "baseline_rmse" not in err:
            return {"basis": basis, "rmse": err["rmse"], "better_than_baseline": None,
                    "sentence": head + " (the fit recorded no baseline to compare with: refit the predictor)."}
        better = err["diff_high"] < 0
        mean = {"global-mean": "the mean ASR of its table", "corpus-mean": "the mean ASR of the same corpus variant in "
                "its table"}.get(err["baseline"], MODEL_NAMES.get(err["baseline"], err["baseline"]))
        diff = err["rmse"] - err["baseline_rmse"]
        sentence = (f"{head}; predicting {mean} errs by {err['baseline_rmse']:.3f}: it is "
                    f"{'better than' if better else 'not better than'} the mean (difference {diff:+.3f}, 95 % CI "
                    f"{err['diff_low']:+.3f} to {err['diff_high']:+.3f}, "
                    f"{'corpus families' if basis == 'unseen-corpus' else 'corpus variants'} resampled).")
        return {"basis": basis, "rmse": err["rmse"], "baseline": err["baseline"], "baseline_rmse": err["baseline_rmse"],
                "diff_low": err["diff_low"], "diff_high": err["diff_high"], "better_than_baseline": better,
                "sentence": sentence}

    def predict(self, features: Mapping[str, float] | Sequence[Mapping[str, float]] | np.ndarray,
                basis: str | None = None) -> list[Prediction]:
        """ASR with an error bar for each feature row (a mapping of the feature keys, or an array). `basis`:
        "unseen-corpus" (default when available) or "known-corpus" (the dataset's corpus is in the table)."""
        basis = basis or ("unseen-corpus" if "unseen-corpus" in self.errors else "known-corpus")
        if basis not in self.errors:
            raise RobustError(f"unknown error basis {basis!r}; this predictor has: {', '.join(self.errors)}")
        per_tree = self.tree_predictions(self._matrix(features))
        err = self.errors[basis]
        out = []
        for asr, sd in zip(per_tree.mean(axis=0), per_tree.std(axis=0)):
            out.append(Prediction(float(asr), err["rmse"], float(np.clip(asr - err["halfwidth"], 0, 1)),
                                  float(np.clip(asr + err["halfwidth"], 0, 1)), basis, float(sd)))
        return out

    # -- persistence ----------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        trees = [{"left": t["left"].tolist(), "right": t["right"].tolist(), "feature": t["feature"].tolist(),
                  "threshold": t["threshold"].tolist(), "value": t["value"].tolist()} for t in self.trees]
        return {"format": FORMAT, "features": list(self.features), "errors": self.errors, "meta": self.meta,
                "trees": trees}

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), separators=(",", ":")))
        return path


def load_predictor(path: str | Path) -> Predictor:
    """Read a predictor saved by `Predictor.save` (plain JSON; nothing in it is executed)."""
    path = Path(path)
    if not path.is_file():
        raise RobustError(f"ASR predictor file not found: {path}")
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise RobustError(f"{path} is not a saved ASR predictor (invalid JSON: {err.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RobustError(f"{path} is not a saved ASR predictor (expected format {FORMAT!r})")
    types = {"left": np.int64, "right": np.int64, "feature": np.int64, "threshold": np.float64, "value": np.float64}
    trees = [{k: np.asarray(t[k], dtype=dt) for k, dt in types.items()} for t in data["trees"]]
    n_features = len(data["features"])
    for t in trees:
        n = len(t["left"])
        if any(len(t[k]) != n for k in types) or t["left"].max() >= n or t["right"].max() >= n or \
                t["feature"].max() >= n_features:
            raise RobustError(f"{path}: corrupt tree arrays")
    return Predictor(tuple(data["features"]), trees, data["errors"], data.get("meta", {}))


# --- fitting ----------------------------------------------------------------------------------------------
def forest_trees(forest) -> list[dict[str, np.ndarray]]:
    """The arrays of a fitted sklearn RandomForestRegressor's trees (leaves have left = right = -1)."""
    out = []
    for estimator in forest.estimators_:
        t = estimator.tree_
        out.append({"left": t.children_left.astype(np.int64), "right": t.children_right.astype(np.int64),
                    "feature": np.where(t.children_left >= 0, t.feature, 0).astype(np.int64),
                    "threshold": t.threshold.astype(np.float64), "value": t.value[:, 0, 0].astype(np.float64)})
    return out


def cv_errors(table: Table, splits: Sequence[protocols.Split], seed: int = 0
              ) -> tuple[np.ndarray, protocols.ProtocolResult]:
    """The forest's residuals for every (split, test row), and the per-row squared errors of the forest and the
    no-feature baselines on the same splits (for `protocols.compare`)."""
    from robust.plugins.benchmarks.asr_predict.regressors import baseline_predict, fit_predict

    n = len(table)
    result = protocols.ProtocolResult("cv", table.y, count=np.zeros(n))
    for name in ("rf", *BASELINES):
        result.sq_error[name], result.abs_error[name], result.per_split[name] = np.zeros(n), np.zeros(n), []
    out = []
    for s in splits:
        pred = fit_predict("rf", table.X[s.train], table.y[s.train], table.X[s.val], table.y[s.val],
                           table.X[s.test], seed)
        out.append(table.y[s.test] - pred)
        result.count[s.test] += 1
        fit = np.concatenate([s.train, s.val])
        preds = {"rf": pred, **{b: baseline_predict(b, table.y[fit], table.variant[fit], table.variant[s.test])
                                for b in BASELINES}}
        for name, p in preds.items():
            result.sq_error[name][s.test] += (p - table.y[s.test]) ** 2
            result.abs_error[name][s.test] += np.abs(p - table.y[s.test])
    return np.concatenate(out), result


def _error_bar(residuals: np.ndarray) -> dict[str, float]:
    """RMSE and the 95 % quantile of |residual| (a split-conformal style half-width: symmetric, because a new
    corpus's shift can go either way; signed quantiles covered only ~61 % of unseen corpora on the authors' data)."""
    return {"rmse": float(np.sqrt(np.mean(residuals**2))), "halfwidth": float(np.quantile(np.abs(residuals), 0.95)),
            "n": int(len(residuals))}


def _errors(table: Table, splits: Sequence[protocols.Split], groups: np.ndarray, seed: int) -> dict[str, Any]:
    """The error bar of the forest and, beside it, the best no-feature baseline on the same splits with the
    cluster-bootstrap interval of the RMSE difference (groups resampled whole, as the fit's verdict does)."""
    residuals, result = cv_errors(table, splits, seed)
    c = protocols.verdict([(result, groups)], {}, "rf", seed=seed).comparisons[0]  # the fit verdict's choice
    return {**_error_bar(residuals), "baseline": c.baseline, "baseline_rmse": c.baseline_rmse, "diff_low": c.low,
            "diff_high": c.high}


def fit_predictor(table: Table, seed: int = 0, k: int = 5, repeats: int = 2,
                  path: str | Path | None = None) -> Predictor:
    """The paper's RandomForestRegressor(max_depth=20, random_state=seed) on all rows, plus error bars from
    leave-one-corpus-out ("unseen-corpus", if the table has >= 2 corpus families) and repeated k-fold
    ("known-corpus") residuals of the same model, each beside the best no-feature baseline's error, and the
    domain (the table's extractor, each feature's range, and its provenance: `domain.provenance` of the file
    `path` the table was read from, if given)."""
    from robust.plugins.benchmarks.asr_predict.regressors import make_regressor

    if len(table) < k:
        raise RobustError(f"fitting the ASR predictor needs at least {k} rows, the table has {len(table)}")
    forest = make_regressor("rf", seed).fit(table.X, table.y)
    errors = {"known-corpus": _errors(table, protocols.repeated_kfold_splits(len(table), k, repeats, seed,
                                                                             val_fraction=0.0), table.variant, seed)}
    if len(np.unique(table.family)) >= 2:
        errors["unseen-corpus"] = _errors(table, protocols.leave_one_group_out_splits(table.family, seed,
                                                                                      val_fraction=0.0),
                                          table.family, seed)
    provenance = (domain.provenance(path, len(table), table.family, table.source) if path is not None else
                  {"format": table.source, "rows": len(table), "families": sorted(set(table.family.tolist()))})
    meta = {"model": "RandomForestRegressor(max_depth=20)", "seed": seed, "rows": len(table),
            "corpus_families": sorted(set(table.family.tolist())), "asr_mean": float(table.y.mean()),
            "asr_range": [float(table.y.min()), float(table.y.max())],
            "domain": {"extractor": table.extractor, "feature_ranges": domain.feature_ranges(table.features, table.X),
                       "table": provenance}}
    return Predictor(table.features, forest_trees(forest), errors, meta)


def fit_from_table_file(table_path: str | Path, out_path: str | Path, seed: int = 0,
                        drop: Sequence[str] = ()) -> Predictor:
    """Stage `fit`: read a regression table (either format), optionally drop feature columns, fit, save."""
    table = load_table(table_path)
    if drop:
        table = table.without(*drop)
    predictor = fit_predictor(table, seed, path=table_path)
    predictor.meta["table"] = Path(table_path).name
    predictor.save(out_path)
    return predictor

