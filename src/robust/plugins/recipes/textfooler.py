"""TextFooler (Jin et al. 2020) as OpenAttack's TextFoolerAttacker, as Dang et al. 2024 (§3.3) run it, with the
offline substitutes of docs/asr_predict.md: WordNet substitutes (union over POS; no POS
filter, no tagger offline), leave-one-out importance with "<UNK>", a sentence-similarity filter by a helper encoder
(default `minilm` for the Universal Sentence Encoder: cosine of the two windows) on a window of 15 tokens, threshold 0.5
(0.1 for texts of fewer than 15 tokens), stop words never replaced.

Per word, in descending importance: every substitute is classified and its window compared with the current
text's window; among the substitutes that change the prediction and pass the threshold the most similar is
kept, and the attack ends if that reaches the goal; if none does, the one with the lowest p(original class)
(a failed threshold adds 1) is kept when that is below p(original class) of the original text.

OpenAttack sets the threshold to 0.1 on the attacker object the first time it meets a short text, so every later
example keeps 0.1 (docs/attacks.md, TextFooler). Here the threshold is set per example; `sticky_threshold=true`
reproduces the quirk in the order examples are given (across `attack` calls of one attacker object).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from robust import Example, Setting
from robust.plugins.recipes.base import Found, start, token_edits
from robust.plugins.recipes.synonyms import SynonymRecipe
from robust.toolkit.lazy import np
from robust.toolkit.search import Search


def window(index: int, n: int, size: int, clamp: bool) -> tuple[int, int]:
    """The tokens [lo, hi) compared around `index` (OpenAttack's four cases; for texts shorter than the window
    its third case gives a negative `lo`, which Python slicing reads from the end: kept unless `clamp`)."""
    half = (size - 1) // 2
    if index >= half and n - index - 1 >= half:
        lo, hi = index - half, index + half + 1
    elif index < half and n - index - 1 >= half:
        lo, hi = 0, size
    elif index >= half and n - index - 1 < half:
        lo, hi = n - size, n
    else:
        lo, hi = 0, n
    return (max(lo, 0), hi) if clamp else (lo, hi)


def window_texts(tokens: list[str], index: int, subs: Sequence[str], lo: int, hi: int) -> list[str]:
    """`" ".join(v[lo:hi])` for each `v`: `tokens` with token `index` replaced by one of `subs` (Python's slice
    reading of `lo`, `hi`); the window's text around the token is joined once, not once per substitute."""
    a, b, _ = slice(lo, hi).indices(len(tokens))
    if not a <= index < b:
        return [" ".join(tokens[a:b])] * len(subs)
    before = " ".join(tokens[a:index]) + " " if a < index else ""
    after = " " + " ".join(tokens[index + 1:b]) if index + 1 < b else ""
    return [before + w + after for w in subs]


