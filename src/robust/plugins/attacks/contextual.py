"""Contextual (Chen et al. 2023, Table 1): replace words by what a language model expects in context, antonyms removed.

Two candidate sources (setting `source`; `auto` = `mlm` when `mlm` is set, else `lm`):
- `mlm`: a fill-mask model (`mlm=hf:bert-base-uncased` is the paper's), whole whitespace word -> one mask,
  top_k = 10 predictions computed on the ORIGINAL sentence, first acceptable one taken (BERT-Attack/BAE);
- `lm` (offline default, no hub): ONE forward pass of the causal LM `smollm2` over the sentence gives, at every
  word, the next-token distribution after its left context; the word's common WordNet relatives (synonyms and
  similar words of its two most frequent senses that have that sense among their own two; `relations=related`
  adds hypernyms and hyponyms; re-inflected; not inside a WordNet collocation such as "title role")
  are ranked by the probability of their first token there, top_k kept (a left-to-right stand-in for the MLM;
  free LM proposals flipped meaning: "hardly a masterpiece" -> "actually a masterpiece").
Selection as in RobTest: the first candidate (best score) that differs case-insensitively from the word and
is not a WordNet antonym of it. `mode="clean"` adds a meaning check (the paper's validity criterion): the
first `check` acceptable fills are kept only if the substituted sentence stays within cosine
`min_similarity` of the original under the `embedder` (default `minilm`, chosen independently of the victim;
one batched embedding call per sentence), keep cosine `min_local_similarity` on the word with its two
neighbours, and re-tag with the original word's Penn tag (spaCy); with the `lm`
source also only if the sentence's log-likelihood under the LM drops by at most `max_lm_drop` nats (the left-
to-right ranking never saw the right context). Fills are cached per sentence, so degrees and draws share them.
Budget k = ceil(N_w·d) successful substitutions at random positions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from robust import Example, RobustError, Setting, hookimpl
from robust.toolkit.lazy import np
from robust.toolkit.lexicon import (
    LIGHT_WORDS,
    antonyms,
    common_in,
    frequent_senses,
    known_inflection,
    replaceable,
    wordnet,
    wordnet_pos,
)
from robust.toolkit.loading import import_soon
from robust.toolkit.transforms import (
    LM_PREFIX,
    MIN_LOCAL_SIMILARITY,
    MODE,
    SPACY,
    HelperModels,
    WordTransform,
    join,
    log_likelihood_drops,
    match_case,
    meaning_kept,
    pos_tags_many,
    split_affixes,
    words,
)

SOURCES = ("auto", "mlm", "lm")
_OPEN_CLASS = {"N": "NOUN", "V": "VERB", "J": "ADJ", "R": "ADV"}
# a few closed-class alternatives, so that "I watch" can become "We watch" (Table 1 of the paper)
_CLOSED_CLASS = {
    "PRP": ("i", "we", "you", "they", "he", "she"),
    "PRP$": ("my", "our", "your", "their", "his", "her"),
    "DT": ("a", "the", "this", "that", "each", "every"),
}
# never proposed: they flip meaning rather than substitute a word
NEGATIONS = {"not", "no", "never", "nothing", "none", "nor", "neither", "without", "hardly", "barely",
             "scarcely", "seldom", "rarely", "nobody", "nowhere", "cannot"}


RELATIONS = ("synonyms", "related")


@functools.cache
def related_words(core: str, pos: str, min_zipf: float = 3.0, relations: str = "synonyms") -> tuple[str, ...]:
    """Common single-word WordNet relatives of `core` for WordNet POS `pos` from its two most frequent senses:
    synonyms and similar adjectives, plus hypernyms and hyponyms with `relations="related"` (they fit the syntax
    but often not the meaning: "comedy" -> "drama", "text" -> "language"; sister terms flipped it: "pleasure" ->
    "shame"); lemma forms of three letters or more."""
    from wordfreq import zipf_frequency

    lemma = wordnet().morphy(core, pos) or core
    out: list[str] = []
    for synset in frequent_senses(lemma, pos, 2):
        related = [synset, *synset.similar_tos()]
        if relations == "related":
            related += [*synset.hypernyms(), *synset.hyponyms()]
        for other in related:
            out.extend(n for n in other.lemma_names() if n.isalpha() and len(n) > 2 and common_in(n, other, 2))
    return tuple(dict.fromkeys(w for w in out if w.lower() not in (core.lower(), lemma.lower())
                               and w.lower() not in NEGATIONS and zipf_frequency(w, "en") >= min_zipf))


@functools.cache
def banned_for(core: str) -> frozenset[str]:
    """WordNet antonyms of the word and of its lemmas (lower case)."""
    from lemminflect import getAllLemmas

    forms = {core, core.lower(), *(lemma for lemmas in getAllLemmas(core.lower()).values() for lemma in lemmas)}
    return frozenset(a.lower() for form in forms for a in antonyms(form))


def is_antonym(candidate: str, banned: frozenset[str]) -> bool:
    from lemminflect import getAllLemmas

    lemmas = {lemma for lemmas in getAllLemmas(candidate.lower()).values() for lemma in lemmas}
    return candidate.lower() in banned or bool(lemmas & banned)


def clean_piece(token: str) -> str | None:
    """A fill-mask prediction as a word: WordPiece/BPE markers removed; sub-words and specials dropped."""
    if token.startswith("##") or (token[:1] in "[<" and token[-1:] in "]>"):
        return None
    token = token.lstrip("Ġ▁").strip()
    return token or None


class Contextual(HelperModels, WordTransform):
    """Language-model substitutes at ceil(N_w·d) random words (word modification rate)."""

    name = "contextual"
    dimension = "Contextual"
    description = "RobTest Contextual: masked-LM (hf:) or offline smollm2 fills, meaning-checked, antonyms removed"
    models = {"mlm": frozenset({"fill_mask"}), "lm": frozenset({"next_token_distribution", "tokenize", "logprobs"}),
              "embedder": frozenset({"embed"})}
    settings = {
        "source": Setting("auto", choices=SOURCES, help="auto: mlm when `mlm` is set, else lm"),
        "mlm": Setting("", help="fill-mask model spec, e.g. hf:bert-base-uncased (the paper's)"),
        "lm": Setting("smollm2", help="causal LM that ranks the offline fills"),
        "top_k": Setting(10, min=1, max=100, help="fills kept per word (the paper: 10)"),
        "relations": Setting("synonyms", choices=RELATIONS, help="lm source: the WordNet relatives it ranks: "
                             "synonyms and similar words, or also hypernyms and hyponyms (related)"),
        "mode": MODE,
        "embedder": Setting("minilm", help="clean: the meaning check's sentence encoder (never the victim)"),
        "min_similarity": Setting(0.9, min=-1.0, max=1.0, help="clean: cosine to the original a fill must keep"),
        "min_local_similarity": MIN_LOCAL_SIMILARITY,
        "check": Setting(3, min=1, max=100, help="clean: acceptable fills per word that are meaning-checked"),
        "max_lm_drop": Setting(2.0, min=0.0, help="clean, lm source: a fill may lower the sentence's log-likelihood "
                               "under `lm` by at most this many nats (the right context must fit too); 0: off"),
    }

    def __init__(self, mlm_model: Any = None, lm_model: Any = None, embedder: Any = None, **config: Any) -> None:
        super().__init__(**config)
        self.provide("mlm", mlm_model)
        self.provide("lm", lm_model)
        self.provide("embedder", embedder)
        if self.source == "mlm" and not (self.config["mlm"] or mlm_model):
            raise RobustError("contextual.source=mlm needs a fill-mask model: --set contextual.mlm=hf:<model>")
        self._cache: dict[tuple[str, int], tuple[str, ...]] = {}
        self._fills: dict[str, list[tuple[str, ...]]] = {}
        self._firsts: dict[str, list[tuple[str, ...]]] = {}  # per sentence: each word's fill (`options`)
        self._first: dict[str, int] = {}

    # configuration -------------------------------------------------------------------------------
    @property
    def source(self) -> str:
        if self.config["source"] != "auto":
            return self.config["source"]
        return "mlm" if self.config["mlm"] or self.given("mlm") is not None else "lm"

    @property
    def source_label(self) -> str:
        which = self.source
        injected = self.given(which)
        return f"{which}:{self.config[which] if injected is None else getattr(injected, 'identity', 'injected')}"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, **self.config, "candidate_source": self.source_label}

    def helpers_used(self) -> list[str]:
        # the fills' source, and in clean mode the meaning check's embedder (with the lm source, the lm's check)
        used = {self.source} | (set() if self.config["mode"] == "faithful" else {"embedder"})
        return [role for role in super().helpers_used() if role in used]

    def warm_up(self) -> None:
        super().warm_up()  # the helper models, the tagger and the word tables load while the model does
        if self.source == "lm" or self.config["mode"] != "faithful":  # the tagger: the lm's fills, clean checks
            SPACY.start()
        import_soon("wordfreq", "lemminflect")

    # candidates ---------------------------------------------------------------------------------
    def _editable(self, word: str) -> bool:
        """faithful: every token (RobTest masks punctuation too); clean: plain alphabetic words only
        ("director's", "horror/thriller" and "well-known" are left alone)."""
        return self.config["mode"] == "faithful" or split_affixes(word)[1].isalpha()

    def candidates(self, tokens: Sequence[str], index: int) -> tuple[str, ...]:
        """Ranked substitutes (best first, ≤ top_k) for the word at `index` of `tokens`, cached per text."""
        key = (join(tokens), index)
        if key not in self._cache:
            self._rank([list(tokens)])
        return self._cache.get(key, ())

    def _rank(self, sentences: Sequence[list[str]]) -> None:
        """Ranked substitutes of every word of every sentence (masked LM or causal LM), batched."""
        todo = [t for t in sentences if (join(t), 0) not in self._cache]
        if todo:
            (self._mlm_sentences if self.source == "mlm" else self._lm_sentences)(todo)

    def _masked(self, tokens: list[str], index: int, mask: str) -> str:
        prefix, _, suffix = split_affixes(tokens[index])
        piece = mask if self.config["mode"] == "faithful" else prefix + mask + suffix
        return join([*tokens[:index], piece, *tokens[index + 1:]])

    def _mlm_sentences(self, sentences: Sequence[list[str]]) -> None:
        """RobTest: one fill-mask query per position on the original sentence, top_k predictions each (all
        positions of all sentences in one batched call)."""
        model = self.helper("mlm")
        mask = model.mask_token
        slots = [(join(tokens), i, self._masked(tokens, i, mask)) for tokens in sentences
                 for i, w in enumerate(tokens) if self._editable(w)]
        results = model.fill_mask([m for _, _, m in slots], int(self.config["top_k"])) if slots else []
        for tokens in sentences:
            for i in range(len(tokens)):
                self._cache[(join(tokens), i)] = ()
        for (text, i, _), predictions in zip(slots, results, strict=True):
            words = (clean_piece(tok) for tok, _ in predictions)
            self._cache[(text, i)] = tuple(dict.fromkeys(w for w in words if w))

    def _lm_sentences(self, sentences: Sequence[list[str]]) -> None:
        """Fills of every word from ONE causal-LM pass per sentence (all sentences in one batched call): the
        next-token distribution after each word's left context ranks the word's pool (`_lm_pool`) by the
        probability of each candidate's first token."""
        model = self.helper("lm")
        texts = [join(tokens) for tokens in sentences]
        for tokens, text in zip(sentences, texts, strict=True):
            for i in range(len(tokens)):
                self._cache[(text, i)] = ()
        plans = []  # (text, tokens, {position: pool})
        for tokens, text, tags in zip(sentences, texts, pos_tags_many(texts), strict=True):
            options = {i: self._lm_pool(tokens, tags, i) for i, w in enumerate(tokens)
                       if self._editable(w) and split_affixes(w)[1] and not split_affixes(w)[0]}
            options = {i: pool for i, pool in options.items() if pool}
            if options:
                plans.append((text, tokens, options))
        if not plans:
            return
        queries = [LM_PREFIX + t for t, _, _ in plans]
        queries += [LM_PREFIX + join(tokens[:i]) for _, tokens, options in plans for i in options]
        ids = iter(model.tokenize(queries))
        fulls = [next(ids) for _ in plans]
        usable = [(plan, full) for plan, full in zip(plans, fulls, strict=True) if len(full) >= 2]
        rows = model.token_distributions([LM_PREFIX + plan[0] for plan, _ in usable],
                                         [len(full) - 1 for _, full in usable])  # row t predicts token t + 1
        rows_of = {plan[0]: r for (plan, _), r in zip(usable, rows, strict=True)}
        words_of = {(text, i): tuple((" " if i else "") + match_case(split_affixes(tokens[i])[1], w) for w in pool)
                    for text, tokens, options in plans for i, pool in options.items()}
        first = self._first_ids(list(dict.fromkeys(w for ws in words_of.values() for w in ws)))
        top_k = int(self.config["top_k"])
        for (text, _, options), full in zip(plans, fulls, strict=True):
            for i in options:
                prefix = next(ids)
                if text not in rows_of or not 0 < len(prefix) < len(full) or full[: len(prefix)] != prefix:
                    continue  # the word does not start a token of the full sentence: no clean distribution
                vocab = options[i]
                ranks = np.asarray([first[w] for w in words_of[(text, i)]])
                probs = np.where(ranks >= 0, rows_of[text][len(prefix) - 1][np.maximum(ranks, 0)], -1.0)
                order = sorted(range(len(vocab)), key=lambda j: (-float(probs[j]), vocab[j]))
                self._cache[(text, i)] = tuple(vocab[j] for j in order[:top_k] if probs[j] >= 0)

    def _lm_pool(self, tokens: list[str], tags: tuple[tuple[str, str], ...], index: int) -> list[str]:
        """What the LM ranks at a word: its common WordNet relatives re-inflected to the word's tag (content
        words that can be replaced, as for Synonym), or a small closed class (pronouns, determiners) in
        faithful mode."""
        ptb = tags[index][0]
        core = split_affixes(tokens[index])[1]
        if ptb in _CLOSED_CLASS:
            return [w for w in _CLOSED_CLASS[ptb] if w != core.lower()] if self.config["mode"] == "faithful" else []
        if ptb[:1] not in _OPEN_CLASS or not replaceable(tokens, tags, index) or core.lower() in LIGHT_WORDS:
            return []
        pool = (known_inflection(w, ptb)
                for w in related_words(core.lower(), wordnet_pos(ptb), relations=self.config["relations"]))
        return [w for w in dict.fromkeys(p for p in pool if p) if w.lower() != core.lower() and w.isalpha()
                and w.lower() not in LIGHT_WORDS]

    def _first_ids(self, texts: list[str]) -> dict[str, int]:
        """The LM's first token id of each text (-1 if it has none), remembered across sentences."""
        todo = [t for t in texts if t not in self._first]
        if todo:
            self._first.update((t, ids[0] if ids else -1)
                               for t, ids in zip(todo, self.helper("lm").tokenize(todo), strict=True))
        return self._first

    def precompute(self, texts: Sequence[str], degrees: Sequence[float]) -> None:
        """The fills of many sentences at once (one LM, tagger and meaning-check call for all of them)."""
        todo = [words(t) for t in dict.fromkeys(texts) if t not in self._fills]
        if todo:
            self._fill_many(todo)

    def fills(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """Per word: the fills to use, best first (clean: the first meaning-checked one), cached per sentence."""
        text = join(tokens)
        if text not in self._fills:
            self._fill_many([list(tokens)])
        return self._fills[text]

    def _fill_many(self, sentences: Sequence[list[str]]) -> None:
        self._rank(sentences)
        options = {join(t): [list(self._acceptable(t, i)) for i in range(len(t))] for t in sentences}
        if self.config["mode"] == "clean":
            self._check(sentences, options)
        self._fills.update({text: [tuple(o) for o in opts] for text, opts in options.items()})

    def _check(self, sentences: Sequence[list[str]], options: dict[str, list[list[str]]]) -> None:
        """Clean mode: keep, per word, the first of its first `check` fills that re-tag with the word's Penn tag
        (spaCy), keep their meaning under the embedder (`meaning_kept`: min_local_similarity on the word with its
        neighbours, then min_similarity on the sentence) and, with the `lm` source, read fluently (`_fluent`).
        Fills are tried in rank order, one round per rank for every open word of every sentence (one batched call
        per check and round), so most words cost one or two tagged and one embedded sentence."""
        texts = [join(t) for t in sentences]
        tags = dict(zip(texts, pos_tags_many(texts), strict=True))
        tokens_of = dict(zip(texts, sentences, strict=True))
        rank = {(text, i): 0 for text in texts for i, o in enumerate(options[text]) if o}
        tag_passes = dict.fromkeys(rank, 0)
        kept: dict[tuple[str, int], list[str]] = {}
        floor, check = float(self.config["min_similarity"]), int(self.config["check"])
        local_floor = float(self.config["min_local_similarity"])
        while True:
            due = [(key, options[key[0]][key[1]][r]) for key, r in rank.items()
                   if key not in kept and tag_passes[key] < check and r < len(options[key[0]][key[1]])]
            if not due:
                break
            subs = []
            for (text, i), c in due:
                rank[(text, i)] += 1
                tokens = tokens_of[text]
                subs.append(join([*tokens[:i], c, *tokens[i + 1:]]))
            fits = [(key, c, sub) for ((key, c), sub, tagged) in zip(due, subs, pos_tags_many(subs), strict=True)
                    if tagged[key[1]][0] == tags[key[0]][key[1]][0]]
            for key, _, _ in fits:
                tag_passes[key] += 1
            keeps = meaning_kept(self.helper("embedder"), [(tokens_of[key[0]], key[1], c) for key, c, _ in fits],
                                 floor, local_floor)
            # the language model, the costliest check, reads only the fills that keep their meaning
            for key, c, _ in self._fluent([fit for fit, keep in zip(fits, keeps, strict=True) if keep]):
                kept[key] = [c]
        for text in texts:
            options[text] = [kept.get((text, i), []) for i in range(len(options[text]))]

    def _fluent(self, fits: list[tuple[tuple[str, int], str, str]]) -> list[tuple[tuple[str, int], str, str]]:
        """Clean mode, `lm` source: the (key, fill, substituted text) whose text's log-likelihood under the LM is
        at most `max_lm_drop` nats below the original's (Alzantot et al. 2018's language-model constraint, on the
        whole sentence: a fill that reads well after its left context but not before its right one is dropped)."""
        drop = float(self.config["max_lm_drop"])
        if not drop or not fits or self.source != "lm":  # a masked LM's fills have seen the right context
            return fits
        drops = log_likelihood_drops(self.helper("lm"), [(key[0], sub) for key, _, sub in fits])
        return [fit for fit, d in zip(fits, drops, strict=True) if d <= drop]

    def _acceptable(self, tokens: list[str], index: int) -> tuple[str, ...]:
        """The word's candidates that differ from it and are not antonyms, as they would be written."""
        word = tokens[index]
        if not self._editable(word):
            return ()
        prefix, core, suffix = split_affixes(word)
        banned = banned_for(core) if core else frozenset()
        out = []
        for candidate in self.candidates(tokens, index):
            if candidate.lower() == (word if self.config["mode"] == "faithful" else core).lower():
                continue
            if is_antonym(candidate, banned):
                continue
            faithful = self.config["mode"] == "faithful"
            out.append(candidate if faithful else prefix + match_case(core, candidate) + suffix)
        return tuple(dict.fromkeys(out))

    # the unit edit -------------------------------------------------------------------------------
    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        if tokens[index] != word:
            return None
        fill = self.options(tokens)[index]
        return fill[0] if fill else None  # RobTest: the first acceptable fill

    def options(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """Per word, its fill (the first of `fills`, as `substitute` takes it): draws look them up once a sentence."""
        text = join(tokens)
        firsts = self._firsts.get(text)
        if firsts is None:
            firsts = self._firsts[text] = [fills[:1] for fills in self.fills(tokens)]
        return firsts

    def drawn(self, example: Example, source: list[str], tokens: list[str], degree: float) -> Example:
        out = super().drawn(example, source, tokens, degree)
        return out if out.text == example.text else out.with_text(out.text, contextual_source=self.source_label)


TRANSFORMS = [Contextual]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
