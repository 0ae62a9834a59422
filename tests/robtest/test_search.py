"""The score-based searches (Chen et al. 2023, §2.2) and the reusable `saliency-greedy` Attacker."""

from __future__ import annotations

import numpy as np
import pytest

from robust import FunctionModel
from robust.core.interfaces import Example, Transform
from robust.plugins.benchmarks.robtest import SaliencyGreedy
from robust.plugins.benchmarks.robtest.search import (
    GreedyConfig,
    drive,
    saliency_order,
    saliency_queries,
    search_for,
    search_helpers,
)
from robust.toolkit.transforms import WordTransform

from .robtest_toys import FILLER, CountingFn, ToyWord, keyword_probs


class Appender(Transform):
    """Sentence level: append 'fine' or 'bad'; degree = 0.1 per appended word."""

    name = "appender"
    unit = "sentence"

    def edit(self, text, index, rng, original):
        return f"{text} {['fine', 'bad'][int(rng.integers(2))]}"

    def measure(self, original, perturbed):
        return 0.1 * (len(perturbed.split()) - len(original.split()))


def bad_counter(texts):
    p = np.array([1 / (1 + t.split().count("bad")) for t in texts])
    return np.stack([1 - p, p], axis=1)


def test_saliency_masks_each_word_and_ranks_the_largest_drop_first():
    text = "a good film"
    assert saliency_queries(text, "[MASK]") == [text, "[MASK] good film", "a [MASK] film", "a good [MASK]"]
    order, target = saliency_order(keyword_probs(saliency_queries(text, "[MASK]")))
    assert target == 1 and order[0] == 1


def test_attacker_plugin_edits_the_salient_word_within_the_degree():
    model = FunctionModel(keyword_probs, "classify", labels=["neg", "pos"])
    example = Example("1", FILLER.format("good"), "pos")
    attacker = SaliencyGreedy()
    out = attacker.attack([example], model, ToyWord(), 0.05, rngs=[np.random.default_rng(0)])[0]
    assert out.variants == [FILLER.format("zzz")] == [out.perturbed]  # 13 words: k = 1 edit, on 'good'
    assert out.success and out.status == "succeeded" and keyword_probs([out.perturbed])[0].argmax() == 0
    assert out.edits == [{"index": 7, "before": "good", "after": "zzz"}]
    assert out.queries == 1 + 13 + 1  # the text and its 13 masked copies, then the final check


def test_faithful_greedy_stops_on_char_levenshtein_per_word():
    """RobTest's code (ModelBased/searching.py; docs/robtest.md) stops word-level searches at Lev(chars)/N_w >= d,
    so 'good' -> 'zzz' (distance 4 of 13 words) already 'reaches' 0.3; clean counts modified words (ceil(13 x 0.3)
    = 4)."""
    text = FILLER.format("good")
    runs = {f: drive([search_for(ToyWord(), text, 0.3, np.random.default_rng(3), GreedyConfig(faithful=f))],
                     keyword_probs)[0].texts[0] for f in (True, False)}
    assert runs[True].split().count("zzz") == 1
    assert runs[False].split().count("zzz") == 4


def test_greedy_edits_ceil_kd_words_per_degree_and_paths_nest():
    text = FILLER.format("good")
    outs = {}
    for d in (0.1, 0.3):
        search = search_for(ToyWord(), text, d, np.random.default_rng(3))
        outs[d] = drive([search], keyword_probs)[0].texts[0]
        assert ToyWord().measure(text, outs[d]) >= d
        assert sum(w == "zzz" for w in outs[d].split()) == int(np.ceil(13 * d))
    changed = {i for i, w in enumerate(outs[0.1].split()) if w == "zzz"}
    assert changed <= {i for i, w in enumerate(outs[0.3].split()) if w == "zzz"}


def test_stop_on_flip_ends_the_search_after_the_label_changes():
    text = FILLER.format("good")
    config = GreedyConfig(stop_on_flip=True, ratio=0.05)  # one word per round
    out = drive([search_for(ToyWord(), text, 0.5, np.random.default_rng(0), config)], keyword_probs)[0].texts[0]
    assert out.split().count("zzz") == 1  # 'good' removed, then the flip is seen and the search stops


