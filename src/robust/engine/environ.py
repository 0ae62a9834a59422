"""Numbers read from `ROBUST_*` environment variables: a bad value is one line naming the variable."""

from __future__ import annotations

import os

from robust.core.errors import RobustError


def env_seconds(name: str, default: float) -> float:
    """`$name` as seconds (0 or more), else `default`."""
    value = os.environ.get(name, str(default))
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise RobustError(f"{name} must be a number of seconds (0 or more), not {value!r}")
    return seconds


def env_count(name: str, default: int) -> int:
    """`$name` as a whole number (1 or more), else `default`."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) < 1:
        raise RobustError(f"{name} must be a whole number (1 or more), not {value!r}")
    return int(value)
