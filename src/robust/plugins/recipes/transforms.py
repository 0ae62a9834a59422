"""The candidate edits of the recipes as Transforms: DeepWordBug's character edits and OpenAttack's WordNet
substitutes. The recipes call `candidates(word, rng)` on their own tokens; `apply`/`edit` make the same edits
usable on whitespace words by RobTest, BYOD and the transform-driven attackers (random draws, saliency-greedy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from robust.core.interfaces import Example, Transform
from robust.core.settings import Setting
from robust.core.text import budget, join, word_modification_rate, words
from robust.plugins.recipes.charset import OPS, TEXTATTACK_OPS
from robust.plugins.recipes.lexicon import wordnet_substitutes
from robust.plugins.recipes.tokens import textattack_words

if TYPE_CHECKING:
    import numpy as np


class WordCandidates(Transform):
    """A word-level transform defined by `candidates(word, rng)`: the replacements of one word."""

    unit: ClassVar[str] = "word"

    def candidates(self, word: str, rng: np.random.Generator) -> list[str]:
        raise NotImplementedError

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        """Whitespace word `index` with its first word (TextAttack's words, punctuation around it kept)
        replaced by one candidate drawn at random; None if it has none."""
        tokens = words(text)
        if not 0 <= index < len(tokens):
            return None
        inner = textattack_words(tokens[index])
        if not len(inner):
            return None
        options = self.candidates(inner.words[0], rng)
        if not options:
            return None
        tokens[index] = inner.render([options[int(rng.integers(len(options)))], *inner.words[1:]])
        return join(tokens)

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        """One random draw: k = ceil(N_w·d) random whitespace words edited (words without a candidate use no
        budget)."""
        k = budget(len(words(example.text)), degree)
        text = example.text
        for index in rng.permutation(len(words(example.text))):
            if k == 0:
                break
            new = self.edit(text, int(index), rng, example.text)
            if new is not None and new != text:
                text, k = new, k - 1
        return [example.with_text(text)]

    def measure(self, original: str, perturbed: str) -> float:
        return word_modification_rate(original, perturbed)


class CharacterBugs(WordCandidates):
    name = "deepwordbug-edit"
    description = ("DeepWordBug's character edits of a word: neighbour swap, random substitution, deletion, "
                   "insertion (TextAttack) or homoglyph (OpenAttack), one random position each")
    settings = {"ops": Setting(list(TEXTATTACK_OPS), choices=tuple(OPS), min_items=1,
                               help="edits offered per word, one candidate each")}

    def candidates(self, word: str, rng: np.random.Generator) -> list[str]:
        """One candidate per op, in the order of `ops` (TextAttack's CompositeTransformation order), without
        the word itself and duplicates."""
        out: dict[str, None] = {}
        for op in self.config["ops"]:
            new = OPS[op](word, rng)
            if new is not None and new != word:
                out.setdefault(new, None)
        return list(out)

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        """One random op of `ops` at whitespace word `index` (RobTest-style unit edit)."""
        op = self.config["ops"][int(rng.integers(len(self.config["ops"])))]
        tokens = words(text)
        if not 0 <= index < len(tokens):
            return None
        inner = textattack_words(tokens[index])
        new = OPS[op](inner.words[0], rng) if len(inner) else None
        if new is None or new == inner.words[0]:
            return None
        tokens[index] = inner.render([new, *inner.words[1:]])
        return join(tokens)


class WordNetSubstitutes(WordCandidates):
    name = "wordnet-substitute"
    description = ("OpenAttack's WordNet substitutes of a word (lemmas of its synsets over all POS, lower-cased), "
                   "as PWWS and TextFooler use them offline")

    def candidates(self, word: str, rng: np.random.Generator | None = None) -> list[str]:
        return list(wordnet_substitutes(word))
