"""The five interfaces every method is built from, plus the `Benchmark` that composes them.

Modules defining plugins must not import torch or transformers at module level: `robust list` imports
every plugin module and must stay fast. Import heavy libraries inside methods.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from robust.core.settings import resolve_settings

if TYPE_CHECKING:
    import numpy as np

    from robust.core.context import RunContext
    from robust.core.results import Result


# Capabilities a ModelAdapter may declare and a Benchmark/Attacker may need.
CAPABILITIES = {
    "embed": "texts -> vectors (ndarray[n, d])",
    "classify": "texts -> class probabilities (ndarray[n, k])",
    "logprobs": "texts -> per-token log-probabilities",
    "next_token_distribution": "texts or token ids -> next-token probabilities (ndarray[n, V]), also at the last L "
    "positions (token_distributions)",
    "generate": "prompts -> continuations (seeded)",
    "fill_mask": "texts with a mask token -> ranked substitutes",
    "gradients": "texts -> input-embedding gradients of the loss",
    "tokenize": "texts -> the model's token ids",
    "embed_arrays": "arrays -> vectors (ndarray[n, d])",
}


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
    """What every registered thing has: a name, a one-line description and typed settings."""

    kind: ClassVar[str] = "plugin"
    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: model capabilities this plugin needs (see CAPABILITIES)
    needs: ClassVar[frozenset[str]] = frozenset()
    #: setting name -> default; `--set key=value` is coerced to the default's type
    settings: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, **config: Any) -> None:
        self.config: dict[str, Any] = resolve_settings(self.name, self.settings, config)


class DataGenerator(Plugin):
    """Yields `Example`s: a dataset file, a lexicon, a corpus split into passages, a synthetic generator."""

    kind = "dataset"

    def examples(self, seed: int = 0) -> Iterator[Example]:
        """All examples, deterministic for a seed."""
        raise NotImplementedError


class Transform(Plugin):
    """One perturbation family: pure text in, text out, no model. Has its own degree measure.

    `apply` is one random draw (rule-based access: random positions); `edit` is one unit edit at a chosen
    word, which model-guided attackers (greedy by saliency) call in the order they choose.
    """

    kind = "attack"
    #: what the degree counts: 'char' (relative edit distance), 'word' (word modification rate),
    #: 'sentence' (1 - cosine similarity of sentence embeddings)
    unit: ClassVar[str] = "word"

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        """The variants of one random draw at (at most) `degree` (usually one)."""
        raise NotImplementedError

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        """`text` with one unit edit at whitespace word `index` (None if impossible there)."""
        raise NotImplementedError

    def measure(self, original: str, perturbed: str) -> float:
        """The degree of perturbation between two texts (0 = identical)."""
        raise NotImplementedError


class Attacker(Plugin):
    """A search that queries a model under a budget to find a perturbation that changes its output."""

    kind = "attack"
    needs = frozenset({"classify"})

    def attack(
        self, example: Example, model: ModelAdapter, degree: float, rng: np.random.Generator
    ) -> list[Example]:
        """Adversarial copies of `example` found with the model's help, within `degree`."""
        raise NotImplementedError


class Scorer(Plugin):
    """Turns model outputs (and labels) into named numbers."""

    kind = "scorer"

    def score(self, *args: Any, **kwargs: Any) -> dict[str, float]:
        """Named metric values."""
        raise NotImplementedError


class Benchmark(Plugin):
    """Declares what it needs, expands its config into work items, and reduces item records to a result."""

    kind = "benchmark"
    #: whether `--attack` names are meaningful for this benchmark
    accepts_attacks: ClassVar[bool] = False
    #: items handed to `run_batch` at once (records are committed after each batch)
    chunk_size: ClassVar[int] = 1

    def prepare(self, ctx: RunContext) -> None:
        """Heavy one-time setup before items are computed (load data, build resources)."""

    def required_capabilities(self, ctx: RunContext) -> frozenset[str]:
        """Capabilities the model must have for this run (default: `needs`)."""
        return self.needs

    def items(self, ctx: RunContext) -> Sequence[WorkItem]:
        """Every work item of this run, in a deterministic order with stable ids."""
        raise NotImplementedError

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

    @classmethod
    def compare(cls, results: Sequence[tuple[str, Result]]) -> Result | None:
        """A comparison of several runs of this benchmark (label, result); None if not supported."""
        return None


