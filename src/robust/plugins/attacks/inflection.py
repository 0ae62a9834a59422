"""Inflection (Chen et al. 2023, Table 1): re-inflect content words Morpheus-style with lemminflect.

A word tagged NOUN/VERB/ADJ (spaCy's universal POS in context, PROPN->NOUN and AUX->VERB as in NLTK's
universal tagset) whose lemminflect lemmas include that POS is replaced by a random inflection of its first
lemma ("watch" -> "watched", "comedy" -> "comedies").

`mode="clean"` (default): grammatical, agreement-preserving re-inflection on spaCy's dependency parse
(docs/attacks.md; review found RobTest-style draws such as "a ... comedies" or "he watching" ungrammatical):
finite verbs switch tense and keep agreement with their subject ("watches" <-> "watched", "is" <-> "was",
"are" <-> "were", "has" <-> "had"); nouns switch number only where nothing forces it (no a/this/these/
numeral determiner, not the subject of a verb that agrees, not a compound modifier; plural -> singular only
with a determiner; singular -> plural only if the plural is in common use, not "love" -> "loves", and nothing
around it keeps it singular: a/an or "first"/"best" before it, a singular pronoun after it); adjectives
become comparative when no adverb or "than" binds them ("smart" -> "smarter"); every
new form must be a common English word (wordfreq). k = ceil(N_w·d) successful changes; words that cannot
change are skipped (the example is flagged `unreached` when too few can); punctuation and case are kept.
`mode="faithful"`: RobTest's code — a form drawn from all inflections (the word itself included, duplicates
kept); a position counts toward k once the sentence differs from the original (so later no-op draws count);
a capitalised first word is lower-cased before and `.title()`-cased after every call ("It's" -> "It'S").
"""

from __future__ import annotations

import functools
from typing import Any

from robust import Example, hookimpl
from robust.toolkit.lazy import np
from robust.toolkit.lexicon import in_collocation, within_zipf
from robust.toolkit.loading import import_soon
from robust.toolkit.transforms import (
    MODE,
    SPACY,
    LastSentence,
    WordTransform,
    budget,
    join,
    match_case,
    parsed_words,
    pos_tags,
    split_affixes,
    words,
)

CONTENT = {"NOUN": "NOUN", "PROPN": "NOUN", "VERB": "VERB", "AUX": "VERB", "ADJ": "ADJ"}


@functools.cache
def inflections(word: str, upos: str) -> tuple[str, ...]:
    """Every inflection of `word`'s first lemma for `upos` (flattened over PTB tags, duplicates kept)."""
    from lemminflect import getAllInflections, getAllLemmas

    lemmas = getAllLemmas(word).get(upos)
    if not lemmas:
        return ()
    return tuple(form for forms in getAllInflections(lemmas[0], upos=upos).values() for form in forms)


SINGULAR_ONLY = {"a", "an", "another", "every", "each", "one", "this", "that", "either", "neither"}
PLURAL_ONLY = {"these", "those", "many", "several", "few", "both", "various", "numerous", "two", "three"}
SINGLE_MODIFIERS = {"first", "last", "next", "only", "same", "whole", "entire", "main", "sole"}
SINGULAR_PRONOUNS = {"it", "its", "itself", "he", "his", "him", "himself", "she", "her", "herself"}
MASS_GAP = 1.0  # a noun's plural must be at most this far (Zipf) below its singular to count as countable
BE = {("am", "VBD"): "was", ("is", "VBD"): "was", ("are", "VBD"): "were", ("has", "VBD"): "had",
      ("have", "VBD"): "had", ("does", "VBD"): "did", ("do", "VBD"): "did"}


