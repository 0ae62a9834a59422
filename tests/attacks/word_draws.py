"""What a WordTransform's draws and edits write, to compare its `options` path with its `substitute` path."""

from __future__ import annotations

from typing import Any

import numpy as np

from robust import Example
from robust.toolkit.draws import Draws
from robust.toolkit.transforms import WordTransform, budget, words


def without_options(transform: WordTransform) -> WordTransform:
    """A transform of the same class and settings whose draws and edits ask `substitute` at every position."""
    plain = type(f"{type(transform).__name__}Plain", (type(transform),), {"options": lambda self, tokens: None})
    return plain(**{k: v for k, v in transform.config.items() if k not in transform.models})  # helpers by setting


def drawn(transform: WordTransform, text: str, degree: float, seed: int) -> list[Any]:
    """The texts and metadata of `apply_many` and `apply`, then of edits at every position (scalar draws, and from
    a `Draws` as the greedy search hands them), each edit of the previous text; and the generator's state after."""
    rng = np.random.default_rng(seed)
    out: list[Any] = [[(e.text, dict(e.meta)) for e in draw] for draw in
                      transform.apply_many(Example("x", text), degree, rng, 6)]
    out += [(e.text, dict(e.meta)) for e in transform.apply(Example("x", text), degree, rng)]
    current = text
    for draws in (rng, Draws(rng)):
        for index in range(len(words(text)) + 1):
            current = transform.edit(current, index, draws, text) or current
            out.append(current)
        if isinstance(draws, Draws):
            draws.close()
    return [*out, rng.bit_generator.state]


def assert_options_keep_the_draws(transform: WordTransform, texts: list[str], degrees=(0.1, 0.3, 0.7),
                                  seeds=range(4)) -> None:
    """The `options` path writes what the `substitute` path writes, and leaves the generator where it does; except
    where the draws' words are fixed (no word with two replacements, and the budget reaches every word changed): it
    then takes nothing from the generator. `texts` and `degrees` must hold draws of both kinds."""
    plain = without_options(transform)
    assert transform.options(words(texts[0])) is not None and plain.options(words(texts[0])) is None
    changed, kinds = False, set()
    for text in texts:
        for degree in degrees:
            source = words(text)
            fixed = transform._fixed(source, transform.options(source), budget(len(source), degree)) is not None
            kinds.add(fixed)
            for seed in seeds:
                fast, slow = drawn(transform, text, degree, seed), drawn(plain, text, degree, seed)
                assert fast[:-1] == slow[:-1]
                start = np.random.default_rng(seed).bit_generator.state
                assert fast[-1] == (start if fixed else slow[-1])
                changed = changed or fast[0][0][0] != text
    assert changed  # the draws edited something
    assert kinds == {True, False}
