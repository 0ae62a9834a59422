"""What the command line prints through: rich consoles made on first use, and the plain printers `robust list`
needs (it imports neither rich nor the command-line parser)."""

from __future__ import annotations

import json
import sys
from typing import Any

#: the command line's state: the run store given by --store, and --debug (tracebacks instead of one line)
state: dict[str, Any] = {"store": None, "debug": False}


class LazyConsole:
    """A rich Console made on first use (importing rich costs `robust list` a tenth of a second it never needs)."""

    def __init__(self, **options: Any) -> None:
        self.options, self.console = options, None

    def __getattr__(self, name: str) -> Any:
        if self.console is None:
            from rich.console import Console

            self.console = Console(**self.options)
        return getattr(self.console, name)


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


out = LazyConsole()
err = LazyConsole(stderr=True, soft_wrap=True, highlight=False)  # one message, one line


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


def warning(line: str) -> None:
    err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


def registry(warn: bool = False) -> Any:
    """The plugin registry; `warn` (robust list): print every warning about the installed plugins first (a run
    prints those that concern it)."""
    from robust.core.plugins import get_registry

    found = get_registry()
    if warn:
        for line in found.warnings:
            warning(line)
        if state["debug"]:
            for broken in found.broken:
                err.print(broken.traceback, highlight=False, markup=False)
    return found


def broken_hint(message: str) -> None:
    """After an unknown-name error: the plugins that failed to load (the name may be one of theirs)."""
    from robust.core import plugins

    if message.startswith("unknown ") and plugins._registry is not None and plugins._registry.broken:
        names = ", ".join(repr(b.plugin) for b in plugins._registry.broken)
        err.print(f"note: plugin {names} failed to load; `robust list` says why", highlight=False, markup=False)
