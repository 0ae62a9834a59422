"""Phonetic-M / Phonetic-G: ANTHRO's rules (RobTest's code, Char/anthro/anthro_lib.py) over the offline lexicon
(docs/attacks.md)."""

from __future__ import annotations

import numpy as np

from robust import Example
from robust.plugins.attacks.phonetic import (
    PhoneticG,
    PhoneticM,
    editops,
    final_check,
    matchcodex,
    similars,
    soundex,
    word_candidates,
)
from robust.toolkit.transforms import budget, levenshtein, words

TEXT = "I watch a smart, sweet and playful romantic comedy."


def test_soundex_and_matchcodex_closed_form():
    assert soundex("comedy") == "CO530"  # head CO, then m->5, d->3, vowels dropped, padded
    assert soundex("Comedy") == soundex("comedi") == soundex("commmedy")
    assert soundex("you") == "YO000"
    assert matchcodex("comedy") == "CMD"
    assert matchcodex("goood") == matchcodex("good") == "GD"
    assert matchcodex("abcdefghij") == "ABCHJ"[:3] + "GHJ"  # > 6 kept: first 3 + last 3


def test_editops_reconstruct_the_target():
    for a, b in [("good", "goood"), ("romantic", "romentic"), ("watch", "wach"), ("", "ab"), ("abc", "")]:
        ops = editops(a, b)
        assert len(ops) == levenshtein(a, b)
        chars = list(a)
        for op, i, j in reversed(ops):  # applied back to front, the source indices stay valid
            if op == "replace":
                chars[i] = b[j]
            elif op == "delete":
                del chars[i]
            else:
                chars.insert(i, b[j])
        assert "".join(chars) == b


def test_final_check_rules():
    assert not final_check("good", "goood")  # a repeated vowel is a valid spelling
    assert not final_check("comedy", "comedi")  # y -> i is a good replacement pair
    assert final_check("romantic", "romentic")  # a -> e is not
    assert final_check("watch", "wotch")
    assert final_check("smart", "smort")


def test_candidates_keep_code_codex_distance_and_last_char():
    cands = similars("sweet")
    assert ("Sweet", 0) in cands and ("SWEET", 0) in cands  # case variants count as candidates
    assert all(s != "sweet" for s, _ in cands)
    for spelling, dist in cands:
        low = spelling.lower()
        assert soundex(low) == soundex("sweet") and matchcodex(low) == matchcodex("sweet")
        assert dist == levenshtein("sweet", low)
        assert low[-1] == "t"
    assert similars("an") == ()  # fewer than 3 characters
    assert {d for _, d in similars("sweet")} >= {0, 1}
    assert all(c.endswith(",") for c in word_candidates("smart,", 1))
    assert all(levenshtein(c.lower(), "sweet") <= 1 for c in word_candidates("sweet", 1))


def test_phonetic_g_replaces_whole_words_within_one_edit():
    for seed in range(10):
        out = PhoneticG().apply(Example("x", TEXT), 0.5, np.random.default_rng(seed))[0].text
        a, b = words(TEXT), words(out)
        assert all(levenshtein(x.lower(), y.lower()) <= 1 for x, y in zip(a, b, strict=True))
        assert sum(x != y for x, y in zip(a, b, strict=True)) <= budget(len(a), 0.5)


def test_faithful_mode_stops_at_the_first_ratio_reaching_d():
    for cls in (PhoneticM, PhoneticG):
        t = cls(mode="faithful")
        step = max(len(w) for w in words(TEXT)) / len(TEXT) if cls is PhoneticM else 1 / len(words(TEXT))
        achieved = [t.measure(TEXT, t.apply(Example("x", TEXT), 0.1, np.random.default_rng(s))[0].text)
                    for s in range(10)]
        assert max(achieved) < 0.1 + step  # overshoot is allowed, by at most one word replacement
        assert sum(a >= 0.1 for a in achieved) >= 5  # and the loop runs until the ratio reaches d


def test_case_only_changes_cost_nothing_in_faithful_measure_but_count_in_clean():
    upper = TEXT.replace("sweet", "SWEET")
    assert PhoneticG(mode="faithful").measure(TEXT, upper) == 0.0
    assert PhoneticG().measure(TEXT, upper) == 1 / len(words(TEXT))
    assert PhoneticM().measure(TEXT, upper) == 5 / len(TEXT)


