"""A transform without `measure` and a model that declares `classify` without implementing it: refused at
registration (the plugin is listed broken), never a failure inside a run."""

import robust


class Measureless(robust.Transform):
    name = "measureless"
    description = "Has apply but no measure"

    def apply(self, example, degree, rng):
        return [example]


class Hollow(robust.ModelAdapter):
    name = "hollow"
    description = "Declares classify, implements nothing"
    capabilities = frozenset({"classify"})


@robust.hookimpl
def register_transforms(register):
    register(Measureless)


@robust.hookimpl
def register_models(register):
    register(Hollow)
