"""BYOD (Jain et al. 2023): self-supervised sensitivity tests of causal LMs on your own data.

Entry-point module: registers the `byod` benchmark, its five transforms and six scorers (its default corpus
`mr-reviews` is a built-in dataset). No heavy imports here (`robust list` imports every plugin module).
"""

from robust import hookimpl
from robust.plugins.benchmarks.byod.benchmark import BYOD
from robust.plugins.benchmarks.byod.scorers import SCORERS
from robust.plugins.benchmarks.byod.transforms import TRANSFORMS

__all__ = ["BYOD"]


@hookimpl
def register_benchmarks(register):
    register(BYOD)


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)


@hookimpl
def register_scorers(register):
    for scorer in SCORERS:
        register(scorer)