def test_sentence_search_keeps_the_most_damaging_candidate_below_the_degree():
    search = search_for(Appender(), "a film", 0.25, np.random.default_rng(0))
    out = drive([search], bad_counter, helpers=search_helpers(Appender()))[0].texts
    assert out == ["a film bad bad"]  # a third word would reach 0.3 >= 0.25
    with pytest.raises(ValueError, match="'degree'"):  # its degrees are measured on a helper channel
        drive([search_for(Appender(), "a film", 0.25, np.random.default_rng(0))], bad_counter)


class CountingAppender(Appender):
    """Appender with a batched `measures` (as a SentenceTransform's: one embedding call) that counts its calls."""

    def __init__(self, **config):
        super().__init__(**config)
        self.calls, self.pairs, self.edits = 0, 0, 0

    def edit(self, text, index, rng, original):
        self.edits += 1
        return super().edit(text, index, rng, original)

    def measures(self, pairs):
        self.calls, self.pairs = self.calls + 1, self.pairs + len(pairs)
        return [self.measure(a, b) for a, b in pairs]


def test_one_sentence_path_for_all_degrees_equals_a_search_per_degree():
    """`sentence_degrees` ends one path where each degree's own sentence search ends: the same variants and distinct
    queries as separate searches on the same stream (clean and faithful, with a step cap that ends some degrees),
    each candidate drawn and measured once, and the degrees of every search of a round measured in one call."""
    from robust.plugins.benchmarks.robtest.search import sentence_degrees

    degrees = [0.05, 0.1, 0.2, 0.3, 0.6]
    for config, gold in ((GreedyConfig(candidates=4), 1), (GreedyConfig(candidates=3, max_steps=2), None)):
        for text, seed in (("a film", 0), ("a fine film , bad", 4)):
            separate = []
            for d in degrees:
                transform = CountingAppender()
                found = drive([search_for(transform, text, d, np.random.default_rng(seed), config, gold)],
                              bad_counter, helpers=search_helpers(transform))[0]
                separate.append((found.texts, len(found.seen | set(found.texts)), transform.edits))
            shared = CountingAppender()
            ends = drive([sentence_degrees(shared, text, degrees, np.random.default_rng(seed), config, gold)],
                         bad_counter, helpers=search_helpers(shared))[0].value
            assert [(e.texts, e.queries) for e in ends] == [(t, q) for t, q, _ in separate]
            assert shared.edits == max(n for _, _, n in separate)  # drawn once, as far as the longest search

    transform = CountingAppender()  # three examples' searches
    searches = [sentence_degrees(transform, t, degrees, np.random.default_rng(i), GreedyConfig(candidates=4), 1)
                for i, t in enumerate(["a film", "the plot", "a long and dull film"])]
    drive(searches, bad_counter, helpers=search_helpers(transform))
    assert transform.pairs == 3 * transform.calls  # each round's three degrees in one call, not one per search


def test_drive_batches_all_searches_of_a_round_into_one_call():
    calls = []

    def counting(texts):
        calls.append(len(texts))
        return keyword_probs(texts)

    texts = [FILLER.format("good") + f" {i}" for i in range(5)]
    searches = [search_for(ToyWord(), t, 0.1, np.random.default_rng(i)) for i, t in enumerate(texts)]
    outs = drive(searches, counting)
    assert len(calls) == 1 and calls[0] == 5 * 15  # each: the text + 14 masks, one round
    assert all(o.texts[0].split().count("zzz") == 2 for o in outs)


def test_a_query_budget_is_never_exceeded_and_marks_the_result():
    model = FunctionModel(keyword_probs, "classify", labels=["neg", "pos"])
    examples = [Example(str(i), FILLER.format("fine") + f" {i}", "neg") for i in range(4)]  # robust: never flips
    for budget in (5, 15, 16, 40):
        results = SaliencyGreedy().attack(examples, model, ToyWord(), 0.3, budget,
                                          [np.random.default_rng(i) for i in range(4)])
        assert all(r.queries <= budget for r in results)
        assert all(r.status == "budget" for r in results) == (budget < 30)  # 15 per round, two rounds + check


