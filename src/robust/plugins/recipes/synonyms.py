"""What PWWS and TextFooler share: OpenAttack's WordNet substitutes, its stop-word filter, its tokenization."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from robust import Setting
from robust.plugins.recipes.base import Recipe
from robust.plugins.recipes.lexicon import cased_substitutes, load_wordnet, stopwords, wordnet_substitutes
from robust.plugins.recipes.tokens import Tokens, wordpunct


class SynonymRecipe(Recipe):
    """A recipe that replaces words by WordNet substitutes (OpenAttack's default English substitute)."""

    settings: ClassVar[Mapping[str, Any]] = {
        **Recipe.settings,
        "unk_token": Setting("<UNK>", help="the leave-one-out replacement token (OpenAttack's default)"),
    }

    @classmethod
    def check_available(cls) -> None:
        """A one-line MissingResource when WordNet or the stop words are not set up (before a run starts)."""
        from robust import RunContext

        load_wordnet()
        stopwords(RunContext.default())

    def load(self) -> None:
        load_wordnet()
        self.stop = stopwords(self.ctx)

    def tokens(self, text: str) -> Tokens:
        """faithful: the lower-cased text in WordPunct tokens joined by spaces (OpenAttack); clean: the text's
        WordPunct tokens edited in place."""
        return wordpunct(text.lower(), spaced=True) if self.faithful else wordpunct(text)

    def is_stopword(self, word: str) -> bool:
        return word.lower() in self.stop

    def substitutes(self, word: str) -> list[str]:
        """WordNet substitutes of a token (faithful: as OpenAttack, lower-case; clean: in the word's case)."""
        return list(wordnet_substitutes(word)) if self.faithful else cased_substitutes(word)
