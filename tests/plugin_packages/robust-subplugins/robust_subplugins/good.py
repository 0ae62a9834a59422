import robust


class Upper(robust.Transform):
    name = "sub-upper"
    description = "Upper-case the text."

    def apply(self, example, degree, rng):
        return [robust.Example(example.id, example.text.upper(), example.label)]

    def measure(self, original, perturbed):
        return float(original != perturbed)


@robust.hookimpl
def register_transforms(register):
    register(Upper)
