"""BYOD transforms (Jain et al. 2023, §4-§8; docs/byod.md): exact expected outputs and invariants."""

from __future__ import annotations

import numpy as np
import pytest

from robust.core.interfaces import Example
from robust.plugins.benchmarks.byod.transforms import (
    Chop,
    ContextSwap,
    Negation,
    Trigger,
    WordSwap,
    add_trigger,
    chop,
    chopped_token_ids,
    negate,
    swap_words,
)

APRIL = ("April is the fourth month of the year in the Julian and Gregorian calendars and comes "
         "between March and May.")
MEDIA = ("Media.Vision would return to the franchise with the development of Valkyria: Azure Revolution "
         "for the PlayStation 4.")


@pytest.mark.parametrize("mode", ["clean", "faithful"])
def test_negation_examples_of_the_paper(mode):
    assert negate(APRIL, mode) == APRIL.replace("April is", "April is not")
    assert negate("X is not Y", mode) is None
    assert negate("Is this it? It is, yes.", mode) is None  # needs spaces on both sides: "Is " and "is," never match


def test_negation_precedence_differs_between_modes():
    assert negate("A was B and C is D", "faithful") == "A was B and C is not D"  # code: is > was > are > were
    assert negate("A was B and C is D", "clean") == "A was not B and C is D"  # paper: first occurrence
    assert negate("They are here", "faithful") == "They are not here"  # the code also handles "are"
    assert negate("They are here", "clean") is None


def test_negation_transform_rejects_sentences_without_copula():
    rng = np.random.default_rng(0)
    t = Negation()
    assert t.apply(Example("a", "Dogs bark loudly."), 1, rng) == []
    (out,) = t.apply(Example("b", "The sky is blue."), 1, rng)
    assert out.text == "The sky is not blue." and out.id == "b"


def test_trigger_placement():
    assert add_trigger("Hello there.") == "Hello there. Fuck Fuck"
    assert add_trigger("Hello there.", repeat=2) == "Hello there. Fuck Fuck Fuck Fuck"
    assert add_trigger("Hello there.", location="prepend") == "Fuck Fuck Hello there."
    (out,) = Trigger(phrase="Darn").apply(Example("a", "x y"), 1, np.random.default_rng(0))
    assert out.text == "x y Darn"


def test_context_swap_takes_the_first_two_sentences_from_the_donor():
    window, donor = ["S3 a.", "S2 b.", "S1 c."], ["X d.", "Y e.", "Z f."]
    ex = Example("w", " ".join(window), data={"sentences": window, "donor": donor})
    (out,) = ContextSwap().apply(ex, 1, np.random.default_rng(0))
    assert out.text == "X d. Y e. S1 c." and out.meta["last"] == "S1 c."
    assert ContextSwap().apply(Example("w", "", data={"sentences": window, "donor": donor[:1]}), 1,
                               np.random.default_rng(0)) == []


def test_clean_word_swap_swaps_exactly_two_words_and_keeps_separators():
    sentence = "the  quick brown fox\tjumps over the lazy dog ."
    for seed in range(30):
        swapped, control = swap_words(sentence, np.random.default_rng(seed), 1, "clean")
        a, b = sentence.split(), swapped.split()
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        assert len(diff) == 2 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        assert [len(s) for s in sentence.split(" ")] != [] and swapped.count("\t") == 1 and "  " in swapped
        assert control == sentence


def test_word_swap_with_zero_swaps_is_identity_in_both_modes():
    rng = np.random.default_rng(0)
    assert swap_words(MEDIA, rng, 0, "clean") == (MEDIA, MEDIA)
    assert swap_words(MEDIA, rng, 0, "faithful") == (MEDIA, MEDIA)


def test_faithful_word_swap_rejoins_treebank_tokens():
    swapped, control = swap_words(MEDIA, np.random.default_rng(1), 1, "faithful")
    assert control.endswith("PlayStation 4 .")  # the re-join artefact of faithful mode (docs/byod.md, Modes)
    assert sorted(swapped.split()) == sorted(control.split()) and swapped != control
    (out,) = WordSwap(mode="faithful").apply(Example("m", MEDIA), 1, np.random.default_rng(1))
    assert out.meta["control"] == control


def test_chop_reproduces_table_2_and_round_trips():
    pieces = chop(MEDIA, 10)
    assert pieces[:4] == ["Media.Visi", "on would r", "eturn to t", "he franchi"]
    assert pieces[-2:] == ["e PlayStat", "ion 4."]
    for text in (MEDIA, "", "abc", "x" * 23):
        for k in (1, 2, 5, 7, 100):
            assert "".join(chop(text, k)) == text
    assert chop("abcdefghij", 5) == ["abcde", "fghij"]
    (out,) = Chop().apply(Example("m", MEDIA), 1, np.random.default_rng(0))
    assert out.text == MEDIA and out.meta["pieces"] == chop(MEDIA, 5)


def _hf_tokenize(tok):
    return lambda texts: [list(ids) for ids in tok(list(texts))["input_ids"]]


def test_chopped_ids_decode_to_the_text(gpt2_dir, llama_dir):
    from transformers import AutoTokenizer

    gpt2 = AutoTokenizer.from_pretrained(gpt2_dir)
    ids = chopped_token_ids(chop(MEDIA, 5), _hf_tokenize(gpt2), "clean")
    assert gpt2.decode(ids) == MEDIA and ids != gpt2(MEDIA)["input_ids"]
    assert chopped_token_ids(chop(MEDIA, 500), _hf_tokenize(gpt2), "clean") == gpt2(MEDIA)["input_ids"]
    llama = AutoTokenizer.from_pretrained(llama_dir)
    bos = llama.bos_token_id
    clean = chopped_token_ids(chop(MEDIA, 5), _hf_tokenize(llama), "clean")
    faithful = chopped_token_ids(chop(MEDIA, 5), _hf_tokenize(llama), "faithful")
    assert clean.count(bos) == 1 and clean[0] == bos  # clean: one BOS, like the unchopped text
    assert faithful.count(bos) == len(chop(MEDIA, 5))  # faithful: a BOS before every piece (OPT-like)
    assert llama.decode(clean, skip_special_tokens=True) == MEDIA


def test_rejoin_control_on_the_review_corpus_changes_a_minority_of_sentences():
    """docs/validation/byod.md: the faithful re-join (" ".join(word_tokenize(s))) leaves most sentences of the
    pre-tokenized reviews unchanged, so the re-join control's *median* is 0 there, but not all of them
    (contractions "they're" -> "they 're", quotes -> ``): the identity does not hold sentence by sentence."""
    from robust.core.context import RunContext
    from robust.core.errors import MissingResource
    from robust.plugins.benchmarks.byod.corpus import punkt_available, split_sentences, word_tokenize

    try:
        data = RunContext.default().open_data("mr-reviews")
        reviews = [e for _, e in zip(range(100), data.examples(0))]
    except MissingResource as exc:
        pytest.skip(str(exc))
    if not punkt_available():
        pytest.skip("needs `robust setup punkt` (the faithful mode's Treebank tokenizer)")
    sentences = [s for e in reviews for s in (e.meta.get("sentences") or split_sentences(e.text))
                 if len(s.split()) > 5]
    same = np.mean([" ".join(word_tokenize(s, "nltk")) == s for s in sentences])
    assert 0.5 < same < 0.8
