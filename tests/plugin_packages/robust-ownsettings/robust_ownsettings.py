"""A model adapter that declares its own settings and says nothing of batch_size: it must still batch."""

import numpy as np

import robust


class Tilted(robust.ModelAdapter):
    name = "tilted"
    description = "Predicts 'positive' with probability `tilt`"
    capabilities = frozenset({"classify"})
    labels = ["negative", "positive"]
    settings = {"tilt": robust.Setting(0.75, min=0.0, max=1.0)}

    def _classify(self, texts):
        assert len(texts) <= self.config["batch_size"]  # the base class's setting, merged in
        p = self.config["tilt"]
        return [np.array([1 - p, p]) for _ in texts]


@robust.hookimpl
def register_models(register):
    register(Tilted)
