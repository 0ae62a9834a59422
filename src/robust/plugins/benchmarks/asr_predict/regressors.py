"""Regressors on the raw 13 features (no scaling, Dang et al. 2024, §3.4), the two no-feature baselines, and metrics
(Dang et al. 2024, Appendix A.3).

* `rf`  RandomForestRegressor(max_depth=20, random_state=0): the paper's predictor (100 trees, bootstrap).
* `gb`  gradient boosting: scikit-learn's HistGradientBoostingRegressor as the offline stand-in for the
        authors' LightGBM (learning_rate 0.05, up to 5000 iterations, early stopping after 10 rounds without
        improvement on the validation rows; leaf-wise trees with 31 leaves / 20 samples per leaf like LightGBM's
        defaults; 255 bins instead of max_bin 400, scikit-learn's ceiling).
* `lgbm` the authors' exact LGBMRegressor, only if `lightgbm` is installed (optional).
* `lr`  LinearRegression(fit_intercept=True).
Baselines: `global-mean` (mean training ASR) and `corpus-mean` (mean training ASR of the same corpus variant,
the global mean when the variant has no training rows).
"""

from __future__ import annotations

from robust import MissingResource, RobustError
from robust.plugins.benchmarks.asr_predict.constants import BASELINES, MODELS
from robust.toolkit.lazy import np


def make_regressor(name: str, seed: int = 0):
    if name == "rf":
        from sklearn.ensemble import RandomForestRegressor

        return RandomForestRegressor(max_depth=20, random_state=seed, n_jobs=1)
    if name == "gb":
        from sklearn.ensemble import HistGradientBoostingRegressor

        return HistGradientBoostingRegressor(learning_rate=0.05, max_iter=5000, max_bins=255, early_stopping=True,
                                             n_iter_no_change=10, tol=0.0, random_state=79)
    if name == "lr":
        from sklearn.linear_model import LinearRegression

        return LinearRegression(fit_intercept=True)
    if name == "lgbm":
        try:
            import lightgbm
        except ImportError:
            raise MissingResource("model 'lgbm' needs LightGBM: pip install lightgbm (or use 'gb')") from None
        return lightgbm.LGBMRegressor(learning_rate=0.05, max_bin=400, metric="rmse", n_estimators=5000,
                                      objective="regression", random_state=79, verbose=-1, n_jobs=1)
    raise RobustError(f"unknown regressor {name!r}; choose one of: {', '.join(MODELS)}")


def fit_predict(name: str, X_train: np.ndarray, y_train: np.ndarray, X_val: np.ndarray, y_val: np.ndarray,
                X_test: np.ndarray, seed: int = 0) -> np.ndarray:
    """Boosting fits on train and early-stops on val (on train itself when val is empty); the others fit on
    train + val (Dang et al. 2024, §5). Returns predictions for X_test."""
    model = make_regressor(name, seed)
    if name in ("gb", "lgbm"):
        Xv, yv = (X_val, y_val) if len(y_val) else (X_train, y_train)
        if name == "gb":
            model.fit(X_train, y_train, X_val=Xv, y_val=yv)
        else:
            import warnings

            import lightgbm

            with warnings.catch_warnings():  # lightgbm >= 4.6 renames eval_set; the old name still works
                warnings.filterwarnings("ignore", message=".*eval_set.*")
                model.fit(X_train, y_train, eval_set=[(Xv, yv)], eval_metric=["rmse"],
                          callbacks=[lightgbm.early_stopping(10, verbose=False)])
    else:
        model.fit(np.concatenate([X_train, X_val]), np.concatenate([y_train, y_val]))
    return np.asarray(model.predict(X_test), dtype=np.float64)


def baseline_predict(name: str, y_fit: np.ndarray, variant_fit: np.ndarray, variant_test: np.ndarray) -> np.ndarray:
    """No-feature predictions from the training rows (y_fit, their corpus variants) for the test variants."""
    overall = float(np.mean(y_fit))
    if name == "global-mean":
        return np.full(len(variant_test), overall)
    if name == "corpus-mean":
        means = {v: float(np.mean(y_fit[variant_fit == v])) for v in np.unique(variant_fit)}
        return np.array([means.get(v, overall) for v in variant_test])
    raise RobustError(f"unknown baseline {name!r}; choose one of: {', '.join(BASELINES)}")


def metrics(y: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    """RMSE, R², MAE, EVS (1 - Var(y - ŷ)/Var(y)) and MAPE (a fraction) as sklearn computes them (Dang et al. 2024,
    Appendix A.3)."""
    from sklearn.metrics import (
        explained_variance_score,
        mean_absolute_error,
        mean_absolute_percentage_error,
        mean_squared_error,
        r2_score,
    )

    return {"rmse": float(np.sqrt(mean_squared_error(y, pred))), "r2": float(r2_score(y, pred)),
            "mae": float(mean_absolute_error(y, pred)), "evs": float(explained_variance_score(y, pred)),
            "mape": float(mean_absolute_percentage_error(y, pred))}
