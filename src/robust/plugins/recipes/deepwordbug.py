"""DeepWordBug (Gao et al. 2018): rank words once by replace-one saliency, then edit their characters.

Two reference implementations (setting `variant`):

- `openattack` (default; OpenAttack's DeepWordBugAttacker, the ASR labels of Dang et al. 2024, §3.3): WordPunct
  tokens ranked by p(goal | token replaced by "<UNK>") ascending ("replaceone"), the first `power` (5) tokens
  get a homoglyph at one random character (left as it is when that character has no look-alike), and one
  final query decides success. Queries: 1 + n + 1 for n tokens.
- `textattack` (TextAttack's DeepWordBugGao2018 recipe): the words that are not stop words are ranked once by
  1 - p(goal | word replaced by "[UNK]") (GreedyWordSwapWIR, "unk"); then, in that order, each word gets one
  candidate per character edit (swap, substitution, deletion, insertion at a random position), candidates
  farther than `max_edit_distance` (Levenshtein, characters, from the original text) are dropped, all of a
  word's candidates are classified at once and the best one is kept if it raises the score; the attack stops at
  the first kept edit that changes the prediction. Each word is edited at most once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from robust import Setting
from robust.plugins.recipes.base import Found, Recipe, start, token_edits
from robust.plugins.recipes.charset import TEXTATTACK_OPS, homoglyph
from robust.plugins.recipes.lexicon import stopwords
from robust.plugins.recipes.tokens import textattack_words, wordpunct
from robust.plugins.recipes.transforms import CharacterBugs
from robust.toolkit.draws import draws_for
from robust.toolkit.lazy import np
from robust.toolkit.search import Search, by_drop
from robust.toolkit.text import levenshtein

UNK = {"textattack": "[UNK]", "openattack": "<UNK>"}


class DeepWordBug(Recipe):
    name = "deepwordbug"
    access = "deepwordbug"
    description = ("DeepWordBug (Gao et al. 2018): tokens ranked once by replace-one saliency, the top 5 get a "
                   "homoglyph, one final query (OpenAttack's DeepWordBugAttacker); variant=textattack: swap/"
                   "substitute/delete/insert word by word until the prediction flips (TextAttack's recipe)")
    settings: ClassVar[Mapping[str, Any]] = {
        **Recipe.settings,
        "variant": Setting("openattack", choices=("openattack", "textattack"),
                           help="whose DeepWordBug: OpenAttack's attacker or TextAttack's recipe"),
        "power": Setting(5, min=1, help="openattack: tokens edited"),
        "ops": Setting(list(TEXTATTACK_OPS), choices=TEXTATTACK_OPS + ("homoglyph",), min_items=1,
                       help="textattack: character edits tried per word, one candidate each"),
        "max_edit_distance": Setting(30, min=0, help="textattack: max Levenshtein distance from the original"),
        "skip_stopwords": Setting(True, help="textattack: never edit stop words (StopwordModification)"),
        "unk_token": Setting("", help="replace-one token; empty: the variant's own (<UNK> / [UNK])"),
    }

    @property
    def textattack(self) -> bool:
        return self.config["variant"] == "textattack"

    @property
    def reference(self) -> str:  # type: ignore[override]
        return "TextAttack's DeepWordBugGao2018 recipe" if self.textattack else "OpenAttack's DeepWordBugAttacker"

    def semantics(self) -> str:
        if self.textattack:
            return (f"{self.reference} (variant=textattack: character swaps, substitutions, deletions and "
                    "insertions word by word until the prediction flips; the goal is the gold label)")
        return (super().semantics() + "; the edits are OpenAttack's: the top 5 tokens get a look-alike "
                "character; --set deepwordbug.variant=textattack for TextAttack's recipe")

    def goal_is_prediction(self) -> bool:
        return self.faithful and not self.textattack

    @property
    def unk(self) -> str:
        return self.config["unk_token"] or UNK[self.config["variant"]]

    def load(self) -> None:
        self.edits = CharacterBugs(ops=self.config["ops"]).bind(self.ctx)
        use_stop = self.textattack and self.config["skip_stopwords"]
        self.stop = stopwords(self.ctx) if use_stop else frozenset()

    def search(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        return self._textattack(text, gold, rng) if self.textattack else self._openattack(text, gold, rng)

    def _openattack(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        _, goal = yield from start(text, gold)
        if isinstance(goal, Found):
            return goal
        tokens = wordpunct(text, spaced=self.faithful)  # OpenAttack: no lower-casing for DeepWordBug
        original = tokens.words
        if not original:
            return Found(text, False, "failed")
        probs = yield tokens.masked(original, self.unk)
        if probs is None or len(probs) < len(original):
            return Found(text, False, "budget")
        adv = list(original)
        # "replaceone": ascending p(goal) after the token is replaced; the first `power` tokens get a homoglyph
        for i in by_drop(probs, goal.target)[: int(self.config["power"])]:
            adv[i] = homoglyph(adv[i], rng) or adv[i]
        final = tokens.render(adv)
        probs = yield [final]
        if probs is None:
            return Found(final, False, "budget", token_edits(original, adv))
        reached = goal.reached(probs[0])
        return Found(final, reached, "succeeded" if reached else "failed", token_edits(original, adv))

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
        probs = yield tokens.masked(original, self.unk, ranked)
        if probs is None or len(probs) < len(ranked):
            return Found(text, False, "budget")
        # GreedyWordSwapWIR "unk": descending 1 - p(goal | word -> UNK), ties by position
        order = [ranked[j] for j in by_drop(probs, goal.target)]
        current, current_text, score = list(original), text, 1.0 - float(first[goal.target])
        limit = int(self.config["max_edit_distance"])
        # the edits draw integers only: the same values as rng.integers, at C speed (Draws)
        with draws_for(rng, self.edits.integer_draws) as draws:
            for i in order:
                options = {}
                edits = self.edits.candidates(current[i], draws)
                for word, candidate in zip(edits, tokens.replacing(current, i, edits), strict=True):
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
