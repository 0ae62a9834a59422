"""robust's public surface, Plugin API 1.0: everything a plugin author or a notebook user needs, importable from
`robust` itself (`from robust import Transform, Setting, run`). Anything imported from deeper modules
(`robust.core.*`, `robust.engine.*`, `robust.toolkit.*`, `robust.plugins.*`) is internal and may change in any
release; the names here change only under the deprecation rule of docs/plugins.md ("Stability")."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from robust.core.context import RunContext
from robust.core.errors import Interruption, MissingResource, RobustError, unknown
from robust.core.hookspecs import hookimpl
from robust.core.interfaces import (
    CAPABILITIES,
    Attacker,
    AttackResult,
    Benchmark,
    DataGenerator,
    Example,
    ModelAdapter,
    Plugin,
    RecipeAttacker,
    Resource,
    Scorer,
    SearchAttacker,
    Transform,
    WorkItem,
    add_scores,
    check_pairing,
    summarize_scores,
)
from robust.core.labels import label_index
from robust.core.locations import cache_dir
from robust.core.plugins import get_registry as registry
from robust.core.plugins import register_plugin, unregister_plugin
from robust.core.registry import Entry, Registry
from robust.core.results import ReportParts, Result, Sample, SampleGroup, Table
from robust.core.seeding import derive_seed, rng_for
from robust.core.settings import Setting
from robust.engine.attacks import AttackSpec, attack_specs
from robust.toolkit.data import content_hash, held_out_examples, load_examples, open_data, same_data
from robust.toolkit.paths import package_dir
from robust.toolkit.reporting import default_headline, interval, num, pct, ranking, ranking_sentence
from robust.toolkit.transforms import WordTransform

if TYPE_CHECKING:  # imported on first use, below
    from robust.plugins.models.arrays import ArrayFunction
    from robust.toolkit.figures import Strip, ranking_figure, strips_figure
    from robust.toolkit.function_model import FunctionModel
    from robust.toolkit.stats import bootstrap, proportion_se, wilson
    from robust.toolkit.text import changed_words, char_degree, word_edits, word_modification_rate, words

#: public names imported on first use (module `__getattr__`): the toolkit's figures, statistics and text helpers
#: are for running and reporting, and `robust list`, which imports every plugin module, must not pay for them
LAZY = {
    **dict.fromkeys(("Strip", "ranking_figure", "strips_figure"), "robust.toolkit.figures"),
    "FunctionModel": "robust.toolkit.function_model",
    "ArrayFunction": "robust.plugins.models.arrays",
    **dict.fromkeys(("bootstrap", "proportion_se", "wilson"), "robust.toolkit.stats"),
    **dict.fromkeys(("changed_words", "char_degree", "word_edits", "word_modification_rate", "words"),
                    "robust.toolkit.text"),
}


def __getattr__(name: str) -> Any:
    """A lazy public name (`LAZY`), imported at its first use and kept."""
    if name not in LAZY:
        raise AttributeError(f"module 'robust.api' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *LAZY})

#: the version of this surface: MAJOR changes only by the deprecation rule (docs/plugins.md, "Stability")
PLUGIN_API = "1.3"


def run(bench: str | None = None, *, model: Any = None, data: Any = None, attack: Any = None, scorer: Any = None,
        settings: Any = None, limit: int | None = None, seed: int = 0, batch_size: int | None = None,
        store: str | Path | None = None, out: str | None = None, resume: str | None = None,
        executor: str = "in-process", address: str | None = None, workers: int | None = None,
        progress: bool = False, say: Any = None) -> Any:
    """Run a benchmark (as `robust run` does) and return its `Evaluation`: `.id`, `.status`, `.result` (a Result),
    `.summary` and `.records` (item id -> record); the run is stored like the CLI's (`store`: the database path,
    default `$ROBUST_HOME/robust.db` or `./robust-runs/robust.db`).

    - `model`: a spec (`"minilm"`, `"hf:DIR"`), a ModelAdapter, a callable `texts -> probabilities`, or an
      in-memory transformers model with its tokenizer, `(model, tokenizer)`; None: the benchmark's default.
    - `data`: a path or registered dataset name, or rows in memory (a list of dicts, a pandas DataFrame, a
      `datasets.Dataset`; written once to a content-addressed JSONL file beside the store).
    - `attack`, `scorer`: a name or a list of names (`"typo"`, `["typo-M", "acme:leet"]`).
    - `settings`: `{"n": 100, "model.batch_size": 8, "typo-M.mode": "faithful"}` or `["n=100", ...]`.
    - `resume`: a run id (or `latest`) to continue; pass the same `model` object if it was one.
    - `executor`: `"in-process"` or `"ray"` (`pip install 'robust[ray]'`), with its `address` (`"auto"`: the running
      cluster; default: a local Ray started for the run) and `workers` (default: one per GPU, else one per CPU).
    - `say`: a callable receiving the one-line notes the CLI prints (the default model used, a resume, and
      `warning: ...` for each clash among the installed plugins that concerns this run's names); without it, those
      warnings are issued once per process (a `UserWarning`).
    """
    from robust.engine.evaluate import evaluate

    return evaluate(bench, model=model, data=data, attack=attack, scorer=scorer, settings=settings, limit=limit,
                    seed=seed, batch_size=batch_size, store=store, out=out, resume=resume, executor=executor,
                    address=address, workers=workers, progress=progress, say=say)


def write_report(run: Any, out: str | Path = "robust-reports", store: str | Path | None = None) -> list[Path]:
    """Write a finished run's report into `out`, as `robust report` does: a self-contained HTML page (headline, plots,
    tables, samples, configuration) and a Markdown summary; returns their paths. `run`: what `robust.run` returned,
    or a run id (or `latest`) in `store` (default: as `robust.run`'s)."""
    from robust.engine.store import Store
    from robust.report import write_run_report

    the_store = Store(getattr(run, "store", None) or store)
    stored = the_store.get(getattr(run, "id", run))
    return write_run_report(stored, the_store.records(stored.id), Path(out))


__all__ = [
    "CAPABILITIES", "PLUGIN_API", "AttackResult", "Attacker", "Benchmark", "DataGenerator", "Example",
    "FunctionModel", "Interruption", "MissingResource", "ModelAdapter", "Plugin", "RecipeAttacker", "ReportParts",
    "Resource", "Result", "RobustError", "RunContext", "Sample", "SampleGroup", "Scorer", "SearchAttacker", "Setting",
    "Strip", "Table", "Transform", "WorkItem", "add_scores", "bootstrap", "cache_dir", "changed_words",
    "char_degree", "default_headline", "derive_seed", "held_out_examples", "hookimpl", "interval", "label_index",
    "load_examples", "num", "open_data", "package_dir", "pct", "proportion_se", "ranking", "ranking_figure",
    "ranking_sentence", "register_plugin", "registry", "rng_for", "run", "strips_figure", "summarize_scores",
    "unregister_plugin", "wilson", "word_edits", "word_modification_rate", "words", "WordTransform",
    "check_pairing", "content_hash", "Entry", "Registry", "unknown", "AttackSpec", "attack_specs", "write_report",
    "ArrayFunction", "same_data",
]
