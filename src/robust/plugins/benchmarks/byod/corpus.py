"""Bring your own data: stream passages from text/JSONL/CSV files or a registered dataset, split them into
sentences (NLTK punkt_tab when `robust setup punkt` has been run, else a regex), and draw seeded samples.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from robust import MissingResource, derive_seed

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
        from robust.toolkit.paths import require_nltk

        require_nltk("tokenizers/punkt_tab/english", "punkt")
        return True
    except (MissingResource, ImportError):
        return False


def split_sentences(text: str, backend: str = "auto") -> list[str]:
    """Sentences of a paragraph: nltk.sent_tokenize (Punkt, BYOD's code, `word_order.py`) or the regex fallback
    (docs/byod.md, Your data)."""
    text = " ".join(text.split())
    if not text:
        return []
    if backend == "nltk" or (backend == "auto" and punkt_available()):
        import nltk

        return nltk.sent_tokenize(text)
    return [s.strip() for s in _REGEX_SENTENCE.split(text) if s.strip()]


def word_tokenize(text: str, backend: str = "auto") -> list[str]:
    """Treebank tokens (nltk.word_tokenize, BYOD's code, `word_order.py`) or a regex stand-in splitting off
    punctuation."""
    if backend == "nltk" or (backend == "auto" and punkt_available()):
        import nltk

        return nltk.word_tokenize(text)
    return _REGEX_WORD.findall(text)


# --- the wikitext detokenizer (BYOD's code, `wikitext_detokenizer`, exact order of the code) --------------------------
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
        if self.k <= 0:
            return
        key = derive_seed(self.seed, self.label, *position)
        entry = (-key, position, value)
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, entry)
        elif -key > self._heap[0][0]:
            heapq.heapreplace(self._heap, entry)

    def items(self) -> list[Any]:
        return [value for _, _, value in sorted(self._heap, key=lambda e: (-e[0], e[1]))]
