"""Registered plugins by kind and name, with their origin; lookups give did-you-mean errors."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from robust.core.errors import RobustError, unknown

KINDS = ("benchmark", "attack", "model", "dataset", "scorer")
PLURAL = {"benchmark": "benchmarks", "attack": "attacks", "model": "models",
          "dataset": "datasets", "scorer": "scorers"}


@dataclass
class Entry:
    """One registered plugin object: a class (instantiated on use) or a ready instance."""

    kind: str
    name: str
    target: Any
    plugin: str
    distribution: str
    version: str

    @property
    def description(self) -> str:
        return (self.target.description or "").strip().splitlines()[0] if self.target.description else ""

    @property
    def origin(self) -> str:
        return "built-in" if self.distribution == "robust" else f"{self.distribution} {self.version}"

    @property
    def capabilities(self) -> list[str]:
        """What a model provides, or what another plugin needs from a model."""
        attr = "capabilities" if self.kind == "model" else "needs"
        return sorted(getattr(self.target, attr, ()) or ())

    @property
    def settings(self) -> dict[str, Any]:
        return dict(getattr(self.target, "settings", {}) or {})

    def create(self, *args: Any, **config: Any) -> Any:
        """A configured instance (a registered instance is returned as is unless config is given)."""
        if inspect.isclass(self.target):
            return self.target(*args, **config)
        if args or config:
            return type(self.target)(*args, **{**getattr(self.target, "config", {}), **config})
        return self.target

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "description": self.description,
                "origin": self.origin, "plugin": self.plugin, "distribution": self.distribution,
                "version": self.version, "capabilities": self.capabilities,
                "settings": {k: v for k, v in self.settings.items() if _jsonable(v)}}


def _jsonable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool, list, tuple, type(None)))


@dataclass
class Registry:
    entries: dict[str, dict[str, Entry]] = field(default_factory=lambda: {k: {} for k in KINDS})
    conflicts: dict[tuple[str, str], list[Entry]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def add(self, entry: Entry) -> None:
        table = self.entries[entry.kind]
        key = (entry.kind, entry.name)
        if key in self.conflicts:
            self.conflicts[key].append(entry)
        elif entry.name in table:
            self.conflicts[key] = [table.pop(entry.name), entry]
        else:
            table[entry.name] = entry

    def conflict_message(self, kind: str, name: str) -> str:
        who = " and ".join(f"{e.distribution} {e.version} (plugin {e.plugin})" for e in self.conflicts[(kind, name)])
        return f"{kind} {name!r} is registered by both {who}; uninstall one or restrict ROBUST_LOAD_PLUGINS"

    def get(self, kind: str, name: str) -> Entry:
        if (kind, name) in self.conflicts:
            raise RobustError(self.conflict_message(kind, name))
        try:
            return self.entries[kind][name]
        except KeyError:
            raise unknown(kind, name, self.entries[kind]) from None

    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def __iter__(self) -> Iterator[Entry]:
        for kind in KINDS:
            yield from (self.entries[kind][n] for n in sorted(self.entries[kind]))

    def model(self, spec: str, **config: Any) -> Any:
        """A model adapter from a spec `NAME` or `NAME:ARG` (e.g. `hf:roberta-base`, `probe:minilm`)."""
        if not spec or not spec.strip():
            raise RobustError("empty model spec; try `robust list models`")
        name, _, arg = spec.strip().partition(":")
        entry = self.get("model", name)
        return entry.create(arg, **config) if arg else entry.create(**config)
