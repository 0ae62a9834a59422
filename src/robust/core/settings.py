"""Typed plugin settings: defaults declared by the plugin, values from `--set key=value`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from robust.core.errors import RobustError, did_you_mean

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_assignments(pairs: list[str] | None) -> dict[str, str]:
    """`["a=1", "b=x"]` -> `{"a": "1", "b": "x"}`; a pair without `=` is an error."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RobustError(f"bad --set {pair!r}: expected key=value")
        out[key.strip()] = value.strip()
    return out


def coerce(name: str, value: Any, default: Any) -> Any:
    """Convert a (string) value to the type of the setting's default."""
    if not isinstance(value, str) or isinstance(default, str) or default is None:
        return value
    text = value.strip()
    try:
        if isinstance(default, bool):
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if isinstance(default, (list, tuple)):
            items = [t.strip() for t in text.split(",") if t.strip()]
            kind = type(default[0]) if default else str
            return type(default)(coerce(name, t, kind()) for t in items)
    except ValueError:
        raise RobustError(
            f"bad value {value!r} for setting {name!r}: expected {type(default).__name__}"
        ) from None
    return value


def resolve_settings(owner: str, defaults: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with the given values; unknown keys are an error naming the owner."""
    out = dict(defaults)
    for key, value in given.items():
        if key not in defaults:
            hint = did_you_mean(key, defaults)
            known = ", ".join(sorted(defaults)) or "none"
            raise RobustError(f"unknown setting {key!r} for {owner or 'plugin'}{hint}; known: {known}")
        out[key] = coerce(key, value, defaults[key])
    return out
