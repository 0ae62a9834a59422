"""`robust list`: the registered benchmarks, transforms, attackers, models, datasets, scorers and resources, as
plain aligned text or JSON. It needs the registry and nothing of the command-line parser (typer) or rich, so the
launcher answers it without importing either."""

from __future__ import annotations

import importlib
import inspect
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from robust.console import print_json, registry
from robust.core.errors import RobustError
from robust.core.registry import KINDS, PLURAL

#: what each section tells the reader to do with a name
USAGE = {"benchmark": "robust run --bench NAME", "transform": "--attack NAME (or a group: typo, all)",
         "attacker": "--attack NAME or NAME:TRANSFORM", "model": "--model NAME[:ARG]",
         "dataset": "--data NAME", "scorer": "--scorer NAME", "resource": "robust setup NAME"}


@dataclass(frozen=True)
class Listed:
    """What `robust list` shows of one entry: its name as runs show it, its `Entry.to_json()` and the facts
    besides its description. `live`: the module of the plugin that registers an entry whose state is read at every
    listing, also when the rest comes from the listing cache (a resource's readiness, why a plugin cannot run
    here); its hook registers the entry again."""

    kind: str
    name: str
    display: str
    data: dict[str, Any]
    facts: dict[str, Any]
    live: str = ""


@dataclass(frozen=True)
class Listing:
    """Everything `robust list` prints: the entries in the registry's order, the warnings, the broken plugins;
    `targets`, when it was collected here, the live entries' own classes or instances (not cached)."""

    entries: list[Listed]
    warnings: list[str]
    broken: list[dict[str, str]] = field(default_factory=list)
    targets: dict[Any, Any] = field(default_factory=dict)  # (kind, name, plugin) -> what the plugin registered

    @property
    def cacheable(self) -> bool:
        """Whether a later `robust list` may show this from the cache: no plugin is broken (its fix would go
        unseen) and every live entry was registered by a module (whose hook can register it again)."""
        return not self.broken and all(e.live for e in self.entries if (e.kind, e.name, e.data["plugin"]) in
                                       self.targets)

    def to_json(self) -> dict[str, Any]:
        return {"entries": [asdict(e) for e in self.entries], "warnings": self.warnings, "broken": self.broken}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Listing:
        return cls([Listed(**e) for e in data["entries"]], data["warnings"], data["broken"])


def quick(args: list[str]) -> bool:
    """`robust list [WHAT] [--json] [--all]` answered here; anything else (`--help`, a typo) is the parser's."""
    if not args or args[0] != "list" or any(a.startswith("-") and a not in ("--json", "--all") for a in args[1:]):
        return False
    words = [a for a in args[1:] if not a.startswith("-")]
    if len(words) > 1:
        return False
    what = words[0] if words else "all"
    if what == "plugins":
        show(what, "--json" in args, "--all" in args)
    else:
        from robust import listing_cache

        kinds_of(what)  # an unknown WHAT is refused before anything is collected
        show(what, "--json" in args, "--all" in args, listing_cache.listing(collect))
    return True


def kinds_of(what: str) -> tuple[str, ...]:
    """The kinds `robust list WHAT` shows (all, attacks or a kind's plural)."""
    singular = {v: k for k, v in PLURAL.items()} | {"attacks": "attack"}
    kind = singular.get(what, what)
    kinds = {"all": KINDS, "attack": ("transform", "attacker")}.get(kind, (kind,))
    if kinds[0] not in KINDS:
        raise RobustError(f"unknown list {what!r}; choose all, plugins, attacks or {', '.join(PLURAL.values())}")
    return kinds


def collect() -> Listing:
    """The listing of the registry as loaded in this process (warnings printed as they are found)."""
    from robust.core.plugins import plugin_module

    found = registry(warn=True)
    entries, targets = [], {}
    for e in found:
        live = ""
        if e.kind == "resource" or _may_be_unavailable(e.target):
            targets[e.kind, e.name, e.plugin] = e.target
            live = plugin_module(e.plugin) or ""
        entries.append(Listed(e.kind, e.name, found.display(e), e.to_json(), _facts(e, found), live))
    broken = [{"plugin": b.plugin, "distribution": b.distribution, "version": b.version, "step": b.step,
               "cause": b.cause} for b in found.broken]
    return Listing(entries, found.warnings, broken, targets)


