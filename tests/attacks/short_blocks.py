"""A compiled walk whose stream blocks start at 5 outputs, for the tests that draws outrunning their block are read
again from the same state with a longer one (`robust.toolkit.typo_walk.replayed`)."""

from __future__ import annotations

import types
from typing import Any


def short_blocks(calls: list[int], **kernels: Any) -> Any:
    """The `typo_walk` module as a transform's draws see it: `kernels` (e.g. glyph_draws=typo_walk.glyph_draws) and a
    `replayed` that starts at a block of 5 outputs and appends each block's length to `calls`."""
    from robust.toolkit import typo_walk

    def replayed(rng: Any, size: int, run: Any) -> Any:
        return typo_walk.replayed(rng, 5, lambda stream, rs: calls.append(len(stream)) or run(stream, rs))

    return types.SimpleNamespace(replayed=replayed, **kernels)
