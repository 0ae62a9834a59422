"""One evaluation, from Python or the command line: `robust.run(...)` and `robust run` both come here.

A model is a spec (`minilm`, `hf:DIR`), a ModelAdapter, a callable `texts -> probabilities`, or an in-memory
transformers model (with its tokenizer); data is a path, a registered dataset, or rows in memory (a list of dicts, a
pandas DataFrame, a `datasets.Dataset`), which are written once to a content-addressed JSONL file beside the run
store so the run can be resumed and reproduced like any other.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robust.core.data import ROWS_SUFFIX
from robust.core.errors import Interruption, RobustError
from robust.core.interfaces import ModelAdapter
from robust.core.registry import Registry
from robust.core.results import Result
from robust.engine.runner import IN_MEMORY, RunConfig, split_settings
from robust.engine.store import Run, Store
from robust.toolkit.function_model import FunctionModel


@dataclass
class Evaluation:
    """A finished (or stored) run: its id, status, result and item records."""

    run: Run
    records: dict[str, dict[str, Any]] = field(repr=False)
    store: Path

    @property
    def id(self) -> str:
        return self.run.id

    @property
    def status(self) -> str:
        return self.run.status

    @property
    def result(self) -> Result:
        return Result.from_json(self.run.result or {})

    @property
    def summary(self) -> dict[str, Any]:
        return self.result.summary

    def to_json(self) -> dict[str, Any]:
        return {**self.run.to_json(), "store": str(self.store)}


def as_assignments(settings: Mapping[str, Any] | Sequence[str] | None) -> dict[str, Any]:
    """`--set` strings (`key=value`) or a mapping (`{"n": 100, "model.batch_size": 8}`) as one mapping."""
    from robust.core.settings import parse_assignments

    if settings is None:
        return {}
    if isinstance(settings, Mapping):
        return {str(k): v for k, v in settings.items()}
    if isinstance(settings, str):  # one `key=value`, as one --set
        settings = [settings]
    if not isinstance(settings, Sequence):
        raise RobustError(f"settings= takes a dict ({{'n': 100}}) or 'key=value' strings, not {settings!r} "
                          f"(a {type(settings).__name__})")
    return parse_assignments([str(s) for s in settings])


def _given(value: Any) -> bool:
    """Whether an argument of `robust.run` was given a value other than its default (None, empty, seed 0); a
    DataFrame is never compared (its `==` is element-wise)."""
    if value is None:
        return False
    if isinstance(value, (str, list, tuple, dict)):
        return bool(value)
    if isinstance(value, numbers.Number):
        return value != 0
    return True


def whole_number(name: str, value: Any) -> int | None:
    """A run argument given from Python (`limit=`, `seed=`, `batch_size=`) as an int (numpy's too), or one line
    naming it (the CLI's options are typed already)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RobustError(f"{name}= must be a whole number or None, not {value!r} (a {type(value).__name__})")
    return int(value)


def names(value: str | Sequence[str] | None) -> list[str]:
    """`"a,b"` or `["a", "b,c"]` -> `["a", "b", "c"]`."""
    if value is None:
        return []
    values = [value] if isinstance(value, str) else list(value)
    return [v.strip() for raw in values for v in str(raw).split(",") if v.strip()]


def model_object(model: Any, registry: Registry, settings: Mapping[str, Any] | None = None,
                 needs: frozenset[str] = frozenset()) -> ModelAdapter | None:
    """A ModelAdapter for a model given as a Python object (None for a spec string), with the `model.KEY` settings
    given (a ModelAdapter instance, already configured, takes none). A bare callable is a classifier, or an
    encoder `texts -> embeddings` for a benchmark that `needs` embed and not classify."""
    settings = dict(settings or {})
    if model is None or isinstance(model, str):
        return None
    if isinstance(model, ModelAdapter):
        if settings:
            raise RobustError(f"model settings ({', '.join(f'model.{k}' for k in settings)}) and batch size apply "
                              f"to a model named by a spec or a callable; configure the {type(model).__name__} "
                              "you passed instead")
        return model
    if isinstance(model, tuple) and len(model) == 2 and hasattr(model[0], "config"):
        return registry.get("model", "hf").target.from_objects(*model, **settings)
    if hasattr(model, "config") and hasattr(model, "forward"):  # a transformers model without its tokenizer
        return registry.get("model", "hf").target.from_objects(model, **settings)
    if callable(model):
        if "embed_arrays" in needs:  # its input's shape and normalisation are the user's to say
            raise RobustError("a function of arrays is wrapped with what it expects: robust.ArrayFunction(fn, "
                              "input_shape=(3, 32, 32), mean=..., std=...) (docs/synbench.md)")
        capability = "embed" if "embed" in needs and "classify" not in needs else "classify"
        return FunctionModel(model, capability, name=getattr(model, "__name__", "function"), **settings)
    raise RobustError(f"cannot use a {type(model).__name__} as a model: pass a spec such as 'minilm', a "
                      "ModelAdapter, a callable texts -> probabilities, or (transformers model, tokenizer)")


def data_spec(data: Any, directory: Path) -> str | None:
    """A path or dataset name as it is; rows in memory written once to `directory/<content hash>.jsonl`."""
    if data is None or isinstance(data, str):
        return data
    if isinstance(data, Path):
        return str(data)
    rows = _rows(data)
    if not rows:
        raise RobustError("data has no rows")
    text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True, default=_scalar) + "\n" for row in rows)
    path = directory / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}{ROWS_SUFFIX}"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{id(text)}.tmp")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)  # atomic: two processes writing the same rows write the same file
    return str(path)


