"""Synonym: WordNet synonyms with antonyms removed (Chen et al. 2023, Table 1; RobTest's code,
Word/synonym_transform.py)."""

from __future__ import annotations

import numpy as np

from robust import Example
from robust.plugins.attacks.synonym import Synonym, frequent_sense_synonyms, synonyms
from robust.toolkit.lexicon import antonyms, in_collocation, wordnet_pos
from robust.toolkit.transforms import budget, pos_tags, word_modification_rate, words

TEXT = "I watch a smart, sweet and playful romantic comedy."


def test_pos_mapping_and_candidates():
    assert [wordnet_pos(t) for t in ("NNS", "VBZ", "JJ", "RB", "DT")] == ["n", "v", "a", "r", "n"]
    assert "observe" in synonyms("watch", "v", True)
    assert "watch_over" in synonyms("watch", "v", True)  # faithful keeps multi-word lemmas
    assert "watch_over" not in synonyms("watch", "v", False)
    assert "watch" not in synonyms("watch", "v", True)


def test_antonyms_are_never_candidates():
    assert {"bad", "evil"} <= antonyms("good")
    for word, tag in [("good", "JJ"), ("good", "NN"), ("hot", "JJ"), ("increase", "VB"), ("fast", "RB")]:
        for mode in ("clean", "faithful"):
            assert not set(Synonym(mode=mode).candidates(word, tag)) & antonyms(word)


def test_satellites_count_as_adjectives_only_in_clean_mode():
    assert synonyms("smart", "a", False) and not synonyms("smart", "a", True)  # smart's senses are 's'


def test_clean_candidates_are_reinflected_recased_and_keep_punctuation():
    clean = Synonym(senses=3, own_senses=20)
    assert "sees" in clean.candidates("watches", "VBZ")
    assert "Sees" in clean.candidates("Watches", "VBZ")
    assert all(c.endswith(",") for c in clean.candidates("smart,", "JJ")) and clean.candidates("smart,", "JJ")
    assert clean.candidates("a", "DT") == [] and "ampere" in Synonym(mode="faithful").candidates("a", "DT")


def test_clean_candidates_come_from_the_most_frequent_sense_and_fit_the_context():
    assert Synonym().candidates("watches", "VBZ") == []  # watch.v.01 "look attentively" has no 1-word lemma
    assert "movie" in Synonym().candidates("film", "NN") and "cinema" not in Synonym().candidates("film", "NN")
    assert "enceinte" not in Synonym(senses=10).candidates("large", "JJ")  # rare words never
    tokens = words("the film was so much fun , i watched it twice .")
    options = Synonym().in_context(tokens)
    assert "movie" in options[1] and not any(options[i] for i in (0, 3, 4, 6, 7))  # the/so/much/,/i
    # negative control: without the embedding and re-tag checks a wrong-sense candidate gets through
    loose, strict = (Synonym(senses=3, own_senses=20, **checks)
                     for checks in ({"min_similarity": -1.0, "min_local_similarity": -1.0}, {}))
    assert len(loose.in_context(tokens)[8]) > len(strict.in_context(tokens)[8]) or \
        sum(map(len, loose.in_context(tokens))) > sum(map(len, strict.in_context(tokens)))


def test_a_synonym_must_commonly_mean_the_shared_sense():
    assert frequent_sense_synonyms("night", "n", 1, 3.0, 2) == ("nighttime",)  # night.n.01 is dark's 4th sense
    assert "dark" in frequent_sense_synonyms("night", "n", 1, 3.0, 20)  # negative control: any of its senses


def test_words_of_a_wordnet_collocation_stay():
    assert in_collocation(words("after all , it works ."), 0) and in_collocation(words("bad special effects ."), 1)
    assert not in_collocation(words("the movie is good ."), 1)
    tokens = words("we saw , after all , the special effects")  # mid-sentence and last: only neighbours are read
    assert [i for i in range(len(tokens)) if in_collocation(tokens, i)] == [3, 4, 7, 8]
    tokens = words("after all , the special effects are good .")
    assert not Synonym(own_senses=20).in_context(tokens)[0]  # "afterwards all"


def test_the_local_check_rejects_a_wrong_sense_the_sentence_hides():
    tokens = words("the movie is hardly a masterpiece , but it does mark her best work in some time .")
    time, mark = tokens.index("time"), tokens.index("mark")
    loose = Synonym(own_senses=20, min_local_similarity=-1.0, max_zipf_drop=8.0).in_context(tokens)  # negative control
    assert "clip" in loose[time] and "label" in loose[mark]  # both pass the whole-sentence check (>= 0.9)
    strict = Synonym(own_senses=20).in_context(tokens)
    assert not strict[time] and not strict[mark] and "film" in strict[tokens.index("movie")]


