import robust


class Lower(robust.Transform):
    name = "cmd-lower"
    description = "Lower-case the text."

    def apply(self, example, degree, rng):
        return [robust.Example(example.id, example.text.lower(), example.label)]

    def measure(self, original, perturbed):
        return float(original != perturbed)


@robust.hookimpl
def register_transforms(register):
    register(Lower)


@robust.hookimpl
def register_commands(app):
    raise RuntimeError("this command hook is broken on purpose")
