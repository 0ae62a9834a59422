"""A rich progress bar on stderr: items, model queries per second, ETA."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class QueriesPerSecond(ProgressColumn):
    def __init__(self, queries: Callable[[], int]) -> None:
        super().__init__()
        self.queries, self.start, self.base = queries, time.monotonic(), None

    def render(self, task: Any) -> Text:
        now = self.queries()
        if self.base is None:
            self.base = now
        rate = (now - self.base) / max(time.monotonic() - self.start, 1e-9)
        return Text(f"{rate:,.1f} queries/s", style="cyan")


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def make_progress(queries: Callable[[], int], enabled: bool = True) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("items"),
        QueriesPerSecond(queries), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
        console=Console(stderr=True), disable=not enabled, transient=False,
    )
