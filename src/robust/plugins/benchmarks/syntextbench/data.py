"""SynTextBench's registered data: the synthetic sentence generator (a DataGenerator) over a lexicon's word lists
(the lexicons themselves are DataGenerators of lexicon.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from robust import DataGenerator, Example, RobustError, Setting, rng_for, unknown
from robust.plugins.benchmarks.syntextbench.constants import DEFAULT_LEXICON
from robust.plugins.benchmarks.syntextbench.lexicon import (
    AfinnLexicon,
    LexiconGenerator,
    SentiWordNetLexicon,
    WordLists,
    word_lists_from_examples,
)
from robust.toolkit.lazy import LazyModule

generator = LazyModule("robust.plugins.benchmarks.syntextbench.generator")  # imported when sentences are made
PROBABILITY = {"min": 0.0, "max": 1.0}
#: the lexicons registered beside the sentence generator
LEXICONS = (SentiWordNetLexicon, AfinnLexicon)


class SyntheticSentences(DataGenerator):
    name = "syntextbench-sentences"
    description = "SynTextBench's synthetic sentiment sentences at neutral share p (labels +1/-1, Ko et al. 2023, §2.2)"
    settings = {
        "lexicon": Setting("", help="a registered lexicon; '' = sentiwordnet if lexicon_path is set, else afinn"),
        "lexicon_path": Setting("", help="SentiWordNet file (else $ROBUST_SENTIWORDNET or an NLTK data dir)"),
        "dedupe": Setting(False, help="dedupe the word lists (not the paper's counts, Ko et al. 2023, §2.2, App. A.3)"),
        "n": Setting(256, min=8, help="sentences (paper: 8192)"),
        "p": Setting(0.0, **PROBABILITY, help="neutral mixing ratio"),
        "trial": Setting(0, min=0, help="independent regeneration index"),
        "p_e": Setting(1 / 12, min=1e-6, max=1.0, help="<eos> probability (mean length 1/p_e)"),
        "p_n": Setting(0.5, **PROBABILITY, help="probability to pop the last unpaired word"),
        "max_len": Setting(128, min=1, help="safety truncation, not in the paper"),
        "split": Setting("holdout", choices=("holdout", "independent")),
        "test_frac": Setting(0.1, min=0.01, max=0.99, help="held-out share of n (split=holdout)"),
    }

    def lexicon_name(self) -> str:
        return self.config["lexicon"] or ("sentiwordnet" if self.config["lexicon_path"] else DEFAULT_LEXICON)

    def word_lists(self) -> WordLists:
        """The lexicon plugin named by the settings, as word lists (read once per process)."""
        name = self.lexicon_name()
        if not self.ctx.registry.has("dataset", name):
            lexicons = [e.name for e in self.ctx.registry if e.kind == "dataset" and isinstance(e.target, type)
                        and issubclass(e.target, LexiconGenerator)]
            raise unknown("lexicon", name, lexicons)
        entry = self.ctx.registry.get("dataset", name)
        options: dict[str, Any] = {}
        accepted = entry.settings
        if self.config["lexicon_path"]:
            if "path" not in accepted:
                raise RobustError(f"lexicon {name!r} takes no lexicon_path")
            options["path"] = self.config["lexicon_path"]
        if "dedupe" in accepted:
            options["dedupe"] = self.config["dedupe"]
        key = (entry.qualified, tuple(sorted(options.items())), bool(self.config["dedupe"]))
        if key not in _WORD_LISTS:
            _WORD_LISTS[key] = _word_lists(entry, options, bool(self.config["dedupe"]))
        return _WORD_LISTS[key]

    def task(self, seed: int) -> generator.SyntheticTask:
        """The labelled dataset at level p of trial `trial` (depends on seed, trial and p only)."""
        c = self.config
        lists = self.word_lists()
        rng = rng_for(seed, "syntextbench", "corpus", c["trial"], f"{c['p']:.4f}")
        cfg = generator.GeneratorConfig(float(c["p_e"]), float(c["p_n"]), int(c["max_len"]))
        return generator.make_task(int(c["n"]), float(c["p"]), lists.pos, lists.neg, lists.neu, rng, cfg, c["split"],
                                   float(c["test_frac"]))

    def examples(self, seed: int = 0) -> Iterator[Example]:
        task = self.task(seed)
        for split, texts, ys in (("train", task.train_texts, task.train_y), ("test", task.test_texts, task.test_y)):
            for i, (text, y) in enumerate(zip(texts, ys)):
                yield Example(f"{split}-{i:05d}", text, int(y), meta={"split": split})


_WORD_LISTS: dict[tuple, WordLists] = {}  # read once per process


def _word_lists(entry: Any, options: dict[str, Any], dedupe: bool) -> WordLists:
    lexicon = entry.create(**options)
    if isinstance(lexicon, LexiconGenerator):
        return lexicon.word_lists()
    lists = word_lists_from_examples(entry.name, lexicon.examples(0))
    return lists.deduped() if dedupe else lists
