"""Word lists for SynTextBench (Ko et al. 2023, §2.2, App. A.3): positive, negative and neutral words from a word-level
lexicon.

Two built-in lexicons are `DataGenerator` plugins (one `Example` per list entry, label "pos"/"neg"/"neu"):
- `sentiwordnet`: SentiWordNet 3.0 read from a file, with the paper's rule; the paper's lexicon.
- `afinn`: the embedded default that needs no download: AFINN-en-165 (PyPI `afinn`) gives the polar words,
  frequent English words from `wordfreq` that are neither in AFINN nor stop words give the neutral list.
A third-party lexicon is any registered `DataGenerator` whose examples carry those labels (optionally a
polarity score in `meta["score"]`); `word_lists_from_examples` turns it into `WordLists`.
"""

from __future__ import annotations

import io
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robust import DataGenerator, Example, MissingResource, RobustError, Setting

SWN_FILE = "SentiWordNet_3.0.0.txt"
SWN_ENV = "ROBUST_SENTIWORDNET"
LABELS = ("pos", "neg", "neu")
#: kept out of the embedded neutral list: they flip polarity (the paper's stop list has no negations)
NEGATIONS = frozenset({"not", "no", "never", "nor", "without", "cannot", "nothing", "none", "nobody",
                       "neither"})
_LABEL_ALIASES = {"pos": "pos", "positive": "pos", "1": "pos", "+1": "pos",
                  "neg": "neg", "negative": "neg", "-1": "neg",
                  "neu": "neu", "neutral": "neu", "0": "neu"}


@dataclass
class WordLists:
    """The three word lists (multisets: a word repeats once per qualifying entry) plus provenance."""

    name: str
    source: str
    pos: list[str]
    neg: list[str]
    neu: list[str]
    #: word -> polarity (> 0 positive), for the lexicon-rule feasibility diagnostic (Ko et al. 2023, §2.2, Fig. 4)
    scores: dict[str, float] = field(default_factory=dict)

    def sizes(self) -> dict[str, int]:
        return {"pos": len(self.pos), "neg": len(self.neg), "neu": len(self.neu)}

    def info(self) -> dict[str, Any]:
        """What a run records about the lexicon that produced it."""
        return {"lexicon": self.name, "lexicon_source": self.source, **{f"lexicon_{k}": v
                                                                         for k, v in self.sizes().items()}}

    def examples(self) -> Iterator[Example]:
        for label in LABELS:
            for i, word in enumerate(getattr(self, label)):
                yield Example(f"{label}-{i}", word, label, meta={"score": self.scores.get(word, 0.0)})

    def deduped(self) -> WordLists:
        uniq = lambda words: sorted(set(words))  # noqa: E731
        return WordLists(self.name, self.source, uniq(self.pos), uniq(self.neg), uniq(self.neu), self.scores)


def word_lists_from_examples(name: str, examples: Iterable[Example]) -> WordLists:
    """Word lists from any lexicon plugin's examples (label pos/neg/neu, or +1/-1/0)."""
    lists: dict[str, list[str]] = {k: [] for k in LABELS}
    scores: dict[str, float] = {}
    for ex in examples:
        label = _LABEL_ALIASES.get(str(ex.label).strip().lower())
        if label is None or not ex.text.strip():
            continue
        word = "_".join(ex.text.split())
        lists[label].append(word)
        if "score" in ex.meta:
            scores[word] = float(ex.meta["score"])
    if not lists["pos"] or not lists["neg"] or not lists["neu"]:
        raise RobustError(f"lexicon {name!r} must yield positive, negative and neutral words "
                          f"(labels pos/neg/neu); got {', '.join(f'{k}={len(v)}' for k, v in lists.items())}")
    return WordLists(name, f"plugin {name}", lists["pos"], lists["neg"], lists["neu"], scores)


# --- SentiWordNet ---------------------------------------------------------------------------------------
def parse_sentiwordnet(lines: Iterable[str]) -> Iterator[tuple[float, float, str]]:
    """(PosScore, NegScore, SynsetTerms) per synset, from the official six-column layout
    (POS ID PosScore NegScore SynsetTerms Gloss; `#` comments) or the three-column one."""
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        start = 2 if len(cols) >= 5 else 0  # six columns: skip POS and ID
        try:
            yield float(cols[start]), float(cols[start + 1]), cols[start + 2]
        except (IndexError, ValueError):
            continue


def build_word_lists(rows: Iterable[tuple[float, float, str]], name: str = "sentiwordnet",
                     source: str = "") -> WordLists:
    """The paper's rule (Ko et al. 2023, §2.2, App. A.3): PosScore > NegScore -> pos, < -> neg, both 0 -> neu, equal > 0
    dropped. One entry per synset term with its sense number removed (duplicates kept)."""
    pos: list[str] = []
    neg: list[str] = []
    neu: list[str] = []
    polarity: dict[str, list[float]] = defaultdict(list)
    for ps, ns, terms in rows:
        for term in terms.split():
            word = term.rsplit("#", 1)[0]
            polarity[word].append(ps - ns)
            if ps > ns:
                pos.append(word)
            elif ps < ns:
                neg.append(word)
            elif ps == 0:
                neu.append(word)
    # mean PosScore - NegScore (Ko et al. 2023, §2.2, Fig. 4)
    scores = {w: sum(v) / len(v) for w, v in polarity.items()}
    return WordLists(name, source, pos, neg, neu, scores)


