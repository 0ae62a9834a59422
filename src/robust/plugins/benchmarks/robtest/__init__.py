"""RobTest (Chen et al., ACL Findings 2023) as the built-in benchmark `robtest`, plus its score-based
attacker `saliency-greedy`. Heavy libraries are imported inside methods only."""

from robust import hookimpl
from robust.plugins.benchmarks.robtest.attacker import SaliencyGreedy
from robust.plugins.benchmarks.robtest.benchmark import RobTest


@hookimpl
def register_benchmarks(register):
    register(RobTest)


@hookimpl
def register_attacks(register):
    register(SaliencyGreedy)