def test_edit_m_accumulates_on_the_current_word():
    rng = np.random.default_rng(0)
    out = PhoneticM().edit(TEXT, 4, rng, TEXT)
    assert out is not None and words(out)[4] != "sweet" and words(out)[:4] == words(TEXT)[:4]
    assert PhoneticG().edit(TEXT, 0, rng, TEXT) is None  # "I" is too short


def test_clean_spellings_follow_anthros_mix_and_the_pronunciation():
    from robust.plugins.attacks.phonetic import ANTHRO_MIX, draw_sound_alike, sound_alike

    kinds = sound_alike("definitely")
    assert "definately" in kinds["vowel_swap"] and "definitly" in kinds["vowel_delete"]  # reduced vowels (AH0)
    assert "defenately" not in kinds["vowel_swap"]  # the stressed EH1 is never respelt
    assert "mal" not in sound_alike("male")["vowel_delete"] and "lov" in sound_alike("love")["vowel_delete"]
    assert "kool" in sound_alike("cool")["respell"] and "god" not in sound_alike("good")["undouble"]
    rng = np.random.default_rng(0)
    vocab = ["comedy", "really", "love", "movie", "actress", "definitely", "story", "funny", "sweet", "great"]
    draws = [(w, draw_sound_alike(w, 1, rng)) for w in vocab * 60]
    case_only = np.mean([new.lower() == w for w, new in draws if new])
    expected = sum(v for k, v in ANTHRO_MIX.items() if k.endswith("case")) / sum(ANTHRO_MIX.values())
    # ANTHRO: most observed spellings are case variants; a bit more here, as some words lack spelling kinds
    assert expected - 0.05 < case_only < expected + 0.15


def test_edit_draws_from_a_draws_what_it_draws_from_the_generator():
    """`integer_draws`: the search may hand `edit` a `Draws`; the texts and the generator's state are the same."""
    from robust.toolkit.draws import Draws

    n = len(words(TEXT))
    for cls in (PhoneticM, PhoneticG):
        for mode in ("clean", "faithful"):
            t = cls(mode=mode)
            ref, rng = np.random.default_rng(5), np.random.default_rng(5)
            expected = [t.edit(TEXT, j % n, ref, TEXT) for j in range(3 * n)]
            with Draws(rng) as draws:
                got = [t.edit(TEXT, j % n, draws, TEXT) for j in range(3 * n)]
            assert got == expected and any(got)
            assert rng.bit_generator.state == ref.bit_generator.state


def test_g_marks_the_words_without_a_spelling_and_edits_nothing_there():
    """`editable` (clean Phonetic-G): the words without a sound-alike spelling, where `edit` returns None without
    drawing, so RobTest's search may skip them; a greedy search then writes what it writes when it asks everywhere."""
    from robust.plugins.benchmarks.robtest.search import GreedyConfig, drive, greedy_degrees

    text = "I watch a smart, sweet and playful romantic comedy with Tom in it ."
    marks = PhoneticG().editable(text)
    assert marks[0] is False and marks[-1] is False and marks[words(text).index("sweet")] is True
    assert PhoneticG(mode="faithful").editable(text) is None and PhoneticM().editable(text) is None
    for j, mark in enumerate(marks):
        if not mark:
            rng = np.random.default_rng(j)
            assert PhoneticG().edit(text, j, rng, text) is None
            assert rng.bit_generator.state == np.random.default_rng(j).bit_generator.state

    def probs(texts):
        p = np.array([0.9 if "sweet" in t.split() else 0.5 for t in texts])
        return np.stack([1 - p, p], axis=1)

    class Everywhere(PhoneticG):
        def editable(self, original):
            return None

    for seed in range(5):
        runs = []
        for transform in (PhoneticG(), Everywhere()):
            rng = np.random.default_rng(seed)
            ends = drive([greedy_degrees(transform, text, [0.1, 0.3, 0.6], rng, GreedyConfig(), 1)], probs)[0].value
            runs.append(([(e.texts, e.queries) for e in ends], rng.bit_generator.state))
        assert runs[0] == runs[1]
        assert any(t != text for texts, _ in runs[0][0] for t in texts)
