"""Run a benchmark against a model: create or resume a run, compute missing items, reduce to a result."""

from __future__ import annotations

import platform
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from robust.core.context import RunContext
from robust.core.errors import RobustError
from robust.core.executor import Executor, InProcessExecutor
from robust.core.registry import Registry
from robust.core.results import Result
from robust.core.store import Run, Store

_PACKAGES = ("robust", "numpy", "scipy", "torch", "transformers", "pluggy")


@dataclass
class RunConfig:
    """Everything that defines a run; stored with it so `--resume` rebuilds the same run."""

    bench: str
    model: str
    attacks: list[str] = field(default_factory=list)
    data: str | None = None
    limit: int | None = None
    seed: int = 0
    batch_size: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # benchmark settings
    model_settings: dict[str, Any] = field(default_factory=dict)
    attack_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    out: str | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RunConfig:
        return cls(**{k: v for k, v in obj.items() if k in cls.__dataclass_fields__})


def split_settings(values: dict[str, str], attacks: list[str]) -> tuple[dict, dict, dict]:
    """`--set` pairs -> (benchmark, model, per-attack) settings; `model.x` and `ATTACK.x` are routed."""
    bench, model, attack = {}, {}, {}
    for key, value in values.items():
        head, dot, rest = key.partition(".")
        if dot and head == "model":
            model[rest] = value
        elif dot:
            attack.setdefault(head, {})[rest] = value
        else:
            bench[key] = value
    return bench, model, attack


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


class Runner:
    def __init__(self, registry: Registry, store: Store, executor: Executor | None = None,
                 progress: bool = True) -> None:
        self.registry, self.store = registry, store
        self.executor = executor or InProcessExecutor()
        self.progress = progress

    def start(self, config: RunConfig) -> Run:
        """Validate a new run's config, record it, and compute it."""
        bench, model, ctx = self._build(config, run_id="")
        environment = {"versions": _versions(), "plugins": self._plugins(config), "model": model.info()}
        run_id = self.store.create_run(config.bench, config.model, asdict(config), environment)
        ctx.run_id = run_id
        return self._execute(run_id, bench, ctx)

    def resume(self, ref: str) -> Run:
        """Continue a run from its stored config; items already recorded are not recomputed."""
        run = self.store.get(ref)
        config = RunConfig.from_json(run.config)
        bench, _, ctx = self._build(config, run_id=run.id)
        return self._execute(run.id, bench, ctx)

    def reduce(self, ref: str) -> Result:
        """Recompute a finished run's result from its stored records (no model calls)."""
        run = self.store.get(ref)
        config = RunConfig.from_json(run.config)
        bench = self.registry.get("benchmark", config.bench).create(**config.settings)
        ctx = RunContext(run.id, config.seed, None, self.registry, config.data, config.limit, config.attacks)
        return bench.reduce(self.store.records(run.id), ctx)

    # ---------------------------------------------------------------------------------------
    def _build(self, config: RunConfig, run_id: str) -> tuple[Any, Any, RunContext]:
        entry = self.registry.get("benchmark", config.bench)
        bench = entry.create(**config.settings)
        if config.attacks and not getattr(bench, "accepts_attacks", False):
            raise RobustError(f"benchmark {config.bench!r} takes no --attack")
        model_settings = dict(config.model_settings)
        if config.batch_size:
            model_settings["batch_size"] = config.batch_size
        model = self.registry.model(config.model, **model_settings)
        out_dir = Path(config.out) if config.out else self.store.path.parent / "outputs"
        ctx = RunContext(run_id, config.seed, model, self.registry, config.data, config.limit,
                         list(config.attacks), out_dir, {"attack_settings": config.attack_settings})
        missing = set(bench.required_capabilities(ctx)) - set(model.provides())
        if missing:
            raise RobustError(
                f"benchmark {config.bench!r} needs {', '.join(sorted(missing))} but model {config.model!r} "
                f"offers only {', '.join(sorted(model.provides())) or 'nothing'}"
            )
        return bench, model, ctx

    def _plugins(self, config: RunConfig) -> dict[str, str]:
        """Distribution and version of every plugin the run names (attack groups like `all` are skipped)."""
        named = [("benchmark", config.bench), ("model", config.model.partition(":")[0])]
        named += [("attack", name) for name in config.attacks if name in self.registry.entries["attack"]]
        return {f"{kind}:{name}": self.registry.get(kind, name).origin for kind, name in named}

    def _execute(self, run_id: str, bench: Any, ctx: RunContext) -> Run:
        from robust.core.progress import escape, make_progress

        self.store.set_status(run_id, "running")
        bench.prepare(ctx)
        items = list(bench.items(ctx))
        ids = [item.id for item in items]
        if len(set(ids)) != len(ids):
            raise RuntimeError(f"benchmark {bench.name!r} produced duplicate item ids")
        done = self.store.done_ids(run_id)
        todo = [item for item in items if item.id not in done]
        model = ctx.model
        with make_progress(lambda: model.queries, self.progress) as progress:
            task = progress.add_task(escape(f"{bench.name} · {model.identity}"), total=len(items),
                                     completed=len(items) - len(todo))

            def on_done(chunk: Any, records: list[dict[str, Any]]) -> None:
                self.store.add_records(run_id, [(item.id, rec) for item, rec in zip(chunk, records)])
                progress.advance(task, len(chunk))

            try:
                self.executor.run(todo, bench.chunk_size, lambda chunk: bench.run_batch(chunk, ctx), on_done)
            except BaseException:
                self.store.set_status(run_id, "interrupted")
                raise
        records = self.store.records(run_id)
        records = {i: records[i] for i in ids if i in records}
        result = bench.reduce(records, ctx)
        result.summary.setdefault("items", len(records))
        result.summary.setdefault("model_queries", model.queries)
        self.store.finish(run_id, result.to_json())
        return self.store.get(run_id)
