"""Registered plugins by kind, each under its bare name and its qualified name `DIST:NAME`.

A bare name registered by two distributions is ambiguous: using it is an error naming both (use the
qualified name). Lookups of unknown names give did-you-mean errors.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from robust.core.errors import RobustError, unknown

KINDS = ("benchmark", "transform", "attacker", "model", "dataset", "scorer", "resource")
PLURAL = {k: k + "s" for k in KINDS}
BUILTIN = "robust"


@dataclass
class Entry:
    """One registered plugin: a class (instantiated on use) or a ready instance, and where it came from."""

    kind: str
    name: str
    target: Any
    plugin: str
    distribution: str
    version: str

    @property
    def qualified(self) -> str:
        return f"{self.distribution}:{self.name}"

    @property
    def description(self) -> str:
        text = (self.target.description or "").strip()
        return text.splitlines()[0] if text else ""

    @property
    def origin(self) -> str:
        return "built-in" if self.distribution == BUILTIN else f"{self.distribution} {self.version}"

    @property
    def capabilities(self) -> list[str]:
        """What a model provides, or what another plugin needs from the model under test."""
        return sorted(getattr(self.target, "capabilities" if self.kind == "model" else "needs", ()) or ())

    @property
    def settings(self) -> dict[str, Any]:
        from robust.core.settings import defaults

        return defaults(getattr(self.target, "settings", {}) or {})

    def create(self, *args: Any, **config: Any) -> Any:
        """A configured instance (a registered instance is returned as is unless config is given)."""
        if inspect.isclass(self.target):
            return self.target(*args, **config)
        if args or config:
            return type(self.target)(*args, **{**getattr(self.target, "config", {}), **config})
        return self.target

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "qualified": self.qualified, "description": self.description,
                "origin": self.origin, "plugin": self.plugin, "distribution": self.distribution,
                "version": self.version, "capabilities": self.capabilities,
                "settings": {k: v for k, v in self.settings.items() if _jsonable(v)}}


def _jsonable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool, list, tuple, type(None)))


@dataclass
class Broken:
    """A plugin that failed to load or to register; nothing it registered is kept."""

    plugin: str
    distribution: str
    version: str
    step: str  # "import" or the hook name
    cause: str
    traceback: str = ""

    def line(self) -> str:
        return f"plugin {self.plugin!r} from {self.distribution} {self.version} failed in {self.step}: {self.cause}"


@dataclass
class AttackSpec:
    """One `--attack` value resolved: a transform run by the benchmark's default attackers, an attacker
    (with its default or no transform), or `attacker:transform`."""

    text: str
    transform: Entry | None = None
    attacker: Entry | None = None


@dataclass
class Registry:
    entries: dict[str, dict[str, list[Entry]]] = field(default_factory=lambda: {k: {} for k in KINDS})
    broken: list[Broken] = field(default_factory=list)

    def add(self, entry: Entry) -> None:
        self.entries[entry.kind].setdefault(entry.name, []).append(entry)

    @property
    def clashes(self) -> list[list[Entry]]:
        return [found for table in self.entries.values() for found in table.values() if len(found) > 1]

    @property
    def warnings(self) -> list[str]:
        """One line per broken plugin and per name clash (printed once by the CLI)."""
        out = [b.line() for b in self.broken]
        for found in self.clashes:
            who = " and ".join(sorted(f"{e.origin} ({e.qualified})" for e in found))
            out.append(f"{found[0].kind} {found[0].name!r} is registered by {who}; use a qualified name")
        return out

    def _find(self, kind: str, name: str) -> Entry | None:
        found = self.entries[kind].get(name)
        if found:
            if len(found) > 1:
                who = " and ".join(sorted(f"{e.qualified} ({e.origin})" for e in found))
                raise RobustError(f"{kind} name {name!r} is ambiguous: registered by {who}; use one of those")
            return found[0]
        dist, sep, bare = name.partition(":")
        if sep:
            return next((e for e in self.entries[kind].get(bare, []) if e.distribution == dist), None)
        return None

    def has(self, kind: str, name: str) -> bool:
        try:
            return self._find(kind, name) is not None
        except RobustError:
            return True

    def get(self, kind: str, name: str) -> Entry:
        entry = self._find(kind, name)
        if entry is None:
            raise unknown(kind, name, self.names(kind))
        return entry

    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def __iter__(self) -> Iterator[Entry]:
        for kind in KINDS:
            for name in sorted(self.entries[kind]):
                yield from self.entries[kind][name]

    def model(self, spec: str, **config: Any) -> Any:
        """A model adapter from a spec `NAME`, `NAME:ARG` or `DIST:NAME[:ARG]` (`hf:roberta-base`)."""
        if not spec or not spec.strip():
            raise RobustError("empty model spec; try `robust list models`")
        head, _, rest = spec.strip().partition(":")
        if not self.has("model", head) and rest:
            name, _, arg = rest.partition(":")
            if self.has("model", f"{head}:{name}"):
                head, rest = f"{head}:{name}", arg
        entry = self.get("model", head)
        return entry.create(rest, **config) if rest else entry.create(**config)

    # --- --attack values -----------------------------------------------------------------------------------
    def group(self, name: str) -> list[Entry]:
        """Transforms of group `name` (`all`, a dimension such as `typo`, or a name prefix `typo` -> `typo-M`),
        from ONE distribution: the built-ins if any match, so a third party can never join a built-in group."""
        low = name.lower()
        found = [e for e in self if e.kind == "transform" and (
            (low == "all" and getattr(e.target, "dimension", "")) or e.name.lower().startswith(low + "-")
            or str(getattr(e.target, "dimension", "") or "").lower() == low)]
        dists = sorted({e.distribution for e in found})
        if BUILTIN in dists or len(dists) <= 1:
            return [e for e in found if e.distribution == (BUILTIN if BUILTIN in dists else dists[0])] if dists else []
        raise RobustError(f"attack group {name!r} is defined by several plugins ({', '.join(dists)}); "
                          "name the transforms instead")

    def attack_specs(self, values: list[str]) -> list[AttackSpec]:
        """`--attack` values: a transform, an attacker, a group, or `attacker:transform` (each may be qualified)."""
        out: list[AttackSpec] = []
        for text in (v.strip() for raw in values for v in str(raw).split(",") if v.strip()):
            out += self._attack_spec(text)
        return out

    def _attack_spec(self, text: str) -> list[AttackSpec]:
        if self.has("transform", text):
            return [AttackSpec(text, transform=self.get("transform", text))]
        if self.has("attacker", text):
            return [AttackSpec(text, attacker=self.get("attacker", text))]
        members = self.group(text)
        if members:
            return [AttackSpec(e.name, transform=e) for e in members]
        for cut in [i for i, ch in enumerate(text) if ch == ":"]:
            head, tail = text[:cut], text[cut + 1:]
            if self.has("attacker", head) and (self.has("transform", tail) or self.group(tail)):
                attacker = self.get("attacker", head)
                transforms = [self.get("transform", tail)] if self.has("transform", tail) else self.group(tail)
                return [AttackSpec(f"{attacker.name}:{t.name}", t, attacker) for t in transforms]
        choices = self.names("transform") + self.names("attacker")
        raise unknown("attack", text, choices + ["all"])
