"""`Draws` serves `rng.integers(n)` and `rng.random()` from the generator's raw outputs: the same values and the
same generator state after it as one numpy call per draw (hypothesis over seeds, bounds and the half-used 32-bit
buffer), and
the clean Typo-M draw built on it writes the texts of the scalar-draw algorithm it replaced; the glyph and
phonetic draws from cached cdfs pick what `rng.choice(n, p=...)` picks."""

from __future__ import annotations

import bisect
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robust.plugins.attacks.typo import OPS, TypoM, typo
from robust.toolkit.draws import Draws
from robust.toolkit.text import levenshtein

FAST = settings(max_examples=200, deadline=timedelta(seconds=5), derandomize=True, database=None)
BOUNDS = st.one_of(st.integers(1, 9), st.integers(1, 2**32), st.sampled_from([2**31 + 1, 3 * 2**30, 2**32 - 1]))


@FAST
@given(seed=st.integers(0, 2**32), bounds=st.lists(BOUNDS, max_size=60), half=st.booleans())
def test_draws_equal_scalar_integers(seed, bounds, half):
    ref, rng = np.random.default_rng(seed), np.random.default_rng(seed)
    if half:  # a 32-bit half left buffered in the bit generator
        ref.integers(7), rng.integers(7)
    expected = [int(ref.integers(n)) for n in bounds]
    with Draws(rng) as draws:
        got = [draws.integers(n) for n in bounds]
    assert got == expected
    assert rng.bit_generator.state == ref.bit_generator.state
    assert rng.permutation(20).tolist() == ref.permutation(20).tolist()


GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox, np.random.MT19937]


@FAST
@given(seed=st.integers(0, 2**32), calls=st.lists(st.one_of(st.none(), BOUNDS), max_size=60),
       half=st.booleans(), bits=st.sampled_from(GENERATORS))
def test_draws_equal_scalar_integers_and_uniforms(seed, calls, half, bits):
    """Uniforms (None) interleaved with integers: the uniform takes a whole 64-bit output and leaves a buffered
    32-bit half for the next integer, as numpy does; every bit generator numpy ships."""
    ref, rng = np.random.Generator(bits(seed)), np.random.Generator(bits(seed))
    if half:
        ref.integers(7), rng.integers(7)
    expected = [float(ref.random()) if n is None else int(ref.integers(n)) for n in calls]
    with Draws(rng) as draws:
        got = [draws.random() if n is None else draws.integers(n) for n in calls]
    assert got == expected
    assert str(rng.bit_generator.state) == str(ref.bit_generator.state)
    assert rng.random() == ref.random()


def test_rejection_is_drawn_again():
    """n = 3·2^30 rejects a quarter of the 32-bit values: over 400 draws some were redrawn, all as numpy."""
    ref, rng = np.random.default_rng(5), np.random.default_rng(5)
    expected = [int(ref.integers(3 * 2**30)) for _ in range(400)]
    with Draws(rng) as draws:
        assert [draws.integers(3 * 2**30) for _ in range(400)] == expected
    assert rng.bit_generator.state["state"] == ref.bit_generator.state["state"]


def test_generator_without_32_bit_buffer_is_served_by_numpy():
    ref, rng = np.random.Generator(np.random.MT19937(3)), np.random.Generator(np.random.MT19937(3))
    with Draws(rng) as draws:
        assert not draws.exact
        assert [draws.integers(6) for _ in range(50)] == [int(ref.integers(6)) for _ in range(50)]


def reference_clean_draw(text: str, k: int, rng: np.random.Generator) -> str:
    """The clean Typo-M draw as it was: one `rng.integers` per op, a fresh Levenshtein per candidate."""
    original, dist, idle = text.lower(), 0, 0
    while dist < k and idle < 4:
        progressed = False
        for pos in rng.permutation(len(text)):
            if dist >= k:
                break
            pos, op = int(pos), OPS[int(rng.integers(len(OPS)))]
            if pos >= len(text) or (text[pos] == " " and op not in ("insert", "repeat")):
                continue
            new = typo(text, pos, op, rng, False)
            if new is None:
                continue
            new_dist = levenshtein(original, new.lower())
            if new_dist <= dist or new_dist > k:
                continue
            text, dist, progressed = new, new_dist, True
        idle = 0 if progressed else idle + 1
    return text