def test_clean_saliency_follows_the_gold_label_on_a_misclassified_example():
    """A negative review the victim gets wrong: saliency of the prediction (faithful) removes the decisive
    word and pushes towards the gold label; saliency of the gold class (clean) never does."""
    model = FunctionModel(keyword_probs, "classify", labels=["neg", "pos"])
    example = Example("1", FILLER.format("good"), "neg")  # predicted pos, gold neg: already wrong
    clean = SaliencyGreedy().attack([example], model, ToyWord(), 0.05, rngs=[np.random.default_rng(0)])[0]
    faithful = SaliencyGreedy(faithful=True, draws=1).attack([example], model, ToyWord(), 0.05,
                                                             rngs=[np.random.default_rng(0)])[0]
    assert "good" in clean.perturbed.split() and clean.success
    assert "good" not in faithful.perturbed.split() and not faithful.success


def test_integer_draws_edits_equal_the_scalar_draws():
    """Typo's edits draw only `rng.integers`: the greedy search serves them from a `Draws` per round. The same
    search with the flag off (one numpy call per draw) writes the same texts and leaves the same generator state."""
    from robust.plugins.attacks.typo import TypoG, TypoM

    text = "a good film , the best of the year and a good cast that plays it well"
    for cls in (TypoM, TypoG):
        outs = {}
        for flag in (True, False):
            transform = type(f"{cls.__name__}{flag}", (cls,), {"integer_draws": flag})()
            rng = np.random.default_rng(5)
            texts = drive([search_for(transform, text, 0.3, rng)], keyword_probs)[0].texts
            outs[flag] = (texts, rng.bit_generator.state, rng.integers(1000, size=3).tolist())
        assert outs[True] == outs[False]
        assert outs[True][0] != [text]  # it edited


def test_one_path_for_all_degrees_equals_a_search_per_degree():
    """`greedy_degrees` ends one path where each degree's own search ends: the same variants and the same distinct
    queries (the final variant included) as `greedy_search` run separately on the same stream, and each query is
    asked once (fewer texts in all than the separate searches ask)."""
    from robust.plugins.attacks.typo import TypoG, TypoM
    from robust.plugins.benchmarks.robtest.search import greedy_degrees

    text = "a good film , the best of the year and a good cast that plays it well , bad ending though"
    degrees = [0.05, 0.1, 0.2, 0.4, 0.6]
    for transform in (TypoM(), TypoG(), ToyWord()):
        for config in (GreedyConfig(), GreedyConfig(stop_on_flip=True)):
            separate = [drive([search_for(transform, text, d, np.random.default_rng(9), config, gold=1)],
                              keyword_probs)[0] for d in degrees]
            counting = CountingFn()
            shared = drive([greedy_degrees(transform, text, degrees, np.random.default_rng(9), config, 1)],
                           counting)[0].value
            assert [e.texts for e in shared] == [o.texts for o in separate]
            assert [e.queries for e in shared] == [len(o.seen | set(o.texts)) for o in separate]
            assert counting.texts < sum(len(o.seen) for o in separate)


class Inflect(WordTransform):
    """A word transform with `options`: 'good' -> 'better' or 'fine', 'film' -> 'films' or 'movie', 'plot' ->
    'plots'; the other words have none."""

    name = "toy-inflect"
    integer_draws = True
    FORMS = {"good": ("better", "fine"), "film": ("films", "movie"), "plot": ("plots",)}

    def options(self, tokens):
        return [self.FORMS.get(t, ()) for t in tokens]


class AskEverywhere(Inflect):
    """Inflect without `editable`: the search asks `edit` at every word (None where a word has no forms)."""

    def editable(self, original):
        return None


class OneForm(Inflect):
    """One form a word (picks draw nothing): 'good' -> 'fine', 'film' -> 'movie', 'plot' -> 'plots'."""

    FORMS = {"good": ("fine",), "film": ("movie",), "plot": ("plots",)}


class DrawingFailures(OneForm):
    """OneForm without `editable`, whose failed edits draw (a word without forms costs a draw): its rounds differ
    in the generator's state, so the search cannot tell that a later round would fail as this one did."""

    def editable(self, original):
        return None

    def edit(self, text, index, rng, original):
        new = super().edit(text, index, rng, original)
        if new is None:
            rng.integers(2)
        return new


