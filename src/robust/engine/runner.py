"""Run a benchmark against a model: validate everything, create or resume a run, compute missing items under
a lease, and end the run in exactly one of `finished`, `failed` (with its cause) or `interrupted`."""

from __future__ import annotations

import contextlib
import difflib
import functools
import platform
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from robust.core.context import RunContext
from robust.core.errors import Interruption, RobustError, did_you_mean, one_line
from robust.core.interfaces import Benchmark, ModelAdapter, WorkItem
from robust.core.registry import Entry, Registry
from robust.core.results import Result
from robust.core.settings import resolve_settings
from robust.engine.attacks import attack_specs, group
from robust.engine.executor import Executor, InProcessExecutor, Job, chunk_seconds, overlap_for
from robust.engine.fingerprint import Fingerprint, of_object, of_spec
from robust.engine.memory import peak_memory_mb
from robust.engine.progress import Estimate, RunProgress, interleave, progress_seconds
from robust.engine.store import Counted, Lease, Run, Store, owner_token

#: a run whose model was a Python object records it under this prefix (it cannot be rebuilt from its name)
IN_MEMORY = "python:"
_PACKAGES = ("robust", "numpy", "scipy", "torch", "transformers", "pluggy")


@dataclass
class RunConfig:
    """Everything that defines a run; stored with it so `--resume` (or a remote worker) rebuilds the same run."""

    bench: str
    model: str
    attacks: list[str] = field(default_factory=list)
    scorers: list[str] = field(default_factory=list)
    data: str | None = None
    limit: int | None = None
    seed: int = 0
    batch_size: int | None = None
    settings: dict[str, Any] = field(default_factory=dict)  # benchmark settings
    model_settings: dict[str, Any] = field(default_factory=dict)
    plugin_settings: dict[str, dict[str, Any]] = field(default_factory=dict)  # NAME.key=value
    out: str | None = None

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> RunConfig:
        obj = dict(obj)
        obj.setdefault("plugin_settings", obj.pop("attack_settings", {}))  # stores written before 0.2
        return cls(**{k: v for k, v in obj.items() if k in cls.__dataclass_fields__})


def split_settings(values: dict[str, str]) -> tuple[dict, dict, dict]:
    """`--set` pairs -> (benchmark, model, per-plugin) settings; `model.x` and `NAME.x` are routed."""
    bench: dict[str, str] = {}
    model: dict[str, str] = {}
    plugins: dict[str, dict[str, str]] = {}
    for key, value in values.items():
        head, dot, rest = key.partition(".")
        if dot and head == "model":
            model[rest] = value
        elif dot:
            plugins.setdefault(head, {})[rest] = value
        else:
            bench[key] = value
    return bench, model, plugins


def _versions() -> dict[str, str]:
    return dict(_installed())


@functools.cache
def _installed() -> tuple[tuple[str, str], ...]:
    """Python's and the key packages' versions, read once per process (each read parses a METADATA file: ~5 ms
    for the six, a quarter of a 50-example DeepWordBug run's own work with a near-free victim)."""
    out = [("python", platform.python_version())]
    for name in _PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            out.append((name, metadata.version(name)))
    return tuple(out)


#: what a run takes as an argument (`robust.run(limit=5)`, `--limit 5`), not as a benchmark setting
RUN_OPTIONS = ("attack", "batch_size", "data", "limit", "model", "out", "scorer", "seed")


def _bare_setting(name: str, values: dict[str, Any], bench: str, settings: dict[str, Any]) -> None:
    """`--set robtest.degrees=...` that no plugin named `robtest` takes: a benchmark's own settings take no prefix."""
    key = next((k for k in values if k in settings), None)
    if name == bench and key is not None:
        value = values[key]
        raise RobustError(f"--set {name}.{key}={value}: the benchmark's own settings take no prefix: "
                          f"--set {key}={value} (settings={{{key!r}: {value!r}}} from Python)")


def _run_option(key: str, bench: str, settings: Any) -> None:
    """A benchmark setting the benchmark lacks that is (or resembles) an argument of the run: say so."""
    meant = difflib.get_close_matches(key, RUN_OPTIONS, n=1, cutoff=0.75)
    if meant:
        known = ", ".join(sorted(settings)) or "none"
        raise RobustError(f"unknown setting {key!r} for {bench} (known: {known}); {meant[0]!r} is an argument of "
                          f"the run, not a setting: robust.run(..., {meant[0]}=...) or --{meant[0].replace('_', '-')}")