@FAST
@given(text=st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz ;,.'ASDF19"), min_size=1, max_size=80),
       share=st.floats(0.01, 1.0), seed=st.integers(0, 2**32))
def test_clean_typo_draw_equals_reference(text, share, seed):
    k = max(1, int(len(text) * share))
    ref, rng = np.random.default_rng(seed), np.random.default_rng(seed)
    got, dist = TypoM._clean_draw(text, k, rng)
    assert got == reference_clean_draw(text, k, ref)
    assert levenshtein(text.lower(), got.lower()) == dist <= k
    assert rng.bit_generator.state == ref.bit_generator.state



@pytest.mark.parametrize("space", ["dces", "ices"])
@pytest.mark.parametrize("clean", [False, True])
def test_glyph_draw_equals_rng_choice(space, clean):
    """A look-alike drawn from the cached cdf = `rng.choice(n, p=probs)` on the neighbour table, state included."""
    from robust.plugins.attacks import glyph

    ref, rng = np.random.default_rng(11), np.random.default_rng(11)
    for char in "aeiosxzAEOT0?,":
        candidates, probs = glyph.dces_neighbours(char) if space == "dces" else glyph.ices_neighbours(char)
        if clean:
            kept = [(c, p) for c, p in zip(candidates, probs, strict=True) if glyph.looks_like(char, c)]
            candidates, probs = tuple(c for c, _ in kept), tuple(p / sum(q for _, q in kept) for _, p in kept)
        for _ in range(20):
            expected = candidates[int(ref.choice(len(candidates), p=probs))] if candidates else char
            assert glyph.substitute_char(char, space, rng, clean) == expected
    assert rng.bit_generator.state == ref.bit_generator.state


def test_phonetic_kind_cdf_equals_rng_choice():
    from robust.plugins.attacks.phonetic import ANTHRO_MIX, _kind_cdf

    kinds = tuple(ANTHRO_MIX)
    ref, rng = np.random.default_rng(3), np.random.default_rng(3)
    weights = np.array([ANTHRO_MIX[k] for k in kinds], dtype=float)
    for n in range(1, len(kinds) + 1):
        for _ in range(50):
            expected = int(ref.choice(n, p=weights[:n] / weights[:n].sum()))
            assert bisect.bisect_right(_kind_cdf(kinds[:n]), rng.random()) == expected


@FAST
@given(seed=st.integers(0, 2**32), sizes=st.lists(st.integers(0, 300), max_size=6), bounds=st.lists(BOUNDS, max_size=6),
       half=st.booleans(), bits=st.sampled_from(GENERATORS))
def test_draws_permutations_equal_numpys(seed, sizes, bounds, half, bits):
    """`Draws.permutation` between integers and uniforms: numpy's permutations, draw for draw, and its state."""
    ref, rng = np.random.Generator(bits(seed)), np.random.Generator(bits(seed))
    if half:
        ref.integers(7), rng.integers(7)
    expected = [(ref.permutation(n).tolist(), int(ref.integers(b)), ref.random()) for n, b in zip(sizes, bounds)]
    with Draws(rng) as draws:
        got = [(draws.permutation(n), draws.integers(b), draws.random()) for n, b in zip(sizes, bounds)]
    assert got == expected
    assert repr(rng.bit_generator.state) == repr(ref.bit_generator.state)


