"""The `robust` command's entry point. `robust list` is answered by `robust.listing` alone; every other command
goes to the typer application in `robust.cli`, imported only then (typer and its parameter adapters are a third
of `robust list`'s start-up). User errors are one line on stderr and a non-zero exit; `--debug` shows tracebacks."""

from __future__ import annotations

import os
import sys

from robust import listing
from robust.console import broken_hint, err, state
from robust.core.errors import RobustError


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = state["debug"] = "--debug" in args or bool(os.environ.get("ROBUST_DEBUG"))
    try:
        if listing.quick(args):
            return
        from robust.cli import run_app

        run_app(args)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except BrokenPipeError:  # `robust list | head`: the reader left; say nothing (Python's documented recipe)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except RobustError as exc:
        if debug:
            raise
        broken_hint(str(exc))  # before the error: the error stays the last line
        err.print(f"error: {exc}", highlight=False, soft_wrap=True, markup=False)
        sys.exit(1)
    except Exception as exc:
        if debug:
            raise
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # a usage error from typer's click
            err.print(f"error: {exc.format_message()}", highlight=False, soft_wrap=True, markup=False)
            sys.exit(2)
        from robust.core.errors import one_line

        err.print(f"error: {one_line(exc)} (run with --debug for the traceback)", highlight=False,
                  soft_wrap=True, markup=False)
        sys.exit(1)