class TextFooler(SynonymRecipe):
    name = "textfooler"
    reference = "OpenAttack's TextFoolerAttacker"
    access = "textfooler"
    description = ("TextFooler (Jin et al. 2020): words by leave-one-out importance, WordNet substitutes kept if "
                   "they flip the prediction at window similarity >= 0.5 (OpenAttack's TextFoolerAttacker, "
                   "offline: MiniLM for USE, no POS filter)")
    models: ClassVar[Mapping[str, frozenset[str]]] = {"encoder": frozenset({"embed"})}
    settings: ClassVar[Mapping[str, Any]] = {
        **SynonymRecipe.settings,
        "encoder": Setting("minilm", help="sentence encoder of the similarity filter (a model that can embed)"),
        "threshold": Setting(0.5, min=-1.0, max=1.0, help="min cosine similarity of the windows"),
        "short_threshold": Setting(0.1, min=-1.0, max=1.0, help="the threshold for texts shorter than the window"),
        "window": Setting(15, min=1, help="tokens compared around the replaced word"),
        "sticky_threshold": Setting(False, help="OpenAttack's quirk: once a short text is met, every later "
                                    "example uses short_threshold"),
        "importance_threshold": Setting(-1.0, help="only words of higher leave-one-out importance are replaced"),
    }

    def __init__(self, **config: Any) -> None:
        super().__init__(**config)
        self._short_seen = False  # sticky_threshold: a short text was met by this attacker object

    def load(self) -> None:
        super().load()
        self.encoder = self.helper("encoder")
        self.encoder.preload()  # its weights too: the first example's seconds time the attack, not the encoder's load

    def helpers(self) -> dict[str, Callable[[list[str]], Any]]:
        return {"similarity": self._embed}

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.asarray(self.encoder.embed(texts), dtype=np.float64)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def searches(self, examples: Sequence[Example], golds: Sequence[int | None],
                 rngs: Sequence[np.random.Generator]) -> list[Search]:
        size, out = int(self.config["window"]), []
        for ex, gold in zip(examples, golds):
            short = len(self.tokens(ex.text)) < size
            if self.config["sticky_threshold"]:
                self._short_seen = short = self._short_seen or short
            out.append(self.search(ex.text, gold, float(self.config["short_threshold" if short else "threshold"])))
        return out

    def search(self, text: str, gold: int | None, threshold: float) -> Search:  # type: ignore[override]
        first, goal = yield from start(text, gold)
        if isinstance(goal, Found):
            return goal
        if self.faithful:  # OpenAttack classifies the lower-cased text (not detokenized) for the original class
            probs = yield [text.lower()]
            if probs is None:
                return Found(text, False, "budget")
            first = probs[0]
        tokens = self.tokens(text)
        original, n = tokens.words, len(tokens)
        if n == 0:
            return Found(text, False, "failed")
        label, p0 = int(first.argmax()), float(first.max())
        probs = yield tokens.masked(original, self.config["unk_token"])
        if probs is None or len(probs) < n:
            return Found(text, False, "budget")
        top = probs.argmax(1)
        # Jin et al. 2020 Eq. 2: I_i = p_y(x) - p_y(x\w_i), plus, if the label changes, the gain of the new class
        importance = p0 - probs[:, label] + (top != label) * (probs.max(1) - first[top])
        order = sorted(range(n), key=lambda i: -importance[i])  # stable: ties keep their position order
        chosen = [i for i in order if importance[i] > float(self.config["importance_threshold"])
                  and not self.is_stopword(original[i])]
        size = int(self.config["window"])
        current, similarity = list(original), {}
        for i in chosen:
            subs = self.substitutes(original[i])
            if not subs:
                continue
            lo, hi = window(i, n, size, clamp=not self.faithful)
            vectors = yield ("similarity", [" ".join(current[lo:hi]), *window_texts(current, i, subs, lo, hi)])
            probs = yield tokens.replacing(current, i, subs)
            if probs is None:
                return Found(tokens.render(current), False, "budget", self._edits(original, current, similarity))
            sims = vectors[1 : 1 + len(probs)] @ vectors[0]  # a budget-cut step: the classified prefix
            cut, subs = len(probs) < len(subs), subs[: len(probs)]
            passed = (probs.argmax(1) != label) & (sims >= threshold)
            if passed.any():
                j = int(np.argmax(np.where(passed, sims, -np.inf)))  # the most similar flipping substitute
                current[i], similarity[i] = subs[j], float(sims[j])
                if goal.reached(probs[j]):
                    return Found(tokens.render(current), True, "succeeded",
                                 self._edits(original, current, similarity))
            else:
                penalised = probs[:, label] + (sims < threshold)
                j = int(np.argmin(penalised))
                if penalised[j] < p0:
                    current[i], similarity[i] = subs[j], float(sims[j])
            if cut:
                return Found(tokens.render(current), False, "budget", self._edits(original, current, similarity))
        return Found(tokens.render(current), False, "failed", self._edits(original, current, similarity))

    @staticmethod
    def _edits(original: list[str], current: list[str], similarity: dict[int, float]) -> list[dict[str, Any]]:
        """The changed tokens, each with the window similarity it was accepted at."""
        return [{**e, "similarity": similarity[e["index"]]} for e in token_edits(original, current)]
