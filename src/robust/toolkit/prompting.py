"""A prompted model (capability `instruction`) seen from its instruction, for benchmarks that perturb the prompt
(PromptBench's question, Zhu et al. 2023): RobTest's dimensions and the attack benchmark's searches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robust.core.interfaces import Attacker, AttackResult, Example, ModelAdapter, Transform
from robust.toolkit.lazy import np


class InstructionView(ModelAdapter):
    """`classify(instructions)`: the model's class probabilities for one fixed text under each instruction."""

    name = "instruction-view"
    capabilities = frozenset({"classify"})

    def __init__(self, model: ModelAdapter, text: str) -> None:
        super().__init__(model.identity)
        self.model, self.text, self.labels = model, text, model.labels

    def _classify(self, instructions: Sequence[str]) -> list[np.ndarray]:
        return [self.model.with_instruction(i).classify([self.text])[0] for i in instructions]


def search_instruction(attacker: Attacker, model: ModelAdapter, example: Example, transform: Transform | None,
                       degree: float, budget: int | None, rng: Any, ctx: Any) -> tuple[AttackResult, InstructionView]:
    """One search over the model's instruction with the example's text fixed: its result and the view it searched."""
    view = InstructionView(model, example.text).bind(ctx)
    found = attacker.attack([Example(example.id, model.instruction, example.label)], view, transform, degree,
                            budget, [rng])
    return found[0], view


def predict_pairs(model: ModelAdapter, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """The model's class for each (instruction, text), one batched call per distinct instruction."""
    by_instruction: dict[str, dict[str, None]] = {}  # distinct texts in order
    for instruction, text in wanted:
        by_instruction.setdefault(instruction, {})[text] = None
    out: dict[tuple[str, str], int] = {}
    for instruction, texts in by_instruction.items():
        classes = model.with_instruction(instruction).classify(list(texts)).argmax(1).tolist()
        out.update({(instruction, t): int(c) for t, c in zip(texts, classes)})
    return out
