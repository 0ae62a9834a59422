"""A run's result: headline numbers, tables and JSON data for plots; round-trips through JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Table:
    """A titled table of rows; cells are JSON scalars."""

    title: str
    columns: list[str]
    rows: list[list[Any]]


@dataclass
class Result:
    """What a benchmark's `reduce` returns and the store keeps."""

    summary: dict[str, Any] = field(default_factory=dict)
    tables: list[Table] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Result:
        tables = [Table(**t) for t in obj.get("tables", [])]
        return cls(obj.get("summary", {}), tables, obj.get("data", {}))