def _common(form: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(form, "en") >= 2.5


def _subject(token) -> Any:
    """The subject that a finite verb agrees with (through conj/relcl chains), or None."""
    for _ in range(4):
        subjects = [c for c in token.children if c.dep_ in ("nsubj", "nsubjpass", "expl")]
        if subjects:
            return subjects[0]
        if token.dep_ == "relcl":
            return token.head
        if token.dep_ != "conj":
            return None
        token = token.head
    return None


def _third_singular(subject) -> bool | None:
    low = subject.lower_
    if low in ("i", "you", "we", "they") or subject.tag_ in ("NNS", "NNPS"):
        return False
    if low in ("he", "she", "it", "this", "that", "there") or subject.tag_ in ("NN", "NNP"):
        if any(c.dep_ == "conj" for c in subject.children):
            return False  # "the plot and the acting are"
        return True
    return None


def _verb_forms(token) -> list[str]:
    """Tense switch of a finite verb that keeps agreement with its subject."""
    low, tag = token.lower_, token.tag_
    if "'" in token.text or tag not in ("VBD", "VBZ", "VBP") or any(c.dep_ == "aux" for c in token.children):
        return []
    if tag in ("VBZ", "VBP"):  # present -> past: no agreement to keep, except be
        if (low, "VBD") in BE:
            return [BE[(low, "VBD")]]
        past = _inflect_lemma(token, "VBD")
        return [past] if past and low not in ("be", "have", "do") else []
    subject = _subject(token)  # past -> present: agree with the subject
    third = _third_singular(subject) if subject is not None else None
    if third is None:
        return []
    lemma = _lemma(token)
    if lemma == "be":
        if subject.lower_ == "i":
            return ["am"]
        return ["is" if third else "are"] if low in ("was", "were") else []
    return [f for f in [_inflect_lemma(token, "VBZ" if third else "VBP")] if f]


def _noun_forms(token) -> list[str]:
    """Number switch of a noun that no determiner, numeral or agreeing verb constrains."""
    if token.tag_ not in ("NN", "NNS") or token.dep_ in ("compound", "npadvmod") or "'" in token.text:
        return []
    children = {c.lower_ for c in token.children if c.dep_ in ("det", "nummod", "predet", "quantmod")}
    if any(c.dep_ == "nummod" for c in token.children) or children & (SINGULAR_ONLY | PLURAL_ONLY):
        return []
    if token.dep_ in ("nsubj", "nsubjpass", "attr", "expl"):
        return []  # its verb (or the subject of its copula) agrees with it
    if token.tag_ == "NNS" and not any(c.dep_ in ("det", "poss") for c in token.children):
        return []  # "in video stores" -/-> "in video store": a bare singular count noun
    target = "NNS" if token.tag_ == "NN" else "NN"
    form = _inflect_lemma(token, target)
    if not form or form.lower() == token.lower_:
        return []
    if target == "NNS" and (_singular_context(token) or not _countable(token.lower_, form.lower())):
        return []  # kept singular by its own words, or a mass noun
    return [form]


def _singular_context(token) -> bool:
    """Whether a singular noun's own words keep it singular, whatever the parse says: a singular determiner or a
    superlative/ordinal before it through its modifiers ("an uppity musical beat", "the first opportunity",
    "best work"), or a singular pronoun after it that may refer back to it ("the director ... his chest")."""
    for left in reversed(token.doc[max(0, token.i - 5): token.i]):
        low = left.lower_
        if low in SINGULAR_ONLY or left.tag_ in ("JJS", "RBS") or low in SINGLE_MODIFIERS:
            return True
        if not (left.pos_ in ("ADJ", "ADV", "NOUN", "PROPN") or low in (",", "-")):
            break
    return any(t.lower_ in SINGULAR_PRONOUNS for t in token.doc[token.i + 1: token.sent.end])


def _countable(singular: str, plural: str) -> bool:
    """Whether the plural is in common use next to the singular (wordfreq Zipf within MASS_GAP): mass nouns
    have rare plurals ("love" -> "loves" 1.2 below, "fish" -> "fishes" 1.5; "actress" -> "actresses" 0.96)."""
    return within_zipf(plural, singular, MASS_GAP)


def _adjective_forms(token) -> list[str]:
    """Positive -> comparative, when no adverb modifies the adjective and no "than" follows (a comparative
    is rarely free of its "than" clause, so the reverse is not attempted)."""
    if token.tag_ != "JJ" or any(c.dep_ in ("advmod", "npadvmod") for c in token.children):
        return []
    nxt = token.nbor(1) if token.i + 1 < len(token.doc) else None
    if nxt is not None and nxt.lower_ == "than":
        return []
    form = _inflect_lemma(token, "JJR")
    return [form] if form and " " not in form and form.lower() != token.lower_ else []


def _lemma(token) -> str:
    return _lemma_of(token.lower_, "VERB" if token.pos_ == "AUX" else token.pos_)


@functools.lru_cache(maxsize=65536)
def _lemma_of(word: str, upos: str) -> str:
    from lemminflect import getLemma

    lemmas = getLemma(word, upos=upos) if upos in ("VERB", "NOUN", "ADJ") else ()
    return lemmas[0] if lemmas else word


def _inflect_lemma(token, tag: str) -> str | None:
    return _inflected(_lemma(token), tag)


@functools.lru_cache(maxsize=65536)
def _inflected(lemma: str, tag: str) -> str | None:
    """The lemma's inflection for a Penn tag, if it is a common English word (draws ask for the same ones)."""
    from lemminflect import getInflection

    forms = getInflection(lemma, tag=tag, inflect_oov=False)
    return forms[0] if forms and _common(forms[0]) else None


def grammatical_forms(token) -> list[str]:
    """Re-inflections of a parsed word that keep the sentence grammatical (clean mode)."""
    if token.pos_ in ("VERB", "AUX"):
        return _verb_forms(token)
    if token.pos_ == "NOUN":
        return _noun_forms(token)
    if token.pos_ == "ADJ":
        return _adjective_forms(token)
    return []


def word_forms(tokens: list[str], i: int, upos: str, token) -> tuple[str, ...]:
    """The grammatical re-inflections of word `i` (tagged `upos`, parsed as `token`) as written: affixes and case
    kept; none for a noun or adjective of a WordNet phrase ("waste of time(s)"), looked up only for a word that
    has forms."""
    prefix, core, suffix = split_affixes(tokens[i])
    if (CONTENT.get(upos) is None or token is None or not core.isalpha() or "'" in tokens[i]
            or token.text.lower() != core.lower()):
        return ()
    forms = grammatical_forms(token)
    if not forms or upos in ("NOUN", "ADJ") and in_collocation(tokens, i):
        return ()
    return tuple(prefix + match_case(core, form) + suffix for form in forms)


class Inflection(WordTransform):
    """Random inflections of ceil(N_w*d) random content words (word modification rate)."""

    name = "inflection"
    dimension = "inflection"
    description = "Inflection: Morpheus-style re-inflection of nouns, verbs and adjectives (lemminflect)"
    settings = {"mode": MODE}

    integer_draws = True  # substitute (and so edit) draws nothing but rng.integers(n)

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._forms: dict[str, list[tuple[str, ...]]] = {}  # clean: per sentence, each word's forms as written
        self._last = LastSentence()

    def _faithful(self) -> bool:
        return self.config["mode"] == "faithful"

    def warm_up(self) -> None:
        SPACY.start()  # the tagger and the parser, and the inflection tables, load while the model does
        import_soon("lemminflect", "wordfreq")

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        if self._faithful():
            upos = CONTENT.get(pos_tags(join(tokens))[index][1])
            forms = inflections(word, upos) if upos else ()
        else:
            forms = self.clean_forms(tokens)[index] if tokens[index] == word else ()
        return forms[int(rng.integers(len(forms)))] if forms else None

    def clean_forms(self, tokens: list[str]) -> list[tuple[str, ...]]:
        """Every word's grammatical re-inflections as written (affixes and case kept), computed once per sentence
        and shared by all draws and degrees (asked once per word position: the last sentence is at hand)."""
        return self._last.get(tokens, self._forms_of)

    def options(self, tokens: list[str]) -> list[tuple[str, ...]] | None:
        """clean: `substitute` picks among the sentence's `clean_forms` (draws look them up once a sentence)."""
        return None if self._faithful() else self._forms_of(tokens)

    def _forms_of(self, tokens: list[str]) -> list[tuple[str, ...]]:
        text = join(tokens)
        if text not in self._forms:
            tags, parsed = pos_tags(text), parsed_words(text)
            self._forms[text] = [word_forms(tokens, i, tags[i][1], parsed[i]) for i in range(len(tokens))]
        return self._forms[text]

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        if not self._faithful():
            return super().apply(example, degree, rng)
        source = words(example.text)
        k = budget(len(source), degree)
        if k == 0:
            return [example]
        titled = source[0][:1].isupper()
        tagged = join(source)
        tokens = list(source)
        counted = 0
        for index in rng.permutation(len(source)):
            if counted >= k:
                break
            if titled:
                tokens[0] = tokens[0].lower()
            new = self.substitute(source[index], words(tagged), int(index), rng)
            if new is not None:
                tokens[index] = new
            if titled:
                tokens[0] = tokens[0].title()
            # counts once the sentence differs from the original (RobTest's code, Word/inflection_transform.py)
            if tokens != source:
                counted += 1
        return [example.with_text(join(tokens))]


TRANSFORMS = [Inflection]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