class Interrupted(KeyboardInterrupt):
    """SIGTERM, delivered as an interruption so the run is flushed and marked `interrupted`."""


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Interrupted("SIGTERM")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class Meter:
    """This process's model queries and seconds on a run not yet added to the run's counters (they are added
    with each committed chunk, so even a killed process leaves its share), and its peak memory so far."""

    def __init__(self) -> None:
        self.model: Any = None
        self.queries, self.since = 0, time.monotonic()

    def watch(self, model: Any) -> None:
        self.model, self.queries = model, model.queries

    def take(self, remote_peak_mb: float | None = None) -> Counted:
        """What was spent since the last take: queries (a remote worker's are added to the model's count) and
        seconds; the larger of this process's peak memory and a worker process's (`remote_peak_mb`)."""
        queries, now = (self.model.queries if self.model else 0), time.monotonic()
        counted = Counted(queries - self.queries, now - self.since,
                          max(filter(None, (peak_memory_mb(), remote_peak_mb)), default=None))
        self.queries, self.since = queries, now
        return counted


class _Preload:
    """`model.preload()` in a daemon thread (weights load while the benchmark prepares its data); `wait()`
    joins it and re-raises its error, so a model that fails to load reports the same one line as before."""

    def __init__(self, model: Any) -> None:
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._load, args=(model,), name="robust-preload", daemon=True)
        self.thread.start()

    def _load(self, model: Any) -> None:
        try:
            model.preload()
        except BaseException as exc:  # surfaced by wait(), in the caller's thread
            self.error = exc

    def wait(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


def _capability_hint(spec: str, model: ModelAdapter, missing: set[str]) -> str:
    """How to get what a benchmark needs from the model the user named: a language model classifies when
    prompted (`prompt:`), an encoder with a head trained on its embeddings (`probe:`); else its task setting."""
    caps = model.provides()
    if "classify" in missing and not spec.startswith(IN_MEMORY):
        if caps & {"logprobs", "loglikelihood", "generate"}:
            return f"; a language model classifies when prompted: --model prompt:{spec} (model='prompt:{spec}')"
        if "embed" in caps:
            return (f"; an encoder classifies with a head trained on its embeddings: --model probe:{spec} "
                    f"(model='probe:{spec}'; trained on mr-train unless --set probe.train=DATA)")
    if "task" in model.settings:
        return "; if it can, name its task: --set model.task=TASK or settings={'model.task': TASK}"
    return ""


class Runner:
    def __init__(self, registry: Registry, store: Store, executor: Executor | None = None,
                 progress: bool = True, say: Callable[[str], None] = lambda line: None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.registry, self.store = registry, store
        self.executor = executor or InProcessExecutor()
        self.progress, self.say = progress, say
        #: told each warning about the installed plugins that concerns the run (default: said as `warning: ...`)
        self.warn = warn or (lambda line: say(f"warning: {line}"))
        self.run_id = ""  # the run this runner created or resumed last (for the CLI's interruption message)
        #: the run that `_execute` ended last and its records as read then (`robust.run` returns them unread again)
        self.ended: tuple[str, dict[str, dict[str, Any]]] = ("", {})

    # building -------------------------------------------------------------------------------------
    def build(self, config: RunConfig, run_id: str = "", model: Any = None) -> tuple[Benchmark, RunContext]:
        """The benchmark and run context of a config, every setting validated (no model call yet); `model`: the
        ModelAdapter instance of a run whose model was passed as a Python object."""
        if config.limit is not None and config.limit < 1:
            raise RobustError(f"--limit (limit= from Python) must be a positive number of examples, not {config.limit}")
        if config.batch_size is not None and config.batch_size < 1:
            raise RobustError(f"--batch-size (batch_size= from Python) must be at least 1, not {config.batch_size}")
        chunk_seconds(), progress_seconds(), overlap_for(None)  # a bad ROBUST_CHUNK_SECONDS, ..._PROGRESS_SECONDS or
        # ..._OVERLAP: refused before a run exists
        bench_entry = self.registry.get("benchmark", config.bench)
        unknown = [key for key in config.settings if key not in bench_entry.settings]
        if unknown:
            self._misplaced(unknown[0], config)
            _run_option(unknown[0], config.bench, bench_entry.settings)
        bench = bench_entry.create(**config.settings)
        if config.attacks and not bench.accepts_attacks:
            raise RobustError(f"benchmark {config.bench!r} takes no --attack (attack= from Python)")
        if config.data and not bench.accepts_data:
            raise RobustError(f"benchmark {config.bench!r} takes no --data (data= from Python): it generates its own")
        for name, values in config.plugin_settings.items():
            try:
                resolve_settings(name, self._plugin(name).target.settings, values)
            except RobustError:
                _bare_setting(name, values, config.bench, bench_entry.settings)
                self._group_setting(name, values)
                raise
        if model is None:
            if config.model.startswith(IN_MEMORY):
                raise RobustError(f"run {run_id or '?'} was computed with a model passed from Python "
                                  f"({config.model}); resume it from Python: robust.run(resume={run_id!r}, "
                                  "model=THAT_MODEL)")
            # `--set probe.train=…` for `--model probe:…` configures it as it does a helper probe: under model.*
            entry, _ = self.registry.model_entry(config.model)
            model_settings = {**self.registry.settings_of(entry, config.plugin_settings), **config.model_settings}
            if config.batch_size:
                model_settings["batch_size"] = config.batch_size
            model = self.registry.model(config.model, **model_settings)
        out_dir = Path(config.out) if config.out else self.store.path.parent / "outputs"
        ctx = RunContext(run_id, config.seed, model, self.registry, config.data, config.limit,
                         list(config.attacks), list(config.scorers), out_dir, config.plugin_settings, config.model,
                         store_dir=self.store.path.parent if self.store is not None else None, say=self.say)
        model.bind(ctx)
        bench.bind(ctx)
        missing = set(bench.required_capabilities(ctx)) - set(model.provides())
        if missing:
            why = "; ".join(dict.fromkeys(filter(None, (model.why_not(c) for c in sorted(missing)))))
            raise RobustError(f"benchmark {config.bench!r} needs {', '.join(sorted(missing))} but model "
                              f"{config.model!r} offers only {', '.join(sorted(model.provides())) or 'nothing'}"
                              + (f" ({why})" if why else "") + _capability_hint(config.model, model, missing))
        return bench, ctx

    def typed(self, config: RunConfig, bench: Benchmark, ctx: RunContext) -> RunConfig:
        """The config with every given setting as its validated value (`budget=none` stored as null, `n=100` as
        100), as the run is stored: what a run says it used is what it used."""
        plugins = {name: {k: v for k, v in resolve_settings(name, self._plugin(name).target.settings,
                                                              values).items() if k in values}
                   for name, values in config.plugin_settings.items()}
        model = {k: ctx.model.config[k] for k in config.model_settings if k in ctx.model.config}
        return replace(config, settings={k: bench.config[k] for k in config.settings},
                       model_settings={**config.model_settings, **model}, plugin_settings=plugins)

    def _misplaced(self, key: str, config: RunConfig) -> None:
        """A benchmark setting the benchmark lacks but a plugin of the run has: say which key was meant."""
        named = [(f"{self.registry.display(e)}.{key}", e) for spec in attack_specs(config.attacks, self.registry)
                 for e in (spec.attacker, spec.transform) if e is not None]
        named += [(f"{s}.{key}", self.registry.get("scorer", s)) for s in config.scorers]
        if not config.model.startswith(IN_MEMORY):
            named.append((f"model.{key}", self.registry.model_entry(config.model)[0]))
        meant = [qualified for qualified, entry in named if key in entry.settings]
        if meant:
            raise RobustError(f"unknown setting {key!r} for {config.bench}; it is a setting of a plugin of this run: "
                              f"--set {meant[0]}=VALUE")

    def _plugin(self, name: str) -> Any:
        """The plugin `NAME` of a `--set NAME.key=value` (any kind but benchmark and model)."""
        for kind in ("transform", "attacker", "scorer", "dataset", "resource", "model"):
            if self.registry.has(kind, name):
                return self.registry.get(kind, name)
        names = [n for kind in ("transform", "attacker", "scorer", "dataset") for n in self.registry.names(kind)]
        raise RobustError(f"--set {name}.KEY=VALUE: no transform, attacker, scorer, dataset or model named {name!r}"
                          + did_you_mean(name, names))

    def _group_setting(self, name: str, values: dict[str, Any]) -> None:
        """`--set typo.mode=...` after `--attack typo`: a group's settings belong to each of its transforms."""
        members = [self.registry.display(e) for e in group(self.registry, name)]
        if members:
            key, value = next(iter(values.items()))
            raise RobustError(f"--set {name}.{key}={value}: {name!r} is a group of transforms ({', '.join(members)}), "
                              f"not one plugin; set the setting of each you mean: --set {members[0]}.{key}={value} "
                              f"(settings={{'{members[0]}.{key}': {value!r}}} from Python)")

    def plan(self, bench: Benchmark, ctx: RunContext) -> list[WorkItem]:
        """Prepare the benchmark (its data and settings are checked here, before any model weights load or any
        victim trains), then load the model in the background while the items are listed; no run exists yet."""
        self.say(f"preparing {bench.name}: {bench.describe_data(ctx)}")
        bench.prepare(ctx)
        loading = None
        if ctx.model is not None:
            self.say(f"loading the model {ctx.model_spec}")
            loading = _Preload(ctx.model)
        items = list(bench.items(ctx))
        ids = [item.id for item in items]
        if not items:
            raise RobustError(f"benchmark {bench.name!r} has nothing to do: the data gave no work items")
        if len(set(ids)) != len(ids):
            raise RuntimeError(f"benchmark {bench.name!r} produced duplicate item ids")
        if ctx.limit is not None:
            self.say(f"--limit {ctx.limit}: {bench.describe_limit(ctx.limit)}")
        if loading is not None:
            loading.wait()
        return items

    # running --------------------------------------------------------------------------------------
    def start(self, config: RunConfig, model: Any = None) -> Run:
        """Validate a new run completely, then record it and compute it (`model`: an adapter instance, for a
        config whose model is a Python object)."""
        meter = Meter()
        with _sigterm_interrupts():
            bench, ctx = self.build(config, model=model)
            self._warn(config)
            meter.watch(ctx.model)
            # the data is checked before the model is called, except that a Python object classifying into unnamed
            # classes is probed first: the data's labels are then checked against its class count
            nameless = (config.model.startswith(IN_MEMORY) and ctx.model.labels is None
                        and "classify" in ctx.model.provides())
            model_print = self._fingerprint(config, ctx.model) if nameless else None
            items = self.plan(bench, ctx)
            model_print = model_print or self._fingerprint(config, ctx.model)  # probes a Python object: before a run
            environment = {"versions": _versions(), "plugins": self._origins(config), "model": ctx.model.info(),
                           "settings": bench.config, "fingerprint": model_print.to_json()}
            owner = owner_token()
            config = self.typed(config, bench, ctx)
            ctx.run_id = self.run_id = self.store.create_run(config.bench, config.model, asdict(config),
                                                             environment, owner)
            with self._holding(ctx, owner, meter):
                return self._execute(ctx.run_id, owner, config, bench, ctx, items, meter)

    def resume(self, ref: str, model: Any = None) -> Run:
        """Continue an interrupted or failed run (`latest`: the latest such run) from its stored config; finished
        items are not recomputed (a finished run is returned as it is). A run another process holds is refused."""
        run = self.store.latest_resumable() if ref == "latest" else self.store.get(ref)
        if run.status == "finished":
            self.say(f"run {run.id} is already finished")
            return run
        meter, owner = Meter(), owner_token()
        config = RunConfig.from_json(run.config)
        if model is not None and not config.model.startswith(IN_MEMORY):
            raise RobustError(f"run {run.id} was computed with the model {config.model}; resume it without a model "
                              "(it is rebuilt from that spec)")
        self.store.refuse_if_held(run.id)  # before any model loads
        bench, ctx = self.build(config, run.id, model)
        stored = run.environment.get("fingerprint")  # runs stored before fingerprints: unchecked
        if stored:  # the same model, before any record is written (or the run touched)
            this = f"model {config.model}" if not config.model.startswith(IN_MEMORY) else "the model passed to resume"
            differs = self._fingerprint(config, ctx.model).difference(Fingerprint.from_json(stored), this)
            if differs:
                raise RobustError(f"cannot resume run {run.id}: {differs}")
        with _sigterm_interrupts():
            self.store.acquire(run.id, owner)
            self.run_id = run.id
            with self._holding(ctx, owner, meter):
                self.say(f"resuming run {run.id} ({run.status})")
                self._warn(config)
                meter.watch(ctx.model)
                items = self.plan(bench, ctx)
                return self._execute(run.id, owner, config, bench, ctx, items, meter)

    @staticmethod
    def _fingerprint(config: RunConfig, model: Any) -> Fingerprint:
        """The model's fingerprint: a Python object's is probed (its outputs checked), a spec's is its identity."""
        if not config.model.startswith(IN_MEMORY):
            return of_spec(model)
        probed = of_object(model, f"the model {config.model.removeprefix(IN_MEMORY)}")
        if probed.probe == "classify" and probed.labels is None:
            model.class_count = probed.width
        return probed

    def reduce(self, ref: str) -> Result:
        """Recompute a run's result from its stored records (no model calls)."""
        run = self.store.get(ref)
        config = RunConfig.from_json(run.config)
        bench = self.registry.get("benchmark", config.bench).create(**config.settings)
        ctx = RunContext(run.id, config.seed, None, self.registry, config.data, config.limit, config.attacks,
                         config.scorers, None, config.plugin_settings, config.model)
        return bench.bind(ctx).reduce(self.store.records(run.id), ctx)

    @contextlib.contextmanager
    def _holding(self, ctx: RunContext, owner: str, meter: Meter) -> Iterator[None]:
        """Hold the run's lease (renewed in the background) while the block runs; if it raises, end the run
        `interrupted` (Ctrl-C, SIGTERM) or `failed` (any error, with its one-line cause). Its helper models are let
        go of when it ends, either way."""
        run_id = ctx.run_id
        try:
            with Lease(self.store, run_id, owner):
                yield
        except KeyboardInterrupt as exc:
            how = "SIGTERM" if isinstance(exc, Interrupted) else "Ctrl-C"
            self.store.end(run_id, owner, "interrupted", meter.take(), f"stopped by {how}")
            raise
        except Interruption as exc:
            self.store.end(run_id, owner, "interrupted", meter.take(), one_line(exc))
            raise
        except BaseException as exc:
            self.store.end(run_id, owner, "failed", meter.take(), one_line(exc))
            raise
        finally:
            ctx.release_models()

    def _execute(self, run_id: str, owner: str, config: RunConfig, bench: Benchmark, ctx: RunContext,
                 items: list[WorkItem], meter: Meter) -> Run:
        """Compute the items without a record (committing each chunk, sized to take seconds, with its counters),
        reduce, end `finished`."""

        model = ctx.model
        done = self.store.done_ids(run_id)
        priced = {item.id: (bench.item_kind(item), bench.item_cost(item)) for item in items if item.id not in done}
        # every kind side by side, each over all its examples: the ETA's rates are measured, and soon
        todo = interleave([item for item in items if item.id in priced], lambda i: priced[i.id][0],
                          lambda i: priced[i.id][1], bench.item_group)
        estimate = Estimate(len(items), len(items) - len(todo), priced)
        with RunProgress(f"{bench.name} · {ctx.model_spec}", estimate, lambda: model.queries,
                         self.progress) as progress:

            def on_done(chunk: Any, records: list[dict[str, Any]], queries: int = 0,
                        peak_mb: float | None = None) -> None:
                model.cache.misses += queries  # queries of the model's replicas on remote workers
                self.store.add_records(run_id, owner, [(item.id, rec) for item, rec in zip(chunk, records)],
                                       meter.take(remote_peak_mb=peak_mb))
                progress.advance(item.id for item in chunk)

            # workers rebuild the run from its config, writing files where this process would
            stored_config = {**asdict(config), "out": str(ctx.out_dir) if ctx.out_dir else None}
            job = Job(run_id, stored_config, bench.chunk_size, lambda chunk: bench.run_batch(chunk, ctx), model)
            self.executor.run(job, todo, on_done)
        stored = self.store.records(run_id)  # in the order the chunks were committed: made the plan's here
        stored = {i.id: stored[i.id] for i in items if i.id in stored}
        result = bench.reduce(stored, ctx)
        counted = meter.take()
        result.summary.setdefault("items", len(stored))
        result.summary["model_queries"] = self.store.counters(run_id)[0] + counted.queries
        notes = model.run_notes()
        if notes:  # this process's part: a resumed run counts what happened since it resumed
            result.summary.update({f"model.{key}": value for key, value in notes.items()})
            self.say("model: " + ", ".join(f"{key.replace('_', ' ')} {value:g}" for key, value in notes.items()))
        self.store.end(run_id, owner, "finished", counted, result=result.to_json())
        self.ended = (run_id, stored)
        return self.store.get(run_id)

    def _warn(self, config: RunConfig) -> None:
        """Warn of the plugin clashes (and broken plugins) that concern this run's names, not of every one."""
        typed = [config.bench, config.model.partition(":")[0], config.data or "", *config.attacks, *config.scorers]
        named = self._named(config)
        if config.data and self.registry.has("dataset", config.data):
            named.append(self.registry.get("dataset", config.data))
        for line in self.registry.notices_for(typed, named):
            self.warn(line)

    def _origins(self, config: RunConfig) -> dict[str, str]:
        """Qualified name and origin of every plugin the run names."""
        return {e.qualified: e.origin for e in self._named(config)}

    def _named(self, config: RunConfig) -> list[Entry]:
        """Every plugin the run names: its benchmark, model, attacks' transforms and attackers, scorers."""
        named = [self.registry.get("benchmark", config.bench)]
        if not config.model.startswith(IN_MEMORY):
            named.append(self.registry.model_entry(config.model)[0])
        for spec in attack_specs(config.attacks, self.registry):
            named += [e for e in (spec.attacker, spec.transform) if e is not None]
        named += [self.registry.get("scorer", s) for s in config.scorers]
        return named
