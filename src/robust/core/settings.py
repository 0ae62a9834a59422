"""Typed plugin settings: each plugin declares a schema (`Setting`), values come from `--set key=value`
or Python, and everything is validated before a run exists (type, range, choices, unknown keys)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from robust.core.errors import RobustError, did_you_mean

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Setting:
    """One setting: its default (which fixes the type), optional bounds or choices, and a one-line help.
    For a list setting, bounds and choices apply to every item, `min_items` bounds its length, and `item` is
    the item type when the default list is empty. An optional setting has the default None and its type in
    `item` (`Setting(None, item=int, min=1)`): None, `none` or an empty string mean None."""

    default: Any
    min: float | None = None
    max: float | None = None
    choices: Sequence[Any] | None = None
    help: str = ""
    min_items: int = 0
    item: type = str

    @property
    def type(self) -> type:
        return self.item if self.optional else type(self.default)

    @property
    def optional(self) -> bool:
        return self.default is None and self.item is not str

    def describe(self) -> str:
        parts = [f"{self.item.__name__} or none" if self.optional else type(self.default).__name__]
        if self.choices is not None:
            parts.append("one of " + _listing(self.choices))
        if self.min is not None or self.max is not None:
            lo = "-inf" if self.min is None else f"{self.min:g}"
            hi = "inf" if self.max is None else f"{self.max:g}"
            parts.append(f"in [{lo}, {hi}]")
        return ", ".join(parts)

    def validate(self, name: str, value: Any) -> Any:
        """`value` (a string from the command line, or a Python value) as this setting's type, checked."""
        if self.optional:
            if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
                return None
            try:
                return Setting(self.item(), self.min, self.max, self.choices).validate(name, value)
            except RobustError:
                raise _bad(name, value, self.describe()) from None
        if isinstance(self.default, (list, tuple)):
            items = [t.strip() for t in value.split(",") if t.strip()] if isinstance(value, str) else value
            if not isinstance(items, (list, tuple)):
                raise _bad(name, value, f"a list ({self.describe()})")
            example = self.default[0] if self.default else self.item()
            item = Setting(example, self.min, self.max, self.choices)
            out = [item.validate(name, v) for v in items]
            if len(out) < self.min_items:
                raise RobustError(f"setting {name!r} needs at least {self.min_items} item(s)")
            return type(self.default)(out)
        value = _convert(name, value, self.default)
        if self.choices is not None and value not in self.choices:
            hint = did_you_mean(str(value), map(str, self.choices))
            raise RobustError(f"bad value {value!r} for setting {name!r}{hint}; choose one of "
                              + _listing(self.choices))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                raise _bad(name, value, "a finite number")
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                raise _bad(name, value, self.describe())
        return value


def _listing(choices: Sequence[Any]) -> str:
    return ", ".join(str(c) or "''" for c in choices)


def _bad(name: str, value: Any, expected: str) -> RobustError:
    return RobustError(f"bad value {value!r} for setting {name!r}: expected {expected}")


def _convert(name: str, value: Any, default: Any) -> Any:
    """Exactly the default's type: strings are parsed, Python values must already have that type
    (an int setting refuses 1.5 and True; a float setting takes ints)."""
    kind = type(default)
    if default is None or isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return value
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str) or kind is str:
        raise _bad(name, value, kind.__name__)
    text = value.strip()
    if kind is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise _bad(name, value, "true or false")
    try:
        return kind(text)
    except ValueError:
        raise _bad(name, value, kind.__name__) from None


def schema(settings: Mapping[str, Any]) -> dict[str, Setting]:
    """A plugin's settings as `Setting`s (a plain default declares a setting of its type, unbounded)."""
    return {k: v if isinstance(v, Setting) else Setting(v) for k, v in settings.items()}


def defaults(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {k: s.default for k, s in schema(settings).items()}


def resolve_settings(owner: str, settings: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with the given values, each validated; unknown keys name the valid ones."""
    spec = schema(settings)
    out = {k: s.default for k, s in spec.items()}
    for key, value in given.items():
        if key not in spec:
            hint = did_you_mean(key, spec)
            known = ", ".join(sorted(spec)) or "none"
            raise RobustError(f"unknown setting {key!r} for {owner or 'plugin'}{hint}; known: {known}")
        out[key] = spec[key].validate(key, value)
    return out


def parse_assignments(pairs: list[str] | None) -> dict[str, str]:
    """`["a=1", "b=x"]` -> `{"a": "1", "b": "x"}`; a pair without `=` is an error."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RobustError(f"bad --set {pair!r}: expected key=value")
        out[key.strip()] = value.strip()
    return out
