"""A transform registered through an entry point named `attacks`."""

import robust


class Exclaim(robust.Transform):
    name = "exclaim"
    description = "Appends an exclamation mark"

    def apply(self, example, degree, rng):
        return [example.with_text(example.text + " !")]

    def measure(self, original, perturbed):
        return float(original != perturbed)


@robust.hookimpl
def register_transforms(register):
    register(Exclaim)
