"""The `attack` benchmark: any registered Attacker against a classifier on labelled examples."""

from robust import hookimpl
from robust.plugins.benchmarks.attack.benchmark import AttackBenchmark


@hookimpl
def register_benchmarks(register):
    register(AttackBenchmark)