def _rows(data: Any) -> list[dict[str, Any]]:
    if hasattr(data, "to_dict") and hasattr(data, "columns"):  # pandas DataFrame
        return data.to_dict("records")
    if hasattr(data, "to_list") and hasattr(data, "features"):  # datasets.Dataset
        return data.to_list()
    if isinstance(data, Sequence) and all(isinstance(row, Mapping) for row in data):
        return [dict(row) for row in data]
    raise RobustError(f"cannot read data from a {type(data).__name__}: pass a path, a dataset name, a list of "
                      "dicts, a pandas DataFrame or a datasets.Dataset")


def _scalar(value: Any) -> Any:
    """numpy scalars (pandas cells) as Python numbers."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def evaluate(bench: str | None = None, *, model: Any = None, data: Any = None, attack: Any = None,
             scorer: Any = None, settings: Any = None, limit: int | None = None, seed: int = 0,
             batch_size: int | None = None, out: str | None = None, store: str | Path | None = None,
             resume: str | None = None, executor: str = "in-process", address: str | None = None,
             workers: int | None = None, progress: bool = False, say: Callable[[str], None] | None = None,
             registry: Registry | None = None) -> Evaluation:
    """Run (or resume) a benchmark and return its stored run with its records; see `robust.run`."""
    from robust.core.plugins import get_registry
    from robust.engine.executor import make_executor
    from robust.engine.runner import Runner

    limit, batch_size = whole_number("limit", limit), whole_number("batch_size", batch_size)
    seed = whole_number("seed", seed) or 0  # None: the default seed, 0
    registry = registry or get_registry()
    warn = None if say else _warn_once
    say = say or (lambda line: None)
    the_store = store if isinstance(store, Store) else Store(store)
    if resume:
        stored = RunConfig.from_json((the_store.latest_resumable() if resume == "latest"
                                      else the_store.get(resume)).config)
        given = [name for name, value in (("bench", bench if bench != stored.bench else None), ("data", data),
                                          ("attack", attack), ("scorer", scorer), ("settings", settings),
                                          ("limit", limit), ("seed", seed), ("batch_size", batch_size), ("out", out))
                 if _given(value)]
        if given:
            raise RobustError(f"resume= continues a run as it was configured; drop {', '.join(f'{g}=' for g in given)}"
                              " (only model= may be given: the same model, for a run computed with a Python object)")
        if isinstance(model, str) and model and model != stored.model:
            raise RobustError(f"run {resume} was computed with the model {stored.model}, not {model}; resume it "
                              "without model= (it is rebuilt from its spec)")
        if _given(model) and not isinstance(model, str) and not stored.model.startswith(IN_MEMORY):
            raise RobustError(f"run {resume} was computed with the model {stored.model}, named by its spec; resume it "
                              "without model= (it is rebuilt from its spec and settings)")
        # an object is configured as it was when the run started
        model_settings = {**stored.model_settings, **({"batch_size": stored.batch_size} if stored.batch_size else {})}
    else:
        model_settings = split_settings(as_assignments(settings))[1]
        if batch_size:
            model_settings["batch_size"] = batch_size
    name = stored.bench if resume else bench
    needs = registry.get("benchmark", name).target.needs if name and registry.has("benchmark", name) else frozenset()
    instance = model_object(model, registry, model_settings, frozenset(needs))
    runner = Runner(registry, the_store, make_executor(executor, address=address, workers=workers), progress, say,
                    warn)
    try:
        if resume:
            run = runner.resume(resume, model=instance)
        else:
            run = runner.start(_config(registry, the_store, bench, instance, model, data, attack, scorer, settings,
                                       limit, seed, batch_size, out, say), model=instance)
    except (KeyboardInterrupt, Interruption) as exc:
        exc.run_id = runner.run_id  # type: ignore[attr-defined] - the run to resume ("" before one existed)
        raise
    except Exception as exc:  # raised as it was (the user's own model's error stays theirs), with the run it left
        _note_failed(exc, the_store, runner.run_id)
        raise
    ended, records = runner.ended
    return Evaluation(the_store.get(run.id), records if ended == run.id else the_store.records(run.id), the_store.path)


def _note_failed(exc: Exception, store: Store, run_id: str) -> None:
    """Say on an error that ended a run (its traceback's last line) which run it left `failed`, and how it resumes."""
    run = store.get(run_id) if run_id else None
    if run is None or run.status != "failed":
        return
    model = ", model=THE_MODEL" if run.model.startswith(IN_MEMORY) else ""
    with contextlib.suppress(AttributeError):  # add_note: Python 3.11+
        exc.run_id = run_id  # type: ignore[attr-defined]
        exc.add_note(f"robust: run {run_id} is stored as failed with the records it finished; once the cause is "
                     f"fixed, continue it with robust.run(resume={run_id!r}{model})")


class PluginWarning(UserWarning):
    """A clash among the installed plugins that concerns a run (`robust list` shows them all)."""


_warned: set[str] = set()


def _warn_once(line: str) -> None:
    """A plugin warning of a Python call without `say`: a `PluginWarning`, once per process."""
    import warnings

    if line not in _warned:
        _warned.add(line)
        warnings.warn(line, PluginWarning, stacklevel=2)


def _config(registry: Registry, store: Store, bench: str | None, instance: ModelAdapter | None, model: Any,
            data: Any, attack: Any, scorer: Any, settings: Any, limit: int | None, seed: int,
            batch_size: int | None, out: str | None, say: Callable[[str], None]) -> Any:
    """The RunConfig of a new run, the default model chosen (and said) when none is given."""
    if not bench:
        raise RobustError("missing the benchmark; see `robust list benchmarks`")
    target = registry.get("benchmark", bench).target  # fails fast with did-you-mean
    bench_settings, model_settings, plugin_settings = split_settings(as_assignments(settings))
    spec = model if isinstance(model, str) and model else None
    data_ref = data_spec(data, store.path.parent / "data")
    if instance is None and spec is None:
        chosen = target.default_model_for(data_ref, bench_settings)
        if not chosen:
            raise RobustError(f"benchmark {bench!r} has no default model; pass a model")
        spec, defaults = chosen
        model_settings = {**defaults, **model_settings}
        told = "".join(f" --set model.{k}={v}" for k, v in defaults.items())
        say(f"no model given: using {spec}{told}, the default model of {bench}"
            + (" for this data" if defaults else ""))
    if instance is not None:
        spec = IN_MEMORY + instance.identity
    return RunConfig(bench=bench, model=spec, data=data_ref or target.default_data, limit=limit, seed=seed,
                     attacks=names(attack), scorers=names(scorer), batch_size=batch_size, settings=bench_settings,
                     model_settings=model_settings, plugin_settings=plugin_settings, out=out)
