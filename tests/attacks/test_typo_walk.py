"""Typo-M's compiled clean draw (numba) against its Python loop: the same texts, distances and generator state;
its Myers distance against rapidfuzz; where it steps aside."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba", reason="numba not installed: Typo-M draws with its Python loop")

from rapidfuzz.distance import Levenshtein  # noqa: E402

from robust.plugins.attacks.typo import KEYBOARD, OPS, TypoM  # noqa: E402
from robust.toolkit import typo_walk  # noqa: E402
from robust.toolkit.text import budget  # noqa: E402

SENTENCES = [
    "the film is a great deal of fun , and a fine showcase for the actors .",
    "a muddled , melodramatic paean to a dead star ; it's 2 hours too long !!",
    "Ébouriffant, naïve et drôle : un film À voir",  # non-ASCII letters: ids from 128 on
    "x" * 150 + " aaaa bbbb " + "ab" * 40,  # three blocks of the pattern, runs that let edits cancel
    "I",
    "  ",
]
GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox]
walk = typo_walk.TypoWalk(KEYBOARD, OPS)


def _both(text: str, k: int, bits: type, seed: int, draws: int = 3) -> None:
    loop, compiled = np.random.Generator(bits(seed)), np.random.Generator(bits(seed))
    loop.integers(7), compiled.integers(7)  # a half of the 32-bit stream left pending
    for _ in range(draws):
        expected = TypoM._clean_loop(text, k, loop)
        assert walk(text, k, compiled) == expected
        assert repr(compiled.bit_generator.state) == repr(loop.bit_generator.state)


@pytest.mark.parametrize("bits", GENERATORS, ids=lambda b: b.__name__)
def test_compiled_draw_equals_the_python_loop(bits):
    for text in SENTENCES:
        for degree in (0.05, 0.3, 0.6, 1.0, 1.5):  # 1.0 and beyond: a budget that cannot be spent (idle passes)
            _both(text, budget(len(text), degree), bits, len(text))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab cdEF.;,'\u00e9\u00c9K\u212a1"), min_size=1, max_size=90),
       st.integers(1, 40), st.integers(0, 2**32))
def test_compiled_draw_equals_the_python_loop_on_any_text(text, k, seed):
    _both(text, k, np.random.PCG64, seed, draws=2)


def test_a_short_stream_is_read_again_longer():
    """The compiled draw reads a block of the generator's outputs ahead; where a draw needs more (Lemire's
    rejections, many passes), it draws again from the same state with a longer block, to the same result."""
    text = "a b " * 30
    k = budget(len(text), 1.0)  # unreachable: four idle passes, far more draws than the first block holds
    _both(text, k, np.random.PCG64, 3, draws=2)


def test_steps_aside_where_it_cannot_replay_the_draw():
    assert walk("a fine film", 3, np.random.Generator(np.random.MT19937(0))) is None
    assert typo_walk.prepare("DİYARBAKIR") is None  # 'İ' lower-cases to two characters
    assert typo_walk.prepare("ΟΔΥΣΣΕΥΣ") is None  # 'Σ' lower-cases by its neighbours
    assert typo_walk.prepare("Kelvin \u212a") is not None  # the Kelvin sign lower-cases to an ASCII 'k'
    rng = np.random.default_rng(0)
    state = repr(rng.bit_generator.state)
    assert walk("ΟΔΥΣΣΕΥΣ", 3, rng) is None and repr(rng.bit_generator.state) == state
    # and TypoM then draws with its loop
    loop, through = np.random.default_rng(5), np.random.default_rng(5)
    assert TypoM._clean_draw("ΟΔΥΣΣΕΥΣ ok", 4, through) == TypoM._clean_loop("ΟΔΥΣΣΕΥΣ ok", 4, loop)


def test_numpy_permutes_as_the_kernel_does():
    assert typo_walk.agrees_with_numpy()


def test_the_walk_takes_only_what_it_can_draw_alike():
    with pytest.raises(ValueError, match="in this order"):
        typo_walk.TypoWalk(KEYBOARD, ("insert", "delete", "replace", "swap", "repeat"))
    with pytest.raises(ValueError, match="ASCII"):
        typo_walk.TypoWalk({"\u00e9": "e"}, OPS)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcAB ", min_size=1, max_size=200), st.text(alphabet="abcAB ", max_size=220))
def test_myers_distance_equals_rapidfuzz(pattern, text):
    """Every column of Myers' block-based algorithm (patterns of one to four 64-bit blocks) is the Levenshtein
    distance of the lower-cased pattern to that prefix of the text."""
    sentence = typo_walk.prepare(pattern)
    ids = np.array([ord(c) for c in text.lower()], dtype=np.int32)  # ASCII: an id is the code point
    n = len(ids)
    vp = np.empty((n + 1, sentence.peq.shape[1]), dtype=np.uint64)
    vn, score = np.empty_like(vp), np.empty(n + 1, dtype=np.int64)
    typo_walk.columns(sentence.peq, sentence.last, len(pattern), ids, vp, vn, score)
    low = pattern.lower()
    assert [int(s) for s in score] == [Levenshtein.distance(low, text.lower()[:j]) for j in range(n + 1)]


def test_a_compiler_that_fails_leaves_the_python_loop(monkeypatch):
    """numba installed but unable to compile here: one warning, and Typo-M draws in Python, the same draws."""
    from robust.plugins.attacks import typo

    def broken(self, text, k, rng):
        raise RuntimeError("no LLVM target for this machine")

    monkeypatch.setattr(typo_walk.TypoWalk, "__call__", broken)
    with pytest.warns(RuntimeWarning, match="could not compile Typo-M's and Typo-G's draws.*no LLVM target"):
        assert typo._compiled_draw.build() is None


def test_draws_do_not_wait_for_the_compiled_walk(monkeypatch):
    """The compiled walk loads in a thread of its own; until it is there, Typo-M draws with the Python loop (the
    same texts), and from then on with the walk."""
    import threading

    from robust.plugins.attacks import typo

    ready = threading.Event()

    def slow_load():
        ready.wait(30)
        return walk

    monkeypatch.setattr(typo, "_load_walk", slow_load)
    typo._compiled_draw.reset()
    try:
        assert not typo._compiled_draw.started  # benchmarks/own_cost.py waits only for loads that began
        loop, through = np.random.default_rng(4), np.random.default_rng(4)
        assert typo._compiled_draw() is None  # still loading: not waited for
        assert typo._compiled_draw.started
        assert TypoM._clean_draw(SENTENCES[1], 20, through) == TypoM._clean_loop(SENTENCES[1], 20, loop)
        ready.set()
        assert typo._compiled_draw.loading().result(timeout=30) is walk and typo._compiled_draw() is walk
        assert TypoM._clean_draw(SENTENCES[1], 20, through) == TypoM._clean_loop(SENTENCES[1], 20, loop)
    finally:
        typo._compiled_draw.reset()


@pytest.mark.parametrize("mode", ["clean", "faithful"])
def test_the_compiled_walk_loads_while_the_model_does(mode, monkeypatch, tmp_path):
    """RobTest calls each transform's `warm_up` as it prepares, before the model loads: the clean draws' compiled
    walk starts loading then (not waited for), so that a fresh process loads numba while the model loads its
    weights, not in the first draws' time; faithful mode draws in Python and loads nothing."""
    import threading

    import robust
    from robust.plugins.attacks import typo

    ready = threading.Event()
    monkeypatch.setattr(typo, "_load_walk", lambda: ready.wait(30) and walk)
    started_by_preload: list[bool] = []

    class Loading(robust.FunctionModel):
        def preload(self) -> None:
            started_by_preload.append(typo._compiled_draw.started)

    model = Loading(lambda texts: [[0.4, 0.6] if "good" in t else [0.6, 0.4] for t in texts], "classify",
                    labels=["neg", "pos"])
    rows = [{"text": f"the film was {'good' if i % 2 else 'bad'} overall", "label": i % 2} for i in range(4)]
    typo._compiled_draw.reset()
    try:
        robust.run("robtest", model=model, data=rows, attack="typo-M", store=tmp_path / "r.db", progress=False,
                   settings={"typo-M.mode": mode, "aug_num": 2, "degrees": "0.1"})
        assert started_by_preload == [mode == "clean"]
    finally:
        ready.set()
        typo._compiled_draw.reset()


