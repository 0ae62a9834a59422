"""A run's result: headline numbers, tables and JSON data for plots (round-trips through JSON); and what a benchmark
puts first on its report page (`ReportParts`, with samples of the texts it produced)."""

from __future__ import annotations

from collections.abc import Mapping
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


@dataclass
class Sample:
    """One text a method produced, as a reader should see it: the original, its perturbed form (edits are found
    and highlighted word by word), the gold label and the model's prediction or other output."""

    original: str
    perturbed: str | None = None  # None: `original` is the text the model saw
    gold: Any = None  # a class index (shown by the model's class name) or a label as in the data
    pred: Any = None  # the model's prediction on the text it saw
    output: str = ""  # other model output: a score, a continuation
    note: str = ""  # where it comes from ("degree 0.3 · rule-based · succeeded")
    marks: Mapping[str, str] = field(default_factory=dict)  # word (lower case) -> "pos" | "neg" | "key"


@dataclass
class SampleGroup:
    title: str
    samples: list[Sample]
    note: str = ""  # e.g. what the highlighting means


@dataclass
class ReportParts:
    """What a benchmark puts into its report. `figures[0]` stands beside the headline; a figure may be None
    (nothing to draw) and is then left out."""

    headline: str | None = ""  # None: the page's default headline (the first summary numbers)
    figures: list[tuple[str, Any]] = field(default_factory=list)
    samples: list[SampleGroup] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # caveats shown under the headline
    #: titles of result tables the page leaves out, because the samples or the headline show them better
    hidden_tables: list[str] = field(default_factory=list)
