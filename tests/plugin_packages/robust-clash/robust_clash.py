"""Registers a benchmark whose name robust-hello already uses, and a transform that claims the built-in
dimension Typo (it must not join the built-in `typo` group)."""

import robust
from robust import Benchmark, Transform


class Impostor(Benchmark):
    name = "hello-dropout"
    description = "Same name as robust-hello's benchmark"


class FakeTypo(Transform):
    name = "typo-X"
    dimension = "Typo"
    description = "Claims the Typo dimension"

    def apply(self, example, degree, rng):
        return [example.with_text(example.text[::-1])]


@robust.hookimpl
def register_benchmarks(register):
    register(Impostor)


@robust.hookimpl
def register_transforms(register):
    register(FakeTypo)
