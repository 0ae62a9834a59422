"""Inflection (RobTest §2.7): re-inflect content words Morpheus-style with lemminflect.

A word tagged NOUN/VERB/ADJ (spaCy's universal POS in context, PROPN->NOUN and AUX->VERB as in NLTK's
universal tagset) whose lemminflect lemmas include that POS is replaced by a random inflection of its first
lemma ("watch" -> "watched", "comedy" -> "comedies").

`mode="clean"` (default): k = ceil(N_w·d) successful changes; a form is drawn among those that differ from
the word; punctuation around the word and its case pattern are kept.
`mode="faithful"`: RobTest's code — a form drawn from all inflections (the word itself included, duplicates
kept); a position counts toward k once the sentence differs from the original (so later no-op draws count);
a capitalised first word is lower-cased before and `.title()`-cased after every call ("It's" -> "It'S").
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from robust.core.errors import RobustError
from robust.core.interfaces import Example
from robust.plugins.attacks.text import (
    WordTransform,
    budget,
    join,
    match_case,
    pos_tags,
    split_affixes,
    words,
)

if TYPE_CHECKING:
    import numpy as np

MODES = ("clean", "faithful")
CONTENT = {"NOUN": "NOUN", "PROPN": "NOUN", "VERB": "VERB", "AUX": "VERB", "ADJ": "ADJ"}


@functools.cache
def inflections(word: str, upos: str) -> tuple[str, ...]:
    """Every inflection of `word`'s first lemma for `upos` (flattened over PTB tags, duplicates kept)."""
    from lemminflect import getAllInflections, getAllLemmas

    lemmas = getAllLemmas(word).get(upos)
    if not lemmas:
        return ()
    return tuple(form for forms in getAllInflections(lemmas[0], upos=upos).values() for form in forms)


class Inflection(WordTransform):
    """Random inflections of ceil(N_w*d) random content words (word modification rate)."""

    name = "inflection"
    dimension = "inflection"
    description = "Inflection: Morpheus-style re-inflection of nouns, verbs and adjectives (lemminflect)"
    settings = {"mode": "clean"}

    def _faithful(self) -> bool:
        if self.config["mode"] not in MODES:
            choices = ", ".join(MODES)
            raise RobustError(f"inflection mode must be one of {choices}, got {self.config['mode']!r}")
        return self.config["mode"] == "faithful"

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        upos = CONTENT.get(pos_tags(join(tokens))[index][1])
        if upos is None:
            return None
        if self._faithful():
            forms = inflections(word, upos)
            return forms[int(rng.integers(len(forms)))] if forms else None
        prefix, core, suffix = split_affixes(word)
        forms = sorted({f for f in inflections(core.lower(), upos) if f.lower() != core.lower()})
        if not forms:
            return None
        return prefix + match_case(core, forms[int(rng.integers(len(forms)))]) + suffix

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
            if tokens != source:  # counts once the sentence differs from the original (§2.7)
                counted += 1
        return [example.with_text(join(tokens))]


TRANSFORMS = [Inflection]
