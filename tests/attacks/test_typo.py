"""Typo-M / Typo-G (Chen et al. 2023, Table 1; RobTest's code, Char/typo_transform.py; docs/attacks.md)."""

from __future__ import annotations

import numpy as np

from robust import Example
from robust.plugins.attacks.typo import KEYBOARD, TypoG, TypoM, typo
from robust.toolkit.transforms import budget, char_degree, levenshtein, word_modification_rate, words

TEXT = "I watch a smart, sweet and playful romantic comedy."
RNG = np.random.default_rng(0)


def test_keyboard_table_is_textbuggers():
    assert len(KEYBOARD) == 30
    assert KEYBOARD["a"] == "qwszx" and KEYBOARD["."] == ",l;/"


def test_single_operations_like_table_1():
    assert typo("sweet", 3, "delete", RNG, False) == "swet"  # "swet"
    assert typo("and", 2, "swap", RNG, False) == "adn"  # "adn"
    assert typo("sweet", 1, "repeat", RNG, False) == "swweet"
    assert typo("cat", 0, "replace", np.random.default_rng(1), False)[0] in KEYBOARD["c"]
    inserted = typo("Cat", 0, "insert", np.random.default_rng(1), False)
    assert inserted[0] in KEYBOARD["c"] and inserted[1:] == "Cat"  # neighbour of c.lower(), in lower case
    assert typo("a", 0, "delete", RNG, False) is None  # delete on a 1-char string fails
    assert typo("7up", 0, "replace", RNG, False) is None  # digits have no neighbours
    assert typo("a b", 2, "swap", RNG, False) is None  # no swap across a space


def test_index_zero_swap_quirk_only_in_faithful_mode():
    assert typo("cat", 0, "swap", RNG, True) == "cactat"  # RobTest's index-0 swap quirk (docs/attacks.md)
    assert typo("cat", 0, "swap", RNG, False) is None


def test_clean_typo_m_spends_exactly_k_levenshtein_units_on_a_long_text():
    text = "the quick brown fox jumps over the lazy dog " * 3
    for seed in range(10):
        out = TypoM().apply(Example("x", text), 0.1, np.random.default_rng(seed))[0].text
        k = budget(len(text), 0.1)
        assert levenshtein(text.lower(), out.lower()) <= k
        assert levenshtein(text.lower(), out.lower()) >= k - 2  # edits can merge; never far below k


def test_faithful_typo_m_counts_attempts():
    text = "1234 5678 90 ab"  # digits and spaces make most operations fail
    achieved = [TypoM(mode="faithful").measure(text, TypoM(mode="faithful").apply(
        Example("x", text), 0.3, np.random.default_rng(s))[0].text) for s in range(30)]
    clean = [TypoM().measure(text, TypoM().apply(Example("x", text), 0.3,
                                                 np.random.default_rng(s))[0].text) for s in range(30)]
    assert np.mean(achieved) < np.mean(clean)  # failed attempts consume the faithful budget


def test_typo_g_edits_at_most_one_char_per_word():
    for seed in range(20):
        out = TypoG().apply(Example("x", TEXT), 0.6, np.random.default_rng(seed))[0].text
        a, b = words(TEXT), words(out)
        assert len(a) == len(b)
        assert all(levenshtein(x, y) <= 2 for x, y in zip(a, b, strict=True))  # a swap costs 2
        assert word_modification_rate(TEXT, out) == budget(len(a), 0.6) / len(a)


def test_edit_m_uses_the_current_word_and_g_the_original():
    rng = np.random.default_rng(3)
    text = TEXT
    for _ in range(6):  # -M: edits accumulate in the same word
        text = TypoM().edit(text, 4, rng, TEXT) or text
    assert char_degree(TEXT, text) * len(TEXT) >= 3 and words(text)[:4] == words(TEXT)[:4]
    current = TEXT
    for _ in range(20):  # -G always starts from the original word: never more than one typo in it
        current = TypoG().edit(current, 4, rng, TEXT) or current
        assert levenshtein(words(current)[4], words(TEXT)[4]) <= 2
    assert current != TEXT
