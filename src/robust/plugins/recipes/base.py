"""What the three recipes share: the two modes, the goal, the query budget, and running their searches
batched over examples.

Each recipe writes its attack on one example as a search (robust.toolkit.search): a generator that yields texts
to classify and receives their probabilities. `drive` runs the searches of all examples of a call together, so
every step costs one `classify` call for all live examples (the model adapter caches outputs by text). A query
is a distinct text classified for an example, the original included; `drive` cuts a request to the prefix the
budget allows, so `AttackResult.queries <= budget` always holds.

Modes:
- `faithful` (default; Dang et al. 2024, §3.3, the ASR labels): the reference implementation's semantics.
  OpenAttack (PWWS, TextFooler, DeepWordBug): the goal is the model's own prediction on the original text
  (untargeted `ClassifierGoal(origin_pred)`), every example is attacked (misclassified ones too), texts are
  WordPunct tokens joined by single spaces, PWWS and TextFooler lower-case the input. TextAttack (DeepWordBug
  `variant=textattack`): the goal is the gold label (`Attack.attack(text, label)`), misclassified examples are
  skipped, words are replaced in place.
- `clean`: robust's own convention for every recipe: the goal is the gold label (the prediction when an
  example has none), an example the model already gets wrong is `skipped` (1 query, not attacked), and
  texts are edited in place (case, spacing and punctuation kept; substitutes take the word's case).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from robust import AttackResult, Example, ModelAdapter, RecipeAttacker, Setting, Transform, label_index
from robust.toolkit.search import Search, drive

if TYPE_CHECKING:
    import numpy as np

MODES = ("faithful", "clean")


@dataclass
class Found:
    """What one search ends with: the final text, whether the goal is reached, its status and its edits."""

    text: str
    success: bool = False
    status: str = "failed"  # succeeded | failed | budget | skipped
    edits: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Goal:
    """The class an attack moves away from (untargeted): reached when the argmax is another class."""

    target: int

    def reached(self, probs: np.ndarray) -> bool:
        return int(probs.argmax()) != self.target


class Recipe(RecipeAttacker):
    """Base of the native recipes: `search(text, gold, rng)` per example, driven together."""

    settings: ClassVar[Mapping[str, Any]] = {
        "mode": Setting("faithful", choices=MODES, help="faithful: the reference library's goal (the model's "
                        "own prediction), tokenization and casing; clean: goal = gold label, misclassified "
                        "examples skipped, texts edited in place"),
        "budget": Setting(None, item=int, min=1, help="max classify queries per example when the caller gives "
                          "none; none = no cap (asr-predict's spec budget is its own setting, 1000)"),
    }

    #: the implementation whose semantics `mode=faithful` follows
    reference: ClassVar[str] = ""

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._ready = False

    def semantics(self) -> str:
        if self.faithful:
            return (f"{self.reference}'s semantics (mode=faithful, as the ASR paper's labels: the goal is the model's "
                    "own prediction on the original, every example is attacked, texts are re-tokenized); --set "
                    f"{self.name}.mode=clean for the gold label as goal and texts edited in place")
        return (f"robust's clean semantics (the goal is the gold label, misclassified examples are skipped, texts "
                f"are edited in place); --set {self.name}.mode=faithful for {self.reference}'s")

    @property
    def faithful(self) -> bool:
        return self.config["mode"] == "faithful"

    def attack(self, examples: Sequence[Example], model: ModelAdapter, transform: Transform | None = None,
               degree: float | None = None, budget: int | None = None,
               rngs: Sequence[np.random.Generator] | None = None) -> list[AttackResult]:
        """One result per example; every step of every example in one `classify` call; at most `budget`
        distinct texts classified per example (None: the `budget` setting, whose None is no cap). `transform`,
        `degree` are ignored."""
        self.warm_up(model)
        if budget is None:
            budget = self.config["budget"]
        rngs = list(rngs) if rngs is not None else [self.ctx.rng(self.name, ex.id) for ex in examples]
        searches = self.searches(examples, [self.gold(model, ex) for ex in examples], rngs)
        outcomes = drive(searches, model.classify, budget, reserve=0, partial=True, helpers=self.helpers())
        return [AttackResult(ex.text, o.value.text, o.value.success, o.queries, o.value.status, o.value.edits,
                             [o.value.text]) for ex, o in zip(examples, outcomes)]

    def searches(self, examples: Sequence[Example], golds: Sequence[int | None],
                 rngs: Sequence[np.random.Generator]) -> list[Search]:
        """One search per example (a recipe whose examples depend on each other overrides this)."""
        return [self.search(ex.text, gold, rng) for ex, gold, rng in zip(examples, golds, rngs)]

    def gold(self, model: ModelAdapter, example: Example) -> int | None:
        """The gold class index, or None when the goal is the model's own prediction."""
        if self.goal_is_prediction() or example.label is None:
            return None
        return label_index(model, example.label)

    def goal_is_prediction(self) -> bool:
        """Whether the goal is the prediction on the original text (OpenAttack) rather than the gold label."""
        return self.faithful

    def warm_up(self, model: ModelAdapter | None = None) -> None:
        """Load what the recipe reads (word lists, WordNet, the encoder) once, before any query: a missing
        resource is one line before the attack starts (the `attack` benchmark calls this while preparing)."""
        if not self._ready:
            self.load()
            self._ready = True

    def load(self) -> None:
        """What `warm_up` loads (nothing by default)."""

    def helpers(self) -> dict[str, Callable[[list[str]], Any]]:
        """Helper channels its searches yield to (`(channel, texts)`), e.g. a sentence encoder."""
        return {}

    def search(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        raise NotImplementedError


def start(text: str, gold: int | None) -> Search:
    """The first step of every search: classify the original text and fix the goal. Returns (the original's
    probabilities, Goal), or (…, Found) to return at once: the budget allows no query, or (gold given) the model
    already gets the example wrong."""
    probs = yield [text]
    if probs is None or not len(probs):
        return None, Found(text, False, "budget")
    predicted = int(probs[0].argmax())
    if gold is not None and predicted != gold:
        return probs[0], Found(text, False, "skipped")
    return probs[0], Goal(predicted if gold is None else gold)


def token_edits(before: Sequence[str], after: Sequence[str]) -> list[dict[str, Any]]:
    """{"index", "before", "after"} for every token that changed (index = the recipe's token index)."""
    return [{"index": i, "before": a, "after": b} for i, (a, b) in enumerate(zip(before, after)) if a != b]
