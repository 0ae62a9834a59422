"""Shared text helpers, the registration hook, and the contract every RobTest dimension transform keeps."""

from __future__ import annotations

import random

import numpy as np
import pytest

import robust
from robust import Example
from robust.plugins import attacks
from robust.plugins.attacks.glyph import GlyphG, GlyphM
from robust.plugins.attacks.inflection import Inflection
from robust.plugins.attacks.phonetic import PhoneticG, PhoneticM
from robust.plugins.attacks.synonym import Synonym
from robust.plugins.attacks.typo import TypoG, TypoM
from robust.toolkit.transforms import (
    WordTransform,
    budget,
    changed_words,
    char_degree,
    join,
    levenshtein,
    match_case,
    split_affixes,
    word_modification_rate,
    words,
)

SENTENCES = [
    "I watch a smart, sweet and playful romantic comedy.",
    "the film is a charming , funny and thoroughly watchable story about growing up .",
    "It's a dull, lifeless movie that never finds its footing and wastes every actor in it.",
]
DEGREES = [0.05, 0.1, 0.2, 0.3, 0.6]
TRANSFORMS = [TypoM, TypoG, GlyphM, GlyphG, PhoneticM, PhoneticG, Synonym, Inflection]


def _dp(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


# --- helpers ----------------------------------------------------------------------------------------------
def test_levenshtein_known_values():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == levenshtein("abc", "") == 3
    assert levenshtein("flaw", "lawn") == 2
    assert levenshtein("same", "same") == 0
    assert levenshtein("ab", "ba") == 2  # a swap costs 2 in plain Levenshtein


def test_levenshtein_matches_dynamic_programming_on_random_strings():
    rng = random.Random(0)
    for _ in range(3000):
        a = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 15)))
        b = "".join(rng.choice("abcd ") for _ in range(rng.randint(0, 90)))  # > 64 chars: multi-word ints
        assert levenshtein(a, b) == _dp(a, b) == levenshtein(b, a)


def test_words_join_and_affixes():
    assert words("  a  b\tc\n") == ["a", "b", "c"]
    assert join(["a", "b"]) == "a b"
    assert split_affixes('"smart,') == ('"', "smart", ",")
    assert split_affixes("don't.") == ("", "don't", ".")
    assert match_case("Watch", "observe") == "Observe"
    assert match_case("USA", "us") == "US"
    assert match_case("watch", "observe") == "observe"


def test_degree_measures():
    assert char_degree("abcd", "abce") == 0.25
    assert char_degree("Abcd", "abcd") == 0.0  # lower-cased, as RobTest's EditDistance
    assert char_degree("Abcd", "abcd", lower=False) == 0.25
    assert word_modification_rate("a b c d", "a x c y") == 0.5
    assert word_modification_rate("a b c d", "a b c d") == 0.0
    assert changed_words("a b c", "a c") == 1  # word counts differ: word-level edit distance
    assert word_modification_rate("a b c d", "A b c d") == 0.25  # case changes count


def test_budget_is_ceil_of_n_times_d():
    assert budget(30, 0.1) == 3  # not 4 from 3.0000000000000004
    assert budget(19, 0.05) == 1
    assert budget(19, 0.3) == 6
    assert budget(10, 0) == 0
    assert budget(0, 0.5) == 0


class _Upper(WordTransform):
    name = "upper"
    counts_failures = False

    def substitute(self, word, tokens, index, rng):
        return word.upper() if word.isalpha() and not word.isupper() else None


def test_word_transform_spends_budget_on_successes_only():
    text = "a b 1 2 c d e f"
    out = _Upper().apply(Example("x", text), 0.5, np.random.default_rng(0))[0].text
    assert changed_words(text, out) == 4  # k = 4 successes; digits fail without consuming budget
    _Upper.counts_failures = True
    try:
        rates = {_Upper().measure(text, _Upper().apply(Example("x", text), 0.5,
                                                       np.random.default_rng(s))[0].text) for s in range(20)}
        assert max(rates) <= 0.5 and min(rates) < 0.5  # failures now consume budget
    finally:
        _Upper.counts_failures = False
    assert _Upper().edit("a b c", 1, np.random.default_rng(0), "a b c") == "a B c"
    assert _Upper().edit("a b c", 5, np.random.default_rng(0), "a b c") is None


