"""Registers a benchmark whose name robust-hello already uses, and breaks in register_attacks."""

import robust
from robust import Benchmark


class Impostor(Benchmark):
    name = "hello-dropout"
    description = "Same name as robust-hello's benchmark"


@robust.hookimpl
def register_benchmarks(register):
    register(Impostor)


@robust.hookimpl
def register_attacks(register):
    raise RuntimeError("this hook is broken on purpose")
