"""A Scorer: how far apart the two classes' test embeddings are, in units of their spread (one value per task)."""

import numpy as np

from robust import Scorer


class CentroidGap(Scorer):
    name = "centroid-gap"
    description = "Distance between the class centroids of test embeddings over their mean spread"
    inputs = frozenset({"test_embeddings", "test_labels"})  # SynTextBench offers these per task

    def values(self, rows, model=None):
        out = []
        for row in rows:
            z, y = np.asarray(row["test_embeddings"]), np.asarray(row["test_labels"])
            a, b = z[y == y.max()], z[y == y.min()]
            spread = (a.std(0).mean() + b.std(0).mean()) / 2
            out.append(float(np.linalg.norm(a.mean(0) - b.mean(0)) / max(spread, 1e-12)))
        return out
