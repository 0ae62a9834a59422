"""Resumable searches that many examples run together, one model call per round (`drive`), and the word
importance every score-based attack starts from (`leave_one_out`, `by_drop`).

A search is a generator. It yields the texts it needs classified and is sent their probabilities
(ndarray[n, k]); or it yields `(channel, texts)` for a helper function named in `drive(..., helpers=)` (a
sentence encoder, say), which is not a classify query and costs no budget. When its query budget is spent it
is sent None (it then returns what it has); with `partial=True` it may instead be sent the probabilities of a
prefix of its texts, the longest one the budget allows. Its return value is the outcome's `value`.

`drive` advances all searches at once: every round, one call per channel for the pending requests of every
unfinished search, so an attack over a batch of examples costs one `classify` call per step, not one per example.
Queries are counted per search as distinct texts (a text asked twice costs once; the model's cache serves it).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

Search = Generator[Any, Any, Any]
CLASSIFY = "classify"


@dataclass
class Outcome:
    """What a driven search returned, the distinct texts it had classified, and whether the budget stopped it."""

    value: Any = None
    seen: set[str] = field(default_factory=set)
    capped: bool = False

    @property
    def queries(self) -> int:
        """Distinct texts this search had classified."""
        return len(self.seen)

    @property
    def texts(self) -> list[str]:
        """The value of a search that returns a list of texts (RobTest's score-based generation)."""
        return self.value or []


def drive(searches: Sequence[Search], classify: Callable[[list[str]], Any], budget: int | None = None, *,
          reserve: int = 1, partial: bool = False,
          helpers: Mapping[str, Callable[[list[str]], Any]] | None = None) -> list[Outcome]:
    """Run searches together, one call per channel per round. With a `budget` (None: no cap; 0: no query at
    all), a search never has more than `budget - reserve` distinct texts classified (`reserve` texts are kept
    for checking its result afterwards): a request that would pass it is cut to the prefix that fits
    (`partial`) or refused (the search is sent None)."""
    helpers = dict(helpers or {})
    outcomes = [Outcome() for _ in searches]
    pending: dict[int, tuple[str, list[str]]] = {}
    for i, gen in enumerate(searches):
        _advance(i, gen, _START, pending, outcomes)
    while pending:
        if budget is not None:
            for i in [i for i, (ch, q) in pending.items() if ch == CLASSIFY]:
                fits = _fitting(outcomes[i].seen, pending[i][1], budget - reserve)
                if fits == len(pending[i][1]):
                    continue
                outcomes[i].capped = True
                if partial and fits:
                    pending[i] = (CLASSIFY, pending[i][1][:fits])
                else:
                    del pending[i]
                    _advance(i, searches[i], None, pending, outcomes)
            if not pending:
                break
        round_, pending = pending, {}
        for channel in dict.fromkeys(ch for ch, _ in round_.values()):
            order = [i for i, (ch, _) in round_.items() if ch == channel]
            texts = [t for i in order for t in round_[i][1]]
            if channel != CLASSIFY and channel not in helpers:
                raise ValueError(f"a search asked the helper channel {channel!r}, which drive(helpers=) was not given")
            outputs = classify(texts) if channel == CLASSIFY else helpers[channel](texts)
            pos = 0
            for i in order:
                query = round_[i][1]
                if channel == CLASSIFY:
                    outcomes[i].seen.update(query)
                _advance(i, searches[i], outputs[pos : pos + len(query)], pending, outcomes)
                pos += len(query)
    return outcomes


def leave_one_out(tokens: Sequence[str], mask: str, render: Callable[[Sequence[str]], str] = " ".join,
                  indices: Iterable[int] | None = None) -> list[str]:
    """The text with each token (or each of `indices`) replaced by `mask` in turn: the queries of leave-one-out
    word importance (RobTest's saliency, DeepWordBug's replace-one score, PWWS's saliency, TextFooler's
    importance). `render` turns a token list back into text (default: joined by single spaces; a text whose tokens
    keep the gaps between them, as the recipes' do, is faster through `masked_between`)."""
    out = []
    for i in range(len(tokens)) if indices is None else indices:
        masked = list(tokens)
        masked[i] = mask
        out.append(render(masked))
    return out


def single_spaces(n: int) -> tuple[str, ...]:
    """The gaps of `n` tokens joined by single spaces: none before the first and after the last."""
    return ("",) if n == 0 else ("", *(" ",) * (n - 1), "")


def masked_between(tokens: Sequence[str], gaps: Sequence[str], mask: str,
                   indices: Iterable[int] | None = None) -> list[str]:
    """`leave_one_out` of the text `gaps[0] + tokens[0] + gaps[1] + ... + tokens[-1] + gaps[-1]`: each text is the
    part before its token, the mask and the part after, each part built once for all positions (rendering each
    masked text whole took 61 µs a sentence of MR's through TextAttack's words, 82 through WordPunct's; this 11-13;
    joined by single spaces, the two cost the same)."""
    n = len(tokens)
    if len(gaps) != n + 1:
        raise ValueError(f"{len(gaps)} gaps around {n} tokens")
    before = [gaps[0]]
    for i in range(n - 1):
        before.append(before[i] + tokens[i] + gaps[i + 1])
    after = [gaps[n]] * n
    for i in range(n - 1, 0, -1):
        after[i - 1] = gaps[i] + tokens[i] + after[i]
    return [before[i] + mask + after[i] for i in (range(n) if indices is None else indices)]


def by_drop(probs: np.ndarray, target: int) -> list[int]:
    """Row positions of leave-one-out probabilities by ascending probability of class `target` (= the largest
    drop first), ties in position order."""
    import numpy as np

    return np.argsort(probs[:, target], kind="stable").tolist()


def _fitting(seen: set[str], query: list[str], limit: int) -> int:
    """Length of the longest prefix of `query` that keeps the distinct texts within `limit`."""
    new: set[str] = set()
    for n, text in enumerate(query):
        if text not in seen and text not in new:
            if len(seen) + len(new) + 1 > limit:
                return n
            new.add(text)
    return len(query)


_START = object()


def _advance(i: int, gen: Search, value: Any, pending: dict[int, tuple[str, list[str]]],
             outcomes: list[Outcome]) -> None:
    try:
        request = next(gen) if value is _START else gen.send(value)
        while True:
            channel, texts = request if isinstance(request, tuple) else (CLASSIFY, request)
            if texts:
                break
            request = gen.send(_empty())  # an empty request needs no call
        pending[i] = (channel, list(texts))
    except StopIteration as stop:
        outcomes[i].value = stop.value


def _empty() -> np.ndarray:
    import numpy as np

    return np.zeros((0, 0))
