"""DeepWordBug (Gao et al. 2018): rank words once by replace-one saliency, then edit their characters.

Two variants of the reference implementations (setting `variant`):

- `textattack` (default; TextAttack's DeepWordBugGao2018 recipe): the words that are not stop words are
  ranked once by the score 1 - p(goal | text with the word replaced by "[UNK]") (GreedyWordSwapWIR, "unk"
  ranking); then, in that order, each word gets one candidate per character edit (swap, substitution, deletion,
  insertion), candidates farther than `max_edit_distance` (Levenshtein, characters, from the original text) are
  dropped, all of a word's candidates are classified at once and the best one is kept if it raises the score;
  the attack stops at the first kept edit that changes the prediction. Each word is edited at most once.
- `openattack` (OpenAttack's DeepWordBugAttacker, the ASR labels of spec robusttext.md §3.4): WordPunct
  tokens ranked by p(goal | token replaced by "<UNK>") ascending ("replaceone"), the first `power` tokens get a
  homoglyph at one random character, and one final query decides success.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from robust.core.search import Search
from robust.core.settings import Setting
from robust.core.text import levenshtein
from robust.plugins.recipes.base import Found, Recipe, start, token_edits
from robust.plugins.recipes.charset import TEXTATTACK_OPS, homoglyph
from robust.plugins.recipes.lexicon import stopwords
from robust.plugins.recipes.tokens import Tokens, replaced, textattack_words, wordpunct
from robust.plugins.recipes.transforms import CharacterBugs

if TYPE_CHECKING:
    from collections.abc import Mapping

UNK = {"textattack": "[UNK]", "openattack": "<UNK>"}


class DeepWordBug(Recipe):
    name = "deepwordbug"
    access = "deepwordbug"
    description = ("DeepWordBug: words ranked once by replace-one saliency, then character edits (swap, "
                   "substitute, delete, insert) word by word until the prediction flips (TextAttack's recipe; "
                   "variant=openattack: 5 homoglyphs, one final query)")
    settings: ClassVar[Mapping[str, Any]] = {
        **Recipe.settings,
        "variant": Setting("textattack", choices=("textattack", "openattack"),
                           help="whose DeepWordBug: TextAttack's recipe or OpenAttack's attacker"),
        "ops": Setting(list(TEXTATTACK_OPS), choices=TEXTATTACK_OPS + ("homoglyph",), min_items=1,
                       help="textattack: character edits tried per word, one candidate each"),
        "max_edit_distance": Setting(30, min=0, help="textattack: max Levenshtein distance from the original"),
        "skip_stopwords": Setting(True, help="textattack: never edit stop words (StopwordModification)"),
        "power": Setting(5, min=1, help="openattack: tokens edited"),
        "unk_token": Setting("", help="replace-one token; empty: the variant's own ([UNK] / <UNK>)"),
    }

    def goal_is_prediction(self) -> bool:
        return self.faithful and self.config["variant"] == "openattack"

    @property
    def unk(self) -> str:
        return self.config["unk_token"] or UNK[self.config["variant"]]

    def prepare(self) -> None:
        self.edits = CharacterBugs(ops=self.config["ops"]).bind(self.ctx)
        self.stop = stopwords(self.ctx) if self.config["skip_stopwords"] else frozenset()

    def search(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        if self.config["variant"] == "openattack":
            return self._openattack(text, gold, rng)
        return self._textattack(text, gold, rng)

    def is_stopword(self, word: str) -> bool:
        # TextAttack compares the word as it is (case-sensitive); clean mode compares it lower-cased
        return (word if self.faithful else word.lower()) in self.stop

    def _textattack(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        first, goal = yield from start(text, gold)
        if isinstance(goal, Found):
            return goal
        tokens = textattack_words(text)
        original = tokens.words
        ranked = [i for i, w in enumerate(original) if not self.is_stopword(w)]
        if not ranked:
            return Found(text, False, "failed")
        probs = yield [tokens.render(replaced(original, i, self.unk)) for i in ranked]
        if probs is None or len(probs) < len(ranked):
            return Found(text, False, "budget")
        # GreedyWordSwapWIR "unk": descending 1 - p(goal | word -> UNK), ties by position
        order = [ranked[j] for j in np.argsort(probs[:, goal.target], kind="stable")]
        current, current_text, score = list(original), text, 1.0 - float(first[goal.target])
        limit = int(self.config["max_edit_distance"])
        for i in order:
            options = {}
            for word in self.edits.candidates(current[i], rng):
                candidate = tokens.render(replaced(current, i, word))
                if candidate != current_text and levenshtein(text, candidate) <= limit:
                    options.setdefault(candidate, word)
            if not options:
                continue
            texts = sorted(options)  # TextAttack sorts the filtered candidates by text
            probs = yield texts
            if probs is None:
                return Found(current_text, False, "budget", token_edits(original, current))
            scores = 1.0 - probs[:, goal.target]
            best = int(np.argmax(scores))  # first of the best, in text order (TextAttack's stable sort)
            if scores[best] > score:
                current[i], current_text, score = options[texts[best]], texts[best], float(scores[best])
                if goal.reached(probs[best]):
                    return Found(current_text, True, "succeeded", token_edits(original, current))
            if len(probs) < len(texts):  # the budget cut this step short
                return Found(current_text, False, "budget", token_edits(original, current))
        return Found(current_text, False, "failed", token_edits(original, current))

    def _openattack(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        _, goal = yield from start(text, gold)
        if isinstance(goal, Found):
            return goal
        tokens: Tokens = wordpunct(text, spaced=self.faithful)  # OpenAttack: no lower-casing here
        original = tokens.words
        if not original:
            return Found(text, False, "failed")
        probs = yield [tokens.render(replaced(original, i, self.unk)) for i in range(len(original))]
        if probs is None or len(probs) < len(original):
            return Found(text, False, "budget")
        adv = list(original)
        # "replaceone": ascending p(goal) after the token is replaced (stable for ties); the first `power` tokens
        for i in np.argsort(probs[:, goal.target], kind="stable")[: int(self.config["power"])]:
            adv[int(i)] = homoglyph(adv[int(i)], rng) or adv[int(i)]
        final = tokens.render(adv)
        probs = yield [final]
        if probs is None:
            return Found(final, False, "budget", token_edits(original, adv))
        reached = goal.reached(probs[0])
        return Found(final, reached, "succeeded" if reached else "failed", token_edits(original, adv))
