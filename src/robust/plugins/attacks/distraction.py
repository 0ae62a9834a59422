"""Distraction (RobTest §2.9): append irrelevant content while the sentence embedding stays close.

Also home of `SentenceTransform`, the base of the sentence-level dimensions (Distraction, Syntax): degree
D_s = 1 − cos(E(x), E(x′)) with a lazily loaded sentence embedder (default the embedded `minilm`; never
the victim: the degree must not be measured by the model under test).

`mode="faithful"`: RobTest's loop — per draw, accept random distractors while cos > 1 − d, at most 10.
`mode="clean"` (default): per sentence `pool` chains of up to 40 random distractors are drawn once (seeded by
the text). Chains are measured step by step (one batched embedding call per step for the open chains of all
sentences of a batch: `precompute`, which the attackers call) until `chains` of them have a prefix whose degree
lands in [(1 − REACH_TOLERANCE)·d, d] for the largest degree d asked for; each prefix is measured once. A draw
cuts every measured chain before its first prefix with D_s > d and picks uniformly among those whose cut lands
in the band; when none does, the chain that comes closest, flagged `unreached`. Draws and degrees of one
sentence share the embeddings (the faithful loop embedded every candidate of every draw, ~15 of 18 minutes of a
run), and 40 steps let high degrees be reached (10 never reached 0.6).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

from robust.core.interfaces import Example, Transform
from robust.core.lazy import np
from robust.core.settings import Setting
from robust.toolkit.transforms import MODE, REACH_TOLERANCE, HelperModels, cosines, similarities, with_degree

# RobTest's URL alphabet, verbatim (sic: no J/j, G/g twice) — spec §2.9
URL_CHARS = "ABCDEFGHIGKLMNOPQRSTUVWXYZabcdefghigklmnopqrstuvwxyz0123456789.?/"
# Naik et al. stress-test tautologies, verbatim from RobTest's code
STATEMENTS = ("and true is true", "and false is not true")
DISTRACTOR_TYPES = ("url", "statement", "wiki", "random")
_GLOSS_SKIP = {"as", "of", "in", "on", "to", "by", "for", "with", "at", "from", "someone", "people"}
# glosses that open with these take no article ("Patriot is one who loves ...", "Shark is any of ...")
_NO_ARTICLE = {"a", "an", "the", "one", "any", "some", "something", "anything", "either", "each", "all", "not"}
_PUNCT_SPLIT = re.compile(r"([.!?][\s]*)")


class SentenceTransform(HelperModels, Transform):
    """A sentence-level transform measured by 1 − cos of sentence embeddings (spec §2.1, Appendix C).

    The embedder is any object with `embed(texts) -> ndarray[n, d]` (a ModelAdapter), chosen by the
    `embedder` setting independently of the victim; pass one to the constructor or assign `.embedder`
    (tests), else it is loaded on first use (`helper("embedder")`).
    """

    unit: ClassVar[str] = "sentence"
    models = {"embedder": frozenset({"embed"})}

    def __init__(self, embedder: Any = None, **config: Any) -> None:
        super().__init__(**config)
        self.provide("embedder", embedder)

    @property
    def embedder(self) -> Any:
        return self.helper("embedder")

    @embedder.setter
    def embedder(self, model: Any) -> None:
        self.provide("embedder", model)

    def similarities(self, original: str, texts: list[str]) -> np.ndarray:
        """cos(E(original), E(t)) for every t."""
        return np.asarray(cosines(self.embedder, original, texts), dtype=np.float64)

    def degrees_of(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """1 − cos(E(original), E(text)) of many (original, text) pairs, in one batched `embed` call."""
        return [max(0.0, 1.0 - c) for c in similarities(self.embedder, pairs)]

    def measure(self, original: str, perturbed: str) -> float:
        # D_s = 1 − cos(x, x′) (spec §2.1); identical texts are exactly 0
        return 0.0 if original == perturbed else self.degrees_of([(original, perturbed)])[0]


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
    from robust.plugins.attacks.synonym import wordnet

    wn = wordnet()
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
        article = "" if first in _NO_ARTICLE else ("an " if gloss[0] in "aeiou" else "a ")
        out.append(f"{word.capitalize()} is {article}{gloss}.")
        if len(out) == pool:
            break
    return tuple(out)


class Distraction(SentenceTransform):
    name = "distraction"
    dimension = "Distraction"
    description = "RobTest Distraction: append urls, tautologies, wiki-like sentences or random tokens"
    settings = {
        "embedder": Setting("minilm", help="the sentence encoder of the degree (never the victim)"),
        "mode": MODE,
        "max_steps": Setting(0, min=0, max=200, help="distractors per draw at most; 0: RobTest's 10 (faithful) "
                             "or 40 (clean)"),
        "pool": Setting(8, min=1, max=64, help="clean: seeded distractor chains per sentence, shared by its draws"),
        "chains": Setting(4, min=1, max=64, help="clean: chains measured until this many land in a degree's band"),
        "wiki_pool": Setting(100, min=1, max=5000, help="encyclopedia-style sentences to draw 'wiki' from"),
        "types": Setting(list(DISTRACTOR_TYPES), choices=DISTRACTOR_TYPES, min_items=1,
                         help="distractor types drawn uniformly"),
    }

    def __init__(self, embedder: Any = None, **config: Any) -> None:
        super().__init__(embedder, **config)
        self._chains: dict[str, list[tuple[list[str], list[float]]]] = {}

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
    @property
    def steps(self) -> int:
        return int(self.config["max_steps"]) or (10 if self.config["mode"] == "faithful" else 40)

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        if self.config["mode"] == "faithful":
            return self._faithful_draw(example, degree, rng)
        if degree <= 0:
            return [example]
        # clean: each seeded chain cut before its first prefix with 1 − cos > d; a chain whose cut reaches the
        # band [(1 − REACH_TOLERANCE)·d, d] is drawn uniformly, else the one that comes closest (flagged)
        self.precompute([example.text], [degree])
        pool = self._pool(example.text)
        cuts = [self._cut(curve, degree) for _, curve in pool]
        floor = (1 - REACH_TOLERANCE) * degree - 1e-9
        band = [k for k, j in enumerate(cuts) if j and pool[k][1][j] >= floor]
        k = band[int(rng.integers(len(band)))] if band else max(range(len(pool)), key=lambda k: pool[k][1][cuts[k]])
        j = cuts[k]
        if j == 0:
            return [with_degree(example, example.text, degree, 0.0)]
        return [with_degree(example, pool[k][0][j - 1], degree, pool[k][1][j], distraction_steps=j,
                            distraction_mode="clean")]

    def precompute(self, texts: Sequence[str], degrees: Sequence[float]) -> None:
        """Measure chains of every text, step by step, until `chains` of them have a prefix in the band of the
        largest degree (or all `pool` chains are done): one batched embedding call per step for the open chains
        of all texts; each prefix is measured once."""
        if self.config["mode"] == "faithful" or not texts:
            return
        top = max(degrees, default=0.0)
        floor = (1 - REACH_TOLERANCE) * top
        sources = list(dict.fromkeys(texts))
        while True:
            due = []
            for source in sources:
                pool = self._pool(source)
                landed = sum(curve[self._cut(curve, top)] >= floor for _, curve in pool)
                # a chain is finished once past the top degree, in its band, or out of steps
                open_ = [k for k, (chain, curve) in enumerate(pool) if curve[-1] < floor and len(curve) <= len(chain)]
                started = [k for k in open_ if len(pool[k][1]) > 1]
                fresh = [k for k in open_ if len(pool[k][1]) == 1]
                want = max(0, int(self.config["chains"]) - landed)
                due += [(source, k) for k in (started + fresh)[:want]]
            if not due:
                return
            pairs = [(source, self._pool(source)[k][0][len(self._pool(source)[k][1]) - 1]) for source, k in due]
            for (source, k), value in zip(due, self.degrees_of(pairs), strict=True):
                self._pool(source)[k][1].append(value)

    def _pool(self, source: str) -> list[tuple[list[str], list[float]]]:
        """`pool` chains of `steps` accumulated distractors for `source`, from a generator seeded by the text,
        each with the degrees of its prefixes measured so far (curve[j] = D_s of the first j distractors)."""
        if source not in self._chains:
            import zlib

            rng = np.random.default_rng(zlib.crc32(source.encode()))
            chains = []
            for _ in range(int(self.config["pool"])):
                texts, text = [], source
                for _ in range(self.steps):
                    text = self.add_random_distraction(text, rng)
                    texts.append(text)
                chains.append((texts, [0.0]))
            self._chains[source] = chains
        return self._chains[source]

    @staticmethod
    def _cut(curve: list[float], degree: float) -> int:
        """The number of distractors kept: those before the first prefix whose degree exceeds d."""
        return next((j - 1 for j, value in enumerate(curve) if value > degree), len(curve) - 1)

    def _faithful_draw(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        # spec §2.9 rule-based loop: accept the previous candidate while cos(E(s), E(c)) > 1 − d
        source = example.text
        threshold = 1.0 - degree
        accepted = candidate = source
        steps = 0
        for _ in range(self.steps):
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
