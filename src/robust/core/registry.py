"""Registered plugins by kind, each under its bare name and its qualified name `DIST:NAME`.

A bare name registered by two distributions is ambiguous: using it is an error naming both (use the
qualified name). Lookups of unknown names give did-you-mean errors.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Mapping
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


@dataclass(frozen=True)
class Notice:
    """A warning about the installed plugins, and the names it concerns (a run warns only of those it uses)."""

    text: str
    names: frozenset[str]


@dataclass
class Registry:
    entries: dict[str, dict[str, list[Entry]]] = field(default_factory=lambda: {k: {} for k in KINDS})
    broken: list[Broken] = field(default_factory=list)
    #: problems found while loading entry points that broke nothing (two distributions' entry points share a
    #: name): (the line, the plugin it concerns)
    notes: list[tuple[str, str]] = field(default_factory=list)

    def add(self, entry: Entry) -> None:
        self.entries[entry.kind].setdefault(entry.name, []).append(entry)

    @property
    def clashes(self) -> list[list[Entry]]:
        return [found for table in self.entries.values() for found in table.values() if len(found) > 1]

    @property
    def warnings(self) -> list[str]:
        """Every notice's line (what `robust list` prints)."""
        return [n.text for n in self.notices]

    @property
    def notices(self) -> list[Notice]:
        """One per broken plugin, entry-point clash, name clash and built-in group shadowed, with the names it
        concerns."""
        out = [Notice(b.line(), frozenset({b.plugin})) for b in self.broken]
        out += [Notice(text, frozenset({plugin})) for text, plugin in self.notes]
        for found in self.clashes:
            kind, name = found[0].kind, found[0].name
            names = frozenset({name, *(e.qualified for e in found)})
            if any(e.distribution == BUILTIN for e in found):
                others = ", ".join(sorted(e.qualified for e in found if e.distribution != BUILTIN))
                out.append(Notice(f"{kind} {name!r} is also registered by {others}; the bare name keeps meaning "
                                  f"robust's built-in, use {others} for the other", names))
            else:
                who = " and ".join(sorted(f"{e.origin} ({e.qualified})" for e in found))
                out.append(Notice(f"{kind} {name!r} is registered by {who}; the bare name is refused: use a "
                                  "qualified name", names))
        groups = self.builtin_groups()
        for e in self:
            if e.kind in ("transform", "attacker") and e.distribution != BUILTIN and e.name.lower() in groups:
                out.append(Notice(f"{e.kind} {e.name!r} of {e.origin} has the name of robust's attack group "
                                  f"{e.name!r}; --attack {e.name} keeps meaning the group, use {e.qualified} for "
                                  f"the {e.kind}", frozenset({e.name, e.qualified})))
        return out

    def notices_for(self, typed: Iterable[str], used: Iterable[Entry]) -> list[str]:
        """The lines of the notices a run concerns: a name it was given (`typed`: `--attack typo`, the model
        spec) or a plugin it uses (its bare or qualified name, its plugin module). A run warns of these;
        `robust list` of all."""
        names = {str(t) for t in typed}
        for e in used:
            names |= {e.name, e.qualified, e.plugin}
        return [n.text for n in self.notices if n.names & names]

    def find(self, kind: str, name: str) -> Entry | None:
        """The entry `NAME` or `DIST:NAME` names, else None. A bare name robust's built-ins have means the built-in;
        a bare name two third parties share is refused naming both."""
        found = self.entries[kind].get(name)
        if found:
            builtin = [e for e in found if e.distribution == BUILTIN]
            if len(found) == 1 or builtin:
                return (builtin or found)[0]
            who = " and ".join(sorted(f"{e.qualified} ({e.origin})" for e in found))
            raise RobustError(f"{kind} name {name!r} is ambiguous: registered by {who}; use one of those")
        dist, sep, bare = name.partition(":")
        if sep:
            return next((e for e in self.entries[kind].get(bare, []) if e.distribution == dist), None)
        return None

    def has(self, kind: str, name: str) -> bool:
        try:
            return self.find(kind, name) is not None
        except RobustError:
            return True

    def get(self, kind: str, name: str) -> Entry:
        entry = self.find(kind, name)
        if entry is None:
            raise unknown(kind, name, self.names(kind))
        return entry

    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def settings_of(self, entry: Entry, plugin_settings: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The user's `--set` values for a plugin: under its bare name (when that name means it), then its qualified
        one."""
        bare = plugin_settings.get(entry.name, {}) if self.display(entry) == entry.name else {}
        return {**bare, **plugin_settings.get(entry.qualified, {})}

    def display(self, entry: Entry) -> str:
        """How a run shows an entry (item ids, records, reports): its bare name when that name means it, else its
        qualified name (also for a third party's transform or attacker named like a built-in attack group)."""
        shadowed = (entry.distribution != BUILTIN and entry.kind in ("transform", "attacker")
                    and entry.name.lower() in self.builtin_groups())
        try:
            return entry.name if self.find(entry.kind, entry.name) is entry and not shadowed else entry.qualified
        except RobustError:
            return entry.qualified

    def __iter__(self) -> Iterator[Entry]:
        for kind in KINDS:
            for name in sorted(self.entries[kind]):
                yield from self.entries[kind][name]

    def model(self, spec: str, **config: Any) -> Any:
        """A model adapter from a spec `NAME`, `NAME:ARG` or `DIST:NAME[:ARG]` (`hf:roberta-base`)."""
        entry, arg = self.model_entry(spec)
        self._inner_setting(entry, arg, config)
        return entry.create(arg, **config) if arg else entry.create(**config)

    def _inner_setting(self, entry: Entry, arg: str, config: dict[str, Any]) -> None:
        """`--set model.base_url=URL` for `prompt:api:M`: a setting of the model a wrapper takes as its argument, not
        of the wrapper, is said with the form that reaches it (`--set api.base_url=URL`)."""
        unknown = [key for key in config if key not in entry.settings]
        if not unknown or not arg:
            return
        try:
            inner = self.model_entry(arg)[0]
        except RobustError:
            return
        key = next((k for k in unknown if k in inner.settings), None)
        if key is not None:
            value = config[key]
            raise RobustError(f"--set model.{key}={value}: {key!r} is a setting of {arg!r}, the model inside "
                              f"{entry.name}:, not of {entry.name}: itself; --set {inner.name}.{key}={value} "
                              f"(settings={{'{inner.name}.{key}': {value!r}}} from Python)")

    def model_entry(self, spec: str) -> tuple[Entry, str]:
        """The model entry a spec names and the argument it passes (`hf:gpt2` -> (hf, "gpt2"))."""
        if not spec or not spec.strip():
            raise RobustError("empty model spec; try `robust list models`")
        head, _, rest = spec.strip().partition(":")
        if not self.has("model", head) and rest:
            name, _, arg = rest.partition(":")
            if self.has("model", f"{head}:{name}"):
                head, rest = f"{head}:{name}", arg
        return self.get("model", head), rest

    # --- names the built-in attack groups own --------------------------------------------------------------
    def builtin_groups(self) -> set[str]:
        """The attack groups robust defines: `all`, every built-in dimension and name prefix (`typo` of `typo-M`)."""
        out = {"all"}
        for e in self:
            if e.kind == "transform" and e.distribution == BUILTIN:
                out.add(e.name.lower().split("-")[0])
                out.add(str(getattr(e.target, "dimension", "") or "").lower())
        return out - {""}

    def attack_specs(self, values: list[str]) -> list[Any]:
        """Deprecated (PLUGIN_API 1.2; removed in 2.0): `robust.attack_specs(values, registry)`."""
        import warnings

        from robust.engine.attacks import attack_specs

        warnings.warn("Registry.attack_specs(values) is deprecated; use robust.attack_specs(values, registry)",
                      DeprecationWarning, stacklevel=2)
        return attack_specs(values, self)
