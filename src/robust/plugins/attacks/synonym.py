"""Synonym (Chen et al. 2023, Table 1): replace words by WordNet synonyms (PWWS-style), antonyms removed.

RobTest draws the source per position 50/50 from WordNet and HowNet (SememePSO). HowNet (OpenHowNet) is not
available offline, so this is WordNet-only (docs/attacks.md). POS comes from spaCy's PTB tags in context, mapped
N/V/J/R -> n/v/a/r (anything else -> n), standing in for `nltk.pos_tag`.

`mode="clean"` (default): sense-aware. Only content words (PTB tag N*/V*/J*/R*, not auxiliaries, proper nouns,
pronouns or light words such as "be", "so", "even") are replaced (RobTest's "else -> n" turns "a" into "ampere");
candidates are the lemmas of the word's `senses` most frequent WordNet senses for its POS (WordNet orders senses by
corpus frequency; all senses gave "large" -> "enceinte"), common words only (wordfreq Zipf >= `min_zipf`, and at
most `max_zipf_drop` below the word's), single words (docs/attacks.md), re-inflected (lemminflect) and re-cased like
the original, punctuation kept; then a context check: the substituted sentence must re-tag the new word with the
original's Penn tag, stay within cosine `min_similarity` of the original under the `embedder` (default the embedded
`minilm`, chosen independently of the victim), and keep cosine `min_local_similarity` on the word with its two
neighbours (a wrong sense barely moves a long sentence's embedding); the synonym must have the shared sense among
its own `own_senses` most frequent, and words of a WordNet collocation ("after all") stay.
`mode="faithful"`: RobTest's candidates — lemma names of synsets whose POS field equals the tag
exactly, multi-word lemmas kept with underscores, whole whitespace tokens looked up as is.
Both: k = ceil(N_w·d) successful substitutions at random positions; WordNet antonyms of the word rejected.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from robust import Setting, hookimpl
from robust.toolkit.lazy import np
from robust.toolkit.lexicon import (
    LIGHT_WORDS,
    WORDNET_POS,
    antonyms,
    common_in,
    frequent_senses,
    known_inflection,
    replaceable,
    within_zipf,
    wordnet,
    wordnet_pos,
)
from robust.toolkit.loading import import_soon
from robust.toolkit.transforms import (
    MIN_LOCAL_SIMILARITY,
    MODE,
    SPACY,
    HelperModels,
    LastSentence,
    WordTransform,
    join,
    match_case,
    meaning_kept,
    pos_tags,
    pos_tags_many,
    split_affixes,
    words,
)


@functools.cache
def synonyms(word: str, pos: str, faithful: bool) -> tuple[str, ...]:
    """WordNet synonyms of `word` for WordNet POS `pos`, antonyms and the word itself removed."""
    accept = {pos, "s"} if pos == "a" and not faithful else {pos}
    banned = antonyms(word)
    out = []
    for synset in wordnet().synsets(word):
        if synset.pos() not in accept:
            continue
        for name in synset.lemma_names():
            if name == word or name.lower() == word.lower() or name in banned:
                continue
            if "_" in name and not faithful:
                continue  # multi-word lemma: dropped to keep N_w fixed (docs/attacks.md)
            out.append(name)
    return tuple(dict.fromkeys(out))


class Synonym(HelperModels, WordTransform):
    """WordNet synonyms at ceil(N_w*d) random words (word modification rate)."""

    name = "synonym"
    dimension = "synonym"
    description = ("Synonym: WordNet synonyms of the word's frequent senses that keep the sentence's meaning "
                   "(embedding check); antonyms removed; HowNet unavailable offline")
    models = {"embedder": frozenset({"embed"})}
    settings = {
        "mode": MODE,
        "embedder": Setting("minilm", help="clean: the meaning check's sentence encoder (never the victim)"),
        "senses": Setting(1, min=1, max=20, help="clean: the word's most frequent WordNet senses drawn from"),
        "own_senses": Setting(2, min=1, max=20, help="clean: a synonym must have that sense among its own N "
                              "most frequent (no \"night\" -> \"dark\")"),
        "min_zipf": Setting(3.0, min=0.0, max=8.0, help="clean: synonyms at least this common (wordfreq Zipf)"),
        "max_zipf_drop": Setting(1.0, min=0.0, max=8.0, help="clean: synonyms at most this much rarer than the word "
                                 "(Zipf; no \"funny\" -> \"laughable\", 1.8 below)"),
        "min_similarity": Setting(0.9, min=-1.0, max=1.0, help="clean: cosine to the original a synonym must keep"),
        "min_local_similarity": MIN_LOCAL_SIMILARITY,
    }

    integer_draws = True  # substitute (and so edit) draws nothing but rng.integers(n)

    def __init__(self, embedder: Any = None, **config: Any) -> None:
        super().__init__(**config)
        self.provide("embedder", embedder)
        self._checked: dict[str, list[tuple[str, ...]]] = {}
        self._last = LastSentence()

    def _faithful(self) -> bool:
        return self.config["mode"] == "faithful"

    def helpers_used(self) -> list[str]:
        return [] if self._faithful() else super().helpers_used()  # clean: the meaning check's embedder

    def warm_up(self) -> None:
        super().warm_up()  # the embedder, the tagger and the word tables load while the model does
        SPACY.start()
        import_soon("wordfreq", "lemminflect")

    def candidates(self, word: str, ptb_tag: str) -> list[str]:
        """Every lexical replacement of `word` (a whitespace token) tagged `ptb_tag`, before the context check."""
        faithful = self._faithful()
        if faithful:
            return list(synonyms(word, wordnet_pos(ptb_tag), True))
        prefix, core, suffix = split_affixes(word)
        if not core or ptb_tag[:1] not in WORDNET_POS or ptb_tag.startswith("NNP") or core.lower() in LIGHT_WORDS:
            return []
        out = []
        for lemma in frequent_sense_synonyms(core.lower(), wordnet_pos(ptb_tag), int(self.config["senses"]),
                                             float(self.config["min_zipf"]), int(self.config["own_senses"]),
                                             float(self.config["max_zipf_drop"])):
            form = known_inflection(lemma, ptb_tag)
            new = match_case(core, form or "")
            if form and new.lower() != core.lower() and new.lower() not in antonyms(core):
                out.append(prefix + new + suffix)
        return list(dict.fromkeys(out))

    def in_context(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """Per word position of the sentence: the candidates that fit the context (cached per sentence).

        A candidate is kept when the substituted sentence (1) re-tags the new word with the original's Penn
        tag (spaCy; rejects "the movie is scarce a masterpiece") and (2) keeps cosine >= min_similarity to
        the original under the embedder. Particles, the first word of a noun-noun compound ("living room") and
        a verb followed by its particle ("fly by") are not replaced. A draw asks once per word position: the
        sentence asked last is at hand.
        """
        return self._last.get(tokens, self._checked_of)

    def options(self, tokens: list[str]) -> list[tuple[str, ...]] | None:
        """clean: `substitute` picks among the sentence's `in_context` candidates (draws look them up once a
        sentence)."""
        return None if self._faithful() else self._checked_of(tokens)

    def _checked_of(self, tokens: list[str]) -> list[tuple[str, ...]]:
        text = join(tokens)
        if text not in self._checked:
            self._check([list(tokens)])
        return self._checked[text]

    def precompute(self, texts: Sequence[str], degrees: Sequence[float]) -> None:
        """`in_context` of many sentences at once: one tagger pipe and one embedding call for all of them."""
        if not self._faithful():
            todo = [words(t) for t in dict.fromkeys(texts) if t not in self._checked]
            if todo:
                self._check(todo)

    def _check(self, sentences: Sequence[list[str]]) -> None:
        texts = [join(t) for t in sentences]
        trials = []  # (text, position, candidate, substituted sentence)
        for tokens, text, tags in zip(sentences, texts, pos_tags_many(texts), strict=True):
            for i, (word, (ptb, _)) in enumerate(zip(tokens, tags, strict=True)):
                candidates = self.candidates(word, ptb)  # first: few words have any, `replaceable` scans the sentence
                if candidates and replaceable(tokens, tags, i):
                    trials += [(text, i, c, join([*tokens[:i], c, *tokens[i + 1:]])) for c in candidates]
        tagged = dict(zip([t[3] for t in trials], pos_tags_many([t[3] for t in trials]), strict=True))
        originals = dict(zip(texts, pos_tags_many(texts), strict=True))
        trials = [t for t in trials if tagged[t[3]][t[1]][0] == originals[t[0]][t[1]][0]]
        tokens_of = dict(zip(texts, sentences, strict=True))
        keeps = meaning_kept(self.helper("embedder"), [(tokens_of[t[0]], t[1], t[2]) for t in trials],
                             float(self.config["min_similarity"]), float(self.config["min_local_similarity"]))
        kept: dict[tuple[str, int], list[str]] = {}
        for (text, i, c, _), keep in zip(trials, keeps, strict=True):
            if keep:
                kept.setdefault((text, i), []).append(c)
        for tokens, text in zip(sentences, texts, strict=True):
            self._checked[text] = [tuple(kept.get((text, i), ())) for i in range(len(tokens))]

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        if self._faithful():
            options = self.candidates(word, pos_tags(join(tokens))[index][0])
        else:
            options = self.in_context(tokens)[index] if tokens[index] == word else ()
        return options[int(rng.integers(len(options)))] if options else None


@functools.cache
def frequent_sense_synonyms(word: str, pos: str, senses: int, min_zipf: float, own_senses: int = 2,
                            max_zipf_drop: float = 8.0) -> tuple[str, ...]:
    """Single-word lemmas of the `senses` most frequent WordNet senses of `word` (its lemma) for `pos`
    (satellites count as adjectives) that have that sense among their own `own_senses` most frequent, common
    words only (Zipf >= `min_zipf` and at most `max_zipf_drop` below the lemma's: a register change to a rare
    word is no synonym a reader accepts), antonyms and the word itself removed."""
    from wordfreq import zipf_frequency

    lemma = wordnet().morphy(word, pos) or word
    banned = antonyms(word) | antonyms(lemma)
    out = []
    for synset in frequent_senses(lemma, pos, senses):
        for name in synset.lemma_names():
            if not name.isalpha() or name.lower() in (word, lemma) or name in banned or name in LIGHT_WORDS:
                continue
            if (zipf_frequency(name, "en") >= min_zipf and within_zipf(name, lemma, max_zipf_drop)
                    and common_in(name, synset, own_senses)):
                out.append(name)
    return tuple(dict.fromkeys(out))


TRANSFORMS = [Synonym]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