def test_substitutions_only_touch_content_words():
    tags = pos_tags(TEXT)
    for seed in range(10):
        out = Synonym().apply(Example("x", TEXT, label=1), 0.6, np.random.default_rng(seed))[0].text
        a, b = words(TEXT), words(out)
        assert len(a) == len(b)
        for (x, y), (ptb, _) in zip(zip(a, b, strict=True), tags, strict=True):
            if x != y:
                assert ptb[:1] in "NVJR" and y.lower() not in antonyms(x.strip(",."))
        assert word_modification_rate(TEXT, out) <= budget(len(a), 0.6) / len(a)


def test_hand_checked_example():
    t = Synonym(senses=3, own_senses=20)
    out = t.apply(Example("x", TEXT), 0.1, np.random.default_rng(0))[0].text
    changed = [(x, y) for x, y in zip(words(TEXT), words(out), strict=True) if x != y]
    assert len(changed) == 1  # k = ceil(9 * 0.1) = 1 success
    old, new = changed[0]
    assert new in t.in_context(words(TEXT))[words(TEXT).index(old)]


def test_edit_rewrites_the_original_word_at_the_index():
    rng = np.random.default_rng(0)
    index = words(TEXT).index("watch")
    tags = pos_tags(TEXT)
    current = TEXT
    t = Synonym(senses=3, own_senses=20)
    for _ in range(5):  # score-based search: always a synonym of the ORIGINAL word, never a chain
        current = t.edit(current, index, rng, TEXT) or current
        assert words(current)[index] in t.candidates("watch", tags[index][0])
    assert current != TEXT
    assert Synonym().edit(TEXT, 2, rng, TEXT) is None  # "a" (DT) has no candidate in clean mode


def test_pronouns_are_not_replaced():
    loose = Synonym(own_senses=20, min_similarity=-1.0, min_local_similarity=-1.0)  # no meaning checks
    assert "person" in loose.candidates("someone", "NN")  # WordNet would offer it ("should have been person else")
    assert loose.in_context(words("it should have been someone else ."))[4] == ()  # spaCy: PRON, not replaceable


def test_a_synonym_is_not_much_rarer_than_the_word():
    assert "laughable" not in frequent_sense_synonyms("funny", "a", 1, 3.0, 2, 1.0)  # Zipf 1.8 below "funny"
    assert frequent_sense_synonyms("soul", "n", 1, 3.0, 2, 1.0) == ()  # "psyche": 1.4 below
    assert "film" in frequent_sense_synonyms("movie", "n", 1, 3.0, 2, 1.0)  # as common as "movie"
    assert "laughable" in frequent_sense_synonyms("funny", "a", 1, 3.0, 2, 8.0)  # negative control: no limit
    tokens = words("there is something intrinsically funny about it .")
    assert "laughable" not in Synonym(own_senses=20).in_context(tokens)[4]
    assert "laughable" in Synonym(own_senses=20, max_zipf_drop=8.0, min_similarity=-1.0,
                                  min_local_similarity=-1.0).in_context(tokens)[4]


def test_clean_draws_through_the_sentence_candidates_equal_the_word_by_word_draws():
    """Clean draws and edits look each position's checked candidates up in the sentence's list (`options`): the same
    texts and generator state as asking `substitute` at every position; faithful mode has no such list."""
    from .word_draws import assert_options_keep_the_draws

    texts = [TEXT, "the film was so much fun , i watched it twice ."]
    assert_options_keep_the_draws(Synonym(senses=3, own_senses=20), texts)
    assert Synonym(mode="faithful").options(words(TEXT)) is None


def test_frequent_senses_are_the_first_of_all_senses_of_that_pos():
    """`frequent_senses` reads only the POS's senses, up to `top` (no other synset decoded): the same as filtering all
    of a word's senses, satellites counting as adjectives (asked as "a" or as "s")."""
    from robust.toolkit.lexicon import frequent_senses, wordnet

    for word in ("run", "smart", "large", "film", "saw", "funny", "well", "xyzzy"):
        for pos in "nvasr":
            accept = {"a", "s"} if pos in "as" else {pos}
            every = [s for s in wordnet().synsets(word) if s.pos() in accept]
            for top in (1, 2, 50):
                assert frequent_senses(word, pos, top) == every[:top]
    assert frequent_senses("smart", "s", 2) and frequent_senses("saw", "v", 1)[0].name() == "saw.v.01"
