"""Regression tables (one row per sub-dataset: 13 features -> ASR) and the authors' cleaning (docs/asr_predict.md, The
predictor).

Two file formats are read:
* the authors' raw CSV (`data_bert.csv`, `data_roberta.csv`: header with `Fisher ratio`, `ASR_TextFooler`, ...),
  cleaned with pandas semantics re-implemented here (no pandas dependency);
* robust's own table: columns `Dataset`, the 13 feature keys (or the table names of constants.FEATURES), `ASR`,
  optionally `Family` (the corpus family for extrapolation; default: `Dataset` without a `_<K>` suffix) and
  `Extractor` (JSON: the feature extractors that computed the row; `stage=build` writes it).
A table knows its format and, when it can, its feature extractors (the authors' for their raw CSVs).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from robust import RobustError
from robust.plugins.benchmarks.asr_predict.constants import AUTHORS_EXTRACTOR, EXTRACTOR_COLUMN, FEATURE_KEYS, FEATURES
from robust.toolkit.lazy import np

#: pandas.read_csv's default NA strings (`Nan`, as the authors wrote, is NOT one of them)
PANDAS_NA = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
    "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
ATTACKS = ("ASR_TextFooler", "ASR_PWWS", "ASR_DeepWordBug")  # the target's three attacks (Dang et al. 2024, §3.3)
#: the authors' raw column for each feature key (FR is inverted, `Number of labels` dropped; Dang et al. 2024, Appendix
#: A.2)
RAW_COLUMNS = {
    "avg_tokens": "Average number of tokens", "unique_tokens": "Number of unique tokens",
    "min_tokens": "Minimum number of tokens", "max_tokens": "Maximum number of tokens", "md": "Mean distance",
    "fr": "Fisher ratio", "chi": "CalHara Index", "dbi": "DaBou Index", "clusters": "Number of cluster",
    "pms": "Pearson Med", "kts": "Kurtosis", "mr": "Misclassification rate", "classes": "Number of classes",
}
_TABLE_NAMES = dict(FEATURES)


def corpus_family(variant: str) -> str:
    """`banking77__4` -> `banking77`, `tweet_eval_emoji_10` -> `tweet_eval_emoji` (docs/asr_predict.md, The
    predictor)."""
    return re.sub(r"_+\d+$", "", variant)


@dataclass(frozen=True)
class Table:
    """X [n, f] raw features (no scaling, Dang et al. 2024, §3.4), y [n] ASR, corpus variant and family per row."""

    X: np.ndarray
    y: np.ndarray
    variant: np.ndarray
    family: np.ndarray
    features: tuple[str, ...] = FEATURE_KEYS
    #: [n, 3] per-attack ASRs when known (for the binomial noise floor)
    per_attack: np.ndarray | None = None
    #: the feature extractors that computed X (None: unknown), and the file format it was read from
    extractor: dict | None = None
    source: str = "robust"

    def __post_init__(self) -> None:
        n = len(self.y)
        if self.X.shape != (n, len(self.features)) or len(self.variant) != n or len(self.family) != n:
            raise RobustError(f"inconsistent table: X {self.X.shape}, {n} targets, {len(self.features)} features")

    def __len__(self) -> int:
        return len(self.y)

    def subset(self, rows: np.ndarray) -> Table:
        pa = None if self.per_attack is None else self.per_attack[rows]
        return Table(self.X[rows], self.y[rows], self.variant[rows], self.family[rows], self.features, pa,
                     self.extractor, self.source)

    def without(self, *features: str) -> Table:
        """The same rows without some feature columns (e.g. MD, mixed-scale in data_bert.csv, docs/asr_predict.md)."""
        unknown = set(features) - set(self.features)
        if unknown:
            raise RobustError(f"unknown feature(s) {sorted(unknown)}; table has {', '.join(self.features)}")
        keep = [i for i, f in enumerate(self.features) if f not in features]
        return Table(self.X[:, keep], self.y, self.variant, self.family,
                     tuple(self.features[i] for i in keep), self.per_attack, self.extractor, self.source)


def read_csv(path: str | Path) -> tuple[list[str], list[list[str]]]:
    path = Path(path)
    if not path.is_file():
        raise RobustError(f"regression table not found: {path}")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise RobustError(f"regression table {path} is empty")
    return rows[0], [r for r in rows[1:] if r]


def _floats(rows: Sequence[Sequence[str]], header: Sequence[str], column: str, source: str) -> np.ndarray:
    if column not in header:
        raise RobustError(f"{source}: missing column {column!r}")
    j = header.index(column)
    try:
        return np.array([float(r[j]) for r in rows])
    except ValueError as err:
        raise RobustError(f"{source}: non-numeric value in column {column!r} ({err})") from None


def clean_authors_table(header: Sequence[str], rows: Sequence[Sequence[str]], asr_filter: bool = False,
                        source: str = "table") -> Table:
    """docs/asr_predict.md, The predictor: drop rows with a pandas-NA cell (ASR_BERT included), drop ASR_BERT, then rows
    with a 'Nan' cell; target = mean of the 3 ASRs; FR := 1/FR. `asr_filter` = the released scripts' drop of rows with
    an ASR < 0.1."""
    width = len(header)
    rows = [r for r in rows if len(r) == width and not any(cell in PANDAS_NA for cell in r)]
    kept = [j for j, name in enumerate(header) if name != "ASR_BERT"]  # dropped only after the NA filter
    rows = [r for r in rows if all(r[j] != "Nan" for j in kept)]
    per_attack = np.stack([_floats(rows, header, a, source) for a in ATTACKS], axis=1)
    if asr_filter:
        keep = (per_attack >= 0.1).all(axis=1)
        rows = [r for r, k in zip(rows, keep) if k]
        per_attack = per_attack[keep]
    columns = {key: _floats(rows, header, raw, source) for key, raw in RAW_COLUMNS.items()}
    columns["fr"] = 1.0 / columns["fr"]  # analysis-time inversion (Dang et al. 2024, Appendix A.2 (2))
    variant = np.array([r[header.index("Dataset")] for r in rows])
    return Table(np.stack([columns[k] for k in FEATURE_KEYS], axis=1), per_attack.mean(axis=1), variant,
                 np.array([corpus_family(v) for v in variant]), FEATURE_KEYS, per_attack, dict(AUTHORS_EXTRACTOR),
                 "the authors' raw CSV, cleaned as docs/asr_predict.md, The predictor")


def clean_own_table(header: Sequence[str], rows: Sequence[Sequence[str]], source: str = "table") -> Table:
    """robust's table format: `Dataset`, the 13 features (keys or table names), `ASR`, optional `Family`."""
    for required in ("Dataset", "ASR"):
        if required not in header:
            raise RobustError(f"{source}: missing column {required!r} (expected Dataset, ASR and the 13 features)")
    rows = [r for r in rows if len(r) == len(header)]
    cols = [k if k in header else _TABLE_NAMES[k] for k in FEATURE_KEYS]
    X = np.stack([_floats(rows, header, c, source) for c in cols], axis=1)
    y = _floats(rows, header, "ASR", source)
    variant = np.array([r[header.index("Dataset")] for r in rows])
    family = (np.array([r[header.index("Family")] for r in rows]) if "Family" in header
              else np.array([corpus_family(v) for v in variant]))
    pa = np.stack([_floats(rows, header, a, source) for a in ATTACKS], axis=1) if set(ATTACKS) <= set(header) else None
    if not np.isfinite(X).all() or not np.isfinite(y).all():
        raise RobustError(f"{source}: missing or infinite values in the feature/ASR columns")
    return Table(X, y, variant, family, FEATURE_KEYS, pa, _extractor(rows, header, source), "robust's table format")