def show(what: str = "all", as_json: bool = False, show_all: bool = False, listing: Listing | None = None) -> None:
    """Print the entries of one kind (`what`: all, plugins, attacks or a kind's plural), from `listing` (else the
    registry loaded here)."""
    if what == "plugins":
        registry(warn=True)
        from robust.core.plugins import plugin_list

        plugins = plugin_list()
        if as_json:
            print_json(plugins)
            return
        print_rows("Plugins", [(p["name"], p["origin"], p["status"], ", ".join(p["hooks"])) for p in plugins])
        return
    kinds = kinds_of(what)
    listing = listing or collect()
    entries = [e for e in listing.entries if e.kind in kinds]
    facts = {id(e): {**e.facts, **live_facts(e, listing.targets)} for e in entries}
    if as_json:
        print_json([{**e.data, **facts[id(e)]} for e in entries]
                   + [{"kind": "broken", "plugin": b["plugin"], "step": b["step"], "cause": b["cause"]}
                      for b in listing.broken])
        return
    for kind in kinds:
        mine = [e for e in entries if e.kind == kind]
        shown = [e for e in mine if show_all or not facts[id(e)].get("unavailable")]
        hidden = [e for e in mine if e not in shown]
        rows = [(e.display, *_columns(e, facts[id(e)], show_all, len(kinds) == 1)) for e in shown]
        note = ""
        if hidden:
            plugins = ", ".join(sorted({e.data["plugin"] for e in hidden}))
            note = (f"\n  + {len(hidden)} more of plugin {plugins} that cannot run on this machine: "
                    f"`robust list {PLURAL[kind]} --all` shows each with why and how to enable it")
        print_rows(f"{PLURAL[kind].title()} ({len(mine)}) · {USAGE[kind]}", rows, note)
    if listing.broken:
        print_rows("Broken plugins", [(b["plugin"], f"{b['distribution']} {b['version']}", f"failed in {b['step']}",
                                       b["cause"]) for b in listing.broken])


def _facts(entry: Any, found: Any) -> dict[str, Any]:
    """What `robust list` says of a benchmark besides its description: its default model, data and the scorers
    that fit it (facts of the installed code: the listing cache keeps them)."""
    target = entry.target
    if entry.kind != "benchmark":
        return {}
    chosen = target.default_model_for(None, {})
    fields = set(target.score_fields)
    fits = [found.display(e) for e in found if e.kind == "scorer" and e.target.inputs
            and set(e.target.inputs) <= fields]
    return {"default_model": chosen[0] if chosen else None, "default_data": target.default_data,
            "scorers": list(target.scorers), "fitting_scorers": fits}


def _may_be_unavailable(target: Any) -> bool:
    """Whether the entry says itself why it cannot run here (more than the Attacker base's "it can")."""
    from robust.core.interfaces import Attacker

    method = getattr(target, "unavailable", None)
    return method is not None and getattr(method, "__func__", method) is not Attacker.unavailable.__func__


def live_facts(entry: Listed, targets: dict[Any, Any]) -> dict[str, Any]:
    """What depends on this machine's state, read now: a resource's readiness, why a plugin cannot run here (when
    the listing came from the cache, its plugin's module is imported and its hook registers the entry again)."""
    key = (entry.kind, entry.name, entry.data["plugin"])
    if key not in targets:
        if not entry.live:
            return {}
        hook = getattr(importlib.import_module(entry.live), f"register_{entry.kind}s")
        hook(register=lambda obj: targets.setdefault((entry.kind, obj.name, entry.data["plugin"]), obj))
    target = targets[key]
    if entry.kind == "resource":
        return {"ready": bool((target() if inspect.isclass(target) else target).ready())}
    reason = target.unavailable()
    return {"unavailable": reason} if reason else {}


def _columns(entry: Listed, facts: dict[str, Any], show_all: bool, detail: bool) -> tuple[str, ...]:
    """The columns after the name; `detail` (a list of one kind) adds the scorers that fit a benchmark."""
    description, origin = entry.data["description"], entry.data["origin"]
    if entry.kind == "benchmark":
        model = f"model {facts['default_model'] or '(none: pass --model)'}"
        data = f"data {facts['default_data']}" if facts["default_data"] else "no --data"
        fit = ", ".join(facts["fitting_scorers"]) or "none"
        return f"{model} · {data}", *((f"--scorer: {fit}",) if detail else ()), description
    if entry.kind == "resource":
        return "ready" if facts["ready"] else "missing", description
    why = facts.get("unavailable")
    return origin, description + (f" · cannot run here: {why}" if why and show_all else "")


def print_rows(title: str, rows: list[tuple[str, ...]], note: str = "") -> None:
    """Aligned columns, one line per row; in a terminal the last column is cut to its width (`| cat` shows all).
    Plain text: rich's tables would cost `robust list` 0.15 s."""
    import shutil

    if not rows:
        return
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]) - 1)]
    width = shutil.get_terminal_size((0, 0)).columns if sys.stdout.isatty() else 0
    lines = [title]
    for row in rows:
        line = "  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + str(row[-1])
        lines.append(line[: width - 1] + "…" if width and len(line) > width else line.rstrip())
    sys.stdout.write("\n".join(lines) + note + "\n\n")
