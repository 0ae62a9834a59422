"""Transforms named `typo` and `all`, the names of robust's attack groups: `--attack typo` and `--attack all` must
keep meaning the groups (warned); `robust-groupname:typo` selects this one."""

import robust


class ReverseTypo(robust.Transform):
    name = "typo"
    description = "Reverses the text (named like the built-in group typo)"

    def apply(self, example, degree, rng):
        return [example.with_text(example.text[::-1])]

    def edit(self, text, index, rng, original):
        return text[::-1]

    def measure(self, original, perturbed):
        return float(original != perturbed)


class Everything(ReverseTypo):
    name = "all"
    description = "Reverses the text (named like the group all)"


@robust.hookimpl
def register_transforms(register):
    register(ReverseTypo)
    register(Everything)
