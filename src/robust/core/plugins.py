"""Plugin discovery: entry points of the group `robust` (built-ins included), each loaded in isolation.

`ROBUST_LOAD_PLUGINS=dist1,dist2` loads only those third-party distributions ("" loads none);
`ROBUST_TRACE_PLUGINS=1` prints every hook call and what it registered to stderr.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata
from typing import Any

import pluggy

from robust.core import hookspecs
from robust.core.registry import Entry, Registry

GROUP = "robust"
BUILTIN_DIST = "robust"
_HOOK_KINDS = {
    "register_benchmarks": "benchmark",
    "register_attacks": "attack",
    "register_models": "model",
    "register_datasets": "dataset",
    "register_scorers": "scorer",
}

pm = pluggy.PluginManager(GROUP)
pm.add_hookspecs(hookspecs)
_origins: dict[str, tuple[str, str]] = {}  # plugin name -> (distribution, version)
_load_warnings: list[str] = []
_loaded = False
_registry: Registry | None = None


def _allowed() -> set[str] | None:
    value = os.environ.get("ROBUST_LOAD_PLUGINS")
    if value is None:
        return None
    return {v.strip().lower().replace("_", "-") for v in value.split(",") if v.strip()}


def _trace(message: str) -> None:
    if os.environ.get("ROBUST_TRACE_PLUGINS"):
        print(f"[robust plugins] {message}", file=sys.stderr)


def load_plugins() -> None:
    """Register every entry point of the group once; a failing one becomes a warning."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    allowed = _allowed()
    for ep in metadata.entry_points(group=GROUP):
        dist = ep.dist.name if ep.dist else "unknown"
        version = ep.dist.version if ep.dist else "?"
        norm = dist.lower().replace("_", "-")
        if norm != BUILTIN_DIST and allowed is not None and norm not in allowed:
            _trace(f"skipped {ep.name} from {dist} (not in ROBUST_LOAD_PLUGINS)")
            continue
        if pm.has_plugin(ep.name):
            continue
        try:
            module = ep.load()
            pm.register(module, name=ep.name)
        except Exception as exc:  # a broken plugin must never break its siblings
            _load_warnings.append(f"plugin {ep.name!r} from {dist} {version} failed to load: {exc!r}")
            continue
        _origins[ep.name] = (dist, version)
        _trace(f"loaded {ep.name} from {dist} {version}")


def register_plugin(module: Any, name: str, distribution: str = "local", version: str = "0") -> None:
    """Register a plugin object directly (tests, notebooks); resets the registry cache."""
    global _registry
    pm.register(module, name=name)
    _origins[name] = (distribution, version)
    _registry = None


def unregister_plugin(name: str) -> None:
    global _registry
    pm.unregister(name=name)
    _origins.pop(name, None)
    _registry = None


def _origin(plugin: Any) -> tuple[str, str, str]:
    name = pm.get_name(plugin) or getattr(plugin, "__name__", "?")
    dist, version = _origins.get(name, ("local", "0"))
    return name, dist, version


def build_registry() -> Registry:
    """Call every `register_*` hook implementation separately and collect what it registers."""
    load_plugins()
    registry = Registry(warnings=list(_load_warnings))
    for hook_name, kind in _HOOK_KINDS.items():
        caller = getattr(pm.hook, hook_name)
        for impl in caller.get_hookimpls():
            plugin, dist, version = _origin(impl.plugin)

            try:
                impl.function(register=_registrar(registry, hook_name, kind, plugin, dist, version))
            except Exception as exc:
                registry.warnings.append(f"plugin {plugin!r} from {dist} {version} failed in {hook_name}: {exc!r}")
    return registry


def _registrar(registry: Registry, hook: str, kind: str, plugin: str, dist: str, version: str) -> Any:
    """The `register` callback a hook implementation receives."""

    def register(obj: Any) -> None:
        if getattr(obj, "kind", None) != kind or not getattr(obj, "name", ""):
            raise TypeError(f"{obj!r} is not a named {kind} plugin")
        registry.add(Entry(kind, obj.name, obj, plugin, dist, version))
        _trace(f"{hook}: {plugin} registered {kind} {obj.name!r}")

    return register


def get_registry() -> Registry:
    """The process-wide registry, built on first use."""
    global _registry
    if _registry is None:
        _registry = build_registry()
    return _registry


def plugin_list() -> list[dict[str, Any]]:
    """Loaded plugins with their hooks and distribution, like `llm plugins`."""
    load_plugins()
    out = []
    for name, plugin in sorted(pm.list_name_plugin(), key=lambda kv: kv[0]):
        dist, version = _origins.get(name, ("local", "0"))
        hooks = sorted(c.name for c in pm.get_hookcallers(plugin) or [])
        out.append({"name": name, "distribution": dist, "version": version, "hooks": hooks,
                    "origin": "built-in" if dist == BUILTIN_DIST else f"{dist} {version}"})
    return out
