"""Registers a benchmark, then fails in another hook: nothing of it may stay registered."""

import robust
from robust import Benchmark


class Half(Benchmark):
    name = "half-bench"
    description = "Registered by a plugin that then breaks"

    def items(self, ctx):
        return []

    def run_batch(self, items, ctx):
        return []

    def reduce(self, records, ctx):
        return robust.Result()


@robust.hookimpl
def register_benchmarks(register):
    register(Half)


@robust.hookimpl
def register_transforms(register):
    raise RuntimeError("this hook is broken on purpose")
