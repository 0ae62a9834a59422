"""A Transform: leetspeak spelling (e -> 3, a -> 4, ...) in a share `degree` of the words."""

from robust import Setting, WordTransform

LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}


class LeetSpeak(WordTransform):
    name = "leetspeak"
    description = "Leetspeak spelling (e->3, a->4, ...) in ceil(degree * words) random words"
    settings = {"keep_case": Setting(True, help="only lower-case letters are replaced")}

    def substitute(self, word, tokens, index, rng):
        """The word leet-spelled; a word without a replaceable letter comes back unchanged (no budget spent)."""
        return "".join(LEET.get(ch, ch) for ch in (word if self.config["keep_case"] else word.lower()))
