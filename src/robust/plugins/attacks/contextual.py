"""Contextual (RobTest §2.6): replace words by what a language model expects in context, antonyms removed.

Two candidate sources (setting `source`; `auto` = `mlm` when `mlm` is set, else `lm`):
- `mlm`: a fill-mask model (`mlm=hf:bert-base-uncased` is the paper's), whole whitespace word -> one mask,
  top_k = 10 predictions computed on the ORIGINAL sentence, first acceptable one taken (BERT-Attack/BAE);
- `lm` (offline default, no hub): candidates = WordNet relatives of the word (synonyms, hypernyms, hyponyms,
  similar adjectives) + frequent words of the same part of speech proposed by the causal LM `smollm2` from the
  left context (next-token probability of their first token); every candidate sentence is scored in full by
  the LM (sum of token log-probabilities) and the best top_k kept — a left-to-right stand-in for the MLM.
Selection as in RobTest: the first candidate (best score) that differs case-insensitively from the word and
is not a WordNet antonym of it. Budget k = ceil(N_w·d) successful substitutions at random positions.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from robust.core.errors import RobustError
from robust.core.interfaces import Example
from robust.plugins.attacks.synonym import antonyms, inflect, synonyms, wordnet, wordnet_pos
from robust.plugins.attacks.text import WordTransform, join, match_case, pos_tags, split_affixes

if TYPE_CHECKING:
    import numpy as np

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
def related_words(core: str, pos: str) -> tuple[str, ...]:
    """Single-word WordNet relatives of `core` for WordNet POS `pos`: synonyms first, then similar
    adjectives, hypernyms and hyponyms of its first three senses (lemma forms)."""
    wn = wordnet()
    out = list(synonyms(core, pos, False))
    accept = {pos, "s"} if pos == "a" else {pos}
    for synset in [s for s in wn.synsets(core) if s.pos() in accept][:3]:
        for other in [*synset.similar_tos(), *synset.hypernyms(), *synset.hyponyms()[:8]]:
            out.extend(n for n in other.lemma_names() if "_" not in n and "-" not in n)
    return tuple(dict.fromkeys(w for w in out if w.lower() != core.lower()))


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


class Contextual(WordTransform):
    """Language-model substitutes at ceil(N_w·d) random words (word modification rate)."""

    name = "contextual"
    dimension = "Contextual"
    description = "RobTest Contextual: masked-LM (hf:) or offline smollm2-ranked substitutes, antonyms removed"
    settings = {
        "source": "auto",  # auto | mlm | lm
        "mlm": "",  # fill-mask model spec, e.g. hf:bert-base-uncased (the paper's)
        "lm": "smollm2",  # causal LM that ranks the offline candidates
        "top_k": 10,
        "pool": 20,  # offline: candidates scored by the LM per position (WordNet first, then LM proposals)
        "mode": "clean",  # clean: words only, punctuation kept, case matched; faithful: RobTest's tokens
    }

    def __init__(self, mlm_model: Any = None, lm_model: Any = None, **config: Any) -> None:
        super().__init__(**config)
        if self.config["source"] not in SOURCES:
            raise RobustError(f"contextual.source must be one of {', '.join(SOURCES)}")
        if self.config["mode"] not in MODES:
            raise RobustError(f"contextual.mode must be one of {', '.join(MODES)}")
        if self.source == "mlm" and not (self.config["mlm"] or mlm_model):
            raise RobustError("contextual.source=mlm needs a fill-mask model: --set contextual.mlm=hf:<model>")
        self._mlm, self._lm = mlm_model, lm_model
        self._cache: dict[tuple[str, int], tuple[str, ...]] = {}

    # configuration -------------------------------------------------------------------------------
    @property
    def source(self) -> str:
        if self.config["source"] != "auto":
            return self.config["source"]
        return "mlm" if self.config["mlm"] or getattr(self, "_mlm", None) is not None else "lm"

    @property
    def source_label(self) -> str:
        if self.source == "mlm":
            return f"mlm:{self.config['mlm'] or getattr(self._mlm, 'identity', 'injected')}"
        return f"lm:{self.config['lm'] if self._lm is None else getattr(self._lm, 'identity', 'injected')}"

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, **self.config, "candidate_source": self.source_label}

    def _model(self, which: str) -> Any:
        attr = "_mlm" if which == "mlm" else "_lm"
        if getattr(self, attr) is None:
            from robust.core.plugins import get_registry

            model = get_registry().model(self.config[which])
            need = "fill_mask" if which == "mlm" else "logprobs"
            if need not in model.capabilities:
                raise RobustError(f"contextual.{which}={self.config[which]!r} has no {need} capability")
            setattr(self, attr, model)
        return getattr(self, attr)

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
                self._cache[key] = self._lm_candidates(list(tokens), index)
        return self._cache.get(key, ())

    def _masked(self, tokens: list[str], index: int, mask: str) -> str:
        prefix, _, suffix = split_affixes(tokens[index])
        piece = mask if self.config["mode"] == "faithful" else prefix + mask + suffix
        return join([*tokens[:index], piece, *tokens[index + 1:]])

    def _fill_sentence(self, tokens: list[str]) -> None:
        """RobTest: one fill-mask call per position on the original sentence, top_k predictions each."""
        model = self._model("mlm")
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

    def _lm_candidates(self, tokens: list[str], index: int) -> tuple[str, ...]:
        prefix, core, suffix = split_affixes(tokens[index])
        if not self._editable(tokens[index]) or not core:
            return ()
        tag = pos_tags(join(tokens))[index][0]
        pool = int(self.config["pool"])
        related = []
        if tag[:1] in _OPEN_CLASS:
            related = [inflect(w, tag) for w in related_words(core.lower(), wordnet_pos(tag))]
        options = [w for w in dict.fromkeys([*related[: pool // 2]]) if w.lower() != core.lower()]
        options += self._lm_proposals(tokens, index, tag, pool - len(options), exclude={core.lower(), *options})
        if not options:
            return ()
        model = self._model("lm")
        left, right = join(tokens[:index]), join(tokens[index + 1:])
        texts = [_PREFIX + join([t for t in (left, prefix + match_case(core, w) + suffix, right) if t])
                 for w in options]
        # rank by the LM's log-probability of the whole sentence (spec §2.6 "top-10", LM stand-in)
        scores = [float(lp.sum()) for lp in model.logprobs(texts)]
        order = sorted(range(len(options)), key=lambda j: (-scores[j], options[j]))
        return tuple(options[j] for j in order[: int(self.config["top_k"])])

    def _lm_proposals(self, tokens: list[str], index: int, tag: str, n: int, exclude: set[str]) -> list[str]:
        """The n same-POS vocabulary words whose first token the LM finds most likely after the left context."""
        vocab = [w for w in vocabulary(tag) if w.lower() not in exclude]
        if n <= 0 or not vocab:
            return []
        model = self._model("lm")
        prefix, core, _ = split_affixes(tokens[index])
        context = _PREFIX + join(tokens[:index])
        if prefix:  # '"smart': the word follows its opening punctuation directly
            context, lead = context + (" " if index else "") + prefix, ""
        else:
            lead = " " if index else ""
        first_ids = self._first_ids(tuple(lead + match_case(core, w) for w in vocab))
        probs = model.next_token_distribution([context])[0]
        ranked = sorted(range(len(vocab)), key=lambda j: (-float(probs[first_ids[j]]), vocab[j]))
        return [vocab[j] for j in ranked[:n] if first_ids[j] >= 0]

    @functools.lru_cache(maxsize=64)  # noqa: B019 - one transform per run; keyed by the word list
    def _first_ids(self, texts: tuple[str, ...]) -> list[int]:
        return [ids[0] if ids else -1 for ids in self._model("lm").tokenize(list(texts))]

    # the unit edit -------------------------------------------------------------------------------
    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        if not self._editable(word):
            return None
        prefix, core, suffix = split_affixes(word)
        banned = banned_for(core) if core else frozenset()
        for candidate in self.candidates(tokens, index):
            if candidate.lower() == (word if self.config["mode"] == "faithful" else core).lower():
                continue
            if is_antonym(candidate, banned):
                continue
            if self.config["mode"] == "faithful":
                return candidate
            return prefix + match_case(core, candidate) + suffix
        return None

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        out = super().apply(example, degree, rng)
        return [e if e.text == example.text else e.with_text(e.text, contextual_source=self.source_label)
                for e in out]


TRANSFORMS = [Contextual]
