"""The TextAttack side of the bridge; importing this module imports textattack (offline, see offline.py).

`AdapterWrapper` turns a robust ModelAdapter into a TextAttack ModelWrapper: every text goes through the
adapter's `classify`, i.e. robust's output cache, length-sorted batches and dynamic padding (TextAttack's
HuggingFaceModelWrapper pads every batch to the model's maximum length, 512 for BERT; TextAttack's
`HuggingFaceModelWrapper.__call__`). `RecipeRunner` builds a recipe once per model and attacks examples one by one with
TextAttack's own `Attack.attack`, seeding TextAttack's random sources per example, and converts each result.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robust import AttackResult, label_index
from robust.plugins.textattack.offline import import_textattack, no_downloads
from robust.plugins.textattack.recipes import Recipe
from robust.toolkit.lazy import np
from robust.toolkit.text import word_edits

textattack = import_textattack()
from textattack.attack_results import (  # noqa: E402
    FailedAttackResult,
    MaximizedAttackResult,
    SkippedAttackResult,
    SuccessfulAttackResult,
)
from textattack.models.wrappers import ModelWrapper  # noqa: E402
from textattack.shared.utils import set_seed  # noqa: E402

if TYPE_CHECKING:
    from robust import Example, ModelAdapter


@dataclass
class TextAttackResult(AttackResult):
    """An AttackResult that also names TextAttack's own result type."""

    textattack_result: str = ""


class AdapterWrapper(ModelWrapper):
    """A robust ModelAdapter as a TextAttack ModelWrapper (classification: class probabilities per text)."""

    def __init__(self, adapter: ModelAdapter) -> None:
        self.model = adapter  # TextAttack reads `model_wrapper.model` for its compatibility check

    def __call__(self, text_input_list: Sequence[str], **kwargs: Any) -> np.ndarray:
        return self.model.classify([str(t) for t in text_input_list])


def example_seed(rng: np.random.Generator) -> int:
    """The seed handed to TextAttack's `set_seed` (random, numpy and torch) for one example."""
    return int(rng.integers(0, 2**32 - 1))


def build_attack(recipe: Recipe, wrapper: ModelWrapper, params: dict[str, Any]) -> Any:
    """TextAttack's own recipe class builds the Attack (transformation, constraints, goal, search)."""
    import textattack.attack_recipes as recipes

    with no_downloads():
        return getattr(recipes, recipe.cls).build(wrapper, **params)


def convert(result: Any, budget: float) -> TextAttackResult:
    """TextAttack's AttackResult -> robust's: Successful -> succeeded, Skipped -> skipped, Failed -> failed
    (or budget when the query budget ran out), Maximized (input reduction: no success criterion) ->
    succeeded/failed by whether the prediction on the final text differs from the gold label."""
    first, last = result.original_result, result.perturbed_result
    original, perturbed = first.attacked_text.text, last.attacked_text.text
    kind = type(result).__name__
    if isinstance(result, SkippedAttackResult):
        return TextAttackResult(original, original, False, first.num_queries, "skipped", textattack_result=kind)
    if isinstance(result, SuccessfulAttackResult):
        success, status = True, "succeeded"
    elif isinstance(result, MaximizedAttackResult):
        success = last.output != last.ground_truth_output
        status = "succeeded" if success else "failed"
    elif isinstance(result, FailedAttackResult):
        success, status = False, "budget" if last.num_queries >= budget else "failed"
    else:
        raise TypeError(f"unknown TextAttack result type {kind}")
    return TextAttackResult(original, perturbed, success, last.num_queries, status, word_edits(original, perturbed),
                            [perturbed], textattack_result=kind)


class RecipeRunner:
    """One built recipe bound to one model."""

    def __init__(self, recipe: Recipe, model: ModelAdapter, params: dict[str, Any]) -> None:
        self.model = model
        self.attack = build_attack(recipe, AdapterWrapper(model), params)
        # the adapter batches (sorted by length, cached) itself: hand it every text of a goal-function call
        self.attack.goal_function.batch_size = 1 << 30

    def run(self, examples: Sequence[Example], budget: int | None,
            rngs: Sequence[np.random.Generator]) -> list[TextAttackResult]:
        cap = int(budget) if budget else math.inf  # TextAttack slices its query list with it: an int
        self.attack.goal_function.query_budget = cap
        out = []
        for example, rng in zip(examples, rngs):
            set_seed(example_seed(rng))
            result = self.attack.attack(example.text, label_index(self.model, example.label))
            out.append(convert(result, cap))
        return out
