"""Rule-based generation (Chen et al. 2023, §2.2; RobTest's code): `aug_num` random draws of a Transform."""

from __future__ import annotations

from typing import TYPE_CHECKING

from robust import Example, Transform

if TYPE_CHECKING:
    import numpy as np


def rule_variants(transform: Transform, example: Example, degree: float, draws: int, rng: np.random.Generator,
                  dedupe: bool = True, drop_original: bool = True) -> list[str]:
    """Texts of `draws` calls of `transform.apply` at `degree` (`apply_many`), de-duplicated in order of appearance;
    the unperturbed text is dropped when anything else was produced (the code does this for Synonym,
    Contextual and Inflection). Degree 0 is the clean text."""
    if degree <= 0:
        return [example.text]
    texts: list[str] = []
    seen: set[str] = set()
    for variants in transform.apply_many(example, degree, rng, draws):
        for variant in variants:
            if not dedupe or variant.text not in seen:
                texts.append(variant.text)
                seen.add(variant.text)
    if drop_original and any(t != example.text for t in texts):
        texts = [t for t in texts if t != example.text]
    return texts or [example.text]
