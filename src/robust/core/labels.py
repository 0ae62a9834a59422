"""Mapping gold labels to a classifier's class indices."""

from __future__ import annotations

from typing import Any

from robust.core.errors import RobustError


def label_index(model: Any, label: Any) -> int:
    """The class index of a gold label for this model: by name in its `labels` list, else as an index."""
    names = [str(x) for x in (getattr(model, "labels", None) or [])]
    if str(label) in names:
        return names.index(str(label))
    try:
        index = int(label)
    except (TypeError, ValueError):
        index = -1
    if 0 <= index < (len(names) or index + 1):
        return index
    expected = f"one of the model's labels {names} or a class index" if names else "a class index"
    raise RobustError(f"label {label!r} is not {expected}")
