"""The parser that turns a served LM's generated answer into a class (prompt:api:MODEL on endpoints that only
generate): the first verbalizer named as a whole word, any case; nothing named -> unparseable (None)."""

from __future__ import annotations

import numpy as np
import pytest

from robust.plugins.models.prompt_remote import AnswerScorer, check_verbalizers, parse_answer

WORDS = ["negative", "positive"]


@pytest.mark.parametrize("answer, expected", [
    (" positive\n\nReview: a dull film", 1),
    ("Positive.", 1),
    ("The sentiment is NEGATIVE", 0),
    ("negative, not positive", 0),
    ("positive rather than negative", 1),
    ("", None),
    ("neutral", None),
    ("positively", None),  # not the whole word
    ("nonnegative", None),
    ("\n\n positive\n", 1),
    (" 'too clever'\n\nReview: dull\nSentiment: negative", None),  # only the first line is the answer
])
def test_parse_answer(answer, expected):
    assert parse_answer(answer, WORDS) == expected


def test_longest_verbalizer_wins_at_one_position():
    assert parse_answer("very good indeed", ["good", "very good"]) == 1
    assert parse_answer("good, very good", ["good", "very good"]) == 0


def test_verbalizers_must_differ_without_case_when_parsed():
    check_verbalizers(["a", "b"], ["Yes", "yes"], "remote")  # scored by log-likelihood: case matters
    with pytest.raises(Exception, match="same verbalizer"):
        check_verbalizers(["a", "b"], ["Yes", "yes"], "answer")
    with pytest.raises(Exception, match="empty"):
        check_verbalizers(["a", "b"], [" ", "no"], "remote")


class _Answers:
    """A stand-in LM whose `generate` returns fixed answers (the scorer's arithmetic, not the endpoint, is tested)."""

    def __init__(self, answers):
        self.answers = answers

    def generate(self, prompts, max_new_tokens, seed, do_sample):
        assert not do_sample and len(prompts) == len(self.answers)
        return self.answers


def test_unparseable_answers_are_counted_guesses_not_one_default_class():
    texts = [f"text {i}" for i in range(64)]
    scorer = AnswerScorer(_Answers(["I cannot tell"] * 64), "P: ", "\nA:", WORDS, 8)
    scores, _ = scorer.loglik(texts)
    picked = scores.argmax(1)
    assert scorer.notes() == {"prompt_answers": 64.0, "prompt_unparseable": 64.0}
    assert 0 < picked.sum() < 64  # both classes guessed: no silent default class
    again, _ = AnswerScorer(_Answers(["?"] * 64), "P: ", "\nA:", WORDS, 8).loglik(texts)
    assert np.array_equal(again.argmax(1), picked)  # the guess depends on the text only (deterministic)
    named, _ = AnswerScorer(_Answers([" positive"] * 64), "P: ", "\nA:", WORDS, 8).loglik(texts)
    assert (named.argmax(1) == 1).all() and np.exp(named[:, 0]).max() == 0.0
