"""The hooks a robust plugin can implement. Each receives a `register` callback (simonw/llm style)."""

from __future__ import annotations

from pluggy import HookimplMarker, HookspecMarker

hookspec = HookspecMarker("robust")
hookimpl = HookimplMarker("robust")


@hookspec
def register_benchmarks(register):
    """Register `Benchmark` classes: `register(MyBench)` -> `robust run --bench mybench`."""


@hookspec
def register_transforms(register):
    """Register `Transform`s (perturbations) -> `robust run --attack NAME`, usable by RobTest and BYOD."""


@hookspec
def register_attackers(register):
    """Register `Attacker`s (search strategies) -> `--attack NAME` or `--attack NAME:TRANSFORM`."""


@hookspec
def register_models(register):
    """Register `ModelAdapter` classes; `--model NAME[:ARG]` builds one with ARG."""


@hookspec
def register_datasets(register):
    """Register `DataGenerator`s: datasets, corpora, lexicons and synthetic generators, read by name."""


@hookspec
def register_scorers(register):
    """Register `Scorer`s: metrics that benchmarks use by name and `--scorer NAME` adds to a run."""


@hookspec
def register_resources(register):
    """Register `Resource`s: files plugins read, prepared once by `robust setup NAME`."""


@hookspec
def register_commands(app):
    """Add sub-commands to the `robust` typer app."""
