"""The domain of a fitted ASR predictor: which feature extractors produced its table (embedder, tokenizer, feature
mode, char-CNN surrogate, clustering), each feature's range in that table, and where the table came from. A
prediction is only meaningful for features from the same extractors and inside those ranges (docs/asr_predict.md;
robust's MiniLM features are not on the scale of the authors' USE features)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robust.toolkit.lazy import np

#: the fields of an extractor that must agree for a predictor to apply (versions are in the names)
COMPARED = ("embedder", "tokenizer", "mode", "surrogate", "clustering")


def extractor(embedder: str, tokenizer: str, mode: str, features: Mapping[str, Any]) -> dict[str, str]:
    """The extractor of features computed by robust: model identities, feature mode and the `asr-features` settings
    of the surrogate and the clustering."""
    return {"embedder": embedder, "tokenizer": tokenizer, "mode": mode,
            "surrogate": (f"char-CNN {features['filters']} filters x {features['max_chars']} chars, "
                          f"{features['epochs']} epochs, batch {features['batch_size']}, lr {features['lr']:g}"),
            "clustering": f"HDBSCAN min_cluster_size {features['min_cluster_size']}"}


def describe(ext: Mapping[str, Any] | None) -> str:
    """One phrase naming an extractor (or saying it is unknown)."""
    if not ext:
        return "unknown feature extractors"
    return "; ".join(f"{k} {ext[k]}" for k in COMPARED if k in ext)


def mismatch(fitted: Mapping[str, Any] | None, used: Mapping[str, Any]) -> list[str]:
    """The compared fields that differ ("embedder: X in the fit vs Y here"); all of them for an unknown fit."""
    if not fitted:
        return [f"{k}: unknown in the fit vs {used.get(k)} here" for k in COMPARED]
    return [f"{k}: {fitted.get(k)} in the fit vs {used.get(k)} here" for k in COMPARED
            if fitted.get(k) != used.get(k)]


def feature_ranges(features: Sequence[str], X: np.ndarray) -> dict[str, list[float]]:
    """[min, max] of each feature column over the table's rows."""
    return {name: [float(np.min(X[:, j])), float(np.max(X[:, j]))] for j, name in enumerate(features)}


def out_of_range(values: Mapping[str, float], ranges: Mapping[str, Sequence[float]]) -> list[dict[str, Any]]:
    """Every feature outside [min, max] of the training table: the forest predicts there as at the nearest edge."""
    out = []
    for name, (low, high) in ranges.items():
        v = float(values[name])
        if v < low or v > high:
            out.append({"feature": name, "value": v, "low": low, "high": high, "side": "below" if v < low else "above"})
    return out


def at_edge(values: Mapping[str, float], ranges: Mapping[str, Sequence[float]]) -> list[str]:
    """Features exactly at the minimum or maximum of the training table (inside it, but at its boundary)."""
    return [name for name, (low, high) in ranges.items() if float(values[name]) in (low, high) and low != high]


def provenance(path: str | Path, rows: int, families: Sequence[str], kind: str) -> dict[str, Any]:
    """Where a table came from: file name, content hash, rows, corpus families, format."""
    path = Path(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else None
    return {"file": path.name, "sha256": digest, "rows": int(rows), "families": sorted(set(families)), "format": kind}


def encode(ext: Mapping[str, Any] | None) -> str:
    """An extractor as the JSON text of a table cell."""
    return json.dumps(dict(ext), sort_keys=True) if ext else ""
