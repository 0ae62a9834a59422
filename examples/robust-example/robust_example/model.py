"""A ModelAdapter: a keyword sentiment classifier (and embedder) that reads its word lists from a resource."""

import numpy as np

from robust import ModelAdapter


class KeywordModel(ModelAdapter):
    name = "keywords"
    description = "Toy sentiment classifier counting positive/negative keywords (needs `robust setup keyword-lexicon`)"
    capabilities = frozenset({"classify", "embed"})
    labels = ["negative", "positive"]

    def _lexicon(self):
        if not hasattr(self, "_words"):
            lines = self.ctx.resource("keyword-lexicon").read_text().splitlines()
            self._words = {w: (1 if s == "+" else -1) for s, w in (line.split() for line in lines)}
        return self._words

    def _embed(self, texts, pooling):
        """One batch; batching, caching and sorting by length are robust's. `pooling` is ignored (poolings = ())."""
        words = self._lexicon()
        out = []
        for text in texts:
            signs = [words.get(w.lower().strip(".,!?"), 0) for w in text.split()]
            out.append(np.array([signs.count(1), signs.count(-1), len(signs)], dtype=float))
        return out

    def _classify(self, texts):
        counts = np.stack(self._embed(texts, None))
        p = 1 / (1 + np.exp(-(counts[:, 0] - counts[:, 1])))
        return list(np.stack([1 - p, p], axis=1))
