"""Bring your own data: stream passages from text/JSONL/CSV files or a registered dataset, split them into
sentences (NLTK punkt_tab when `robust setup punkt` has been run, else a regex), and draw seeded samples.
"""

from __future__ import annotations

import csv
import heapq
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from robust.core.errors import MissingResource, RobustError
from robust.core.seeding import derive_seed

MAX_SENTENCE_CHARS = 2000  # the code drops longer sentences (WikiDataset, all_sentences=True)
_REGEX_SENTENCE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_REGEX_WORD = re.compile(r"\w+(?:[-'.]\w+)*|[^\w\s]")


@dataclass(frozen=True)
class Passage:
    """One paragraph of the corpus and its sentences (in order)."""

    index: int
    text: str
    sentences: tuple[str, ...] = field(default=())


# --- sentence and word splitting ---------------------------------------------------------------------
@lru_cache(maxsize=1)
def punkt_available() -> bool:
    """Whether NLTK's English punkt_tab is installed (by `robust setup punkt`); never downloads."""
    try:
        from robust.core.resources import require_nltk

        require_nltk("tokenizers/punkt_tab/english", "punkt")
        return True
    except (MissingResource, ImportError):
        return False


def split_sentences(text: str, backend: str = "auto") -> list[str]:
    """Sentences of a paragraph: nltk.sent_tokenize (Punkt, spec §2.3) or the regex fallback (spec §8.2)."""
    text = " ".join(text.split())
    if not text:
        return []
    if backend == "nltk" or (backend == "auto" and punkt_available()):
        import nltk

        return nltk.sent_tokenize(text)
    return [s.strip() for s in _REGEX_SENTENCE.split(text) if s.strip()]


def word_tokenize(text: str, backend: str = "auto") -> list[str]:
    """Treebank tokens (nltk.word_tokenize, spec §2.3) or a regex stand-in splitting off punctuation."""
    if backend == "nltk" or (backend == "auto" and punkt_available()):
        import nltk

        return nltk.word_tokenize(text)
    return _REGEX_WORD.findall(text)


# --- the wikitext detokenizer (spec §2.2, exact order of the code) ---------------------------------
def wikitext_detokenize(string: str) -> str:
    string = string.replace("s '", "s'")
    string = re.sub(r"/' [0-9]/", r"/'[0-9]/", string)  # a no-op in the original (literal slashes); kept
    for a, b in ((" @-@ ", "-"), (" @,@ ", ","), (" @.@ ", "."), (" : ", ": "), (" ; ", "; "),
                 (" . ", ". "), (" ! ", "! "), (" ? ", "? "), (" , ", ", "), ("\\'", "'")):
        string = string.replace(a, b)
    string = re.sub(r"\(\s*([^\)]*?)\s*\)", r"(\1)", string)
    string = re.sub(r"\[\s*([^\]]*?)\s*\]", r"[\1]", string)
    string = re.sub(r"{\s*([^}]*?)\s*}", r"{\1}", string)
    string = re.sub(r"\"\s*([^\"]*?)\s*\"", r'"\1"', string)
    string = re.sub(r"'\s*([^']*?)\s*'", r"'\1'", string)
    for a, b in (("= = = =", "===="), ("= = =", "==="), ("= =", "=="), (" " + chr(176) + " ", chr(176)),
                 (" \n", "\n"), ("\n ", "\n"), (" N ", " 1 "), (" 's", "'s")):
        string = string.replace(a, b)
    return string


# --- streaming readers ---------------------------------------------------------------------------------
def _text_blocks(path: Path, per_line: bool) -> Iterator[str]:
    """Paragraphs of a plain-text file: blocks separated by blank lines, or one per line."""
    block: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.strip()
            if per_line:
                if line:
                    yield line
            elif line:
                block.append(line)
            elif block:
                yield " ".join(block)
                block = []
    if block:
        yield " ".join(block)


def _jsonl_texts(path: Path, column: str) -> Iterator[str]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise RobustError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if isinstance(row, str):
                yield row
            elif isinstance(row, dict) and column in row:
                yield str(row[column])
            else:
                raise RobustError(f"{path}:{number}: no {column!r} field; set text_column=NAME")


def _csv_texts(path: Path, column: str) -> Iterator[str]:
    csv.field_size_limit(sys.maxsize)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return
        if column in header:
            idx = header.index(column)
        else:  # headerless: the longest cell of the first row is the text
            idx = max(range(len(header)), key=lambda i: len(header[i]))
            yield header[idx]
        for row in reader:
            if len(row) > idx:
                yield row[idx]


def read_texts(path: str | Path, text_column: str = "text", per_line: bool = False) -> Iterator[str]:
    """Raw paragraph texts of a corpus file, streamed (.txt/.md: paragraphs, .jsonl/.json, .csv/.tsv)."""
    path = Path(path)
    if not path.is_file():
        raise RobustError(f"corpus file not found: {path}")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _jsonl_texts(path, text_column)
    if suffix in (".csv", ".tsv"):
        return _csv_texts(path, text_column)
    return _text_blocks(path, per_line)


def passages(texts: Iterable[str | tuple[str, list[str]]], splitter: Callable[[str], list[str]],
             detokenize: bool = False) -> Iterator[Passage]:
    """Passages with sentences; an item may carry its own sentence split as (text, sentences)."""
    for index, item in enumerate(texts):
        if isinstance(item, tuple):
            text, given = item
            sentences = [" ".join(s.split()) for s in given if s.strip()]
        else:
            text = wikitext_detokenize(item) if detokenize else item
            sentences = splitter(text)
        sentences = [s for s in sentences if len(s) <= MAX_SENTENCE_CHARS]
        if sentences:
            yield Passage(index, " ".join(text.split()), tuple(sentences))


# --- seeded sampling from a stream ---------------------------------------------------------------------
class BottomK:
    """A uniform sample of `k` keyed candidates from a stream: keep the k smallest hash keys.

    Each candidate's key is derived from (seed, label, its position), so the sample depends only on the
    corpus and the seed, never on memory or chunking; the output is ordered by key (a random order)."""

    def __init__(self, k: int, seed: int, label: str) -> None:
        self.k, self.seed, self.label = k, seed, label
        self._heap: list[tuple[int, tuple, Any]] = []

    def offer(self, position: tuple, value: Any) -> None:
        key = derive_seed(self.seed, self.label, *position)
        entry = (-key, position, value)
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, entry)
        elif -key > self._heap[0][0]:
            heapq.heapreplace(self._heap, entry)

    def items(self) -> list[Any]:
        return [value for _, _, value in sorted(self._heap, key=lambda e: (-e[0], e[1]))]
