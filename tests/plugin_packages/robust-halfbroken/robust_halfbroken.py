"""Registers a benchmark, then fails in another hook: nothing of it may stay registered."""

import robust
from robust import Benchmark


class Half(Benchmark):
    name = "half-bench"
    description = "Registered by a plugin that then breaks"


@robust.hookimpl
def register_benchmarks(register):
    register(Half)


@robust.hookimpl
def register_transforms(register):
    raise RuntimeError("this hook is broken on purpose")
