"""A complete robust plugin: one word-level transform, registered under the entry-point group `robust`."""

import robust


class Shout(robust.WordTransform):
    name = "shout"
    description = "Upper-case ceil(degree * words) random words"

    def substitute(self, word, tokens, index, rng):
        return word.upper()


@robust.hookimpl
def register_transforms(register):
    register(Shout)
