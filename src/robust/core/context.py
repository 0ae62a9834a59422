"""What a plugin sees while it runs: the model under test, helper models, the registry, resources, seeds, data."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from robust.core.errors import RobustError, unknown
from robust.core.registry import Entry
from robust.core.seeding import derive_seed, rng_for

if TYPE_CHECKING:
    import numpy as np

    from robust.core.interfaces import ModelAdapter, Plugin
    from robust.core.registry import Registry


@dataclass
class RunContext:
    run_id: str
    seed: int
    model: ModelAdapter | None
    registry: Registry
    data: str | None = None
    limit: int | None = None
    attacks: list[str] = field(default_factory=list)
    scorers: list[str] = field(default_factory=list)
    out_dir: Path | None = None
    #: per-plugin settings from `--set NAME.key=value` (plugin name -> settings)
    plugin_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    model_spec: str = ""  # how the model under test was named (`--model`)
    #: the run store's directory (None outside a run): what a plugin keeps for resumed runs (a served model's
    #: answered requests) lives beside the runs
    store_dir: Path | None = None
    #: one-line notes for the user ("training the probe victim ... (once; cached)"): say what a step that may take
    #: more than a second is doing before it starts; the CLI prints them, outside a run they go nowhere
    say: Callable[[str], None] = field(default=lambda line: None, repr=False)
    _models: dict[str, ModelAdapter] = field(default_factory=dict, repr=False)
    _models_lock: Any = field(default_factory=threading.RLock, repr=False)  # the runner preloads

    @classmethod
    def default(cls) -> RunContext:
        """A context outside any run: the process registry, seed 0, no model under test."""
        from robust.core.plugins import get_registry

        return cls("", 0, None, get_registry())

    def seed_for(self, *parts: object) -> int:
        """The seed of an item (or any labelled random choice) in this run."""
        return derive_seed(self.seed, *parts)

    def rng(self, *parts: object) -> np.random.Generator:
        """A numpy Generator for an item id (or other labels) in this run."""
        return rng_for(self.seed, *parts)

    def create(self, kind: str, name: str | Entry, **config: Any) -> Any:
        """A registered plugin (by name, or the entry a name was resolved to once) configured with this run's
        `NAME.key=value` / `DIST:NAME.key=value` settings, then `config`, and bound here; a helper model setting
        that names no model is refused now, in one line (benchmarks create their plugins before a run exists)."""
        entry = name if isinstance(name, Entry) else self.registry.get(kind, name)
        plugin = entry.create(**{**self.settings_for(entry), **config}).bind(self)
        self._check_helpers(plugin)
        return plugin

    def _check_helpers(self, plugin: Plugin) -> None:
        """Each helper setting (`synonym.embedder=NAME`) names a model `load_model` can give (a registered one, the
        model under test, one this run holds already), unless an instance was given for it or it is empty where the
        helper is off by default (`contextual.mlm=''`); the helper loads at first use."""
        given = getattr(plugin, "given", lambda role: None)
        for role in getattr(plugin, "models", {}):
            spec, default = plugin.config.get(role), getattr(plugin.settings.get(role), "default", None)
            if (given(role) is not None or not isinstance(spec, str) or (not spec.strip() and default == "")
                    or (self.model is not None and spec == self.model_spec) or spec in self._models):
                continue
            try:
                self.registry.model_entry(spec)
            except RobustError as exc:
                raise RobustError(f"setting {plugin.name}.{role}={spec!r}: {exc}") from None

    def settings_for(self, entry: Entry) -> dict[str, Any]:
        """The user's `--set` values for a plugin: under its bare name (when that name means it), then its
        qualified one."""
        return self.registry.settings_of(entry, self.plugin_settings)

    def load_model(self, spec: str, needs: Iterable[str] = (), user: str = "") -> ModelAdapter:
        """A helper model by spec (`minilm`, `hf:DIR`), one instance per spec per run; the model under test
        is reused when the spec names it. Its capabilities are checked on the instance."""
        with self._models_lock:
            if self.model is not None and spec == self.model_spec:
                model = self.model
            elif spec in self._models:
                model = self._models[spec]
            else:
                self.say(f"loading the helper model {spec}" + (f" for {user}" if user else ""))
                entry, arg = self.registry.model_entry(spec)  # `--set NAME.key=value` configures it (api.base_url)
                config = self.settings_for(entry)
                if "max_padding" in entry.settings:  # a helper measures: its output for a text is the text's alone,
                    config = {"max_padding": 0.0, **config}  # whichever texts a chunk batched beside it
                model = self._models[spec] = entry.create(arg, **config) if arg else entry.create(**config)
                model.bind(self)
        missing = set(needs) - set(model.provides())
        if missing:
            raise RobustError(f"{user or 'a plugin'} needs a model that can {', '.join(sorted(missing))}; "
                              f"{spec!r} offers only {', '.join(sorted(model.provides())) or 'nothing'}")
        return model

    def release_models(self) -> None:
        """Let go of the helper models this run loaded (the run has ended). Each is bound to this context, which
        holds it: a reference cycle, which the model under test (bound here too, and kept by its user) would keep
        alive until the next full garbage collection, a copy of every helper beside the next run's."""
        with self._models_lock:
            self._models.clear()

    def resource(self, name: str) -> Path:
        """The path of a registered resource (WordNet, MR, ...), or a one-line MissingResource."""
        return self.create("resource", name).locate()

    def open_data(self, spec: str | None = None, **options: Any) -> Plugin:
        """A DataGenerator for a file/directory path (the registered `file` dataset, configured by `options`:
        `text_column`, `label_column`, ...; the user's own `--set file.KEY=VALUE` win over a benchmark's) or a
        registered dataset name (the one data path)."""
        spec = spec or self.data or ""
        if not spec:
            raise RobustError("no data given; pass --data FILE or a registered dataset (`robust list datasets`)")
        if Path(spec).exists():
            entry = self.registry.get("dataset", "file")
            return self.create("dataset", entry, **{**options, **self.settings_for(entry), "path": spec})
        if self.registry.has("dataset", spec):
            return self.create("dataset", spec)
        raise RobustError(f"no such file: {spec}; " + str(unknown("dataset", spec, self.registry.names("dataset"))))
