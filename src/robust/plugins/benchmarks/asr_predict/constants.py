"""The ASR predictor's fixed names and choices, shared by its modules: stages, attacks and table columns, the 13
features (Dang et al. 2024, §3.2, Fig. 3), feature modes, regressors and baselines, protocols, and the authors' feature
extractors."""

from __future__ import annotations

STAGES = ("predict", "build", "fit")
FAMILIES = ("wn-noun", "wn-verb", "wn-examples", "mr")  # the offline corpora a build samples (data.py)
CLASS_COUNTS = (2, 4, 5, 10, 14)  # the relabelled variants of Banking77 / TweetEval (Dang et al. 2024, §5)
ATTACKS = ("deepwordbug", "pwws", "textfooler")  # the target's three attacks (Dang et al. 2024, §3.3)
#: table column of each attack's ASR (the authors' names for the three of the target)
ASR_COLUMNS = {"deepwordbug": "ASR_DeepWordBug", "pwws": "ASR_PWWS", "textfooler": "ASR_TextFooler"}
TIME_COLUMNS = ("seconds_features", "seconds_victim", "seconds_attacks")
#: the column of robust's tables naming the feature extractors that computed the row (JSON)
EXTRACTOR_COLUMN = "Extractor"

#: (record key, column name of the authors' cleaned regression table), in the code's column order (Dang et al. 2024,
#: §3.2, Fig. 3)
FEATURES: tuple[tuple[str, str], ...] = (
    ("avg_tokens", "Avg. # tokens"),
    ("unique_tokens", "# unique tokens"),
    ("min_tokens", "Min # tokens"),
    ("max_tokens", "Max # tokens"),
    ("md", "MD"),
    ("fr", "FR"),
    ("chi", "CHI"),
    ("dbi", "DBI"),
    ("clusters", "# clusters"),
    ("pms", "PMS"),
    ("kts", "KTS"),
    ("mr", "MR"),
    ("classes", "# classes"),
)
FEATURE_KEYS: tuple[str, ...] = tuple(key for key, _ in FEATURES)
MODES = ("faithful", "fixed")

MODELS = ("rf", "gb", "lr", "lgbm")
BASELINES = ("global-mean", "corpus-mean")
METRICS = ("rmse", "r2", "mae", "evs", "mape")
MODEL_NAMES = {"rf": "random forest", "gb": "gradient boosting", "lr": "linear regression",
               "global-mean": "global-mean baseline", "corpus-mean": "same-corpus-mean baseline"}
BASES = ("unseen-corpus", "known-corpus")
#: the statistic behind every verdict and error bar of a fit
POOLED_RMSE = ("pooled RMSE (each tested row's squared errors averaged over the splits that tested it, then over "
               "rows)")

#: the feature extractors behind the authors' tables (data_bert.csv, data_roberta.csv; Dang et al. 2024, Appendix A.2)
AUTHORS_EXTRACTOR = {"embedder": "USE-v4 (TF-Hub, the authors')", "tokenizer": "bert-base-cased (the authors')",
                     "mode": "the authors' data_insight.py", "surrogate": "char-CNN 1024 filters x 1024 chars "
                     "(the authors')", "clustering": "the hdbscan package, min_cluster_size 5 (the authors')"}


def protocol_rank(protocol: str) -> int:
    """The paper's protocol first, the leakage-free extrapolation last."""
    return 0 if "paper" in protocol else 2 if "extrapolation" in protocol else 1
