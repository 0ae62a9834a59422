"""Contextual (RobTest §2.6): replace words by what a language model expects in context, antonyms removed.

Two candidate sources (setting `source`; `auto` = `mlm` when `mlm` is set, else `lm`):
- `mlm`: a fill-mask model (`mlm=hf:bert-base-uncased` is the paper's), whole whitespace word -> one mask,
  top_k = 10 predictions computed on the ORIGINAL sentence, first acceptable one taken (BERT-Attack/BAE);
- `lm` (offline default, no hub): ONE forward pass of the causal LM `smollm2` over the sentence gives, at every
  word, the next-token distribution after its left context; the top_k frequent words of the same part of
  speech whose first token is most likely there are the fills (a left-to-right stand-in for the MLM).
Selection as in RobTest: the first candidate (best score) that differs case-insensitively from the word and
is not a WordNet antonym of it. `mode="clean"` adds a meaning check (the paper's validity criterion): the
first `check` acceptable fills are kept only if the substituted sentence stays within cosine
`min_similarity` of the original under the `embedder` (default `minilm`, chosen independently of the victim);
one batched embedding call per sentence. Fills are cached per sentence, so degrees and draws share them.
Budget k = ceil(N_w·d) successful substitutions at random positions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

from robust.core.errors import RobustError
from robust.core.interfaces import Example
from robust.plugins.attacks.synonym import antonyms, inflect, wordnet
from robust.plugins.attacks.text import HelperModels, WordTransform, cosines, join, match_case, pos_tags, split_affixes

SOURCES = ("auto", "mlm", "lm")
MODES = ("clean", "faithful")
_OPEN_CLASS = {"N": "NOUN", "V": "VERB", "J": "ADJ", "R": "ADV"}
# a few closed-class alternatives, so that "I watch" can become "We watch" (Table 1 of the paper)
_CLOSED_CLASS = {
    "PRP": ("i", "we", "you", "they", "he", "she"),
    "PRP$": ("my", "our", "your", "their", "his", "her"),
    "DT": ("a", "the", "this", "that", "each", "every"),
}
# never proposed from the vocabulary: they flip meaning rather than substitute a word
NEGATIONS = {"not", "no", "never", "nothing", "none", "nor", "neither", "without", "hardly", "barely",
             "scarcely", "seldom", "rarely", "nobody", "nowhere", "cannot"}
_PREFIX = "\n"  # scored texts start after a newline, so the first word's own probability counts too


@functools.cache
def vocabulary(ptb_tag: str, size: int = 5000) -> tuple[str, ...]:
    """Frequent English words (wordfreq) usable with tag `ptb_tag`: lemmas of the tag's universal POS
    (lemminflect) re-inflected to the tag; a small fixed set for pronouns and determiners."""
    if ptb_tag in _CLOSED_CLASS:
        return _CLOSED_CLASS[ptb_tag]
    upos = _OPEN_CLASS.get(ptb_tag[:1])
    if upos is None:
        return ()
    from lemminflect import getAllLemmas
    from spacy.lang.en.stop_words import STOP_WORDS

    from robust.plugins.attacks.distraction import frequent_words

    out = []
    for word in frequent_words(size):
        if len(word) < 2 or word in STOP_WORDS or word in NEGATIONS:
            continue  # function words ("it" is a WordNet noun) and negations never count as substitutes
        if word in getAllLemmas(word).get(upos, ()) and dominant_pos(word) == upos:
            out.append(inflect(word, ptb_tag))
    return tuple(dict.fromkeys(out))


@functools.cache
def dominant_pos(lemma: str) -> str | None:
    """The universal POS with the most WordNet senses of `lemma` (None if not in WordNet). Sense-tagged
    counts (cntlist.rev) are not part of robust's WordNet, so the number of senses decides."""
    counts: dict[str, int] = {}
    for synset in wordnet().synsets(lemma):
        upos = {"n": "NOUN", "v": "VERB", "a": "ADJ", "s": "ADJ", "r": "ADV"}[synset.pos()]
        counts[upos] = counts.get(upos, 0) + 1
    return max(counts, key=lambda k: (counts[k], k)) if counts else None


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
        "source": "auto",  # auto | mlm | lm
        "mlm": "",  # fill-mask model spec, e.g. hf:bert-base-uncased (the paper's)
        "lm": "smollm2",  # causal LM that proposes the offline fills
        "top_k": 10,
        "mode": "clean",  # clean: words only, punctuation kept, case matched, meaning check; faithful: RobTest's
        "embedder": "minilm",  # clean: the meaning check's sentence encoder (never the victim)
        "min_similarity": 0.9,
        "check": 3,  # clean: acceptable fills per word that are meaning-checked (the first passing one is used)
    }

    def __init__(self, mlm_model: Any = None, lm_model: Any = None, embedder: Any = None, **config: Any) -> None:
        super().__init__(**config)
        if self.config["source"] not in SOURCES:
            raise RobustError(f"contextual.source must be one of {', '.join(SOURCES)}")
        if self.config["mode"] not in MODES:
            raise RobustError(f"contextual.mode must be one of {', '.join(MODES)}")
        self.provide("mlm", mlm_model)
        self.provide("lm", lm_model)
        self.provide("embedder", embedder)
        if self.source == "mlm" and not (self.config["mlm"] or mlm_model):
            raise RobustError("contextual.source=mlm needs a fill-mask model: --set contextual.mlm=hf:<model>")
        self._cache: dict[tuple[str, int], tuple[str, ...]] = {}
        self._fills: dict[str, list[tuple[str, ...]]] = {}

    # configuration -------------------------------------------------------------------------------
    def _injected(self, name: str) -> Any:
        return self.__dict__.get("_helpers", {}).get(name)

    @property
    def source(self) -> str:
        if self.config["source"] != "auto":
            return self.config["source"]
        return "mlm" if self.config["mlm"] or self._injected("mlm") is not None else "lm"

    @property
    def source_label(self) -> str:
        which = self.source
        injected = self._injected(which)
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
        context ranks the same-POS vocabulary by the probability of each word's first token."""
        import numpy as np

        model = self.helper("lm")
        text = join(tokens)
        for i in range(len(tokens)):
            self._cache[(text, i)] = ()
        tags = pos_tags(text)
        positions = [i for i, w in enumerate(tokens)
                     if self._editable(w) and split_affixes(w)[1] and not split_affixes(w)[0]
                     and vocabulary(tags[i][0])]
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
            vocab = [w for w in vocabulary(tags[i][0]) if w.lower() != core.lower()]
            lead = " " if i else ""
            first = np.asarray(self._first_ids(tuple(lead + match_case(core, w) for w in vocab)))
            probs = np.where(first >= 0, rows[len(prefix) - 1][np.maximum(first, 0)], -1.0)
            order = sorted(range(len(vocab)), key=lambda j: (-float(probs[j]), vocab[j]))
            self._cache[(text, i)] = tuple(vocab[j] for j in order[:top_k] if probs[j] >= 0)

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one transform per run; keyed by the word list
    def _first_ids(self, texts: tuple[str, ...]) -> list[int]:
        return [ids[0] if ids else -1 for ids in self.helper("lm").tokenize(list(texts))]

    def fills(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """Per word: the acceptable fills in rank order (clean: meaning-checked), cached per sentence."""
        text = join(tokens)
        if text not in self._fills:
            options = [self._acceptable(tokens, i) for i in range(len(tokens))]
            if self.config["mode"] == "clean":
                options = [o[: int(self.config["check"])] for o in options]
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
