"""SynTextBench (Ko et al. 2023): a real-data-free robustness-accuracy benchmark of sentence embeddings.

Registers the benchmark `syntextbench`, its sentence generator `syntextbench-sentences`, its score (a Scorer),
and its lexicons `sentiwordnet` and `afinn` (the embedded default).
"""

from __future__ import annotations

from robust.core.hookspecs import hookimpl
from robust.plugins.benchmarks.syntextbench.benchmark import SynTextBench
from robust.plugins.benchmarks.syntextbench.lexicon import AfinnLexicon, SentiWordNetLexicon
from robust.plugins.benchmarks.syntextbench.sentences import SynTextBenchScore, SyntheticSentences


@hookimpl
def register_benchmarks(register):
    register(SynTextBench)


@hookimpl
def register_datasets(register):
    register(SentiWordNetLexicon)
    register(AfinnLexicon)
    register(SyntheticSentences)


@hookimpl
def register_scorers(register):
    register(SynTextBenchScore)
