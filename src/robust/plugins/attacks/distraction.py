"""Distraction (Chen et al. 2023, Table 1): append irrelevant content while the sentence embedding stays close.

Its degree is `SentenceTransform`'s (robust.toolkit.transforms): D_s = 1 − cos(E(x), E(x′)) with a lazily loaded
sentence embedder (default the embedded `minilm`; never the victim: the degree must not be measured by the model
under test).

`mode="faithful"`: RobTest's loop — per draw, accept random distractors while cos > 1 − d, at most 10.
`mode="clean"` (default): per sentence `pool` chains of up to 40 random distractors, each seeded by the text
and its index and drawn only as far as it is read. A chain's prefixes are measured sparsely, in batched embedding
calls for all chains of all sentences of a batch (`precompute`, which the attackers call with every degree they
will ask for): for each degree d, until `chains` chains have a prefix whose degree lands in
[(1 − REACH_TOLERANCE)·d, d], a chain's next probe doubles its step count while it stays below the band, then
interpolates between the last prefix below d and the first measured above it. A chain is cut before its first
measured prefix above d; a draw picks uniformly among the chains whose cut lands in the band, else the one that
comes closest (flagged `unreached`). Every prefix is measured at most once and shared by draws and degrees (the
faithful loop embedded every candidate of every draw, ~15 of 18 minutes of a run), and 40 steps let high
degrees be reached (10 never reached 0.6).
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from robust import Example, Setting, hookimpl
from robust.toolkit.draws import Draws, integer_list
from robust.toolkit.lazy import np
from robust.toolkit.transforms import (
    MODE,
    REACH_TOLERANCE,
    SentenceTransform,
    reaches,
    with_degree,
)

# RobTest's URL alphabet, verbatim (sic: no J/j, G/g twice) — RobTest's code, Sentence/distraction_transform.py
URL_CHARS = "ABCDEFGHIGKLMNOPQRSTUVWXYZabcdefghigklmnopqrstuvwxyz0123456789.?/"
# Naik et al. stress-test tautologies, verbatim from RobTest's code
STATEMENTS = ("and true is true", "and false is not true")
DISTRACTOR_TYPES = ("url", "statement", "wiki", "random")
_GLOSS_SKIP = {"as", "of", "in", "on", "to", "by", "for", "with", "at", "from", "someone", "people"}
# glosses that open with these take no article ("Patriot is one who loves ...", "Shark is any of ...")
_NO_ARTICLE = {"a", "an", "the", "one", "any", "some", "something", "anything", "either", "each", "all", "not"}
_PUNCT_SPLIT = re.compile(r"([.!?][\s]*)")


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
    from robust.toolkit.lexicon import wordnet

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


def url_segment(size: int, rng: np.random.Generator | Draws) -> str:
    """`size` random URL characters: RobTest's `rng.choice(list(URL_CHARS), size)`, which draws exactly
    `rng.integers(len(URL_CHARS), size)` and indexes, without converting the alphabet to an array per call."""
    return "".join(map(URL_CHARS.__getitem__, integer_list(rng, len(URL_CHARS), size)))


def between(low: int, high: int, rng: np.random.Generator | Draws) -> int:
    """`rng.integers(low, high)`, drawn as `low + rng.integers(high - low)` (numpy draws the same value and leaves
    the same state), which a `Draws` serves too."""
    return low + int(rng.integers(high - low))


class Chain:
    """One clean-mode chain: `source` followed by up to `steps` random distractors, drawn from `rng` (by `add`, one
    distractor a call) only as far as its prefixes are read, with the degrees of the prefixes measured so far
    ({j: D_s of the first j distractors}). Chunks computed in threads read one sentence's chains: a lock keeps
    each chain's draws in order."""

    def __init__(self, source: str, steps: int, rng: np.random.Generator,
                 add: Callable[[str, Draws], str]) -> None:
        self.source, self.steps, self._rng, self._add = source, steps, rng, add
        self.texts: list[str] = []  # the prefixes drawn so far: texts[j - 1] holds j distractors
        self.values: dict[int, float] = {0: 0.0}
        self._ordered: list[tuple[int, float]] = [(0, 0.0)]  # `values` by prefix
        self._cuts: dict[tuple[float, int], tuple[int, float, int | None]] = {}  # (d, prefixes measured) -> `cut(d)`
        self._plans: dict[tuple[float, int], tuple[bool, int | None]] = {}  # the same -> `plan(d)`
        self._lock = threading.Lock()
        self._draws: Draws | None = None  # the chain's generator is read through it alone, so it is never synced back

    def prefix(self, j: int) -> str:
        """The source with the chain's first j (1 <= j <= steps) distractors."""
        if len(self.texts) < j:
            with self._lock:
                rng = self._draws = self._draws or Draws(self._rng)
                text = self.texts[-1] if self.texts else self.source
                while len(self.texts) < j:
                    text = self._add(text, rng)
                    self.texts.append(text)
        return self.texts[j - 1]

    def measured(self, j: int, value: float) -> None:
        """Record D_s of the prefix with j distractors (once: chunks computed in threads may measure it twice)."""
        if j not in self.values:
            self.values[j] = value
            bisect.insort(self._ordered, (j, value))

    def cut(self, degree: float) -> tuple[int, float, int | None]:
        """The chain's cut for d: the number of distractors kept (the last measured prefix before the first measured
        one above d), its degree, and that first measured prefix above d (None if there is none). Memoised per
        number of measured prefixes, so a cut found while another thread measured one more is never reused."""
        key = (degree, len(self._ordered))
        found = self._cuts.get(key)
        if found is None:
            found = self._cuts[key] = _cut(self._ordered, degree)
        return found

    def plan(self, degree: float) -> tuple[bool, int | None]:
        """Whether the chain's cut for d lands in the band, and else its next prefix to measure for d (None when
        settled), memoised as `cut` is."""
        key = (degree, len(self._ordered))
        found = self._plans.get(key)
        if found is None:
            j, value, above = self.cut(degree)
            landed = reaches(value, degree)
            found = self._plans[key] = landed, None if landed else _probe(self, degree, j, above)
        return found