# --- registration -----------------------------------------------------------------------------------------
def test_all_dimension_transforms_are_registered_with_dimensions():
    from robust.core.plugins import get_registry

    registry = get_registry()
    expected = {"typo-M": "typo", "typo-G": "typo", "glyph-M": "glyph", "glyph-G": "glyph",
                "phonetic-M": "phonetic", "phonetic-G": "phonetic", "synonym": "synonym",
                "inflection": "inflection"}
    for name, dimension in expected.items():
        entry = registry.get("transform", name)
        assert entry.target.dimension == dimension
        assert entry.description and "\n" not in entry.description
    assert {TypoM.unit, GlyphM.unit, PhoneticM.unit} == {"char"}
    assert {TypoG.unit, GlyphG.unit, PhoneticG.unit, Synonym.unit, Inflection.unit} == {"word"}


def test_each_attack_module_is_a_plugin_of_its_own():
    # the loader imports each module of attacks.PLUGINS on its own, so one that fails to import is listed under
    # broken plugins with its cause while the others register (the path is tested end to end with a third-party
    # package in tests/core/test_plugins.py); no module is skipped with a warning any more
    registry = robust.registry()
    owner = {e.name: e.plugin for e in registry if e.kind == "transform" and e.plugin.startswith("attacks.")}
    assert owner["typo-M"] == "attacks.typo" and owner["glyph-G"] == "attacks.glyph"
    assert {p.removeprefix("attacks.") for p in owner.values()} == set(attacks.PLUGINS)
    assert not hasattr(attacks, "register_transforms") and not registry.broken


# --- the contract of every dimension (default settings) ---------------------------------------------------
def _bound(transform, text: str, degree: float) -> float:
    """The budget bound for the default (clean) mode (docs/attacks.md): k / N in the transform's unit."""
    n = len(text) if transform.unit == "char" else len(words(text))
    return budget(n, degree) / n


@pytest.mark.parametrize("cls", TRANSFORMS, ids=lambda c: c.name)
def test_dimension_contract(cls):
    transform = cls()
    for s_index, text in enumerate(SENTENCES):
        example = Example(f"e{s_index}", text, label="pos", meta={"source": "test"})
        assert transform.apply(example, 0.0, np.random.default_rng(1))[0].text == text  # degree 0
        changed = flagged = 0
        for degree in DEGREES:
            for seed in range(3):
                out = transform.apply(example, degree, np.random.default_rng(seed))
                again = transform.apply(example, degree, np.random.default_rng(seed))
                assert [o.text for o in out] == [o.text for o in again]  # deterministic under a seed
                assert len(out) == 1
                result = out[0]
                assert (result.id, result.label, result.meta["source"]) == (example.id, "pos", "test")
                achieved = transform.measure(text, result.text)
                assert achieved <= _bound(transform, text, degree) + 1e-9, (degree, result.text)
                changed += result.text != text
                flagged += result.text == text and result.meta.get("unreached", False)
        # the transform does perturb, or says that it could not (synonym: no frequent-sense synonym of the
        # paper's own example passes the meaning check)
        assert changed > 0 or flagged == len(DEGREES) * 3, text
        assert transform.measure(text, text) == 0.0


# --- settings and helper models ------------------------------------------------------------------------------
BAD_SETTINGS = [
    ("typo-M", {"mode": "sideways"}), ("glyph-G", {"spaces": []}), ("glyph-M", {"spaces": ["similar", "zany"]}),
    ("phonetic-G", {"mode": "fast"}), ("synonym", {"senses": 0}), ("synonym", {"min_similarity": 2.0}),
    ("contextual", {"source": "bert"}), ("contextual", {"top_k": 0}), ("inflection", {"mode": ""}),
    ("syntax", {"num_candidates": 0}), ("syntax", {"rules": ["scramble"]}), ("syntax", {"prompt": "paraphrase"}),
    ("distraction", {"types": ["poem"]}), ("distraction", {"max_steps": -1}), ("distraction", {"pool": 0}),
]


@pytest.mark.parametrize(("name", "config"), BAD_SETTINGS, ids=lambda v: str(v))
def test_nonsense_settings_fail_with_one_line(name, config):
    from robust.core.errors import RobustError
    from robust.core.plugins import get_registry

    entry = get_registry().get("transform", name)
    with pytest.raises(RobustError) as caught:
        entry.create(**config)
    assert "\n" not in str(caught.value) and next(iter(config)) in str(caught.value)
    entry.create()  # negative control: the defaults are fine


