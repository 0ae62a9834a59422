"""`robust list`: the registered benchmarks, transforms, attackers, models, datasets, scorers and resources, as
plain aligned text or JSON. It needs the registry and nothing of the command-line parser (typer) or rich, so the
launcher answers it without importing either."""

from __future__ import annotations

import sys
from typing import Any

from robust.console import print_json, registry
from robust.core.errors import RobustError
from robust.core.registry import KINDS, PLURAL

#: what each section tells the reader to do with a name
USAGE = {"benchmark": "robust run --bench NAME", "transform": "--attack NAME (or a group: typo, all)",
         "attacker": "--attack NAME or NAME:TRANSFORM", "model": "--model NAME[:ARG]",
         "dataset": "--data NAME", "scorer": "--scorer NAME", "resource": "robust setup NAME"}


def quick(args: list[str]) -> bool:
    """`robust list [WHAT] [--json] [--all]` answered here; anything else (`--help`, a typo) is the parser's."""
    if not args or args[0] != "list" or any(a.startswith("-") and a not in ("--json", "--all") for a in args[1:]):
        return False
    words = [a for a in args[1:] if not a.startswith("-")]
    if len(words) > 1:
        return False
    show(words[0] if words else "all", "--json" in args, "--all" in args)
    return True


def show(what: str = "all", as_json: bool = False, show_all: bool = False) -> None:
    """Print the entries of one kind (`what`: all, plugins, attacks or a kind's plural)."""
    found = registry(warn=True)
    if what == "plugins":
        from robust.core.plugins import plugin_list

        plugins = plugin_list()
        if as_json:
            print_json(plugins)
            return
        print_rows("Plugins", [(p["name"], p["origin"], p["status"], ", ".join(p["hooks"])) for p in plugins])
        return
    singular = {v: k for k, v in PLURAL.items()} | {"attacks": "attack"}
    kind = singular.get(what, what)
    kinds = {"all": KINDS, "attack": ("transform", "attacker")}.get(kind, (kind,))
    if kinds[0] not in KINDS:
        raise RobustError(f"unknown list {what!r}; choose all, plugins, attacks or {', '.join(PLURAL.values())}")
    entries = [e for e in found if e.kind in kinds]
    facts = {id(e): _facts(e, found) for e in entries}
    if as_json:
        print_json([{**e.to_json(), **facts[id(e)]} for e in entries]
                   + [{"kind": "broken", "plugin": b.plugin, "step": b.step, "cause": b.cause} for b in found.broken])
        return
    for kind in kinds:
        mine = [e for e in entries if e.kind == kind]
        shown = [e for e in mine if show_all or not facts[id(e)].get("unavailable")]
        hidden = [e for e in mine if e not in shown]
        rows = [(found.display(e), *_columns(e, facts[id(e)], show_all, len(kinds) == 1)) for e in shown]
        note = ""
        if hidden:
            plugins = ", ".join(sorted({e.plugin for e in hidden}))
            note = (f"\n  + {len(hidden)} more of plugin {plugins} that cannot run on this machine: "
                    f"`robust list {PLURAL[kind]} --all` shows each with why and how to enable it")
        print_rows(f"{PLURAL[kind].title()} ({len(mine)}) · {USAGE[kind]}", rows, note)
    if found.broken:
        print_rows("Broken plugins", [(b.plugin, f"{b.distribution} {b.version}", f"failed in {b.step}", b.cause)
                                      for b in found.broken])


def _facts(entry: Any, found: Any) -> dict[str, Any]:
    """What `robust list` says of an entry besides its description: a benchmark's default model, data and the
    scorers that fit it; a resource's state; why it cannot run here."""
    target = entry.target
    if entry.kind == "benchmark":
        chosen = target.default_model_for(None, {})
        fields = set(target.score_fields)
        fits = [found.display(e) for e in found if e.kind == "scorer" and e.target.inputs
                and set(e.target.inputs) <= fields]
        return {"default_model": chosen[0] if chosen else None, "default_data": target.default_data,
                "scorers": list(target.scorers), "fitting_scorers": fits}
    if entry.kind == "resource":
        return {"ready": bool(entry.create().ready())}
    reason = target.unavailable() if hasattr(target, "unavailable") else ""
    return {"unavailable": reason} if reason else {}


def _columns(entry: Any, facts: dict[str, Any], show_all: bool, detail: bool) -> tuple[str, ...]:
    """The columns after the name; `detail` (a list of one kind) adds the scorers that fit a benchmark."""
    if entry.kind == "benchmark":
        model = f"model {facts['default_model'] or '(none: pass --model)'}"
        data = f"data {facts['default_data']}" if facts["default_data"] else "no --data"
        fit = ", ".join(facts["fitting_scorers"]) or "none"
        return f"{model} · {data}", *((f"--scorer: {fit}",) if detail else ()), entry.description
    if entry.kind == "resource":
        return "ready" if facts["ready"] else "missing", entry.description
    why = facts.get("unavailable")
    return entry.origin, entry.description + (f" · cannot run here: {why}" if why and show_all else "")


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