@pytest.mark.parametrize("bits", GENERATORS, ids=lambda b: b.__name__)
def test_many_draws_in_one_call_equal_the_python_loop(bits):
    """RobTest's aug_num draws of an example at a degree in one compiled call (`TypoWalk.many`, `TypoM.apply_many`):
    the texts, distances and generator state of as many Python loops in a row."""
    from robust import Example
    from robust.plugins.attacks import typo

    # TypoM.apply_many draws compiled, not in Python
    assert typo._compiled_draw.loading().result(timeout=300) is not None
    for text in SENTENCES[:4]:
        for degree, draws in ((0.05, 1), (0.3, 20), (0.6, 7)):
            k = budget(len(text), degree)
            loop, compiled, applied = (np.random.Generator(bits(11)) for _ in range(3))
            expected = [TypoM._clean_loop(text, k, loop) for _ in range(draws)]
            assert walk.many(text, k, compiled, draws) == expected
            variants = TypoM().apply_many(Example("x", text), degree, applied, draws)
            assert [v.text for (v,) in variants] == [t for t, _ in expected]
            assert [v.meta["achieved"] for (v,) in variants] == [round(d / len(text), 6) for _, d in expected]
            state = repr(loop.bit_generator.state)
            assert repr(compiled.bit_generator.state) == state and repr(applied.bit_generator.state) == state


