"""A transform named `typo-M` and an attacker named `saliency-greedy`, like robust's own: the bare names keep meaning
robust's (warned); `robust-samename:typo-M` selects this transform, end to end."""

import robust


class Shout(robust.Transform):
    name = "typo-M"
    description = "Upper-cases the text (named like the built-in typo-M)"
    dimension = "Typo"

    def apply(self, example, degree, rng):
        return [example.with_text(example.text.upper() + " SHOUT")]

    def edit(self, text, index, rng, original):
        words = text.split()
        words[index] = words[index].upper() + "!"
        return " ".join(words)

    def measure(self, original, perturbed):
        return float(original != perturbed)


class FirstWord(robust.SearchAttacker):
    name = "saliency-greedy"
    description = "Edits the first word only (named like the built-in saliency-greedy)"
    access = "first"

    def attack(self, examples, model, transform=None, degree=None, budget=None, rngs=None):
        out = []
        for ex, rng in zip(examples, rngs or [None] * len(examples)):
            text = transform.edit(ex.text, 0, rng, ex.text) or ex.text
            pred = int(model.classify([text]).argmax(1)[0])
            ok = pred != robust.label_index(model, ex.label)
            out.append(robust.AttackResult(ex.text, text, ok, 1, "succeeded" if ok else "failed",
                                           robust.word_edits(ex.text, text), [text]))
        return out


@robust.hookimpl
def register_transforms(register):
    register(Shout)


@robust.hookimpl
def register_attackers(register):
    register(FirstWord)