class ModelAdapter(Plugin):
    """The only thing that touches a model. Public methods batch, sort by length and cache;
    subclasses implement the underscored one-batch methods for the capabilities they declare."""

    kind = "model"
    capabilities: ClassVar[frozenset[str]] = frozenset()
    settings: ClassVar[Mapping[str, Any]] = {"batch_size": 32}

    def __init__(self, arg: str = "", **config: Any) -> None:
        super().__init__(**config)
        from robust.core.model_cache import OutputCache

        self.arg = arg
        self.cache = OutputCache()

    # identity -------------------------------------------------------------------------------
    @property
    def identity(self) -> str:
        """A string that identifies the model's weights and options (cache key, run record)."""
        return f"{self.name}:{self.arg}" if self.arg else self.name

    def info(self) -> dict[str, Any]:
        """What the run record stores about this model."""
        return {"identity": self.identity, "capabilities": sorted(self.provides()), "config": self.config}

    def provides(self) -> frozenset[str]:
        """The capabilities this instance really has (a subset of the class's `capabilities`)."""
        return frozenset(self.capabilities)

    @property
    def queries(self) -> int:
        """Texts actually sent to the model so far (cache hits excluded)."""
        return self.cache.misses

    # public batched API -------------------------------------------------------------------
    def embed(self, texts: Sequence[str], pooling: str | None = None) -> np.ndarray:
        """Sentence vectors, ndarray[n, d]."""
        import numpy as np

        fn = lambda batch: self._embed(batch, pooling)  # noqa: E731
        return np.stack(self._batched(("embed", pooling), texts, fn))

    def classify(self, texts: Sequence[str]) -> np.ndarray:
        """Class probabilities, ndarray[n, k]."""
        import numpy as np

        return np.stack(self._batched(("classify",), texts, self._classify))

    def next_token_distribution(self, inputs: Sequence[str | Sequence[int]]) -> np.ndarray:
        """Next-token probabilities after each text (or token-id list), ndarray[n, V] float32."""
        import numpy as np

        return np.stack(self._batched(("next",), inputs, self._next_token_distribution))

    def token_distributions(
        self, inputs: Sequence[str | Sequence[int]], last: int | Sequence[int]
    ) -> list[np.ndarray]:
        """Next-token probabilities at each of the last L positions (the predictions of the last L tokens),
        ndarray[L, V] per input; `last` is one L for all inputs or one per input."""
        lasts = [last] * len(inputs) if isinstance(last, int) else list(last)
        pairs = [(x, n) for x, n in zip(inputs, lasts)]
        fn = lambda batch: self._token_distributions([x for x, _ in batch], [n for _, n in batch])  # noqa: E731
        return self.cache.map(("dists",), pairs, fn, int(self.config["batch_size"]), length=lambda p: len(p[0]))

    def logprobs(self, texts: Sequence[str | Sequence[int]]) -> list[np.ndarray]:
        """Log-probability of every predicted token given its prefix (ndarray[T-1] per text)."""
        return self._batched(("logprobs",), texts, self._logprobs)

    def generate(
        self, prompts: Sequence[str], max_new_tokens: int = 20, seed: int = 0, do_sample: bool = True
    ) -> list[str]:
        """Continuations of each prompt; sampling is seeded per prompt so batching never changes them."""
        key = ("generate", max_new_tokens, seed, do_sample)
        fn = lambda batch: self._generate(batch, max_new_tokens, seed, do_sample)  # noqa: E731
        return self._batched(key, prompts, fn)

    def fill_mask(self, texts: Sequence[str], top_k: int = 10) -> list[list[tuple[str, float]]]:
        """For each text with one mask token: the `top_k` (token, probability) substitutes, best first."""
        fn = lambda batch: self._fill_mask(batch, top_k)  # noqa: E731
        return self._batched(("fill", top_k), texts, fn)

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
        return self.cache.map(key, list(inputs), fn, int(self.config["batch_size"]))