def test_many_draws_outrunning_their_block_are_read_again():
    text = "a b " * 30
    k = budget(len(text), 1.0)  # unreachable: four idle passes a draw
    loop, compiled = np.random.default_rng(2), np.random.default_rng(2)
    assert walk.many(text, k, compiled, 5) == [TypoM._clean_loop(text, k, loop) for _ in range(5)]
    assert repr(compiled.bit_generator.state) == repr(loop.bit_generator.state)


@pytest.mark.parametrize("bits", GENERATORS, ids=lambda b: b.__name__)
def test_typo_g_draws_in_one_call_equal_its_python_draws(bits):
    """Typo-G's aug_num draws compiled in one call (`TypoWalk.word_edits`, `TypoG.apply_many`): the texts, degrees
    and generator state of `WordTransform.apply` called in a row (keyboard keys by lower case, the Kelvin sign's
    included; swaps of equal letters and one-letter words change nothing)."""
    from robust import Example, Transform
    from robust.plugins.attacks import typo
    from robust.plugins.attacks.typo import TypoG

    assert typo._compiled_draw.loading().result(timeout=300) is not None
    assert walk.word_edits("a fine film", 1, np.random.Generator(bits(0)), 1) is not None  # drawn compiled
    texts = [*SENTENCES[:4], "I a A ee oo !! \u212aelvin QWERTY, zz;", "ÉTÉ naïve x"]
    for text in texts:
        for degree, draws in ((0.1, 1), (0.3, 20), (1.0, 5)):
            compiled, loop = np.random.Generator(bits(5)), np.random.Generator(bits(5))
            ours = TypoG().apply_many(Example("x", text), degree, compiled, draws)
            theirs = Transform.apply_many(TypoG(), Example("x", text), degree, loop, draws)
            assert [[(v.text, v.meta) for v in vs] for vs in ours] == [[(v.text, v.meta) for v in vs] for vs in theirs]
            assert repr(compiled.bit_generator.state) == repr(loop.bit_generator.state)


def test_typo_g_draws_outrunning_their_block_are_read_again():
    text = " ".join(["ab"] * 80)
    words = typo_walk.prepare_words(text, frozenset(KEYBOARD))
    k = budget(len(words.starts), 1.0)
    loop, compiled = np.random.default_rng(8), np.random.default_rng(8)
    edits = walk.word_edits(text, k, compiled, 3)
    assert typo_walk.replayed(np.random.default_rng(8), 10, lambda stream, rs: typo_walk.word_draws(
        words.codes, words.starts, words.lengths, words.keys, k, 3, walk._options, walk._neighbours, stream, rs)
    )[1] == sum(len(e) for e in edits)  # a 10-output block is read again longer, to the same edits
    from robust import Example, Transform
    from robust.plugins.attacks.typo import TypoG

    Transform.apply_many(TypoG(), Example("x", text), 1.0, loop, 3)
    assert repr(compiled.bit_generator.state) == repr(loop.bit_generator.state)
