"""SynTextBench (Ko et al. 2023): a real-data-free robustness-accuracy benchmark of sentence embeddings.

Registers the benchmark `syntextbench`, its sentence generator `syntextbench-sentences`, its score (a Scorer),
and its lexicons `sentiwordnet` and `afinn` (the embedded default).
"""

from __future__ import annotations

from robust import hookimpl
from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench
from robust.plugins.benchmarks.syntextbench.data import LEXICONS, SyntheticSentences
from robust.plugins.benchmarks.syntextbench.scorers import SynTextBenchScore


@hookimpl
def register_benchmarks(register):
    register(SynTextBench)


@hookimpl
def register_datasets(register):
    for lexicon in LEXICONS:
        register(lexicon)
    register(SyntheticSentences)


@hookimpl
def register_scorers(register):
    register(SynTextBenchScore)
