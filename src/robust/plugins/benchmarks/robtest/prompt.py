"""Perturbing the prompt, PromptBench's question (Zhu et al. 2023): RobTest's dimensions applied to the instruction
of a prompted model (`perturb=instruction`) or to its instruction and the input together (`perturb=both`).

The rule-based access draws `aug_num` perturbed instructions per dimension-tag and degree, the same for every
example (PromptBench evaluates one perturbed prompt on the whole dataset), so each instruction's prefix is encoded
once; with `both`, the k-th perturbed instruction is paired with the example's k-th perturbed input. A search
(score-based access) runs per example over the instruction's words, through `robust.toolkit.prompting`'s
`InstructionView`: the model seen from its instruction, with the example's text fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from robust import Example
from robust.plugins.benchmarks.robtest.rule import rule_variants

#: how a perturbed (instruction, input) pair is written in records and samples
PAIR = "{instruction} ⏎ {text}"


def instruction_variants(transform: Any, instruction: str, degree: float, draws: int, rng: Any) -> list[str]:
    """`draws` random perturbations of the instruction at `degree` (RobTest's rule access on the prompt)."""
    return rule_variants(transform, Example("instruction", instruction), degree, draws, rng)


def pairs(instructions: Sequence[str], inputs: Sequence[str]) -> list[tuple[str, str]]:
    """The k-th perturbed instruction with the k-th perturbed input (the shorter list taken round again)."""
    n = max(len(instructions), len(inputs))
    return [(instructions[k % len(instructions)], inputs[k % len(inputs)]) for k in range(n)]
