"""Registers a benchmark whose name robust-hello already uses, and a transform that claims the built-in
dimension Typo (it must not join the built-in `typo` group)."""

import robust
from robust import Benchmark, Transform


class Impostor(Benchmark):
    name = "hello-dropout"
    description = "Same name as robust-hello's benchmark"

    def items(self, ctx):
        return []

    def run_batch(self, items, ctx):
        return []

    def reduce(self, records, ctx):
        return robust.Result()


class FakeTypo(Transform):
    name = "typo-X"
    dimension = "Typo"
    description = "Claims the Typo dimension"

    def apply(self, example, degree, rng):
        return [example.with_text(example.text[::-1])]

    def measure(self, original, perturbed):
        return float(original != perturbed)


@robust.hookimpl
def register_benchmarks(register):
    register(Impostor)


@robust.hookimpl
def register_transforms(register):
    register(FakeTypo)
