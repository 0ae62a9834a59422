"""The 13 dataset features of RobustText (Dang et al., Findings of ACL 2024, §3.2 and Appendix A.2), as pure functions.

Conventions (Dang et al. 2024, Appendix A.2): `labels` are class indices 0..K-1 (index into the corpus's class list);
`embeddings` is E [N, d] (the features use it as given; `dataset_features` L2-normalises it first, like the authors);
token statistics take token-id lists (special tokens included, no truncation).

`mode="faithful"` replicates the authors' `data_insight.py` run on their 1-indexed label storage (stored label =
index + 1) and the analysis-time inversion of FR. `mode="fixed"` is the paper's stated intent with the bugs of
the bugs listed in docs/asr_predict.md (mode=faithful and mode=fixed) removed (MR, MD, FR, CHI). Features without a
listed bug have one definition.
"""

from __future__ import annotations

from collections.abc import Sequence

from robust import RobustError
from robust.plugins.benchmarks.asr_predict.constants import FEATURE_KEYS, MODES
from robust.toolkit.lazy import np

#: torch.nn.PairwiseDistance(p=2) computes ||a - b + eps|| with eps = 1e-6 (faithful mode only)
PDIST_EPS = 1e-6


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise RobustError(f"unknown feature mode {mode!r}; choose one of: {', '.join(MODES)}")
    return mode


