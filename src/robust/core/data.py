"""How data is named: a path or a registered dataset name (`--data`), and rows passed from Python, which the
engine writes to a `*.rows.jsonl` file that errors never name (they name what the user passed). Reading is the
registered `file` dataset's (`robust list datasets`); `RunContext.open_data` chooses between the two."""

from __future__ import annotations

from pathlib import Path

ROWS_SUFFIX = ".rows.jsonl"  # the file `robust.run` writes rows passed in memory to (a list, DataFrame, Dataset)


def where(path: str | Path, row: int | None = None) -> str:
    """How an error names data (and its row, numbered from 1): `file:row`, or for rows passed in memory what the
    user passed: `the rows passed as data=, row at index 0`."""
    if str(path).endswith(ROWS_SUFFIX):
        return "the rows passed as data=" + ("" if row is None else f", row at index {row - 1}")
    return str(path) if row is None else f"{path}:{row}"
