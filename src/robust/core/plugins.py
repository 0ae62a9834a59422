"""Plugin discovery: entry points of the group `robust` (built-ins included), each loaded in isolation.

A plugin that fails to import, or whose hook raises (`register_commands` included), or registers something that
breaks its kind's contract (`robust.core.contracts`), is recorded as broken with its one-line cause (and its
traceback, shown by `--debug`);
whatever it had registered is dropped, so nothing is half-registered. Entry points are told apart by distribution:
two distributions may both name an entry point `models`; both load, and the clash is noted. An entry point's module
may list submodules in `PLUGINS`: each is a plugin of its own (`attacks.typo`), loaded and isolated on its own.
`ROBUST_LOAD_PLUGINS=dist1,dist2` loads only those third-party distributions ("" loads none);
`ROBUST_TRACE_PLUGINS=1` prints every hook call and what it registered to stderr.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback
import types
from typing import Any

import pluggy

from robust.core import hookspecs
from robust.core.contracts import check_plugin
from robust.core.entry_points import normal, plugin_points
from robust.core.registry import BUILTIN, Broken, Entry, Registry

GROUP = "robust"
HOOK_KINDS = {f"register_{kind}s": kind for kind in
              ("benchmark", "transform", "attacker", "model", "dataset", "scorer", "resource")}

pm = pluggy.PluginManager(GROUP)
MARK = f"{GROUP}_impl"  # the attribute `robust.hookimpl` sets on a hook implementation
pm.add_hookspecs(hookspecs)
_origins: dict[str, tuple[str, str]] = {}  # plugin name -> (distribution, version)
_modules: dict[int, tuple[str, str]] = {}  # id of a registered module -> (its name, its plugin's name)
_load_failures: list[Broken] = []
_load_notes: list[tuple[str, str]] = []  # (line, plugin it concerns)
_loaded = False
_registry: Registry | None = None


def _allowed() -> set[str] | None:
    value = os.environ.get("ROBUST_LOAD_PLUGINS")
    return None if value is None else {normal(v.strip()) for v in value.split(",") if v.strip()}


def _trace(message: str) -> None:
    if os.environ.get("ROBUST_TRACE_PLUGINS"):
        print(f"[robust plugins] {message}", file=sys.stderr)


def _register(plugin: Any, name: str) -> None:
    """Register a plugin with pluggy; a module as a namespace of its hook implementations alone (pluggy inspects
    every name of what it registers, statically: 9 ms of `robust list` for the built-ins' imports and helpers)."""
    if isinstance(plugin, types.ModuleType):
        if id(plugin) in _modules:
            raise ValueError(f"its module {plugin.__name__} is already registered as plugin "
                             f"{_modules[id(plugin)][1]!r}")
        hooks = {key: value for key, value in vars(plugin).items()  # the routines pluggy would take
                 if inspect.isroutine(value) and getattr(value, MARK, None) is not None}
        pm.register(types.SimpleNamespace(__name__=plugin.__name__, **hooks), name=name)
        _modules[id(plugin)] = (plugin.__name__, name)
        return
    pm.register(plugin, name=name)


def _failure(plugin: str, dist: str, version: str, step: str, exc: BaseException) -> Broken:
    cause = (str(exc).strip().splitlines() or [""])[0]
    return Broken(plugin, dist, version, step, f"{type(exc).__name__}: {cause}" if cause else type(exc).__name__,
                  "".join(traceback.format_exception(exc)))


def loaded() -> bool:
    """Whether this process has loaded the entry points (or registered a plugin itself)."""
    return _loaded or bool(_origins)


def load_plugins() -> None:
    """Register every entry point of the group once; a failing one is recorded as broken. A built-in entry point
    keeps its name (`models`); another distribution's is registered as `DIST:NAME` when robust's or another
    loaded one already has that name, and the clash is noted."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    allowed = _allowed()
    points = sorted(plugin_points(GROUP), key=lambda ep: ep.distribution != BUILTIN)  # built-ins keep their names
    for ep in points:
        dist, version = ep.distribution, ep.version
        if dist != BUILTIN and allowed is not None and dist not in allowed:
            _trace(f"skipped {ep.name} from {dist} (not in ROBUST_LOAD_PLUGINS)")
            continue
        name = ep.name
        if pm.has_plugin(name):
            holder = _origins.get(name, ("?", "?"))[0]
            if holder == dist:
                continue  # the same distribution seen twice on sys.path: the first copy wins
            name = f"{dist}:{ep.name}"
            _load_notes.append((f"entry point {ep.name!r} of {dist} {version} has the name of {holder}'s; both "
                                f"are loaded, {dist}'s as plugin {name!r}", name))
        try:
            module = ep.load()
            _register(module, name)
        except Exception as exc:  # a broken plugin must never break its siblings
            _load_failures.append(_failure(name, dist, version, "import", exc))
            continue
        _origins[name] = (dist, version)
        _trace(f"loaded {name} from {dist} {version}")
        for sub in getattr(module, "PLUGINS", ()):  # a package of plugins: each submodule loads on its own
            _load_one(f"{name}.{sub}", f"{module.__name__}.{sub}", dist, version)


def _load_one(name: str, module: str, dist: str, version: str) -> None:
    """Import and register one plugin module; a failure is recorded as broken, its siblings unaffected."""
    try:
        _register(importlib.import_module(module), name)
    except Exception as exc:
        _load_failures.append(_failure(name, dist, version, "import", exc))
        return
    _origins[name] = (dist, version)
    _trace(f"loaded {name} from {dist} {version}")


def plugin_module(name: str) -> str | None:
    """The module a plugin was registered from (its entry point's or a submodule), None for another object."""
    return next((module for module, holder in _modules.values() if holder == name), None)


def add_commands(app: Any) -> None:
    """Call every plugin's `register_commands` hook; a plugin that raises is listed as broken like one that fails
    to import (and its registrations are dropped); the other plugins' commands are added."""
    global _registry
    load_plugins()
    for impl in pm.hook.register_commands.get_hookimpls():
        plugin = pm.get_name(impl.plugin) or "?"
        try:
            impl.function(app=app)
        except Exception as exc:
            _load_failures.append(_failure(plugin, *_origins.get(plugin, ("local", "0")), "register_commands", exc))
            _registry = None


def register_plugin(module: Any, name: str, distribution: str = "local", version: str = "0") -> None:
    """Register a plugin object directly (tests, notebooks); resets the registry cache."""
    global _registry
    _register(module, name)
    _origins[name] = (distribution, version)
    _registry = None


def unregister_plugin(name: str) -> None:
    global _registry
    pm.unregister(name=name)
    _origins.pop(name, None)
    for key in [key for key, (_, holder) in _modules.items() if holder == name]:
        del _modules[key]
    _registry = None


def build_registry() -> Registry:
    """Call every plugin's `register_*` hooks; a plugin's entries are kept only if all its hooks succeed."""
    load_plugins()
    registry = Registry(broken=list(_load_failures), notes=list(_load_notes))
    staged: dict[str, list[Entry]] = {}
    failed: set[str] = {b.plugin for b in _load_failures}
    for hook_name, kind in HOOK_KINDS.items():
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            plugin = pm.get_name(impl.plugin) or "?"
            if plugin in failed:
                continue
            dist, version = _origins.get(plugin, ("local", "0"))
            batch: list[Entry] = []
            try:
                impl.function(register=_registrar(batch, kind, plugin, dist, version))
            except Exception as exc:
                registry.broken.append(_failure(plugin, dist, version, hook_name, exc))
                failed.add(plugin)
                continue
            staged.setdefault(plugin, []).extend(batch)
    for plugin, entries in staged.items():
        if plugin not in failed:
            for entry in entries:
                registry.add(entry)
                _trace(f"{plugin} registered {entry.kind} {entry.name!r}")
    return registry


def _registrar(batch: list[Entry], kind: str, plugin: str, dist: str, version: str) -> Any:
    """The `register` callback a hook implementation receives."""

    def register(obj: Any) -> None:
        check_plugin(obj, kind)  # a malformed plugin breaks its whole plugin module, with this one line
        batch.append(Entry(kind, obj.name, obj, plugin, dist, version))

    return register


def get_registry() -> Registry:
    """The process-wide registry, built on first use."""
    global _registry
    if _registry is None:
        _registry = build_registry()
    return _registry


def plugin_list() -> list[dict[str, Any]]:
    """Loaded plugins with their hooks and distribution (like `llm plugins`), then the broken ones."""
    load_plugins()
    out = []
    for name, plugin in sorted(pm.list_name_plugin(), key=lambda kv: kv[0]):
        dist, version = _origins.get(name, ("local", "0"))
        hooks = sorted(c.name for c in pm.get_hookcallers(plugin) or [])
        out.append({"name": name, "distribution": dist, "version": version, "hooks": hooks, "status": "ok",
                    "origin": "built-in" if dist == BUILTIN else f"{dist} {version}"})
    broken = {b.plugin: b for b in get_registry().broken}
    for row in out:
        if row["name"] in broken:
            row["status"] = "broken: " + broken.pop(row["name"]).cause
    out += [{"name": b.plugin, "distribution": b.distribution, "version": b.version, "hooks": [],
             "status": "broken: " + b.cause, "origin": f"{b.distribution} {b.version}"} for b in broken.values()]
    return out