def _nltk_dirs() -> list[Path]:
    from robust.toolkit.paths import nltk_data_dir

    dirs = [nltk_data_dir(), *(Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p)]
    try:
        import nltk

        dirs += [Path(p) for p in nltk.data.path]
    except ImportError:
        pass
    return dirs


def find_sentiwordnet(path: str = "") -> Path:
    """The SentiWordNet file: `path` (file or directory), else $ROBUST_SENTIWORDNET, else an NLTK data
    directory's corpora/sentiwordnet (directory or zip)."""
    for given, what in ((path, "lexicon_path"), (os.environ.get(SWN_ENV, ""), f"${SWN_ENV}")):
        if given:
            p = Path(given).expanduser()
            if p.is_dir():
                p = p / SWN_FILE
            if not p.exists():
                raise MissingResource(f"SentiWordNet file {p} (from {what}) does not exist")
            return p
    for base in _nltk_dirs():
        corpora = base / "corpora"
        for candidate in (corpora / "sentiwordnet" / SWN_FILE, corpora / "sentiwordnet.zip"):
            if candidate.exists():
                return candidate
    raise MissingResource(
        f"{SWN_FILE} not found; pass `--set lexicon_path=FILE`, set ${SWN_ENV}, or put it in an NLTK data "
        "dir as corpora/sentiwordnet/ (or use the embedded default `--set lexicon=afinn`)")


def read_sentiwordnet(path: Path) -> WordLists:
    """Word lists from a SentiWordNet 3.0 text file or NLTK's sentiwordnet.zip."""
    if path.suffix == ".zip":
        import zipfile  # here: `robust list` imports this module

        with zipfile.ZipFile(path) as zf:
            member = next((n for n in zf.namelist() if n.endswith(SWN_FILE)), None)
            if member is None:
                raise MissingResource(f"{path} has no {SWN_FILE}")
            text = io.TextIOWrapper(zf.open(member), encoding="utf-8")
            lists = build_word_lists(parse_sentiwordnet(text), source=str(path))
    else:
        with open(path, encoding="utf-8") as fh:
            lists = build_word_lists(parse_sentiwordnet(fh), source=str(path))
    if not (lists.pos and lists.neg and lists.neu):
        raise RobustError(f"{path} is not a SentiWordNet file (no PosScore/NegScore/SynsetTerms rows)")
    return lists


# --- embedded default: AFINN + wordfreq -----------------------------------------------------------------
def paper_stopwords() -> set[str]:
    """The 284 stop words of the paper's appendix (Ko et al. 2023, A.2; 271 distinct)."""
    return set((Path(__file__).parent / "stopwords_paper.txt").read_text().split())


def afinn_word_lists(n_frequent: int = 30000) -> WordLists:
    """AFINN-en-165 polar words (score > 0 / < 0) and, as neutral words, the `n_frequent` most frequent
    English words (wordfreq) that are alphabetic, not in AFINN, not stop words or negations. Multiword AFINN
    entries are joined with '_' like SentiWordNet's multiword lemmas."""
    from robust import package_dir

    afinn_dir, wordfreq_dir = package_dir("afinn"), package_dir("wordfreq")
    if afinn_dir is None or wordfreq_dir is None:
        raise MissingResource("the embedded lexicon needs the PyPI packages afinn and wordfreq; "
                              "run `pip install afinn wordfreq`")
    afinn_file = afinn_dir / "data" / "AFINN-en-165.txt"
    scores: dict[str, float] = {}
    for line in afinn_file.read_text(encoding="utf-8").splitlines():
        term, _, value = line.rpartition("\t")
        if term:
            scores["_".join(term.split())] = float(value)
    from wordfreq import top_n_list

    skip = paper_stopwords() | NEGATIONS
    neutral = [w for w in top_n_list("en", n_frequent)
               if w.isalpha() and w.isascii() and w not in scores and w not in skip]
    pos = sorted(w for w, s in scores.items() if s > 0)
    neg = sorted(w for w, s in scores.items() if s < 0)
    source = f"afinn AFINN-en-165 + wordfreq top {n_frequent} en"
    return WordLists("afinn", source, pos, neg, neutral, {w: s / 5.0 for w, s in scores.items()})


# --- plugins --------------------------------------------------------------------------------------------
class LexiconGenerator(DataGenerator):
    """A lexicon as a DataGenerator: one example per list entry; `word_lists()` gives the lists directly."""

    def word_lists(self) -> WordLists:
        raise NotImplementedError

    def examples(self, seed: int = 0) -> Iterator[Example]:
        return self.word_lists().examples()


class SentiWordNetLexicon(LexiconGenerator):
    name = "sentiwordnet"
    description = "SentiWordNet 3.0 word lists (pos/neg/neu) with SynTextBench's rule; needs the SWN file"
    settings = {"path": "", "dedupe": False}

    def word_lists(self) -> WordLists:
        lists = read_sentiwordnet(find_sentiwordnet(self.config["path"]))
        return lists.deduped() if self.config["dedupe"] else lists


class AfinnLexicon(LexiconGenerator):
    name = "afinn"
    description = "Embedded word lists: AFINN-en-165 polar words + frequent neutral words (wordfreq)"
    settings = {"n_frequent": Setting(30000, min=1, help="frequent English words considered as neutral"),
                "dedupe": False}

    def word_lists(self) -> WordLists:
        lists = afinn_word_lists(int(self.config["n_frequent"]))
        return lists.deduped() if self.config["dedupe"] else lists
