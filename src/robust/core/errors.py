"""User-facing errors: the CLI prints them as one line and exits non-zero."""

from __future__ import annotations

from collections.abc import Iterable


class RobustError(Exception):
    """A mistake the user can fix (bad name, bad file, missing resource); shown without a traceback."""


class Interruption(RobustError):
    """The run cannot go on now but can resume as it is (a server it queries went away): it ends `interrupted`
    with this one-line cause, its finished records kept."""


class MissingResource(RobustError):
    """A file or package the method needs is not on this machine; the message says how to provide it."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix when a close match exists, else ''."""
    import difflib  # here: only a mistake pays for it

    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown(kind: str, name: str, choices: Iterable[str]) -> RobustError:
    """The standard error for an unknown plugin name."""
    choices = sorted(choices)
    hint = did_you_mean(name, choices)
    known = ", ".join(choices) if choices else "none"
    return RobustError(f"unknown {kind} {name!r}{hint}; known: {known}")


def one_line(exc: BaseException) -> str:
    """An exception as one line: its message's first line, prefixed by its type unless it is a RobustError."""
    first = (str(exc).strip().splitlines() or [""])[0]
    if isinstance(exc, RobustError):
        return first
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__
