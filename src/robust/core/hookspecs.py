"""The hooks a robust plugin can implement. Each receives a `register` callback (simonw/llm style)."""

from __future__ import annotations

from pluggy import HookimplMarker, HookspecMarker

hookspec = HookspecMarker("robust")
hookimpl = HookimplMarker("robust")


@hookspec
def register_benchmarks(register):
    """Register `Benchmark` classes, e.g. `register(MyBench)` -> `robust run --bench mybench`."""


@hookspec
def register_attacks(register):
    """Register `Transform` and `Attacker` classes or instances -> `robust run --attack NAME`."""


@hookspec
def register_models(register):
    """Register `ModelAdapter` classes; `--model NAME[:ARG]` builds one with ARG."""


@hookspec
def register_datasets(register):
    """Register `DataGenerator`s: datasets, corpora and lexicons that benchmarks read by name."""


@hookspec
def register_scorers(register):
    """Register `Scorer`s that benchmarks look up by name."""


@hookspec
def register_commands(app):
    """Add sub-commands to the `robust` typer app."""
