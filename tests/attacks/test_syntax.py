"""Syntax (Chen et al. 2023, §2.1; docs/attacks.md): real structure changes from the spaCy-parse rules, the
1 − cos ≤ d filter."""

from __future__ import annotations

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.interfaces import Example
from robust.plugins.attacks.syntax import Syntax
from robust.toolkit.paraphrase import FRAMES, rule_paraphrases
from robust.toolkit.transforms import SPACY


def by_rule(text: str) -> dict[str, str]:
    return {how: paraphrase for paraphrase, how in rule_paraphrases(text)}


@pytest.mark.parametrize(("text", "rule", "expected"), [
    ("The critics praised the film.", "active_to_passive", "The film was praised by the critics."),
    ("The film was praised by the critics.", "passive_to_active", "The critics praised the film."),
    ("The director did not explain the ending.", "active_to_passive",
     "The ending was not explained by the director."),
    ("The children will eat the cake after dinner.", "active_to_passive",
     "The cake will be eaten by the children after dinner."),
    ("John has written three novels.", "active_to_passive", "Three novels have been written by John."),
    ("I watch a smart, sweet and playful romantic comedy.", "active_to_passive",
     "A smart, sweet and playful romantic comedy is watched by me."),
    ("the movie was not liked by the audience .", "passive_to_active",
     "the audience did not like the movie ."),
    ("The film was never praised by the critics.", "passive_to_active",
     "The critics never praised the film."),
    ("I stayed home because it rained.", "clause_to_front", "Because it rained, I stayed home."),
    ("Although the plot is thin, the acting is good.", "clause_to_back",
     "The acting is good, although the plot is thin."),
    ("Because it rained, I stayed home.", "clause_to_back", "I stayed home because it rained."),  # no comma
    ("She reads books in the evening.", "adjunct_to_front", "In the evening, she reads books."),
    ("The plot is thin, but the acting is good.", "but_to_although",
     "Although the plot is thin, the acting is good."),
    ("The plot is thin, but the acting is good.", "but_to_although+clause_to_back",
     "The acting is good, although the plot is thin."),
    ("the film is ultimately a failure .", "adverb_to_front", "ultimately , the film is a failure ."),
    ("The critics eventually praised the film.", "adverb_to_front+active_to_passive",
     "Eventually, the film was praised by the critics."),
    ("She reads books in the evening.", "adjunct_cleft", "It is in the evening that she reads books."),
    ("The critics praised the film.", "subject_cleft", "It was the critics that praised the film."),
    ("The critics praised the film.", "wh_cleft", "What the critics praised was the film."),
    ("She reads books in the evening.", "adjunct_to_front+active_to_passive",
     "In the evening, books are read by her."),
])
def test_rules_on_hand_picked_sentences(text, rule, expected):
    assert by_rule(text)[rule] == expected


def test_passive_of_the_brief_sentence():
    assert any("was praised by" in p for p, _ in rule_paraphrases("The critics praised the film."))


def test_multi_sentence_text_keeps_other_sentences():
    text = "The critics praised the film. I stayed home because it rained."
    found = by_rule(text)
    assert found["active_to_passive"] == ("The film was praised by the critics. "
                                          "I stayed home because it rained.")
    assert found["clause_to_front"] == "The critics praised the film. Because it rained, I stayed home."


SENTENCES = [
    "The critics praised the film.", "She reads books in the evening.",
    "If you like action, you will enjoy it.",
    "The children will eat the cake after dinner.", "the film offers a fresh take on a familiar story .",
    "Although the plot is thin, the acting is good.", "The director did not explain the ending.",
    "The movie was often funny, but it never found its heart.",
]


def content(text: str) -> set[str]:
    return {t.lemma_.lower() for t in SPACY.get()(text) if t.pos_ in {"NOUN", "PROPN", "ADJ"}}


def test_paraphrases_change_structure_but_keep_content_words():
    for text in SENTENCES:
        paraphrases = rule_paraphrases(text)
        assert paraphrases, text
        for paraphrase, how in paraphrases:
            assert paraphrase != text
            assert content(text) <= content(paraphrase), (text, how, paraphrase)
            # a structure change, not a word swap: the word order differs
            assert paraphrase.lower().split() != text.lower().split()


def test_fragments_brackets_and_crossing_parses_are_left_alone():
    # only the framing rules (which move nothing) apply to these
    assert {how for _, how in rule_paraphrases("Wow.")} <= FRAMES
    assert {how for _, how in rule_paraphrases("makes for a pretty unpleasant viewing experience . ")} <= FRAMES
    bracketed = "[anderson] uses a hit-or-miss aesthetic . "
    assert not any(how.startswith("active_to_passive") for _, how in rule_paraphrases(bracketed))
    # "those ..." is an apposition of "film" across the verb: the subject cannot be moved as a block
    crossing = ("the film provides some great insight into the mindset of comics -- "
                "even those who reached the top . ")
    for paraphrase, _ in rule_paraphrases(crossing):
        assert paraphrase.count("provide") == 1 and paraphrase.count("insight") == 1