def test_helper_models_are_checked_on_the_instance_used():
    from robust import FunctionModel
    from robust.core.context import RunContext
    from robust.core.errors import RobustError
    from robust.core.plugins import get_registry
    from robust.plugins.attacks.syntax import Syntax

    embedder = FunctionModel(lambda texts: np.ones((len(texts), 3)), "embed")
    with pytest.raises(RobustError, match="needs a model that can generate as its 'model'"):
        Syntax(paraphraser=embedder)  # an instance that cannot generate
    with pytest.raises(RobustError, match="needs a model that can embed as its 'embedder'"):
        Synonym(embedder=FunctionModel(lambda texts: np.ones((len(texts), 2)), "classify"))
    # a spec is loaded through the run context, once per run, and checked there
    ctx = RunContext("t", 0, None, get_registry())
    syntax = ctx.create("transform", "syntax", model="minilm")
    with pytest.raises(RobustError, match="needs a model that can generate"):
        _ = syntax.paraphraser
    synonym = ctx.create("transform", "synonym")
    assert synonym.helper("embedder") is ctx.load_model("minilm")


def test_meaning_kept_checks_the_window_first_and_embeds_only_its_survivors():
    from robust import FunctionModel
    from robust.toolkit.transforms import meaning_kept

    vocab = ["a", "good", "movie", ",", "truly", "sandwich"]
    seen: list[str] = []

    def bag_of_words(texts):  # "film" and "picture" mean "movie"; a whole sentence with "picture" turns around
        seen.extend(texts)
        out = np.zeros((len(texts), len(vocab)))
        for row, t in enumerate(texts):
            for w in t.split():
                out[row, vocab.index({"film": "movie", "picture": "movie"}.get(w, w))] += 1
            if "picture" in t.split() and len(t.split()) > 3:
                out[row] *= -1
        return out

    tokens = words("a good film , truly")
    trials = [(tokens, 2, "movie"), (tokens, 2, "picture"), (tokens, 2, "sandwich")]
    embedder = FunctionModel(bag_of_words, "embed")
    assert meaning_kept(embedder, trials, 0.9, 0.9) == [True, False, False]  # windows: 1, 1, 2/3
    assert "a good sandwich , truly" not in seen  # failed its window: its sentence was never embedded
    assert "good sandwich ," in seen and "a good picture , truly" in seen
    # negative control: with no floors every sentence is embedded and kept
    seen.clear()
    assert meaning_kept(FunctionModel(bag_of_words, "embed"), trials, -1.0, -1.0) == [True, True, True]
    assert "a good sandwich , truly" in seen


def test_last_sentence_answers_again_only_for_another_sentence():
    """The answer of the sentence asked last is at hand; another sentence (by value, also the same list changed in
    place) is answered afresh, and an empty sentence is a sentence like any other."""
    from robust.toolkit.transforms import LastSentence

    asked = []
    last = LastSentence()

    def answer(tokens):
        asked.append(list(tokens))
        return [w.upper() for w in tokens]

    tokens = ["a", "b"]
    assert last.get(tokens, answer) == ["A", "B"] and last.get(["a", "b"], answer) == ["A", "B"]
    tokens[1] = "c"
    assert last.get(tokens, answer) == ["A", "C"] and last.get([], answer) == []
    assert asked == [["a", "b"], ["a", "c"], []]


def test_word_options_draw_what_substitute_draws():
    """A WordTransform whose `substitute` picks among per-sentence `options` draws and edits the same texts through
    them, with the same generator state (none taken where the draws' words are fixed): a replacement equal to the
    word is a failure (spent only when failures count), and a two-word replacement changes the word count (an edit
    then reads the text's own words)."""
    from robust.toolkit.transforms import WordTransform, pick

    from .word_draws import assert_options_keep_the_draws

    table = {"good": ("fine", "good", "nice"), "film": ("movie",), "very": ("really truly",), "a": ("a",)}

    class Table(WordTransform):
        name = "table"
        integer_draws = True

        def substitute(self, word, tokens, index, rng):
            return pick(table.get(word, ()), rng)

        def options(self, tokens):
            return [table.get(w, ()) for w in tokens]

    class Failing(Table):
        counts_failures = True

    texts = ["a very good film , a good cast .", "nothing here to change", "good", "a very long film"]
    for cls in (Table, Failing):
        assert_options_keep_the_draws(cls(), texts, degrees=(0.1, 0.4, 1.0))


def test_permutation_is_numpys():
    """`permutation` (a shuffled list where this numpy shuffles as it permutes) gives `rng.permutation`'s order and
    leaves the generator where it does, with or without a half of the 32-bit stream pending."""
    from robust.toolkit.draws import _shuffle_is_permutation, permutation

    assert _shuffle_is_permutation()  # the list path is the one taken here
    for n in (0, 1, 2, 5, 16, 33, 1000):
        for pending in (False, True):
            ours, theirs = np.random.default_rng(n), np.random.default_rng(n)
            if pending:
                ours.integers(7), theirs.integers(7)
            assert permutation(n, ours) == theirs.permutation(n).tolist()
            assert ours.bit_generator.state == theirs.bit_generator.state
