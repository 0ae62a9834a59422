"""RobTest (Chen et al., ACL Findings 2023) as the built-in benchmark `robtest`, its two accesses as Attackers
(`rule-sampling`, `saliency-greedy`) and its metrics as Scorers (`robtest-average`, `robtest-worst`).
Heavy libraries are imported inside methods only."""

from robust import hookimpl
from robust.plugins.benchmarks.robtest.attacker import RuleSampling, SaliencyGreedy
from robust.plugins.benchmarks.robtest.benchmark import RobTest
from robust.plugins.benchmarks.robtest.scores import AverageScore, WorstScore


@hookimpl
def register_benchmarks(register):
    register(RobTest)


@hookimpl
def register_attackers(register):
    register(RuleSampling)
    register(SaliencyGreedy)


@hookimpl
def register_scorers(register):
    register(AverageScore)
    register(WorstScore)