def _extractor(rows: Sequence[Sequence[str]], header: Sequence[str], source: str) -> dict | None:
    """The one extractor of every row's `Extractor` cell (None: no such column or an empty cell)."""
    if EXTRACTOR_COLUMN not in header:
        return None
    j = header.index(EXTRACTOR_COLUMN)
    cells = {r[j] for r in rows}
    if "" in cells:
        return None
    if len(cells) > 1:
        raise RobustError(f"{source}: rows computed with {len(cells)} different feature extractors (column "
                          f"{EXTRACTOR_COLUMN!r}); a predictor needs one — split the table")
    try:
        return json.loads(cells.pop()) if cells else None
    except json.JSONDecodeError:
        raise RobustError(f"{source}: column {EXTRACTOR_COLUMN!r} is not JSON") from None


def load_table(path: str | Path, asr_filter: bool = False) -> Table:
    """Read and clean a regression table in either format (see the module docstring)."""
    header, rows = read_csv(path)
    if "Fisher ratio" in header and ATTACKS[0] in header:
        return clean_authors_table(header, rows, asr_filter, source=str(path))
    if asr_filter:
        raise RobustError("asr_filter applies to the authors' raw tables only")
    return clean_own_table(header, rows, source=str(path))


def write_table(table: Table, path: str | Path) -> None:
    """Write a table in robust's format (what `load_table` reads back), its extractor included when known."""
    cell = [json.dumps(table.extractor, sort_keys=True)] if table.extractor else []
    with Path(path).open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["Dataset", "Family", *table.features, "ASR", *([EXTRACTOR_COLUMN] if cell else [])])
        for i in range(len(table)):
            out.writerow([table.variant[i], table.family[i], *map(repr, table.X[i].tolist()), repr(float(table.y[i])),
                          *cell])
