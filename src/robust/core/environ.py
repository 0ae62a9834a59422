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


def env_bytes(name: str, default: int) -> int:
    """`$name` as a number of bytes (a whole number, 1 or more, with an optional KiB, MiB or GiB), else `default`."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    number = value.rstrip("KMGiB")
    scale = {"": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}.get(value[len(number):])
    if not number.isdigit() or int(number) < 1 or scale is None:
        raise RobustError(f"{name} must be a number of bytes (1 or more, e.g. 536870912 or 512MiB), not {value!r}")
    return int(number) * scale
