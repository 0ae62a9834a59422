"""DeepWordBug's character edits of one word (Gao et al. 2018, §3.2 "transformer" functions).

`swap`, `substitute`, `delete` and `insert` are TextAttack's four `WordSwap*Character*` transformations with
`random_one=True` (one random position each; random letters from a-zA-Z); `homoglyph` is OpenAttack's
DeepWordBug transform (one random position, replaced by its look-alike when the character has one, else left
as it is). Each returns the new word, or None when the word is too short for the edit (TextAttack edits only
words of two or more characters).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

LETTERS = string.ascii_letters  # TextAttack's WordSwap.letters_to_insert default

# DeepWordBug's homoglyph table (the authors' code, QData/deepWordBug; the table OpenAttack's DeepWordBugAttacker
# uses): one visually similar character per key.
HOMOGLYPHS: dict[str, str] = {
    "-": "˗", "9": "৭", "8": "Ȣ", "7": "𝟕", "6": "б", "5": "Ƽ", "4": "Ꮞ", "3": "Ʒ", "2": "ᒿ", "1": "l",
    "0": "O", "'": "`", "a": "ɑ", "b": "Ь", "c": "ϲ", "d": "ԁ", "e": "е", "f": "𝚏", "g": "ɡ", "h": "հ",
    "i": "і", "j": "ϳ", "k": "𝒌", "l": "ⅼ", "m": "ｍ", "n": "ո", "o": "о", "p": "р", "q": "ԛ", "r": "ⲅ",
    "s": "ѕ", "t": "𝚝", "u": "ս", "v": "ѵ", "w": "ԝ", "x": "×", "y": "у", "z": "ᴢ",
}


def _position(rng: np.random.Generator, n: int) -> int:
    return int(rng.integers(n))


def swap(word: str, rng: np.random.Generator) -> str | None:
    """Two neighbouring characters exchanged (WordSwapNeighboringCharacterSwap)."""
    if len(word) <= 1:
        return None
    i = _position(rng, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]


def substitute(word: str, rng: np.random.Generator) -> str | None:
    """One character replaced by a random letter (WordSwapRandomCharacterSubstitution)."""
    if len(word) <= 1:
        return None
    i = _position(rng, len(word))
    return word[:i] + LETTERS[_position(rng, len(LETTERS))] + word[i + 1 :]


def delete(word: str, rng: np.random.Generator) -> str | None:
    """One character deleted (WordSwapRandomCharacterDeletion)."""
    if len(word) <= 1:
        return None
    i = _position(rng, len(word))
    return word[:i] + word[i + 1 :]


def insert(word: str, rng: np.random.Generator) -> str | None:
    """A random letter inserted before a random character (WordSwapRandomCharacterInsertion)."""
    if len(word) <= 1:
        return None
    i = _position(rng, len(word))
    return word[:i] + LETTERS[_position(rng, len(LETTERS))] + word[i:]


def homoglyph(word: str, rng: np.random.Generator) -> str | None:
    """One random character replaced by its homoglyph, if it has one (OpenAttack's DeepWordBug)."""
    if not word:
        return None
    i = _position(rng, len(word))
    return word[:i] + HOMOGLYPHS.get(word[i], word[i]) + word[i + 1 :]


OPS: dict[str, Callable[[str, np.random.Generator], str | None]] = {
    "swap": swap, "substitute": substitute, "delete": delete, "insert": insert, "homoglyph": homoglyph,
}
TEXTATTACK_OPS = ("swap", "substitute", "delete", "insert")  # DeepWordBugGao2018, use_all_transformations