def test_trailing_whitespace_and_tokenised_style_are_kept():
    text = "even if you can't pronounce \" gyro \" correctly , you'll appreciate much of her humor . \n"
    found = by_rule(text)
    assert found["clause_to_back"] == (
        "you'll appreciate much of her humor even if you can't pronounce \" gyro \" correctly . \n")


def test_framing_and_fragment_rules_cover_fragments_and_clauses():
    found = by_rule("a charming , quirky romp .")
    assert found["fragment_to_clause"] == "it is a charming , quirky romp ."
    assert found["frame_view"] == "in my view , a charming , quirky romp ."
    assert "frame_think" not in found  # "i think a charming romp" is not a sentence
    assert by_rule("The film is fun.")["frame_think"] == "I think the film is fun."
    assert not any(how.count("frame") > 1 for _, how in rule_paraphrases("The film is fun."))  # never stacked
    assert not any("frame" in how for _, how in rule_paraphrases("Do you like the film?"))  # not before a question


def test_framing_takes_it_there_and_clausal_subjects_but_not_imperatives():
    assert by_rule("it never fails to engage us . ")["frame_view"] == "in my view , it never fails to engage us . "
    assert by_rule("there's a vastness implied in metropolis that is just breathtaking . ")["frame_think"] == (
        "i think there's a vastness implied in metropolis that is just breathtaking . ")
    assert "frame_tell" in by_rule("majidi is an unconventional storyteller , capable of finding beauty . ")
    # negative control: a subjectless imperative or fragment still takes no frame ("in my view , skip work ...")
    assert not any("frame" in how for _, how in rule_paraphrases("skip work to see it at the first opportunity . "))
    assert not any("frame" in how for _, how in rule_paraphrases("offers much to enjoy . "))


def expected_texts(scored: list[tuple[str, str, float]], degree: float) -> set[str]:
    """The paraphrases apply() returns: 0.8·d ≤ D_s ≤ d, else the most distant one within d."""
    kept = [(p, d) for p, _, d in scored if d <= degree]
    band = {p for p, d in kept if d >= 0.8 * degree}
    return band or ({max(kept, key=lambda k: (k[1], k[0]))[0]} if kept else set())


def length_embedder() -> FunctionModel:
    """Embeds a text at an angle that grows with its length difference to 30 characters (closed form)."""
    def fn(texts: list[str]) -> np.ndarray:
        angles = np.array([abs(len(t) - 30) / 100 for t in texts])
        return np.stack([np.cos(angles), np.sin(angles)], axis=1)

    return FunctionModel(fn, "embed")


def test_apply_keeps_the_paraphrases_closest_to_the_degree_from_below():
    t = Syntax(embedder=length_embedder())
    example = Example("a", "The critics praised the film.")  # 29 characters
    scored = t.scored(example.text)
    assert scored and all(d > 0 for _, _, d in scored)
    achieved = []
    for degree in (0.0005, 0.002, 0.01, 0.1, 0.3):
        out = t.apply(example, degree, np.random.default_rng(0))
        assert {e.text for e in out} == (expected_texts(scored, degree) or {example.text})
        achieved.append(max(t.measure(example.text, e.text) for e in out))
        for e in out:
            assert t.measure(example.text, e.text) <= degree or e.text == example.text
            if e.text != example.text:
                assert e.meta["syntax_source"] == "rules:spacy" and e.meta["syntax_rule"]
    assert achieved == sorted(achieved) and achieved[-1] > achieved[1]  # the degree scales with d

def test_degree_zero_and_determinism():
    t = Syntax(embedder=length_embedder())
    example = Example("a", "The children will eat the cake after dinner.")
    assert t.apply(example, 0.0, np.random.default_rng(0)) == [example]
    first = [e.text for e in t.apply(example, 0.5, np.random.default_rng(4))]
    assert first == [e.text for e in t.apply(example, 0.5, np.random.default_rng(4))]
    assert len(first) >= 1 and len(t.scored(example.text)) >= 5


def test_draws_in_a_row_are_each_a_random_order_of_the_chosen_paraphrases():
    """`apply_many` gives what `apply` called in a row gives, the generator's state included, and each draw is the
    chosen paraphrases in the order of `rng.permutation` (one candidate: nothing drawn)."""
    t = Syntax(embedder=length_embedder())
    example = Example("a", "The children will eat the cake after dinner.")
    sizes = set()
    for degree in (0.0, 1e-5, 0.0065, 0.02, 0.5):  # none, one, two and three paraphrases in the band
        for seed in range(3):
            rng, again, reference = (np.random.default_rng(seed) for _ in range(3))
            many = t.apply_many(example, degree, rng, 5)
            assert many == [t.apply(example, degree, again) for _ in range(5)]
            chosen = t.chosen(example.text, degree) if degree > 0 else []
            sizes.add(len(chosen))
            if len(chosen) > 1:
                assert [[e.text for e in draw] for draw in many] == [
                    [chosen[i][0] for i in reference.permutation(len(chosen))] for _ in range(5)]
            assert rng.bit_generator.state == again.bit_generator.state == reference.bit_generator.state
    assert max(sizes) > 1 and min(sizes) <= 1