def test_draws_permute_with_the_generator_where_numpy_shuffles_otherwise(monkeypatch):
    """Where this numpy's shuffle is not the one `Draws` replays, the generator permutes, synced before and after."""
    from robust.toolkit import draws as module

    monkeypatch.setattr(module, "_shuffles_as_numpy", lambda: False)
    for bits in GENERATORS:
        ref, rng = np.random.Generator(bits(3)), np.random.Generator(bits(3))
        expected = [int(ref.integers(9)), ref.permutation(30).tolist(), int(ref.integers(9)),
                    ref.permutation(7).tolist()]
        with Draws(rng) as draws:
            got = [draws.integers(9), draws.permutation(30), draws.integers(9), draws.permutation(7)]
        assert got == expected
        assert repr(rng.bit_generator.state) == repr(ref.bit_generator.state)


@FAST
@given(seed=st.integers(0, 2**32), calls=st.lists(st.tuples(BOUNDS, st.one_of(st.none(), st.integers(0, 12))),
                                                   max_size=20), half=st.booleans(), bits=st.sampled_from(GENERATORS))
def test_draws_arrays_equal_numpys(seed, calls, half, bits):
    """`draws.integers(n, size=k)` between scalar draws: numpy's `rng.integers(n, size=k)`, values and state; so
    does `integer_list` (the list, made without an array), of a `Draws` or of the generator itself."""
    from robust.toolkit.draws import integer_list

    ref, rng, listed = (np.random.Generator(bits(seed)) for _ in range(3))
    if half:
        ref.integers(7), rng.integers(7), listed.integers(7)
    expected = [ref.integers(n, size=k).tolist() if k is not None else int(ref.integers(n)) for n, k in calls]
    with Draws(rng) as draws:
        got = [draws.integers(n, size=k) for n, k in calls]
    assert [g.tolist() if k is not None else g for g, (_, k) in zip(got, calls)] == expected
    assert repr(rng.bit_generator.state) == repr(ref.bit_generator.state)
    with Draws(listed) as draws:
        lists = [integer_list(draws, n, k) if k is not None else draws.integers(n) for n, k in calls]
    assert lists == expected and all(type(x) is list for x, (_, k) in zip(lists, calls) if k is not None)
    assert repr(listed.bit_generator.state) == repr(ref.bit_generator.state)
    sized = [(n, k) for n, k in calls if k is not None]
    if sized:
        n, k = sized[0]
        assert integer_list(np.random.Generator(bits(seed)), n, k) == np.random.Generator(bits(seed)).integers(
            n, size=k).tolist()


def test_draws_arrays_come_from_the_generator_where_numpy_draws_them_otherwise(monkeypatch):
    """Where this numpy's array draw is not k scalar draws, the generator draws the array, synced before and after."""
    from robust.toolkit import draws as module

    monkeypatch.setattr(module, "_arrays_as_scalars", lambda: False)
    ref, rng = np.random.default_rng(4), np.random.default_rng(4)
    expected = [int(ref.integers(9)), ref.integers(36, size=5).tolist(), int(ref.integers(9))]
    with Draws(rng) as draws:
        got = [draws.integers(9), draws.integers(36, size=5).tolist(), draws.integers(9)]
    assert got == expected
    with Draws(np.random.default_rng(4)) as draws:
        assert [draws.integers(9), draws.integer_list(36, 5), draws.integers(9)] == expected
    assert repr(rng.bit_generator.state) == repr(ref.bit_generator.state)


def test_a_negative_array_size_is_refused_as_numpy_refuses_it():
    with Draws(np.random.default_rng(0)) as draws, pytest.raises(ValueError, match="negative dimensions"):
        draws.integers(5, size=-1)


@pytest.mark.parametrize("kind", ["PCG64", "SFC64", "Philox", "MT19937"])
def test_same_state_tells_whether_a_generator_drew_arrays_included(kind):
    from robust.toolkit.draws import same_state

    rng = np.random.Generator(getattr(np.random, kind)(7))
    before = rng.bit_generator.state
    assert same_state(before, rng.bit_generator.state)
    rng.integers(5)
    assert not same_state(before, rng.bit_generator.state)
    assert not same_state(before, np.random.Generator(getattr(np.random, kind)(8)).bit_generator.state)
