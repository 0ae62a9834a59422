"""Contextual (RobTest §2.6): replace words by what a language model expects in context, antonyms removed.

Two candidate sources (setting `source`; `auto` = `mlm` when `mlm` is set, else `lm`):
- `mlm`: a fill-mask model (`mlm=hf:bert-base-uncased` is the paper's), whole whitespace word -> one mask,
  top_k = 10 predictions computed on the ORIGINAL sentence, first acceptable one taken (BERT-Attack/BAE);
- `lm` (offline default, no hub): ONE forward pass of the causal LM `smollm2` over the sentence gives, at every
  word, the next-token distribution after its left context; the word's common WordNet relatives (synonyms,
  similar words, hypernyms, hyponyms of its two most frequent senses, re-inflected) are ranked
  by the probability of their first token there, top_k kept (a left-to-right stand-in for the MLM; free LM
  proposals flipped meaning: "hardly a masterpiece" -> "actually a masterpiece").
Selection as in RobTest: the first candidate (best score) that differs case-insensitively from the word and
is not a WordNet antonym of it. `mode="clean"` adds a meaning check (the paper's validity criterion): the
first `check` acceptable fills are kept only if the substituted sentence stays within cosine
`min_similarity` of the original under the `embedder` (default `minilm`, chosen independently of the victim;
one batched embedding call per sentence) and re-tag with the original word's Penn tag (spaCy). Fills are
cached per sentence, so degrees and draws share them.
Budget k = ceil(N_w·d) successful substitutions at random positions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import Example
from robust.core.lazy import np
from robust.core.settings import Setting
from robust.plugins.attacks.synonym import (
    LIGHT_WORDS,
    antonyms,
    known_inflection,
    replaceable,
    same_tag,
    wordnet,
    wordnet_pos,
)
from robust.plugins.attacks.text import (
    MODE,
    HelperModels,
    WordTransform,
    cosines,
    join,
    match_case,
    pos_tags,
    split_affixes,
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
_PREFIX = "\n"  # scored texts start after a newline, so the first word's own probability counts too


@functools.cache
def related_words(core: str, pos: str, min_zipf: float = 3.0) -> tuple[str, ...]:
    """Common single-word WordNet relatives of `core` for WordNet POS `pos` from its two most frequent
    senses: synonyms, similar adjectives, hypernyms and hyponyms (sister terms flipped meaning: "pleasure" ->
    "shame"), lemma forms of three letters or more."""
    from wordfreq import zipf_frequency

    wn = wordnet()
    lemma = wn.morphy(core, pos) or core
    accept = {pos, "s"} if pos == "a" else {pos}
    out: list[str] = []
    for synset in [s for s in wn.synsets(lemma) if s.pos() in accept][:2]:
        related = [synset, *synset.similar_tos(), *synset.hypernyms(), *synset.hyponyms()]
        for other in related:
            out.extend(n for n in other.lemma_names() if n.isalpha() and len(n) > 2)
    return tuple(dict.fromkeys(w for w in out if w.lower() not in (core.lower(), lemma.lower())
                               and w.lower() not in NEGATIONS and zipf_frequency(w, "en") >= min_zipf))


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
    models = {"mlm": frozenset({"fill_mask"}), "lm": frozenset({"next_token_distribution", "tokenize"}),
              "embedder": frozenset({"embed"})}
    settings = {
        "source": Setting("auto", choices=SOURCES, help="auto: mlm when `mlm` is set, else lm"),
        "mlm": Setting("", help="fill-mask model spec, e.g. hf:bert-base-uncased (the paper's)"),
        "lm": Setting("smollm2", help="causal LM that ranks the offline fills"),
        "top_k": Setting(10, min=1, max=100, help="fills kept per word (the paper: 10)"),
        "mode": MODE,
        "embedder": Setting("minilm", help="clean: the meaning check's sentence encoder (never the victim)"),
        "min_similarity": Setting(0.9, min=-1.0, max=1.0, help="clean: cosine to the original a fill must keep"),
        "check": Setting(3, min=1, max=100, help="clean: acceptable fills per word that are meaning-checked"),
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

    # candidates ---------------------------------------------------------------------------------
    def _editable(self, word: str) -> bool:
        """faithful: every token (RobTest masks punctuation too); clean: plain alphabetic words only
        ("director's", "horror/thriller" and "well-known" are left alone)."""
        return self.config["mode"] == "faithful" or split_affixes(word)[1].isalpha()

    def candidates(self, tokens: Sequence[str], index: int) -> tuple[str, ...]:
        """Ranked substitutes (best first, ≤ top_k) for the word at `index` of `tokens`, cached per text."""
        key = (join(tokens), index)
        if key not in self._cache:
            if self.source == "mlm":
                self._fill_sentence(list(tokens))
            else:
                self._lm_sentence(list(tokens))
        return self._cache.get(key, ())

    def _masked(self, tokens: list[str], index: int, mask: str) -> str:
        prefix, _, suffix = split_affixes(tokens[index])
        piece = mask if self.config["mode"] == "faithful" else prefix + mask + suffix
        return join([*tokens[:index], piece, *tokens[index + 1:]])

    def _fill_sentence(self, tokens: list[str]) -> None:
        """RobTest: one fill-mask call per position on the original sentence, top_k predictions each."""
        model = self.helper("mlm")
        mask = getattr(getattr(model, "tokenizer", None), "mask_token", None) or "[MASK]"
        text = join(tokens)
        positions = [i for i, w in enumerate(tokens) if self._editable(w)]
        masked = [self._masked(tokens, i, mask) for i in positions]
        results = model.fill_mask(masked, int(self.config["top_k"])) if masked else []
        for i in range(len(tokens)):
            self._cache[(text, i)] = ()
        for i, predictions in zip(positions, results, strict=True):
            words = (clean_piece(tok) for tok, _ in predictions)
            self._cache[(text, i)] = tuple(dict.fromkeys(w for w in words if w))

    def _lm_sentence(self, tokens: list[str]) -> None:
        """Fills of every word from ONE causal-LM pass: the next-token distribution after each word's left
        context ranks the word's pool (`_lm_pool`) by the probability of each candidate's first token."""
        model = self.helper("lm")
        text = join(tokens)
        for i in range(len(tokens)):
            self._cache[(text, i)] = ()
        tags = pos_tags(text)
        options = {i: self._lm_pool(w, tags, i) for i, w in enumerate(tokens)
                   if self._editable(w) and split_affixes(w)[1] and not split_affixes(w)[0]}
        positions = [i for i, pool in options.items() if pool]
        if not positions:
            return
        full, *prefixes = model.tokenize([_PREFIX + text, *(_PREFIX + join(tokens[:i]) for i in positions)])
        if len(full) < 2:
            return
        rows = model.token_distributions([_PREFIX + text], len(full) - 1)[0]  # row t predicts token t + 1
        top_k = int(self.config["top_k"])
        for i, prefix in zip(positions, prefixes, strict=True):
            if not 0 < len(prefix) < len(full) or full[: len(prefix)] != prefix:
                continue  # the word does not start a token of the full sentence: no clean distribution
            core = split_affixes(tokens[i])[1]
            vocab = options[i]
            lead = " " if i else ""
            first = np.asarray(self._first_ids(tuple(lead + match_case(core, w) for w in vocab)))
            probs = np.where(first >= 0, rows[len(prefix) - 1][np.maximum(first, 0)], -1.0)
            order = sorted(range(len(vocab)), key=lambda j: (-float(probs[j]), vocab[j]))
            self._cache[(text, i)] = tuple(vocab[j] for j in order[:top_k] if probs[j] >= 0)

    def _lm_pool(self, word: str, tags: tuple[tuple[str, str], ...], index: int) -> list[str]:
        """What the LM ranks at a word: its common WordNet relatives re-inflected to the word's tag (content
        words that can be replaced, as for Synonym), or a small closed class (pronouns, determiners) in
        faithful mode."""
        ptb = tags[index][0]
        core = split_affixes(word)[1]
        if ptb in _CLOSED_CLASS:
            return [w for w in _CLOSED_CLASS[ptb] if w != core.lower()] if self.config["mode"] == "faithful" else []
        if ptb[:1] not in _OPEN_CLASS or not replaceable(tags, index) or core.lower() in LIGHT_WORDS:
            return []
        pool = (known_inflection(w, ptb) for w in related_words(core.lower(), wordnet_pos(ptb)))
        return [w for w in dict.fromkeys(p for p in pool if p) if w.lower() != core.lower() and w.isalpha()
                and w.lower() not in LIGHT_WORDS]

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - one transform per run; keyed by the word list
    def _first_ids(self, texts: tuple[str, ...]) -> list[int]:
        return [ids[0] if ids else -1 for ids in self.helper("lm").tokenize(list(texts))]

    def fills(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """Per word: the acceptable fills in rank order (clean: meaning-checked), cached per sentence."""
        text = join(tokens)
        if text not in self._fills:
            options = [self._acceptable(tokens, i) for i in range(len(tokens))]
            if self.config["mode"] == "clean":
                tags = pos_tags(text)
                options = [[c for c in o if same_tag(tokens, i, c, tags)][: int(self.config["check"])]
                           for i, o in enumerate(options)]
                sentences = [join([*tokens[:i], c, *tokens[i + 1:]]) for i, o in enumerate(options) for c in o]
                sims = iter(cosines(self.helper("embedder"), text, sentences))
                floor = float(self.config["min_similarity"])
                options = [tuple(c for c in o if next(sims) >= floor) for o in options]
            self._fills[text] = options
        return self._fills[text]

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
        options = self.fills(list(tokens))[index]
        return options[0] if options else None  # RobTest: the first acceptable fill

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        out = super().apply(example, degree, rng)
        return [e if e.text == example.text else e.with_text(e.text, contextual_source=self.source_label)
                for e in out]


TRANSFORMS = [Contextual]
