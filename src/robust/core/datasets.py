"""Labelled text datasets from JSONL, CSV/TSV or a `datasets.save_to_disk` directory.

Every problem (unreadable line, missing column, empty text, unknown label) is one error naming file and line.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import Example


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) pairs from a JSONL/CSV/TSV file or a saved HF dataset directory."""
    suffix = path.suffix.lower()
    if path.is_dir():
        yield from _hf_rows(path)
    elif suffix in (".jsonl", ".ndjson", ".json"):
        with path.open(encoding="utf-8-sig") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise RobustError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
                if not isinstance(row, dict):
                    raise RobustError(f"{path}:{n}: expected a JSON object per line")
                yield n, row
    elif suffix in (".csv", ".tsv", ".tab"):
        with path.open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t" if suffix != ".csv" else ",")
            for row in reader:
                if None in row:
                    raise RobustError(f"{path}:{reader.line_num}: more fields than the header has")
                yield reader.line_num, row
    else:
        raise RobustError(f"{path}: unsupported dataset format {suffix or '(none)'}; use .jsonl, .csv, .tsv "
                          "or a datasets.save_to_disk directory")


def _hf_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        import datasets
    except ImportError:
        raise RobustError(f"{path}: reading a saved dataset directory needs `pip install datasets`") from None
    try:
        ds = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError) as exc:
        raise RobustError(f"{path}: not a datasets.save_to_disk directory ({exc})") from None
    if isinstance(ds, datasets.DatasetDict):
        split = "test" if "test" in ds else next(iter(ds))
        ds = ds[split]
    yield from enumerate(ds, 1)


def load_dataset(
    path: str | Path,
    text_column: str = "text",
    label_column: str | None = "label",
    labels: Sequence[Any] | None = None,
    limit: int | None = None,
) -> list[Example]:
    """Examples with ids `<line>`; `labels`, when given, is the allowed label set (others are an error)."""
    path = Path(path)
    if not path.exists():
        raise RobustError(f"dataset not found: {path}")
    allowed = {str(x) for x in labels} if labels is not None else None
    out: list[Example] = []
    for n, row in _rows(path):
        if text_column not in row:
            raise RobustError(f"{path}:{n}: missing column {text_column!r} (columns: {', '.join(map(str, row))})")
        text = row[text_column]
        if not isinstance(text, str) or not text.strip():
            raise RobustError(f"{path}:{n}: empty text in column {text_column!r}")
        label = None
        if label_column:
            if label_column not in row:
                raise RobustError(f"{path}:{n}: missing column {label_column!r} (columns: {', '.join(map(str, row))})")
            label = row[label_column]
            if isinstance(label, str):
                label = label.strip()
            if label is None or label == "":
                raise RobustError(f"{path}:{n}: empty label in column {label_column!r}")
            if allowed is not None and str(label) not in allowed:
                raise RobustError(f"{path}:{n}: unknown label {label!r}; expected one of {sorted(allowed)}")
        out.append(Example(id=f"{n:06d}", text=text.strip(), label=label))
        if limit is not None and len(out) >= limit:
            break
    if not out:
        raise RobustError(f"{path}: no examples")
    return out


def content_hash(examples: Sequence[Example]) -> str:
    """A short hash of texts and labels, for caching things trained on a dataset."""
    h = hashlib.sha256()
    for ex in examples:
        h.update(f"{ex.text}\x1f{ex.label}\x1e".encode())
    return h.hexdigest()[:16]


def resolve_examples(spec: str, registry: Any, seed: int = 0, **columns: Any) -> list[Example]:
    """Examples from a file/directory path or a registered dataset name (`robust list datasets`)."""
    path = Path(spec)
    if path.exists():
        return load_dataset(path, **columns)
    if spec in registry.entries["dataset"] or (("dataset", spec) in registry.conflicts):
        return list(registry.get("dataset", spec).create().examples(seed))
    from robust.core.errors import unknown

    raise RobustError(f"no such file: {spec}; " + str(unknown("dataset", spec, registry.names("dataset"))))
