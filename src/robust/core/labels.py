"""Mapping gold labels to a classifier's class indices."""

from __future__ import annotations

from typing import Any

from robust.core.errors import RobustError


def label_index(model: Any, label: Any) -> int:
    """The class index of a gold label for this model (by its `labels` list, else the label as an int)."""
    labels = getattr(model, "labels", None)
    if labels:
        names = [str(x) for x in labels]
        if str(label) in names:
            return names.index(str(label))
        raise RobustError(f"label {label!r} is not one of the model's labels {names}")
    try:
        return int(label)
    except (TypeError, ValueError):
        raise RobustError(f"label {label!r} is not a class index and the model names no labels") from None
