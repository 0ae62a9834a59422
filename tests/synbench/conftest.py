"""Shared helpers: run the synbench benchmark in-process on any model (no store), read a score."""

from __future__ import annotations

from typing import Any

from robust.core.context import RunContext
from robust.core.plugins import get_registry
from robust.core.results import Result
from robust.plugins.benchmarks.synbench.benchmark import SynBench


def run_synbench(model: Any, seed: int = 0, **settings: Any) -> Result:
    """Every item of a synbench run, reduced; defaults to exact integration (as in docs/validation/synbench.md)."""
    settings.setdefault("integration", "exact")
    bench = SynBench(**settings)
    ctx = RunContext("test", seed, model, get_registry())
    bench.prepare(ctx)
    records = {item.id: bench.run_item(item, ctx) for item in bench.items(ctx)}
    return bench.reduce(records, ctx)


def score_at(result: Result, eps: float, a_T: float) -> float:
    return next(s["score"] for s in result.data["scores"] if s["epsilon"] == eps and s["a_T"] == a_T)