def _cut(ordered: list[tuple[int, float]], degree: float) -> tuple[int, float, int | None]:
    """`Chain.cut` from the chain's measured prefixes in order."""
    cut, value = 0, 0.0
    for j, v in ordered:
        if v > degree:
            return cut, value, j
        cut, value = j, v
    return cut, value, None


def _probe(chain: Chain, degree: float, j: int, above: int | None) -> int | None:
    """The chain's next prefix to measure for `degree`, its cut `j` not in the band (the first measured prefix above
    d: `above`), or None when settled: no unmeasured prefix between the cut and `above`, or out of steps."""
    if above is None:
        return min(chain.steps, max(1, 2 * j)) if j < chain.steps else None  # gallop while below the band
    if above - j <= 1:
        return None
    # interpolate (linearly in the step count) toward the middle of the band, strictly between j and above
    values = chain.values
    target = (2 - REACH_TOLERANCE) * degree / 2
    frac = (target - values[j]) / (values[above] - values[j])
    return j + min(above - j - 1, max(1, round(frac * (above - j))))


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

    integer_draws = True  # a distractor draws a type, then integers (lengths, characters, words, a pick)

    def __init__(self, embedder: Any = None, **config: Any) -> None:
        super().__init__(embedder, **config)
        self._chains: dict[str, list[Chain]] = {}
        # per source: what its measured prefixes decide (probes, draws) per degree, until one more is measured
        self._plans: dict[str, dict[tuple[str, float, int], Any]] = {}
        self._measured: dict[str, int] = {}  # per source: how many of its chains' prefixes are measured

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, **self.config, "wiki_source": "WordNet 3.0 glosses",
                "random_source": "wordfreq top-5000 English words"}

    # distractors ------------------------------------------------------------------------------
    def distractor(self, kind: str, rng: np.random.Generator | Draws) -> str:
        """One distractor of a type (RobTest's code, Sentence/distraction_transform.py)."""
        if kind == "url":
            segments = [url_segment(between(1, 6, rng), rng) for _ in range(between(1, 6, rng))]
            return "/".join(["https:/", *segments])
        if kind == "statement":
            return STATEMENTS[int(rng.integers(len(STATEMENTS)))]
        if kind == "wiki":
            pool = wiki_sentences(int(self.config["wiki_pool"]))
            return pool[int(rng.integers(len(pool)))]
        vocab = frequent_words()
        return " ".join(vocab[i] for i in integer_list(rng, len(vocab), between(1, 6, rng)))

    def insert(self, text: str, addition: str) -> str:
        if self.config["mode"] == "clean":  # docs/attacks.md: append at the end with one space
            return f"{text.rstrip()} {addition}"
        # RobTest's code: before the first . ! ? with no space, and the rest of the text dropped
        parts = _PUNCT_SPLIT.split(text)
        if len(parts) == 1:
            return text + addition
        return parts[0] + addition + " " + parts[1]

    def add_random_distraction(self, text: str, rng: np.random.Generator | Draws) -> str:
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
        return self.apply_many(example, degree, rng, 1)[0]

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        """`draws` calls of `apply`: clean, the sentence's chains are probed and planned once for all of them, each
        draw picks a chain (from a `Draws`: the same values and generator state), and draws that pick the same chain
        share its variant."""
        if self.config["mode"] == "faithful" or degree <= 0:
            return super().apply_many(example, degree, rng, draws)
        # clean: each seeded chain cut before its first measured prefix with 1 − cos > d; a chain whose cut reaches
        # the band [(1 − REACH_TOLERANCE)·d, d] is drawn uniformly, else the one that comes closest (flagged)
        self.precompute([example.text], [degree])
        cuts, band, closest = self._plan(example.text, "draw", degree)
        made: dict[int, Example] = {}
        out = []
        with Draws(rng) as picks:
            for _ in range(draws):
                k = band[picks.integers(len(band))] if band else closest
                if k not in made:
                    made[k] = self._variant(example, degree, cuts[k], k)
                out.append([made[k]])
        return out

    def _variant(self, example: Example, degree: float, j: int, k: int) -> Example:
        """`example` with the first `j` distractors of its chain `k`."""
        if j == 0:
            return with_degree(example, example.text, degree, 0.0)
        chain = self._pool(example.text)[k]
        return with_degree(example, chain.prefix(j), degree, chain.values[j], distraction_steps=j,
                           distraction_mode="clean")

    def _draw(self, source: str, degree: float) -> tuple[list[int], list[int], int]:
        """Each chain's cut for d, the chains whose cut lands in the band, and the chain whose cut comes closest."""
        pool = self._pool(source)
        cuts = [chain.cut(degree) for chain in pool]  # (distractors kept, their degree, ...)
        band = [k for k, (j, value, _) in enumerate(cuts) if j and reaches(value, degree)]
        return [j for j, _, _ in cuts], band, max(range(len(pool)), key=lambda k: cuts[k][1])

    def _plan(self, source: str, what: str, degree: float) -> Any:
        """`_draw` or `_probes` of `source` for `degree`, memoised until a prefix of its chains is measured: the
        draws and degrees of a sentence (aug_num × the degree grid) share them. The key counts the measured
        prefixes, so a plan made while another thread measured more is never reused."""
        plans = self._plans.setdefault(source, {})
        key = (what, float(degree), self._measured.get(source, 0))
        if key not in plans:
            plans[key] = (self._draw if what == "draw" else self._probes)(source, degree)
        return plans[key]

    def precompute(self, texts: Sequence[str], degrees: Sequence[float]) -> None:
        """Probe chains of every text for every degree until `chains` of them land in the degree's band (or none
        can): one batched embedding call per round, one new prefix per open chain per round. A text with nothing to
        probe in a round is settled: nothing of it is measured, so its plans stay as they are."""
        wanted = sorted({float(d) for d in degrees if d > 0}, reverse=True)
        if self.config["mode"] == "faithful" or not texts or not wanted:
            return
        sources = list(dict.fromkeys(texts))
        while sources:
            due: dict[tuple[str, int], int] = {}
            still = []
            for source in sources:
                before = len(due)
                for degree in wanted:
                    for k, step in self._plan(source, "probes", degree):
                        due.setdefault((source, k), step)
                if len(due) > before:
                    still.append(source)
            if not due:
                return
            sources = still
            probes = list(due.items())
            pairs = [(source, self._pool(source)[k].prefix(step)) for (source, k), step in probes]
            for ((source, k), step), value in zip(probes, self.degrees_of(pairs), strict=True):
                self._pool(source)[k].measured(step, value)
                self._measured[source] = self._measured.get(source, 0) + 1
                self._plans.pop(source, None)

    def _probes(self, source: str, degree: float) -> list[tuple[int, int]]:
        """(chain, prefix) pairs to measure next for `degree`: one per open chain, as many as chains are missing
        from the band."""
        pool = self._pool(source)
        plans = [chain.plan(degree) for chain in pool]
        want = int(self.config["chains"]) - sum(landed for landed, _ in plans)
        if want <= 0:
            return []
        open_ = [(k, step) for k, (_, step) in enumerate(plans) if step is not None]
        open_.sort(key=lambda ks: len(pool[ks[0]].values) == 1)  # chains already probed first (fewer new prefixes)
        return open_[:want]

    def _pool(self, source: str) -> list[Chain]:
        """`pool` chains of up to `steps` accumulated distractors for `source`, each from a generator of its own
        seeded by the text and the chain's index, drawn only as far as its prefixes are read."""
        chains = self._chains.get(source)
        if chains is None:
            import zlib

            seeds = np.random.SeedSequence(zlib.crc32(source.encode())).spawn(int(self.config["pool"]))
            chains = self._chains.setdefault(source, [
                Chain(source, self.steps, np.random.default_rng(seed), self.add_random_distraction) for seed in seeds])
        return chains

    def _faithful_draw(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        # RobTest's rule-based loop (Sentence/distraction_transform.py): accept the previous candidate while cos(E(s),
        # E(c)) > 1 − d
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


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
