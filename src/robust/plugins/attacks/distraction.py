"""Distraction (RobTest §2.9): append irrelevant content while the sentence embedding stays close.

Also home of `SentenceTransform`, the base of the sentence-level dimensions (Distraction, Syntax): degree
D_s = 1 − cos(E(x), E(x′)) with a lazily loaded sentence embedder (default the embedded `minilm`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from robust.core.errors import RobustError
from robust.core.interfaces import Example, Transform

if TYPE_CHECKING:
    import numpy as np

# RobTest's URL alphabet, verbatim (sic: no J/j, G/g twice) — spec §2.9
URL_CHARS = "ABCDEFGHIGKLMNOPQRSTUVWXYZabcdefghigklmnopqrstuvwxyz0123456789.?/"
# Naik et al. stress-test tautologies, verbatim from RobTest's code
STATEMENTS = ("and true is true", "and false is not true")
DISTRACTOR_TYPES = ("url", "statement", "wiki", "random")
_GLOSS_SKIP = {"as", "of", "in", "on", "to", "by", "for", "with", "at", "from", "someone", "people"}
_PUNCT_SPLIT = re.compile(r"([.!?][\s]*)")


class SentenceTransform(Transform):
    """A sentence-level transform measured by 1 − cos of sentence embeddings (spec §2.1, Appendix C).

    The embedder is any object with `embed(texts) -> ndarray[n, d]` (a ModelAdapter); pass one to the
    constructor or assign `.embedder` (tests), else it is built from the `embedder` setting on first use.
    """

    unit: ClassVar[str] = "sentence"

    def __init__(self, embedder: Any = None, **config: Any) -> None:
        super().__init__(**config)
        self._embedder = embedder

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from robust.core.plugins import get_registry

            self._embedder = get_registry().model(self.config["embedder"])
        return self._embedder

    @embedder.setter
    def embedder(self, model: Any) -> None:
        self._embedder = model

    def similarities(self, original: str, texts: list[str]) -> np.ndarray:
        """cos(E(original), E(t)) for every t."""
        import numpy as np

        vectors = np.asarray(self.embedder.embed([original, *texts]), dtype=np.float64)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors[1:] @ vectors[0]

    def measure(self, original: str, perturbed: str) -> float:
        # D_s = 1 − cos(x, x′) (spec §2.1); identical texts are exactly 0
        if original == perturbed:
            return 0.0
        return max(0.0, 1.0 - float(self.similarities(original, [perturbed])[0]))


@lru_cache(maxsize=1)
def frequent_words(n: int = 5000) -> tuple[str, ...]:
    """The n most frequent alphabetic English words (wordfreq)."""
    from wordfreq import top_n_list

    return tuple(w for w in top_n_list("en", n + 500) if w.isalpha())[:n]


@lru_cache(maxsize=4)
def wiki_sentences(pool: int = 100, seed: int = 0) -> tuple[str, ...]:
    """`pool` encyclopedia-style sentences from WordNet glosses ("Comedy is a light and humorous drama …").

    Stands in for RobTest's 100 WikiText-103 fragments (not available offline); fixed by `seed`.
    """
    import numpy as np

    from robust.core.paths import require_nltk

    require_nltk("corpora/wordnet", "wordnet")
    from nltk.corpus import wordnet as wn

    vocab = frequent_words(20000)[1000:]  # skip function words; keep encyclopedic nouns
    out: list[str] = []
    for i in np.random.default_rng(seed).permutation(len(vocab)):
        word = vocab[int(i)]
        synsets = wn.synsets(word, pos="n")
        if not synsets or synsets[0].lemma_names()[0].lower() != word:
            continue
        gloss = synsets[0].definition().split(";")[0].strip()
        first = gloss.split()[0] if gloss else ""
        if len(gloss.split()) < 4 or "  " in gloss or "(" in gloss or first in _GLOSS_SKIP:
            continue
        article = "" if gloss.split()[0] in {"a", "an", "the"} else ("an " if gloss[0] in "aeiou" else "a ")
        out.append(f"{word.capitalize()} is {article}{gloss}.")
        if len(out) == pool:
            break
    return tuple(out)


class Distraction(SentenceTransform):
    name = "distraction"
    dimension = "Distraction"
    description = "RobTest Distraction: append urls, tautologies, wiki-like sentences or random tokens"
    settings = {
        "embedder": "minilm",
        "mode": "clean",  # clean: append at the end with one space; faithful: RobTest's insertion (§2.9)
        "max_steps": 10,  # RobTest's max_trial
        "wiki_pool": 100,
        "types": ["url", "statement", "wiki", "random"],
    }

    def __init__(self, embedder: Any = None, **config: Any) -> None:
        super().__init__(embedder, **config)
        if self.config["mode"] not in {"clean", "faithful"}:
            raise RobustError(f"distraction.mode must be 'clean' or 'faithful', not {self.config['mode']!r}")
        unknown = set(self.config["types"]) - set(DISTRACTOR_TYPES)
        if unknown or not self.config["types"]:
            raise RobustError(f"distraction.types must be a subset of {','.join(DISTRACTOR_TYPES)}")

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, **self.config, "wiki_source": "WordNet 3.0 glosses",
                "random_source": "wordfreq top-5000 English words"}

    # distractors ------------------------------------------------------------------------------
    def distractor(self, kind: str, rng: np.random.Generator) -> str:
        """One distractor of a type (spec §2.9)."""
        if kind == "url":
            segments = ["".join(rng.choice(list(URL_CHARS), size=int(rng.integers(1, 6))))
                        for _ in range(int(rng.integers(1, 6)))]
            return "/".join(["https:/", *segments])
        if kind == "statement":
            return STATEMENTS[int(rng.integers(len(STATEMENTS)))]
        if kind == "wiki":
            pool = wiki_sentences(int(self.config["wiki_pool"]))
            return pool[int(rng.integers(len(pool)))]
        vocab = frequent_words()
        return " ".join(vocab[int(i)] for i in rng.integers(len(vocab), size=int(rng.integers(1, 6))))

    def insert(self, text: str, addition: str) -> str:
        if self.config["mode"] == "clean":  # spec §6 #11: append at the end with one space
            return f"{text.rstrip()} {addition}"
        # RobTest's code: before the first . ! ? with no space, and the rest of the text dropped
        parts = _PUNCT_SPLIT.split(text)
        if len(parts) == 1:
            return text + addition
        return parts[0] + addition + " " + parts[1]

    def add_random_distraction(self, text: str, rng: np.random.Generator) -> str:
        types = self.config["types"]
        return self.insert(text, self.distractor(types[int(rng.integers(len(types)))], rng))

    # Transform API ------------------------------------------------------------------------------
    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        # spec §2.9 rule-based loop: accept the previous candidate while cos(E(s), E(c)) > 1 − d
        source = example.text
        threshold = 1.0 - degree
        accepted = candidate = source
        steps = 0
        for _ in range(int(self.config["max_steps"])):
            if candidate != source and float(self.similarities(source, [candidate])[0]) <= threshold:
                break
            if candidate == source and degree <= 0:
                break  # cos(s, s) = 1 is never > 1 − 0
            accepted = candidate
            steps += candidate != source
            candidate = self.add_random_distraction(accepted, rng)
        if accepted == source:
            return [example]
        return [example.with_text(accepted, distraction_steps=steps, distraction_mode=self.config["mode"])]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        """`text` with one more random distractor (the word index is irrelevant at sentence level)."""
        return self.add_random_distraction(text, rng)


TRANSFORMS = [Distraction]
