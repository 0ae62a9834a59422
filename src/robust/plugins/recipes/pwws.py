"""PWWS, probability weighted word saliency (Ren et al. 2019), as OpenAttack's PWWSAttacker (spec
Dang et al. 2024, §3.3): word saliency S(x, w_i) = p(y|x) - p(y|x with w_i -> "<UNK>") (Eq. 3), softmaxed over the
words; for every word the WordNet substitute w_i* that lowers p(y) most, Δp_i* = p(y|x) - p(y|x with w_i ->
w_i*) (Eq. 4-5); words replaced by w_i* greedily in descending softmax(S)_i · Δp_i* (Eq. 7-8), stop words
skipped, until the prediction leaves y.

Queries per example (faithful): 1 (the original) + n + 1 (saliency) + every substitute of every token + one per
replacement. Clean mode skips the substitutes of stop words (it never uses them).
"""

from __future__ import annotations

from robust.plugins.recipes.base import Found, start, token_edits
from robust.plugins.recipes.synonyms import SynonymRecipe
from robust.toolkit.lazy import np
from robust.toolkit.search import Search


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


class PWWS(SynonymRecipe):
    name = "pwws"
    reference = "OpenAttack's PWWSAttacker"
    access = "pwws"
    description = ("PWWS (Ren et al. 2019): WordNet substitutes, words replaced greedily by softmax(saliency) x "
                   "best probability drop until the prediction flips (OpenAttack's PWWSAttacker, offline)")

    def search(self, text: str, gold: int | None, rng: np.random.Generator) -> Search:
        _, goal = yield from start(text, gold)
        if isinstance(goal, Found):
            return goal
        tokens = self.tokens(text)
        original, n = tokens.words, len(tokens)
        if n == 0:
            return Found(text, False, "failed")
        base = tokens.render(original)
        asked = [*tokens.masked(original, self.config["unk_token"]), base]
        probs = yield asked
        if probs is None or len(probs) < len(asked):
            return Found(text, False, "budget")
        known = dict(zip(asked, probs))
        p = probs[:, goal.target]
        weights = softmax(p[-1] - p[:-1])  # softmax over words of the saliency S(x, w_i), Eq. 3 and 8
        # OpenAttack computes w_i* for every token (stop words too); clean mode skips the stop words it never edits
        subs = {i: self.substitutes(w) for i, w in enumerate(original) if self.faithful or not self.is_stopword(w)}
        asked = [text for i, ws in subs.items() for text in tokens.replacing(original, i, ws)]
        probs = yield asked
        if probs is None or len(probs) < len(asked):
            return Found(text, False, "budget")
        known.update(zip(asked, probs))
        best = {i: (original[i], 0.0) for i in range(n)}  # (w_i*, Δp_i*); no substitute: the word, 0
        pos = 0
        for i, ws in subs.items():
            if ws:
                rows = probs[pos : pos + len(ws), goal.target]
                j = int(np.argmin(rows))  # the substitute that lowers p(y) most, first of ties (Eq. 4)
                best[i] = (ws[j], float(p[-1] - rows[j]))
                pos += len(ws)
        order = sorted(range(n), key=lambda i: -weights[i] * best[i][1])  # H(x, x*, w_i), Eq. 8, stable
        current = list(original)
        for i in order:
            if self.is_stopword(current[i]):
                continue
            current[i] = best[i][0]
            now = tokens.render(current)
            if now not in known:
                probs = yield [now]
                if probs is None:
                    current[i] = original[i]  # never classified: the result is the last text that was
                    return Found(tokens.render(current), False, "budget", token_edits(original, current))
                known[now] = probs[0]
            if goal.reached(known[now]):
                return Found(now, True, "succeeded", token_edits(original, current))
        return Found(tokens.render(current), False, "failed", token_edits(original, current))
