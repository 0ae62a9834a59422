"""A Transform: leetspeak spelling (e -> 3, a -> 4, ...) in a share `degree` of the words."""

import math

from robust import Setting, Transform

LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}


def leet(word):
    return "".join(LEET.get(ch, ch) for ch in word)


class LeetSpeak(Transform):
    name = "leetspeak"
    description = "Leetspeak spelling (e->3, a->4, ...) in ceil(degree * words) random words"
    unit = "word"  # the degree is the share of words changed
    settings = {"keep_case": Setting(True, help="only lower-case letters are replaced")}

    def apply(self, example, degree, rng):
        """One random draw: leet-spell ceil(degree * N) random words that have a replaceable letter."""
        words = example.text.split()
        k = math.ceil(degree * len(words))
        order = [int(i) for i in rng.permutation(len(words))]
        text = example.text
        for index in order:
            if k == 0:
                break
            changed = self.edit(text, index, rng, example.text)
            if changed is not None:
                text, k = changed, k - 1
        return [example.with_text(text)]

    def edit(self, text, index, rng, original):
        """One unit edit (attackers choose the position): the word at `index`, leet-spelled."""
        words = text.split()
        new = leet(words[index] if self.config["keep_case"] else words[index].lower())
        if new == words[index]:
            return None
        words[index] = new
        return " ".join(words)

    def measure(self, original, perturbed):
        a, b = original.split(), perturbed.split()
        return sum(x != y for x, y in zip(a, b)) / max(len(a), 1)