def counted(edit, attempts):
    """`edit`, noting the word position of every call in `attempts`."""
    return lambda t, j, rng, original: attempts.append(j) or edit(t, j, rng, original)


def test_a_search_whose_round_edits_and_draws_nothing_ends_its_degrees_at_once():
    """A round that edits nothing and draws nothing (no word left to try, or edits that fail without drawing) would
    repeat to the round caps (int(3k / per round), Chen et al.'s code), failing the same way. The search ends its
    remaining degrees there, with the variants and distinct queries that the rounds run on to the caps give (as a
    transform whose failures draw still does). A round that left the text as it was asks no texts again: it reuses
    the saliency it has."""
    from robust.plugins.benchmarks.robtest.search import greedy_degrees

    text = FILLER.format("good")  # 13 words, 3 with forms (plot, film, good); 2 edits a round
    degrees = [0.1, 0.3, 0.6, 0.9]  # caps 3, 6, 12 and 18 rounds
    class AskAll(OneForm):  # `edit` asked at every word: those without forms fail without drawing
        def editable(self, original):
            return None

    found, calls, tried = {}, {}, {}
    for cls in (OneForm, AskAll, DrawingFailures):
        transform, counting, attempts = cls(), CountingFn(), []
        transform.edit = counted(transform.edit, attempts)  # type: ignore[method-assign]
        ends = drive([greedy_degrees(transform, text, degrees, np.random.default_rng(5), GreedyConfig(), 1)],
                     counting)[0].value
        found[cls], calls[cls], tried[cls] = [(e.texts, e.queries) for e in ends], counting.calls, len(attempts)
    assert found[OneForm] == found[DrawingFailures] == found[AskAll]
    last = found[OneForm][-1][0][0].split()
    assert [i for i, (a, b) in enumerate(zip(text.split(), last)) if a != b] == [1, 5, 7]  # all three edited
    assert tried[OneForm] == 3  # two rounds of edits, then one that finds no word left to try
    assert tried[AskAll] <= 3 * 13  # its third round tries the 10 words without forms, and is its last
    assert tried[DrawingFailures] >= 10 * (18 - 2)  # every round draws: its 10 unedited words tried to the last cap
    assert calls[OneForm] == calls[AskAll] == calls[DrawingFailures] == 3  # each text scored once


def test_a_search_skips_the_words_a_transform_marks_uneditable_with_the_same_results():
    """`editable`: a word transform with `options` marks the words that have a replacement; the greedy search never
    asks `edit` at the others (where it would return None without drawing), and writes what it writes when it asks
    at every word: the same variants, queries and generator state, clean and faithful."""
    from robust.plugins.benchmarks.robtest.search import greedy_degrees

    text = FILLER.format("good")
    assert Inflect().editable(text) == [w in Inflect.FORMS for w in text.split()]
    assert Transform.editable(ToyWord(), text) is None  # the default: every word is tried

    class OwnEdit(Inflect):  # an `edit` of its own need not follow the options: no words are marked
        def edit(self, text, index, rng, original):
            return super().edit(text, index, rng, original)

    assert OwnEdit().editable(text) is None

    def searched(cls, config, seed):
        transform, asked = cls(), []
        edit = transform.edit
        transform.edit = lambda t, j, rng, original: asked.append(j) or edit(t, j, rng, original)  # type: ignore
        rng = np.random.default_rng(seed)
        if config.faithful:
            found = drive([search_for(transform, text, 0.95, rng, config, gold=1)], keyword_probs)[0]
            value = found.texts
        else:
            found = drive([greedy_degrees(transform, text, [0.1, 0.2, 0.3], rng, config, 1)], keyword_probs)[0]
            value = [(e.texts, e.queries) for e in found.value]
        return (value, rng.bit_generator.state), {text.split()[j] for j in asked}

    for config in (GreedyConfig(), GreedyConfig(faithful=True, draws=3)):
        for seed in range(4):
            (hinted, hinted_at), (every, every_at) = (searched(cls, config, seed) for cls in (Inflect, AskEverywhere))
            assert hinted == every
            assert hinted_at <= set(Inflect.FORMS) and hinted_at < every_at  # never at a word without forms
            written = hinted[0] if config.faithful else [t for texts, _ in hinted[0] for t in texts]
            assert set(written) - {text}  # it edited
