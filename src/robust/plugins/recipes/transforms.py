"""The recipes' edits as Transforms: DeepWordBug's character edits (`deepwordbug-edit`, homoglyph by default)
and OpenAttack's WordNet substitutes (`wordnet-swap`). `candidates(word, rng)` gives the replacements of one
word, which the recipes call on their own tokens; `apply`/`edit` make the same edits usable on whitespace words
by RobTest, BYOD and the transform-driven attackers (`saliency-greedy:deepwordbug-edit`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from robust import Setting
from robust.plugins.recipes.charset import OPS
from robust.plugins.recipes.lexicon import cased_substitutes, load_wordnet
from robust.plugins.recipes.tokens import textattack_words
from robust.toolkit.transforms import WordTransform

if TYPE_CHECKING:
    import numpy as np


_words_in = functools.lru_cache(maxsize=1 << 16)(textattack_words)  # a whitespace word's words, tokenized once


class WordCandidates(WordTransform):
    """A word-level transform defined by `candidates(word, rng)`, the replacements of one word. As a unit edit
    (WordTransform's `edit`/`apply`), the first word inside a whitespace token (TextAttack's words: punctuation
    around it kept) is replaced by `pick`."""

    def candidates(self, word: str, rng: np.random.Generator) -> list[str]:
        raise NotImplementedError

    def pick(self, word: str, rng: np.random.Generator) -> str | None:
        """One replacement of `word` for a unit edit (default: a random candidate), None if it has none."""
        options = self.candidates(word, rng)
        return options[int(rng.integers(len(options)))] if options else None

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        inner = _words_in(word)
        if not inner.spans:
            return None
        tokens = inner.words
        new = self.pick(tokens[0], rng)
        if new is None or new == tokens[0]:
            return None
        tokens[0] = new
        return inner.render(tokens)


class CharacterBugs(WordCandidates):
    name = "deepwordbug-edit"
    dimension = "Glyph"
    description = ("DeepWordBug's character edits of a word, one random position each: homoglyph (OpenAttack's "
                   "table; default) or swap, substitute, delete, insert (TextAttack)")
    settings = {"ops": Setting(["homoglyph"], choices=tuple(OPS), min_items=1,
                               help="edits offered per word, one candidate each")}
    integer_draws = True  # an op, positions and letters

    def candidates(self, word: str, rng: np.random.Generator) -> list[str]:
        """One candidate per op, in the order of `ops` (TextAttack's CompositeTransformation order), without
        the word itself and duplicates."""
        out: dict[str, None] = {}
        for op in self.config["ops"]:
            new = OPS[op](word, rng)
            if new is not None and new != word:
                out.setdefault(new, None)
        return list(out)

    def pick(self, word: str, rng: np.random.Generator) -> str | None:
        """One random op of `ops` (a unit edit draws one edit, not one of all candidates)."""
        return OPS[self.config["ops"][int(rng.integers(len(self.config["ops"])))]](word, rng)


class WordNetSwap(WordCandidates):
    name = "wordnet-swap"
    dimension = "Synonym"
    description = ("A word replaced by one of its WordNet substitutes (OpenAttack's: lemmas of its synsets over all "
                   "POS, first word of multi-word lemmas), in the word's case; PWWS's and TextFooler's candidates")
    integer_draws = True  # one of the candidates

    def candidates(self, word: str, rng: np.random.Generator | None = None) -> list[str]:
        load_wordnet()
        return cased_substitutes(word)
