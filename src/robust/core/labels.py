"""Gold labels: strings (class names) or integers (class indices), nothing silently cast."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robust.core.errors import RobustError


def label_problem(label: Any, names: Sequence[Any] | None) -> str | None:
    """Why `label` is not a valid gold label for classes `names` (None: any string or integer), else None."""
    if isinstance(label, bool) or not isinstance(label, (str, int)):
        return f"label {label!r} is a {type(label).__name__}; labels must be strings or integers"
    if names is None:
        return None
    try:
        _index(label, names)
    except ValueError as exc:
        return str(exc)
    return None


def _index(label: str | int, names: Sequence[Any]) -> int:
    text = [str(x) for x in names]
    if str(label) in text:
        return text.index(str(label))
    digits = isinstance(label, int) or label.isdigit()
    if digits and 0 <= int(label) < len(text):
        return int(label)
    raise ValueError(f"unknown label {label!r}; expected one of {text} or a class index 0..{len(text) - 1}")


def label_index(model: Any, label: Any) -> int:
    """The class index of a gold label for this model: by name in its `labels`, else as an index."""
    problem = label_problem(label, None)
    if problem:
        raise RobustError(problem)
    names = getattr(model, "labels", None)
    if not names:
        if isinstance(label, int) or label.isdigit():
            count = getattr(model, "class_count", None)
            if count and not 0 <= int(label) < count:
                raise RobustError(f"label {label!r} is not a class of model {model.identity}: it returns {count} class "
                                  f"probabilities per text (indices 0..{count - 1}) and names no classes; give labels "
                                  "0..k-1 in the order of its outputs, or a model that returns a probability per label")
            return int(label)
        raise RobustError(f"label {label!r} is not a class index, and model {model.identity} names no classes; give "
                          "labels as class indices 0..k-1, or name its classes in order (robust.FunctionModel(fn, "
                          "labels=[...]), or settings={'model.labels': [...]} for a callable)")
    try:
        return _index(label, names)
    except ValueError as exc:
        raise RobustError(str(exc)) from None
