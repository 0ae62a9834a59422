"""SynBench (Ko, MIT thesis 2024, ch. 5): task-agnostic robustness-accuracy score of image/array representations
on synthetic class-conditional Gaussians, against the closed-form Bayes-optimal reference.

Registers the benchmark `synbench`, the dataset `synbench-gaussians` and the scorers `synbench-reference` and
`synbench-score`.
"""

from __future__ import annotations

from robust import hookimpl
from robust.plugins.benchmarks.synbench.benchmark import SynBench
from robust.plugins.benchmarks.synbench.data import SynBenchGaussians
from robust.plugins.benchmarks.synbench.scorers import ReferenceScorer, SynBenchScorer


@hookimpl
def register_benchmarks(register):
    register(SynBench)


@hookimpl
def register_datasets(register):
    register(SynBenchGaussians)


@hookimpl
def register_scorers(register):
    register(ReferenceScorer)
    register(SynBenchScorer)
