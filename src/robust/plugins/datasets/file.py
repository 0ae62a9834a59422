"""The `file` dataset: examples of a JSONL, CSV/TSV or plain-text file, or a `datasets.save_to_disk` directory.
`--data PATH` (and rows passed from Python, written to a file by `robust.run`) reach every benchmark through it.

Reading is streamed and bounded: a line over `max_chars` is an error naming file:line and is never read whole;
every problem (encoding, JSON, CSV shape, missing column, label type) is one line naming file:line, or for rows
passed from Python the row's index and the setting that names the column.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from robust import DataGenerator, Example, RobustError, Setting
from robust.toolkit.data import ROWS_SUFFIX, label_problem, where

MAX_CHARS = 1_000_000  # per line / text, unless ROBUST_MAX_CHARS says otherwise
TEXT_SUFFIXES = (".txt", ".text", ".md")
JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")
CSV_SUFFIXES = (".csv", ".tsv", ".tab")


def char_limit() -> int:
    """The longest line or text read: `ROBUST_MAX_CHARS` (read when a file is opened), else MAX_CHARS."""
    value = os.environ.get("ROBUST_MAX_CHARS", "").strip()
    if not value:
        return MAX_CHARS
    if not value.isdigit() or int(value) < 1:
        raise RobustError(f"ROBUST_MAX_CHARS must be a positive number of characters, not {value!r}")
    return int(value)


def _too_long(path: Path, number: int, max_chars: int) -> RobustError:
    return RobustError(f"{path}:{number}: line longer than {max_chars:,} characters "
                       "(split the text, or raise the limit with ROBUST_MAX_CHARS)")


def _lines(path: Path, max_chars: int) -> Iterator[tuple[int, str]]:
    """(line number, decoded line) pairs, each read with a bound and decoded strictly as UTF-8."""
    bound = 4 * max_chars + 8  # bytes: UTF-8 takes at most 4 a character, so a line cut here is too long
    with path.open("rb") as handle:
        for number in itertools.count(1):
            raw = handle.readline(bound)
            if not raw:
                return
            if len(raw) == bound and not raw.endswith(b"\n"):
                raise _too_long(path, number, max_chars)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RobustError(f"{path}:{number}: not UTF-8 (byte {raw[exc.start]:#04x} at column "
                                  f"{exc.start + 1}); re-encode the file as UTF-8") from None
            line = line.removeprefix("\ufeff") if number == 1 else line
            if len(line.rstrip("\r\n")) > max_chars:
                raise _too_long(path, number, max_chars)
            yield number, line


class FileDataset(DataGenerator):
    """Examples of one file or saved dataset directory; ids are line numbers (`000042`), or row numbers."""

    name = "file"
    description = "A JSONL, CSV/TSV, plain-text file or a datasets.save_to_disk directory (--data PATH)"
    settings = {
        "path": Setting("", help="the file or directory (--data PATH sets it)"),
        "text_column": Setting("text", help="the column (JSON key) of the text"),
        "label_column": Setting("label", help="the column of the gold label; empty: unlabelled"),
        "per_line": Setting(False, help="plain text: one example per line instead of blank-line paragraphs"),
        "max_chars": Setting(0, min=0, help="the longest line read (0: ROBUST_MAX_CHARS, else 1,000,000)"),
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        c = self.config
        self.path, self.text_column = Path(c["path"]), c["text_column"]
        self.label_column = c["label_column"] or None
        self.per_line = c["per_line"]
        self.labelled = self.label_column is not None and self.path.suffix.lower() not in TEXT_SUFFIXES

    def examples(self, seed: int = 0) -> Iterator[Example]:
        if not self.config["path"]:
            raise RobustError("dataset 'file' needs a path: --data PATH (or --set file.path=PATH)")
        self.max_chars = self.config["max_chars"] or char_limit()
        for at, row in self._rows():
            yield self._example(at, row)

    def _rows(self) -> Iterator[tuple[int, Any]]:
        path, suffix = self.path, self.path.suffix.lower()
        if path.is_dir():
            return self._saved_rows()
        if not path.exists():
            raise RobustError(f"no such file: {path}")
        if suffix in JSON_SUFFIXES:
            return self._json_rows()
        if suffix in CSV_SUFFIXES:
            return self._csv_rows("," if suffix == ".csv" else "\t")
        if suffix in TEXT_SUFFIXES:
            return self._text_rows()
        raise RobustError(f"{path}: unsupported data format {suffix or '(none)'}; use .jsonl, .csv, .tsv, .txt "
                          "or a datasets.save_to_disk directory")

    def _json_rows(self) -> Iterator[tuple[int, Any]]:
        for number, line in _lines(self.path, self.max_chars):
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise RobustError(f"{self.path}:{number}: not valid JSON ({exc.msg})") from None
                except RecursionError:
                    raise RobustError(f"{self.path}:{number}: not valid JSON (nested too deeply)") from None
                yield number, row

    def _csv_rows(self, delimiter: str) -> Iterator[tuple[int, Any]]:
        csv.field_size_limit(self.max_chars)
        reader = csv.DictReader((line for _, line in _lines(self.path, self.max_chars)), delimiter=delimiter)
        try:
            for row in reader:
                if None in row:
                    raise RobustError(f"{self.path}:{reader.line_num}: more fields than the header has")
                yield reader.line_num, row
        except csv.Error as exc:
            raise RobustError(f"{self.path}:{reader.line_num}: bad CSV ({exc})") from None

    def _text_rows(self) -> Iterator[tuple[int, Any]]:
        """Paragraphs separated by blank lines (or one per line), numbered by their first line."""
        block: list[str] = []
        start = size = 0
        for number, line in _lines(self.path, self.max_chars):
            line = line.strip()
            if line and not self.per_line:
                start, size = (start or number), size + len(line) + 1
                if size > self.max_chars:
                    raise RobustError(f"{self.path}:{start}: paragraph longer than {self.max_chars:,} characters "
                                      "(separate it with a blank line, or raise the limit with ROBUST_MAX_CHARS)")
                block.append(line)
            elif line:
                yield number, line
            elif block:
                yield start, " ".join(block)
                block, start, size = [], 0, 0
        if block:
            yield start, " ".join(block)

    def _saved_rows(self) -> Iterator[tuple[int, Any]]:
        try:
            import datasets
        except ImportError:
            raise RobustError(f"{self.path}: reading a saved dataset directory needs `pip install datasets`") from None
        try:
            ds = datasets.load_from_disk(str(self.path))
        except (FileNotFoundError, ValueError) as exc:
            raise RobustError(f"{self.path}: not a datasets.save_to_disk directory ({exc})") from None
        if isinstance(ds, datasets.DatasetDict):
            ds = ds["test" if "test" in ds else next(iter(ds))]
        yield from enumerate(ds, 1)

    def _hint(self, column: str) -> str:
        """The setting that names the text or label column: from Python for rows passed in memory."""
        if str(self.path).endswith(ROWS_SUFFIX):
            return f"; set settings={{'{column}_column': ...}}"
        return f"; name yours with --set {column}_column=NAME (from Python: settings={{'{column}_column': NAME}})"

    def _example(self, n: int, row: Any) -> Example:
        at = where(self.path, n)
        if isinstance(row, str) and (not self.labelled or self.path.suffix.lower() in TEXT_SUFFIXES):
            row = {self.text_column: row}
        if not isinstance(row, dict):
            raise RobustError(f"{at}: expected a JSON object (or a string) per line")
        columns = ", ".join(map(str, row))
        if self.text_column not in row:
            raise RobustError(f"{at}: missing column {self.text_column!r} (columns: {columns}){self._hint('text')}")
        text = row[self.text_column]
        if not isinstance(text, str) or not text.strip():
            raise RobustError(f"{at}: empty or non-text value in column {self.text_column!r}")
        label = None
        if self.labelled:
            if self.label_column not in row:
                raise RobustError(f"{at}: missing column {self.label_column!r} (columns: {columns})"
                                  + self._hint("label"))
            label = row[self.label_column]
            label = label.strip() if isinstance(label, str) else label
            if label is None or label == "":
                raise RobustError(f"{at}: empty label in column {self.label_column!r}")
            problem = label_problem(label, None)
            if problem:
                raise RobustError(f"{at}: {problem}")
        return Example(id=f"{n:06d}", text=text.strip(), label=label)
