"""Inflection: Morpheus-style re-inflection with lemminflect (RobTest's code, Word/inflection_transform.py;
docs/attacks.md)."""

from __future__ import annotations

import numpy as np

from robust import Example
from robust.plugins.attacks import inflection
from robust.plugins.attacks.inflection import Inflection, _countable, inflections
from robust.toolkit.transforms import budget, word_modification_rate, words

TEXT = "I watch a smart, sweet and playful romantic comedy."
TITLED = "It's a story that makes the actors look good."


def test_inflections_of_the_first_lemma():
    assert set(inflections("watched", "VERB")) == {"watch", "watched", "watching", "watches"}
    assert "comedies" in inflections("comedy", "NOUN")
    assert set(inflections("smart", "ADJ")) == {"smart", "smarter", "smartest"}
    assert inflections("the", "NOUN") == ()
    assert inflections("watch", "VERB").count("watch") == 2  # VB and VBP: faithful draws keep duplicates


def test_clean_changes_only_content_words_to_their_inflections():
    seen = set()
    for seed in range(15):
        out = Inflection().apply(Example("x", TEXT), 0.6, np.random.default_rng(seed))[0]
        for x, y in zip(words(TEXT), words(out.text), strict=True):
            if x != y:
                assert x not in ("I", "a", "and")
                core = x.strip(",.")
                assert y.strip(",.") in {f for u in ("NOUN", "VERB", "ADJ") for f in inflections(core, u)}
                seen.add(y)
        assert 0 < word_modification_rate(TEXT, out.text) <= budget(9, 0.6) / 9
        assert out.meta["unreached"]  # only "watch" and the free adjectives can change: not 6 of 9 words
    assert "watched" in seen and "comedies." not in seen  # "a ... comedies" (the paper's Table 1) is ungrammatical


def test_clean_keeps_agreement():
    cases = {  # sentence -> the only changes allowed at each word
        "He watches the film .": {"watches": {"watched"}, "film": {"films"}},
        "They watched a film .": {"watched": {"watch"}},
        "The film is good .": {"is": {"was"}, "good": {"better"}},
        "The actors were very good .": {"were": {"are"}},
        "I was there .": {"was": {"am"}},
    }
    for text, allowed in cases.items():
        for seed in range(8):
            out = Inflection().apply(Example("x", text), 1.0, np.random.default_rng(seed))[0].text
            for x, y in zip(words(text), words(out), strict=True):
                assert x == y or y in allowed.get(x, set()), (text, out)


def test_mass_nouns_keep_their_number(monkeypatch):
    text = "The story is about love and friendship ."
    def draws():
        return {Inflection().apply(Example("x", text), 1.0, np.random.default_rng(s))[0].text for s in range(8)}
    assert all(words(o)[4] == "love" for o in draws()) and any(words(o)[6] == "friendships" for o in draws())
    assert not _countable("love", "loves") and _countable("movie", "movies")  # Zipf 1.16 and 0.37 apart
    monkeypatch.setattr(inflection, "MASS_GAP", 10.0)  # negative control: without the guard
    assert any(words(o)[4] == "loves" for o in draws())


def test_nouns_kept_singular_by_their_own_words():
    def forms(text: str, i: int) -> set[str]:
        return {words(Inflection().apply(Example("x", text), 1.0, np.random.default_rng(s))[0].text)[i]
                for s in range(8)}

    assert forms("It has an uppity musical beat .", 5) == {"beat"}  # "an" before it, through its modifiers
    assert forms("We saw the first film .", 4) == {"film"}  # an ordinal
    assert forms("We watched the director at work with his actors .", 3) == {"director"}  # "his" may refer back
    assert "films" in forms("We saw the film yesterday .", 3)  # negative control: nothing keeps it singular


def test_nouns_and_adjectives_of_a_wordnet_phrase_keep_their_form(monkeypatch):
    text = "big fat waste of time , but the teens play video games in the living room ."
    def changed() -> set[str]:
        out = set()
        for s in range(12):
            new = words(Inflection().apply(Example("x", text), 1.0, np.random.default_rng(s))[0].text)
            out |= {a for a, b in zip(words(text), new, strict=True) if a != b}
        return out

    assert not changed() & {"time", "games", "room"} and "play" in changed()  # the verb is no phrase's part
    monkeypatch.setattr(inflection, "in_collocation", lambda tokens, i: False)  # negative control: no guard
    assert changed() & {"time", "games", "room"}


def test_negative_control_faithful_breaks_agreement():
    outs = {Inflection(mode="faithful").apply(Example("x", "The film is good ."), 1.0,
                                              np.random.default_rng(s))[0].text for s in range(20)}
    assert any(o.split()[2] in ("been", "being", "am", "are") for o in outs)


def test_clean_keeps_case():
    out = Inflection().apply(Example("x", "Watch this comedy"), 1.0, np.random.default_rng(0))[0].text
    assert out.split()[0][0] == "W"


def test_faithful_title_quirk_and_counting():
    faithful = Inflection(mode="faithful")
    for seed in range(10):
        out = faithful.apply(Example("x", TITLED), 0.3, np.random.default_rng(seed))[0].text
        assert out.split()[0] == "It'S"  # lower-cased and .title()-cased after every call
        n = len(words(TITLED))
        assert word_modification_rate(TITLED, out) <= (budget(n, 0.3) + 1) / n
    clean = Inflection().apply(Example("x", TITLED), 0.3, np.random.default_rng(0))[0].text
    assert clean.split()[0] == "It's"


def test_edit_inflects_the_original_word_at_the_index():
    rng = np.random.default_rng(0)
    out = Inflection().edit(TEXT, 1, rng, TEXT)  # "watch"
    assert out is not None and words(out)[1] == "watched" and words(out)[2:] == words(TEXT)[2:]
    assert Inflection().edit(TEXT, 8, rng, TEXT) is None  # "a ... comedy." stays singular
    assert Inflection().edit(TEXT, 5, rng, TEXT) is None  # "and"


def test_clean_forms_follow_the_sentence_asked_not_the_list_object():
    t = Inflection()
    tokens = words("They watched a film .")
    assert t.clean_forms(tokens)[1] == ("watch",)
    tokens[1] = "watch"  # the same list, now another sentence: its forms, not the last sentence's
    assert t.clean_forms(tokens)[1] == ("watched",)


def test_clean_draws_through_the_sentence_forms_equal_the_word_by_word_draws():
    """Clean draws and edits look each position's forms up in the sentence's list (`options`): the same texts and
    generator state as asking `substitute` at every position; faithful mode has no such list."""
    from .word_draws import assert_options_keep_the_draws

    assert_options_keep_the_draws(Inflection(), [TEXT, TITLED, "They watched a film about the films they love ."])
    assert Inflection(mode="faithful").options(words(TEXT)) is None
