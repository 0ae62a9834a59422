"""The 13 RobustText dataset features as set-level `Scorer` plugins (CONTRACTS.md: `score(rows, model=None)`).

Rows are mappings with "text", "label", "embedding" (any length-d vector) and optionally "tokens" (token ids,
used instead of `model.tokenize`) and "split" ("test" rows are the surrogate's held-out set for MR; every other
row is the training set S_train the features describe). Labels become class indices through the `classes`
setting (the corpus's class list, index order) or, when it is empty, the sorted distinct labels present.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from robust import ModelAdapter, RobustError, Scorer
from robust.plugins.benchmarks.asr_predict import features as F
from robust.plugins.benchmarks.asr_predict.constants import FEATURE_KEYS
from robust.toolkit.lazy import LazyModule, np

charcnn = LazyModule("robust.plugins.benchmarks.asr_predict.charcnn")  # torch code, imported when a scorer runs

Row = Mapping[str, Any]
_LABELS = {"classes": [], "n_classes": 0}  # classes: the corpus class list in index order (empty = infer)
_MODE = {"mode": "faithful"}
_CNN = {"seed": 0, "holdout": 0.1, "filters": 64, "max_chars": 256, "epochs": 5, "batch_size": 16, "lr": 5e-4}


def training_rows(rows: Sequence[Row]) -> list[Row]:
    out = [r for r in rows if r.get("split") != "test"]
    if not out:
        raise RobustError("dataset features need training rows (rows without split='test')")
    return out


def _column(rows: Sequence[Row], field: str) -> list[Any]:
    missing = sum(1 for r in rows if r.get(field) is None)
    if missing:
        raise RobustError(f"{missing} of {len(rows)} rows have no {field!r}")
    return [r[field] for r in rows]


def class_list(labels: Sequence[Any], classes: Sequence[Any]) -> list[str]:
    """The class names in index order: the given list, else the sorted distinct labels (numeric if all ints)."""
    named = [str(c) for c in classes if str(c) != ""]
    if named:
        return named
    distinct = set(labels)
    ordered = sorted(distinct) if all(isinstance(x, (int, np.integer)) for x in distinct) else sorted(distinct, key=str)
    return [str(x) for x in ordered]


def class_indices(labels: Sequence[Any], classes: Sequence[str]) -> np.ndarray:
    index = {c: i for i, c in enumerate(classes)}
    unknown = sorted({str(x) for x in labels} - set(index))
    if unknown:
        raise RobustError(f"labels not in the class list: {', '.join(unknown[:5])}")
    return np.array([index[str(x)] for x in labels], dtype=np.int64)


class DatasetFeature(Scorer):
    """Base: named numbers describing a whole training set; `keys` are the record keys `score` returns."""

    inputs: ClassVar[frozenset[str]] = frozenset({"label"})
    keys: ClassVar[tuple[str, ...]] = ()
    settings: ClassVar[Mapping[str, Any]] = dict(_LABELS)
    #: whether `compute` sees the held-out split='test' rows too (only the surrogate's MR does)
    uses_test_rows: ClassVar[bool] = False

    def labels(self, rows: Sequence[Row], classes: Sequence[str]) -> np.ndarray:
        return class_indices(_column(rows, "label"), classes)

    def n_classes(self, rows: Sequence[Row], classes: Sequence[str]) -> int:
        return F.number_of_classes(self.labels(rows, classes), int(self.config["n_classes"]) or len(classes))

    def embeddings(self, rows: Sequence[Row]) -> np.ndarray:
        vectors = _column(rows, "embedding")
        try:
            return F.l2_normalize(np.stack([np.asarray(v, dtype=np.float64).ravel() for v in vectors]))
        except ValueError:
            raise RobustError("row embeddings must all have the same length") from None

    def mode(self) -> str:
        return F.check_mode(self.config["mode"])

    def compute(self, rows: Sequence[Row], model: ModelAdapter | None, classes: Sequence[str]) -> dict[str, float]:
        raise NotImplementedError

    def score(self, rows: Sequence[Row], model: ModelAdapter | None = None) -> dict[str, float]:
        """The features of the training rows; the class list comes from all rows (or the `classes` setting)."""
        classes = class_list(_column(rows, "label"), self.config["classes"]) if "classes" in self.config else []
        out = self.compute(rows if self.uses_test_rows else training_rows(rows), model, classes)
        return {key: float(out[key]) for key in self.keys}


# --- (10)-(13) token statistics ---------------------------------------------------------------------------
class TokenStatistic(DatasetFeature):
    inputs = frozenset({"text"})
    needs = frozenset({"tokenize"})
    settings: ClassVar[Mapping[str, Any]] = {}

    def compute(self, rows: Sequence[Row], model: ModelAdapter | None, classes: Sequence[str]) -> dict[str, float]:
        if all(r.get("tokens") is not None for r in rows):
            return F.token_statistics([list(r["tokens"]) for r in rows])
        if model is None:
            raise RobustError(f"{self.name} needs a model that can tokenize, or rows with 'tokens'")
        return F.token_statistics(model.tokenize(_column(rows, "text")))


class AvgTokens(TokenStatistic):
    name = "asr-avg-tokens"
    description = "RobustText: average number of tokens per text (special tokens included)"
    keys = ("avg_tokens",)


class UniqueTokens(TokenStatistic):
    name = "asr-unique-tokens"
    description = "RobustText: number of distinct token ids over the training set"
    keys = ("unique_tokens",)


class MinTokens(TokenStatistic):
    name = "asr-min-tokens"
    description = "RobustText: minimum number of tokens of a text"
    keys = ("min_tokens",)


class MaxTokens(TokenStatistic):
    name = "asr-max-tokens"
    description = "RobustText: maximum number of tokens of a text"
    keys = ("max_tokens",)


# --- (1)-(3) class separation -----------------------------------------------------------------------------
class ClassSeparation(DatasetFeature):
    inputs = frozenset({"label", "embedding"})
    settings: ClassVar[Mapping[str, Any]] = {**_LABELS, **_MODE}
    function: ClassVar[Any] = None

    def compute(self, rows: Sequence[Row], model: ModelAdapter | None, classes: Sequence[str]) -> dict[str, float]:
        return {self.keys[0]: type(self).function(self.embeddings(rows), self.labels(rows, classes), self.mode())}


class MeanDistance(ClassSeparation):
    name = "asr-md"
    description = "RobustText MD: mean Euclidean distance between class centroids (faithful: the code's zero row)"
    keys = ("md",)
    function = staticmethod(F.mean_distance)


class FisherRatio(ClassSeparation):
    name = "asr-fr"
    description = "RobustText FR: between- over within-class spread (faithful: the code's, inverted)"
    keys = ("fr",)
    function = staticmethod(F.fisher_ratio)


class CalinskiHarabasz(ClassSeparation):
    name = "asr-chi"
    description = "RobustText CHI (faithful: the paper's inverted CH from the code's spreads; fixed: textbook CH)"
    keys = ("chi",)
    function = staticmethod(F.calinski_harabasz)


# --- (4)-(5) HDBSCAN clustering ---------------------------------------------------------------------------
class Clustering(DatasetFeature):
    inputs = frozenset({"embedding"})
    settings: ClassVar[Mapping[str, Any]] = {"min_cluster_size": 5}

    def compute(self, rows: Sequence[Row], model: ModelAdapter | None, classes: Sequence[str]) -> dict[str, float]:
        e = self.embeddings(rows)
        clusters = F.cluster_labels(e, int(self.config["min_cluster_size"]))
        return {"clusters": float(F.number_of_clusters(clusters)), "dbi": F.davies_bouldin(e, clusters)}


class NumberOfClusters(Clustering):
    name = "asr-clusters"
    description = "RobustText: number of HDBSCAN clusters (min_cluster_size 5) of the embeddings"
    keys = ("clusters",)


class DaviesBouldin(Clustering):
    name = "asr-dbi"
    description = "RobustText DBI: Davies-Bouldin index of the HDBSCAN clustering (0 for <= 1 cluster)"
    keys = ("dbi",)


# --- (6)-(8) label distribution ---------------------------------------------------------------------------
class LabelDistribution(DatasetFeature):
    def compute(self, rows: Sequence[Row], model: ModelAdapter | None, classes: Sequence[str]) -> dict[str, float]:
        k = self.n_classes(rows, classes)
        counts = F.label_counts(self.labels(rows, classes), k)
        return {"pms": F.pearson_median_skewness(counts), "kts": F.kurtosis(counts), "classes": float(k)}


class PearsonMedianSkewness(LabelDistribution):
    name = "asr-pms"
    description = "RobustText PMS: Pearson median skewness of the per-class counts"
    keys = ("pms",)


class Kurtosis(LabelDistribution):
    name = "asr-kts"
    description = "RobustText KTS: (non-excess) kurtosis of the per-class counts"
    keys = ("kts",)


class NumberOfClasses(LabelDistribution):
    name = "asr-classes"
    description = "RobustText: number of classes of the source corpus (setting n_classes / classes)"
    keys = ("classes",)


# --- (9) surrogate misclassification rate -----------------------------------------------------------------
def split_for_surrogate(rows: Sequence[Row], holdout: float, seed: int) -> tuple[list[Row], list[Row]]:
    """(train, test): rows marked split='test' are the test set; without any, a seeded `holdout` fraction."""
    test = [r for r in rows if r.get("split") == "test"]
    if test:
        return [r for r in rows if r.get("split") != "test"], test
    if not 0.0 < holdout < 1.0 or len(rows) < 2:
        raise RobustError("MR needs held-out rows: mark some split='test' or set 0 < holdout < 1 with >= 2 rows")
    order = np.random.default_rng(seed).permutation(len(rows))
    n_test = max(1, int(round(holdout * len(rows))))
    return [rows[i] for i in order[n_test:]], [rows[i] for i in order[:n_test]]


class MisclassificationRate(DatasetFeature):
    name = "asr-mr"
    description = "RobustText MR: error of a small char-CNN trained on the set (faithful: the code's off-by-one)"
    inputs = frozenset({"text", "label"})
    keys = ("mr",)
    uses_test_rows = True
    settings: ClassVar[Mapping[str, Any]] = {**_LABELS, **_MODE, **_CNN}

    def compute(self, rows: Sequence[Row], model: ModelAdapter | None, classes: Sequence[str]) -> dict[str, float]:
        train, test = split_for_surrogate(rows, float(self.config["holdout"]), int(self.config["seed"]))
        c = self.config
        config = charcnn.CharCNNConfig(filters=int(c["filters"]), max_chars=int(c["max_chars"]),
                                       epochs=int(c["epochs"]), batch_size=int(c["batch_size"]), lr=float(c["lr"]))
        k = max(int(c["n_classes"]), len(classes))
        mr = charcnn.misclassification_rate(
            _column(train, "text"), class_indices(_column(train, "label"), classes),
            _column(test, "text"), class_indices(_column(test, "label"), classes),
            k, self.mode(), config, int(c["seed"]))
        return {"mr": mr}


# --- all 13 -----------------------------------------------------------------------------------------------
class DatasetFeatures(DatasetFeature):
    """All 13 features in table order (HDBSCAN and tokenisation done once)."""

    name = "asr-features"
    description = "RobustText: the 13 dataset features that predict attack success rate (table column order)"
    inputs = frozenset({"text", "label", "embedding"})
    needs = frozenset({"tokenize"})
    keys = FEATURE_KEYS
    settings: ClassVar[Mapping[str, Any]] = {**_LABELS, **_MODE, **_CNN, "min_cluster_size": 5}

    def _part(self, cls: type[DatasetFeature]) -> DatasetFeature:
        return cls(**{k: v for k, v in self.config.items() if k in cls.settings})

    def score(self, rows: Sequence[Row], model: ModelAdapter | None = None) -> dict[str, float]:
        classes = class_list(_column(rows, "label"), self.config["classes"])
        train = training_rows(rows)
        out = {**TokenStatistic().compute(train, model, classes),
               **self._part(MisclassificationRate).compute(rows, model, classes)}
        for cls in (MeanDistance, FisherRatio, CalinskiHarabasz, Clustering, LabelDistribution):
            out.update(self._part(cls).compute(train, model, classes))
        return {key: float(out[key]) for key in self.keys}


SCORERS: tuple[type[DatasetFeature], ...] = (
    AvgTokens, UniqueTokens, MinTokens, MaxTokens, MeanDistance, FisherRatio, CalinskiHarabasz,
    DaviesBouldin, NumberOfClusters, PearsonMedianSkewness, Kurtosis, MisclassificationRate, NumberOfClasses,
    DatasetFeatures,
)
