"""Shared helpers of the RobTest benchmark scripts: run `robtest` in-process with a timed victim."""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

from robust.core.context import RunContext
from robust.core.plugins import get_registry
from robust.core.results import Result


@dataclass
class Timed:
    """Wall time spent inside the victim's one-batch `_classify` (the model forward) and its call counts."""

    seconds: float = 0.0
    batches: int = 0
    texts: int = 0
    classify_calls: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def timed_model(spec: str, **config: Any) -> tuple[Any, Timed]:
    """A model whose forward passes and public `classify` calls are counted."""
    model = get_registry().model(spec, **config)
    model.spec = spec
    # the victim loads its own encoder (probe:minilm's embedder is not the transforms' minilm), so its forward
    # passes are never answered from the cache of a helper model's embeddings
    model.bind(dataclasses.replace(context(model), _models={}))
    stats = Timed()
    inner, public = model._classify, model.classify

    def forward(texts):
        start = time.perf_counter()
        try:
            return inner(texts)
        finally:
            stats.seconds += time.perf_counter() - start
            stats.batches += 1
            stats.texts += len(texts)

    def classify(texts):
        stats.classify_calls += 1
        return public(texts)

    model._classify, model.classify = forward, classify
    return model, stats


_HELPERS: dict[str, Any] = {}  # helper models (minilm, smollm2) shared by every run of a script, as in one run


def context(model: Any = None, attacks: list[str] | None = None, seed: int = 0, data: str | None = None,
            plugin_settings: dict[str, dict[str, Any]] | None = None) -> RunContext:
    """A run context whose helper models are loaded once per process (the victim is `model`)."""
    ctx = RunContext("bench", seed, model, get_registry(), data, None, list(attacks or []),
                     plugin_settings=plugin_settings or {}, model_spec=getattr(model, "spec", ""))
    return dataclasses.replace(ctx, _models=_HELPERS)


def run_robtest(model: Any, attacks: list[str], seed: int = 0, data: str | None = None,
                plugin_settings: dict[str, dict[str, Any]] | None = None,
                **settings: Any) -> tuple[Result, dict[str, dict[str, Any]], float]:
    """prepare / items / run_batch / reduce as the runner does; returns (result, records, seconds)."""
    bench = get_registry().get("benchmark", "robtest").create(**settings)
    ctx = context(model, attacks, seed, data, plugin_settings)
    bench.bind(ctx)
    start = time.perf_counter()
    bench.prepare(ctx)
    items = bench.items(ctx)
    records: dict[str, dict[str, Any]] = {}
    for i in range(0, len(items), bench.chunk_size):
        chunk = items[i : i + bench.chunk_size]
        records.update(zip([it.id for it in chunk], bench.run_batch(chunk, ctx), strict=True))
    seconds = time.perf_counter() - start
    return bench.reduce(records, ctx), records, seconds


def victim_parser(description: str, *, model: str, attack: str, n: int, aug_num: int,
                  threads: int) -> argparse.ArgumentParser:
    """The options every victim script shares: --model, --attack, --n, --aug-num, --threads and --set."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--model", default=model)
    parser.add_argument("--attack", nargs="+", default=[attack])
    parser.add_argument("--n", type=int, default=n)
    parser.add_argument("--aug-num", type=int, default=aug_num)
    parser.add_argument("--threads", type=int, default=threads)
    add_set_option(parser)
    return parser


def add_set_option(parser: argparse.ArgumentParser) -> None:
    """--set TAG.KEY=VALUE, as `robust run --set` routes it to a transform (read back by `plugin_settings`)."""
    parser.add_argument("--set", action="append", default=[], metavar="TAG.KEY=VALUE",
                        help="a transform setting, e.g. contextual.mlm=hf:DIR or synonym.min_local_similarity=0.7")


def plugin_settings(args: argparse.Namespace) -> dict[str, dict[str, str]]:
    """The per-plugin settings of `args.set`."""
    from robust.core.settings import parse_assignments
    from robust.engine.runner import split_settings

    return split_settings(parse_assignments(args.set))[2]


def loaded_victim(args: argparse.Namespace) -> tuple[Any, Timed]:
    """torch on `args.threads` intra-op threads, then the victim `args.model`, timed and warmed up."""
    import torch

    torch.set_num_threads(args.threads)
    model, stats = timed_model(args.model)
    warm(model)
    return model, stats


def warm(model: Any) -> None:
    """Load weights and the probe head before timing."""
    model.classify(["warm up the model"])
