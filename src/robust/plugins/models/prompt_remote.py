"""Class scores of a served LM (`prompt:api:MODEL`): the verbalizers' log-likelihoods from the endpoint, or, where it
only generates, its greedy answer parsed into a class.

The parser (`parse_answer`): the class whose verbalizer occurs first in the answer's first non-empty line as a whole
word, ignoring case ("Positive.", "The sentiment is positive" -> positive; at one position the longest verbalizer
wins; what a completion goes on to write after that line, such as the next review, is not read). An answer
naming no verbalizer is unparseable: it is counted (said when the run ends, stored in its summary as
`model.prompt_unparseable`) and scored as a guess, a class drawn from a hash of the text, never one default class.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from typing import Any

from robust import RobustError
from robust.toolkit.lazy import np

#: the score of a class the answer did not name (its probability underflows to 0 in the softmax)
UNNAMED = -1e9


def check_verbalizers(names: Sequence[str], words: Sequence[str], mode: str) -> None:
    """Distinct, non-empty verbalizers (compared without case where answers are parsed)."""
    seen: dict[str, str] = {}
    for name, word in zip(names, words):
        key = word.strip().lower() if mode == "answer" else word
        if not word.strip():
            raise RobustError(f"the verbalizer of class {name!r} is empty")
        if key in seen:
            raise RobustError(f"classes {seen[key]!r} and {name!r} have the same verbalizer ({word!r})")
        seen[key] = name


def parse_answer(answer: str, words: Sequence[str]) -> int | None:
    """The index of the verbalizer named first in `answer`'s first non-empty line (whole word, any case), None when
    none is named."""
    low = next((line for line in answer.lower().splitlines() if line.strip()), "")
    best: tuple[int, int, int] | None = None  # (position, -length, index)
    for k, word in enumerate(words):
        w = word.strip().lower()
        match = re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", low)
        if match and (best is None or (match.start(), -len(w)) < best[:2]):
            best = (match.start(), -len(w), k)
    return None if best is None else best[2]


class RemoteScorer:
    """Verbalizer log-likelihoods from a served LM's `loglikelihood`: context = the prompt up to the answer, each
    continuation = the answer prefix and one verbalizer."""

    def __init__(self, lm: Any, prefix: str, suffix: str, answers: Sequence[str]) -> None:
        self.lm, self.prefix, self.suffix, self.answers = lm, prefix, suffix, list(answers)

    def loglik(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(summed log-likelihoods, scored tokens), each ndarray[n, K]."""
        pairs = [(self.prefix + t + self.suffix, a) for t in texts for a in self.answers]
        scored = self.lm.loglikelihood(pairs)
        k = len(self.answers)
        logp = np.array([s.logprob for s in scored], dtype=float).reshape(len(texts), k)
        tokens = np.array([s.tokens for s in scored], dtype=float).reshape(len(texts), k)
        return logp, tokens

    def release(self) -> None:
        """Nothing is kept between queries."""


class AnswerScorer:
    """Class scores from a served LM's greedy answer: 0 for the class it names, UNNAMED for the others; an
    unparseable answer is a guess (a class drawn from a hash of the text), counted."""

    def __init__(self, lm: Any, prefix: str, suffix: str, words: Sequence[str], answer_tokens: int) -> None:
        self.lm, self.prefix, self.suffix, self.words = lm, prefix, suffix, list(words)
        self.answer_tokens = answer_tokens
        self._lock = threading.Lock()
        self.answered = self.unparseable = 0

    def loglik(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        answers = self.lm.generate([self.prefix + t + self.suffix for t in texts], self.answer_tokens, 0, False)
        scores = np.full((len(texts), len(self.words)), UNNAMED)
        missed = 0
        for i, (text, answer) in enumerate(zip(texts, answers)):
            k = parse_answer(answer, self.words)
            if k is None:
                missed += 1
                scores[i] = 0.0
                k = int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(self.words)
                scores[i, k] = 1e-6  # a guess: the argmax, by a hair
            else:
                scores[i, k] = 0.0
        with self._lock:
            self.answered += len(texts)
            self.unparseable += missed
        return scores, np.ones_like(scores)

    def notes(self) -> dict[str, float]:
        return {"prompt_answers": float(self.answered), "prompt_unparseable": float(self.unparseable)}

    def release(self) -> None:
        """Nothing is kept between queries."""