def check_inputs(embeddings: np.ndarray, labels: Sequence[int], min_classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """(E as float64 [N, d], labels as int [N]); one clear error for a shape or label problem."""
    e = np.asarray(embeddings, dtype=np.float64)
    y = np.asarray(labels)
    if e.ndim != 2 or len(e) == 0:
        raise RobustError(f"embeddings must be a non-empty [N, d] array, got shape {e.shape}")
    if y.shape != (len(e),):
        raise RobustError(f"need one label per embedding: {len(e)} embeddings, labels of shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer) or (y < 0).any():
        raise RobustError("labels must be class indices 0..K-1 (non-negative integers)")
    if len(np.unique(y)) < min_classes:
        raise RobustError(f"class-separation features need at least {min_classes} classes present")
    return e, y.astype(np.int64)


def l2_normalize(embeddings: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalisation (sklearn.preprocessing.normalize; zero rows stay zero)."""
    e = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(e, axis=1, keepdims=True)
    return e / np.where(norms == 0, 1.0, norms)


def _pdist(a: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    return np.linalg.norm(a - b + eps, axis=-1)


def scatter_mean(e: np.ndarray, index: np.ndarray, n_rows: int) -> np.ndarray:
    """torch_scatter.scatter(e, index, reduce='mean'): row r = mean of e[index == r]; empty rows are zero."""
    sums = np.zeros((n_rows, e.shape[1]))
    np.add.at(sums, index, e)
    counts = np.bincount(index, minlength=n_rows)[:, None]
    return sums / np.maximum(counts, 1)


# --- (10)-(13) token statistics [paper Eq. 4; Dang et al. 2024, Appendix A.2; docs/asr_predict.md] --------------------
def token_statistics(token_ids: Sequence[Sequence[int]]) -> dict[str, float]:
    """Avg/min/max tokens per text and # distinct token ids over all texts (not hapaxes, docs/asr_predict.md)."""
    if not token_ids:
        raise RobustError("token statistics need at least one text")
    lengths = np.array([len(ids) for ids in token_ids])
    unique = set().union(*(set(ids) for ids in token_ids))
    return {"avg_tokens": float(lengths.mean()), "unique_tokens": float(len(unique)),
            "min_tokens": float(lengths.min()), "max_tokens": float(lengths.max())}


# --- (1) MD: mean distance between class centroids [Dang et al. 2024, Appendix A.2 (1); docs/asr_predict.md] ----------
def mean_distance(embeddings: np.ndarray, labels: Sequence[int], mode: str = "faithful") -> float:
    e, y = check_inputs(embeddings, labels)
    if check_mode(mode) == "faithful":
        stored = y + 1  # the corpora store labels 1..K: scatter leaves a zero "centroid" at row 0 (and absent ids)
        means = scatter_mean(e, stored, int(stored.max()) + 1)
        r = len(means)
        dist = _pdist(means[:, None, :], means[None, :, :], PDIST_EPS)  # ordered pairs, diagonal ~eps
        return float(2 * dist.sum() / (r * (r - 1)))
    means = np.stack([e[y == c].mean(axis=0) for c in np.unique(y)])
    i, j = np.triu_indices(len(means), k=1)
    return float(np.linalg.norm(means[i] - means[j], axis=1).mean())  # mean over unordered pairs of present classes


# --- (2) FR and (3) CHI [Dang et al. 2024, Appendix A.2 (2)-(3); docs/asr_predict.md] ---------------------------------
def _faithful_spread(e: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(sum of within distances, sum of between distances) exactly as data_insight.py computes them."""
    stored = y + 1
    means = scatter_mean(e, stored, int(stored.max()) + 1)
    glb = e.mean()  # np.mean(embeddings): a scalar, broadcast to g*1
    within = _pdist(e, means[stored], PDIST_EPS).sum()
    between = _pdist(means[stored], np.full_like(e, glb), PDIST_EPS).sum()
    return float(within), float(between)


def _scatter_traces(e: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(tr S_B, tr S_W): S_B = sum_k N_k (m_k - m)(m_k - m)^T, S_W = sum_i (e_i - m_y)(e_i - m_y)^T."""
    m = e.mean(axis=0)
    between = within = 0.0
    for c in np.unique(y):
        members = e[y == c]
        mc = members.mean(axis=0)
        between += len(members) * float(((mc - m) ** 2).sum())
        within += float(((members - mc) ** 2).sum())
    return between, within


def fisher_ratio(embeddings: np.ndarray, labels: Sequence[int], mode: str = "faithful") -> float:
    """FR = between / within. faithful: sum||m_y - g1|| / sum||e - m_y|| (code's ratio inverted at analysis);
    fixed: tr(S_B) / tr(S_W) with the global centroid (paper's S_B/S_W)."""
    e, y = check_inputs(embeddings, labels)
    if check_mode(mode) == "faithful":
        within, between = _faithful_spread(e, y)
        return between / within
    between, within = _scatter_traces(e, y)
    return between / within


def calinski_harabasz(embeddings: np.ndarray, labels: Sequence[int], mode: str = "faithful") -> float:
    """faithful: (S_W/S_B)(N-K)/(K-1) with the code's spreads (the reciprocal of the textbook index, spec C2);
    fixed: the textbook Calinski-Harabasz index [tr(S_B)/(K-1)] / [tr(S_W)/(N-K)]."""
    e, y = check_inputs(embeddings, labels)
    n, k = len(e), len(np.unique(y))
    if check_mode(mode) == "faithful":
        within, between = _faithful_spread(e, y)
        return within / between * (n - k) / (k - 1)
    between, within = _scatter_traces(e, y)
    return (between / (k - 1)) / (within / (n - k))


# --- (4) # clusters and (5) DBI on an HDBSCAN clustering [Dang et al. 2024, Appendix A.2 (4)-(5)] ---------------------
def cluster_labels(embeddings: np.ndarray, min_cluster_size: int = 5) -> np.ndarray:
    """HDBSCAN(min_cluster_size=5, euclidean, eom) cluster ids, -1 = noise (scikit-learn's port of `hdbscan`)."""
    from sklearn.cluster import HDBSCAN

    e = np.asarray(embeddings, dtype=np.float64)
    if len(e) < 2:
        return np.full(len(e), -1)
    model = HDBSCAN(min_cluster_size=min_cluster_size, metric="euclidean", cluster_selection_method="eom", copy=True)
    return model.fit(e).labels_


def number_of_clusters(clusters: Sequence[int]) -> int:
    """Distinct non-noise cluster ids."""
    return len({int(c) for c in clusters if c >= 0})


def davies_bouldin(embeddings: np.ndarray, clusters: Sequence[int]) -> float:
    """DBI = (1/C) sum_c max_{c' != c} (s_c + s_c') / ||mu_c - mu_c'|| over non-noise points; 0 if C <= 1."""
    e = np.asarray(embeddings, dtype=np.float64)
    c = np.asarray(clusters)
    keep = c >= 0
    e, c = e[keep], c[keep]
    ids = np.unique(c)
    if len(ids) <= 1:
        return 0.0
    mu = np.stack([e[c == k].mean(axis=0) for k in ids])
    s = np.array([np.linalg.norm(e[c == k] - mu[i], axis=1).mean() for i, k in enumerate(ids)])
    d = np.linalg.norm(mu[:, None, :] - mu[None, :, :], axis=-1)
    np.fill_diagonal(d, np.inf)
    return float(((s[:, None] + s[None, :]) / d).max(axis=1).mean())


# --- (6) PMS, (7) KTS, (8) # classes [Dang et al. 2024, Appendix A.2 (6)-(8); docs/asr_predict.md] --------------------
def label_counts(labels: Sequence[int], n_classes: int) -> np.ndarray:
    """Per-class counts padded with zeros to the corpus's K classes (the code's `lb_dis`, up to order)."""
    y = np.asarray(labels)
    if len(y) and (y.min() < 0 or y.max() >= n_classes):
        raise RobustError(f"labels must be class indices in 0..{n_classes - 1}")
    return np.bincount(y.astype(np.int64), minlength=n_classes).astype(np.float64)


def pearson_median_skewness(counts: np.ndarray) -> float:
    """3 (mean - median) / std of the class counts (population std; 0 if std = 0)."""
    sd = counts.std()
    return float(3 * (counts.mean() - np.median(counts)) / sd) if sd != 0 else 0.0


def kurtosis(counts: np.ndarray) -> float:
    """Pearson (non-excess) kurtosis of the class counts, population moments; 0 if std = 0."""
    sd = counts.std()
    return float(np.mean((counts - counts.mean()) ** 4) / sd**4) if sd != 0 else 0.0


def number_of_classes(labels: Sequence[int], n_classes: int | None = None) -> int:
    """K of the source corpus when known (paper A.2), else the number of distinct labels present."""
    present = len(set(np.asarray(labels).tolist()))
    if n_classes is None or n_classes <= 0:
        return present
    if len(labels) and int(np.max(labels)) >= n_classes:
        raise RobustError(f"n_classes={n_classes} but a label index is {int(np.max(labels))}")
    return int(n_classes)


# --- all 13 at once -----------------------------------------------------------------------------------------
def dataset_features(
    labels: Sequence[int],
    embeddings: np.ndarray,
    token_ids: Sequence[Sequence[int]],
    misclassification: float,
    n_classes: int | None = None,
    mode: str = "faithful",
) -> dict[str, float]:
    """The 13 features in table order, from L2-normalised embeddings (HDBSCAN run once for # clusters and DBI).
    `misclassification` is the surrogate's MR (charcnn.misclassification_rate), computed separately."""
    e = l2_normalize(embeddings)
    clusters = cluster_labels(e)
    k = number_of_classes(labels, n_classes)
    counts = label_counts(labels, k)
    out = {
        **token_statistics(token_ids),
        "md": mean_distance(e, labels, mode),
        "fr": fisher_ratio(e, labels, mode),
        "chi": calinski_harabasz(e, labels, mode),
        "dbi": davies_bouldin(e, clusters),
        "clusters": float(number_of_clusters(clusters)),
        "pms": pearson_median_skewness(counts),
        "kts": kurtosis(counts),
        "mr": float(misclassification),
        "classes": float(k),
    }
    return {key: out[key] for key in FEATURE_KEYS}
