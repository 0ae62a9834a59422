"""A model registered through an entry point named `models`."""

import numpy as np

import robust


class Constant(robust.ModelAdapter):
    name = "constant"
    description = "Always predicts the first class"
    capabilities = frozenset({"classify"})
    labels = ["negative", "positive"]

    def _classify(self, texts):
        return [np.array([1.0, 0.0]) for _ in texts]


@robust.hookimpl
def register_models(register):
    register(Constant)