class FakeParaphraser:
    """A `generate`-capable model: the seed picks one of a few rewrites."""

    capabilities = frozenset({"generate"})

    def generate(self, prompts, max_new_tokens=20, seed=0, do_sample=True):
        assert all(p.startswith("paraphrase:\n") for p in prompts)
        rewrites = ["The film was praised by the critics.\nNext example:", "  It was the critics who praised the film.",
                    "The critics praised the film."]
        return [rewrites[seed % 3] for _ in prompts]


def test_model_paraphraser_path():
    t = Syntax(embedder=length_embedder(), paraphraser=FakeParaphraser(), prompt="paraphrase:\\n{text}")
    example = Example("a", "The critics praised the film.")
    assert {p for p, _, _ in t.scored(example.text)} == {"The film was praised by the critics.",
                                                         "It was the critics who praised the film."}
    texts = {e.text for e in t.apply(example, 1.0, np.random.default_rng(0))}
    assert texts == expected_texts(t.scored(example.text), 1.0)
    assert t.describe()["source"].startswith("model:")


@pytest.mark.slow
def test_real_minilm_passive_is_a_small_degree():
    from robust.core.plugins import get_registry

    t = Syntax(embedder=get_registry().model("minilm"))
    example = Example("a", "The critics praised the film.")
    degrees = {p: d for p, _, d in t.scored(example.text)}
    assert 0 < degrees["The film was praised by the critics."] < 0.1
    out = {e.text: e.meta["achieved"] for e in t.apply(example, 0.1, np.random.default_rng(0))}
    assert all(0 < d <= 0.1 for d in out.values())
    assert t.describe()["source"] == "rules:spacy"


@pytest.mark.slow
def test_robtest_benchmark_runs_syntax_and_distraction(tmp_path):
    """Both sentence-level dimensions through the RobTest benchmark with a keyword victim and real minilm."""
    import json

    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.plugins.benchmarks.robtest import RobTest

    rows = [("The critics praised the film.", "pos"), ("The plot is thin, but the acting is good.", "pos"),
            ("I stayed home because the film was dull.", "neg"), ("She hated the ending of the movie.", "neg")]
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join(json.dumps({"text": t, "label": y}) for t, y in rows))

    def keyword_victim(texts):
        return np.array([[0.2, 0.8] if "praised" in t or "good" in t else [0.8, 0.2] for t in texts])

    model = FunctionModel(keyword_victim, "classify", labels=["neg", "pos"])
    ctx = RunContext("t", seed=3, model=model, registry=get_registry(), data=str(data),
                     attacks=["distraction", "syntax"], out_dir=tmp_path)
    bench = RobTest(degrees=[0.0, 0.1, 0.3], aug_num=3, n=4)
    bench.prepare(ctx)
    items = bench.items(ctx)
    ids = [i.id for i in items]
    assert not any(i.startswith("syntax/score") for i in ids) and any(i.startswith("distraction/score") for i in ids)
    records = dict(zip(ids, bench.run_batch(items, ctx), strict=True))
    syntax = Syntax(embedder=get_registry().model("minilm"))
    for item_id, record in records.items():
        assert record["n"] >= 1
        if "achieved" in record:
            assert record["achieved"] <= record["degree"] + 1e-9
        if item_id.startswith("syntax/rule"):  # the paraphrases nearest d, de-duplicated over the draws
            text = rows[int(record["example"]) - 1][0]
            assert record["n"] == max(1, len(expected_texts(syntax.scored(text), record["degree"])))
    titles = [t.title for t in bench.reduce(records, ctx).tables]
    assert any(t.startswith("syntax") for t in titles) and any(t.startswith("distraction") for t in titles)


def test_precompute_batches_many_texts_and_matches_one_at_a_time():
    calls = []

    def fn(texts):
        calls.append(len(texts))
        return length_embedder().fn(texts)

    texts = ["The critics praised the film.", "The children will eat the cake after dinner.", "Wow."]
    batched = Syntax(embedder=FunctionModel(fn, "embed"))
    batched.precompute(texts, [0.1, 0.5])
    assert len(calls) == 1  # every paraphrase of every text in one embedding call
    alone = Syntax(embedder=length_embedder())
    for text in texts:
        assert batched.scored(text) == alone.scored(text)
    assert [len(batched.scored(t)) > 0 for t in texts] == [True, True, False]  # "Wow." has no clause to move
    assert len(calls) == 1  # answered from the precomputed scores
