"""Score-based generation (Chen et al. 2023, §2.2) as resumable searches that many items can run together.

A search is a generator: it yields the texts it needs classified and receives their probabilities
(ndarray[n, k]), or None when its query budget is spent (it then returns what it has); it returns the list of
generated variants. `robust.toolkit.search.drive` advances many searches at once, so every round of every item in a
batch costs one `classify` call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from robust.toolkit.draws import draws_for, same_state
from robust.toolkit.search import Outcome, Search, by_drop, drive, leave_one_out
from robust.toolkit.text import budget, join, levenshtein, words
from robust.toolkit.transforms import measured

if TYPE_CHECKING:
    import numpy as np

    from robust import Transform

__all__ = ["DEGREE", "End", "GreedyConfig", "Outcome", "Search", "drive", "expected_queries", "greedy_degrees",
           "greedy_search", "search_degrees", "search_for", "search_helpers", "sentence_degrees", "sentence_search"]


@dataclass(frozen=True)
class GreedyConfig:
    """Knobs of the greedy search; defaults are RobTest's code constants (RobTest's code, ModelBased/searching.py)."""

    ratio: float = 0.15  # batch_ratio: share of words edited per saliency round
    mask_token: str = "[MASK]"  # literal mask text, as in searching.py
    faithful: bool = False  # code quirks: char-Levenshtein stop for word units, t kept across draws
    draws: int = 1  # aug_num in faithful mode (draws continue from the previous text)
    stop_on_flip: bool = False  # optional early stop when the prediction changes (not in the code)
    candidates: int = 15  # sentence-level: candidates per step
    max_steps: int = 10  # sentence-level: max_trial


def saliency_queries(text: str, mask_token: str) -> list[str]:
    """[text] + text with each word replaced by the mask (RobTest's code, ModelBased/searching.py `saliency_order`)."""
    return [text, *leave_one_out(words(text), mask_token, join)]


def saliency_order(probs: np.ndarray, target: int | None = None) -> tuple[list[int], int]:
    """Word positions by ascending probability of `target` when masked (= largest drop first; the code sorts
    raw logits, we only see probabilities), and the prediction on the unmasked text. `target`: the gold class
    (clean mode), or None for the prediction on the unmasked text (the authors' code, faithful mode)."""
    import numpy as np

    predicted = int(np.argmax(probs[0]))
    return by_drop(probs[1:], predicted if target is None else target), predicted


def stop_measure(transform: Transform, original: str, faithful: bool) -> Callable[[str], float]:
    """The degree that ends the greedy search: the code's Lev(lower)/N (N = chars for unit 'char', words
    otherwise) when faithful (RobTest's code; docs/robtest.md), else the transform's own measure (docs/robtest.md)."""
    if not faithful:
        return lambda text: transform.measure(original, text)
    n = len(original) if transform.unit == "char" else len(words(original))
    low = original.lower()
    return lambda text: levenshtein(low, text.lower()) / max(n, 1)


def expected_queries(unit: str, text: str, degree: float, config: GreedyConfig = GreedyConfig()) -> int:
    """The model queries `search_for` is expected to send to reach `degree` (the ETA's cost): saliency rounds of
    (words + 1) texts. The k = ⌈N·d⌉ edits the degree needs (N in characters for unit 'char', else words) come
    ⌈ratio · words⌉ a round, and the search stops after ⌊3k / per round⌋ rounds: a word-unit search edits each
    word once and takes ⌈k / per round⌉ rounds; a char-unit one re-edits the salient words, whose edits then add
    less than a character, and mostly runs to the cap (typo-M on MR-like sentences: 0.4-1x the cap at d = 0.05,
    ~1x from d = 0.3). A sentence-level search: `max_steps` steps of `candidates` texts. The difference between
    two degrees is what a search sharing its path across an example's degrees (the output cache) adds."""
    if unit == "sentence":
        return 1 + config.max_steps * config.candidates if degree > 0 else 0
    s = text.strip()
    n_words = len(words(s))
    per_round = math.ceil(n_words * config.ratio)
    if not per_round:
        return 0
    k = budget(len(s) if unit == "char" else n_words, degree)
    cap = int(k * 3 / per_round)
    return (cap if unit == "char" else min(math.ceil(k / per_round), cap)) * (n_words + 1)


def greedy_search(transform: Transform, text: str, degree: float, rng: np.random.Generator,
                  config: GreedyConfig = GreedyConfig(), gold: int | None = None) -> Search:
    """Greedy by word saliency for char/word units (Chen et al. 2023, §2.2): every round, mask-score all words of the
    current text and edit the top 15 % in order until the degree is reached or the rounds run out.
    Saliency is measured on the `gold` class when given (clean), else on the prediction (faithful)."""
    ends = yield from _greedy(transform, text, [degree], rng, config, gold)
    return ends[0].texts


@dataclass(frozen=True)
class End:
    """Where the search for one degree ended: its variants and the distinct texts it had classified (its
    variants included: the final check's query)."""

    texts: list[str]
    queries: int


def greedy_degrees(transform: Transform, text: str, degrees: list[float], rng: np.random.Generator,
                   config: GreedyConfig = GreedyConfig(), gold: int | None = None) -> Search:
    """The greedy searches of one text at several degrees, as one search: with the same generator stream the search
    at degree d is a prefix of the search at d' > d (it stops at a weaker test or an earlier round cap), so one path
    to the largest degree, ended for each degree where its own search would end, writes what the separate searches
    write, with each query asked once. Clean mode (one draw) without a query budget only; returns one `End` per
    degree."""
    if config.faithful:
        raise ValueError("greedy_degrees: clean mode only (faithful draws continue from the previous text)")
    return (yield from _greedy(transform, text, degrees, rng, config, gold))


def _greedy(transform: Transform, text: str, degrees: list[float], rng: np.random.Generator, config: GreedyConfig,
            gold: int | None) -> Search:
    s = text.strip()
    source = words(s)
    n_words = len(source)
    skip_edited = not config.faithful and transform.unit == "word"  # clean: a word is edited once
    editable: Sequence[bool] | None = None  # the words `edit` can change (None: all), asked at the first edits
    asked = False  # (a search that ends before any edit asks nothing)
    n = len(s) if transform.unit == "char" else n_words
    per_round = math.ceil(n_words * config.ratio)
    # max rounds = int(k*3/B), per degree
    caps = [int(budget(n, d) * 3 / per_round) if per_round else 0 for d in degrees]
    measure = stop_measure(transform, s, config.faithful)
    ends: dict[int, End] = {}
    seen: set[str] = set()

    def end(t: str, rounds: int | None = None) -> bool:
        """End the degrees whose search ends at `t` (reached, or `rounds` at their cap); True when none is left."""
        achieved = None
        for i, d in enumerate(degrees):
            if i in ends:
                continue
            if rounds is not None and rounds >= caps[i] or (achieved := measure(t) if achieved is None
                                                              else achieved) >= d:
                ends[i] = End([t], len(seen) + (t not in seen))
        return len(ends) == len(degrees)

    t, out, first, spent = s, [], None, False
    scored, probs = None, None  # the text whose saliency `probs` holds
    for _ in range(config.draws if config.faithful else 1):
        start, rounds = t, 0
        ends.clear()  # faithful: each draw continues from the previous text, rounds counted afresh
        while not end(t, rounds):
            if t != scored:  # a round that left the text as it was is scored again by the same texts, all seen
                queries = saliency_queries(t, config.mask_token)
                probs = yield queries
                if probs is None:  # the query budget is spent
                    spent = True
                    break
                seen.update(queries)
                scored = t
            rounds += 1
            order, predicted = saliency_order(probs, gold)
            first = predicted if first is None else first
            if config.stop_on_flip and predicted != (first if gold is None else gold):
                break
            # faithful: try the top B positions (failures included); clean: the first B positions that
            # take a new edit (docs/attacks.md; budget = successful edits; words edited once for unit 'word')
            candidates = order[:per_round] if config.faithful else order
            done = 0
            if not asked:
                editable, asked = transform.editable(s), True
            track = skip_edited or editable is not None  # the current words are needed
            current = words(t) if track else []
            state = rng.bit_generator.state  # nothing drawn this round: the same state after it
            with draws_for(rng, transform.integer_draws) as draws:  # this round's edits
                for j in candidates:
                    if done >= per_round:
                        break
                    if len(current) == len(source) and (skip_edited and current[j] != source[j]
                                                        or editable is not None and not editable[j]):
                        continue  # word j already differs from the original, or has no edit
                    c = transform.edit(t, j, draws, s)
                    if c is None or c == t:
                        continue
                    t, done = c, done + 1
                    current = words(t) if track else current
                    if end(t):
                        break
            if not done and same_state(state, rng.bit_generator.state):
                # nothing edited and nothing drawn (no word left to try, or edits that fail without drawing): every
                # later round would ask the same texts (already seen) and fail the same way until the caps end the
                # degrees, where they are now
                rounds = max(caps)
        if len(degrees) > 1:  # clean: the loop above ended every degree, or the flip ended the rest
            end(t, rounds=max(caps))
            return [ends[i] for i in range(len(degrees))]
        if t not in out:
            out.append(t)
        if spent or measure(t) >= degrees[0] or t == start:  # later draws would return the same text
            break
    return [End(out, len(seen | set(out)))]


def sentence_search(transform: Transform, text: str, degree: float, rng: np.random.Generator,
                    config: GreedyConfig = GreedyConfig(), gold: int | None = None) -> Search:
    """Sentence-level score-based search (Chen et al. 2023, §2.2, Distraction): each step builds `candidates` edits of
    the current text and keeps the one with the lowest probability of the `gold` class (clean; faithful: of
    the prediction on the original); accept while the degree stays below d (cos > 1 - d), at most
    `max_steps` steps. Its degrees are asked on the DEGREE channel: drive it with `helpers=search_helpers(...)`."""
    ends = yield from _sentence(transform, text, [degree], rng, config, gold)
    return ends[0].texts


def sentence_degrees(transform: Transform, text: str, degrees: list[float], rng: np.random.Generator,
                     config: GreedyConfig = GreedyConfig(), gold: int | None = None) -> Search:
    """The sentence searches of one text at several degrees, as one search (as `greedy_degrees`): with the same
    generator stream the search at degree d is a prefix of the search at d' > d (it stops at an earlier step), so
    one path, ended for each degree where its own search would end, writes what the separate searches write, with
    each candidate drawn, classified and measured once. Without a query budget; returns one `End` per degree."""
    return (yield from _sentence(transform, text, degrees, rng, config, gold))


def _sentence(transform: Transform, text: str, degrees: list[float], rng: np.random.Generator, config: GreedyConfig,
              gold: int | None) -> Search:
    import numpy as np

    s = t = text
    ends: dict[int, End] = {}
    seen: set[str] = set()

    def end(reached: float | None = None) -> bool:
        """End the degrees that `reached` passes (None: all that are left) at `t`; True when none is left."""
        for i, d in enumerate(degrees):
            if i not in ends and (reached is None or reached >= d):
                ends[i] = End([t], len(seen) + (t not in seen))
        return len(ends) == len(degrees)

    target = gold
    if target is None:
        probs = yield [s]
        if probs is None:
            end()
            return [ends[i] for i in range(len(degrees))]
        seen.add(s)
        target = int(np.argmax(probs[0]))
    for _ in range(config.max_steps):
        at = len(words(t))
        with draws_for(rng, transform.integer_draws) as draws:
            cands = [c for c in (transform.edit(t, at, draws, s) for _ in range(config.candidates)) if c]
        if not cands:
            break
        probs = yield cands
        if probs is None:
            break
        seen.update(cands)
        best = cands[int(np.argmin(probs[:, target]))]
        (reached,) = yield DEGREE, [(s, best)]
        if end(reached):
            break
        t = best
    end()
    return [ends[i] for i in range(len(degrees))]


DEGREE = "degree"  # the `drive` channel of a sentence search's degrees: (original, text) pairs -> degrees


def search_helpers(transform: Transform) -> dict[str, Callable[[list[tuple[str, str]]], list[float]]]:
    """The helpers `drive` needs for `search_for`'s searches: the DEGREE channel, which measures the pairs that all
    searches of a round ask about at once (`measured`: a sentence transform's embeddings in one call)."""
    return {DEGREE: lambda pairs: measured(transform, pairs)}


def search_for(transform: Transform, text: str, degree: float, rng: np.random.Generator,
               config: GreedyConfig = GreedyConfig(), gold: int | None = None) -> Search:
    """The score-based search that fits the transform's unit."""
    fn = sentence_search if transform.unit == "sentence" else greedy_search
    return fn(transform, text, degree, rng, config, gold)


def search_degrees(transform: Transform, text: str, degrees: list[float], rng: np.random.Generator,
                   config: GreedyConfig = GreedyConfig(), gold: int | None = None) -> Search:
    """The searches of one text at several degrees as one path (`greedy_degrees`, `sentence_degrees`), by the
    transform's unit."""
    fn = sentence_degrees if transform.unit == "sentence" else greedy_degrees
    return fn(transform, text, degrees, rng, config, gold)
