"""Phonetic-M's and Phonetic-G's draws in a row (`apply_many`: one `Draws` for an example's draws, permutations
included; the clean draws compiled with numba, `typo_walk.respelt_draws` and `sound_alike_draws`) against the draws
as numpy's scalar calls make them: per draw a `rng.permutation` of the words, then the walk on the generator itself.
The same texts, degrees and generator state, in both modes, on every bit generator."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robust import Example, Transform
from robust.plugins.attacks import phonetic
from robust.plugins.attacks.phonetic import PhoneticG, PhoneticM
from robust.toolkit.transforms import budget, join, with_degree, words

from .short_blocks import short_blocks

SENTENCES = [
    "I watch a smart, sweet and playful romantic comedy.",
    "the film is definitely a great deal of fun , and a fine showcase for the actors .",
    "a muddled , melodramatic paean to a dead star ; it's 2 hours too long !!",
    "THE QUICK Brown fox JUMPS over 1234567890 lazy-dogs' tails",
    "no",  # one short word: no spelling
    "!!! ??? ...",  # no letters
]
DEGREES = (0.05, 0.1, 0.3, 0.6, 1.0)
GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox, np.random.MT19937]
TRANSFORMS = [PhoneticM, PhoneticG]


def _scalar_draws(transform: Transform, ex: Example, degree: float, rng: np.random.Generator,
                  draws: int) -> list[list[Example]]:
    """The draws one numpy call at a time (what `apply` drew before `apply_many` shared a `Draws`)."""
    faithful = transform.config["mode"] == "faithful"
    source = words(ex.text)
    size = transform._size(ex.text, source, faithful)
    out = []
    for _ in range(draws):
        if degree <= 0 or size == 0:
            out.append([ex])
            continue
        order = rng.permutation(len(source)).tolist()
        walk = transform._walk_faithful if faithful else transform._walk_clean
        tokens = walk(source, order, degree, size, rng)
        new = join(tokens)
        out.append([with_degree(ex, new, degree, transform._achieved(ex.text, new, source, tokens))])
    return out


def _drawn(variants: list[list[Example]]) -> list[list[tuple]]:
    return [[(v.text, v.meta.get("achieved"), v.meta.get("unreached")) for v in vs] for vs in variants]


def _mismatches(transform: Transform, bits: type, draws: int = 12) -> list[tuple[str, float]]:
    """The (sentence, degree) whose `apply_many` differs from the scalar draws: texts, degrees, flags, state."""
    out = []
    for text, degree in itertools.product(SENTENCES, DEGREES):
        ex = Example("x", text)
        ours, theirs = np.random.Generator(bits(11)), np.random.Generator(bits(11))
        ours.integers(7), theirs.integers(7)  # a half of the 32-bit stream left pending
        if (_drawn(transform.apply_many(ex, degree, ours, draws)) != _drawn(_scalar_draws(transform, ex, degree,
                                                                                          theirs, draws))
                or repr(ours.bit_generator.state) != repr(theirs.bit_generator.state)):
            out.append((text, degree))
    return out


@pytest.fixture
def compiled():
    """The compiled draws, waited for (until the loading thread is done, apply_many draws in Python)."""
    pytest.importorskip("numba", reason="numba not installed: Phonetic-M and -G draw in Python")
    assert phonetic._compiled_draw.loading().result(timeout=600) is not None


@pytest.mark.parametrize("bits", GENERATORS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("mode", ["clean", "faithful"])
@pytest.mark.parametrize("cls", TRANSFORMS, ids=lambda c: c.name)
def test_draws_in_a_row_equal_the_scalar_draws(cls, mode, bits, monkeypatch):
    monkeypatch.setattr(phonetic, "_compiled_draw", lambda: None)  # in Python here
    assert _mismatches(cls(mode=mode), bits) == []


@pytest.mark.parametrize("bits", GENERATORS, ids=lambda b: b.__name__)
@pytest.mark.parametrize(("cls", "edits"), [(PhoneticM, "_respelt_edits"), (PhoneticG, "_sound_alike_edits")],
                         ids=["phonetic-M", "phonetic-G"])
def test_compiled_draws_equal_the_scalar_draws(cls, edits, bits, compiled, monkeypatch):
    drawn = []
    kernel = getattr(phonetic, edits)
    monkeypatch.setattr(phonetic, edits, lambda *a: drawn.append(kernel(*a)) or drawn[-1])
    assert _mismatches(cls(), bits, draws=20) == []
    if bits is not np.random.MT19937:  # MT19937's stream is not replayed: drawn in Python
        assert drawn and all(d is not None for d in drawn)  # drawn compiled, not by the fallback
        assert sum(len(e) for d in drawn for e in d) > 500  # and changing words


def test_compiled_m_draws_from_a_graph_started_again_and_a_short_stream(compiled, monkeypatch):
    """Phonetic-M's graph of spellings started again at every draw (LIMIT 0), and a stream block of 5 outputs read
    again longer (`replayed`), give the same draws."""
    from robust.toolkit import typo_walk

    calls: list[int] = []
    Short = short_blocks(calls, respelt_draws=typo_walk.respelt_draws)

    monkeypatch.setattr(phonetic._Spellings, "LIMIT", 0)
    for text, degree in itertools.product(SENTENCES[:3], DEGREES):
        ours, theirs = np.random.default_rng(3), np.random.default_rng(3)
        drawn = phonetic._respelt_edits(Short, text, budget(len(text), degree), ours, 10)
        expected = _scalar_draws(PhoneticM(), Example("x", text), degree, theirs, 10)
        assert [join(phonetic._respelt(words(text), edits)) for edits in drawn] == [v.text for (v,) in expected]
        assert repr(ours.bit_generator.state) == repr(theirs.bit_generator.state)
    assert len(calls) > 2 * len(DEGREES) and calls[0] == 5


def test_a_wrong_kernel_is_caught(compiled, monkeypatch):
    """Negative control: spellings drawn by kind in equal proportions instead of ANTHRO's (the compiled draws'
    table tampered with) make draws the test above tells apart."""
    tables = phonetic._menus

    def even_kinds(text):
        table = tables(text)
        cdf = table.cdf.copy()
        for w, n in enumerate(table.kinds.tolist()):
            cdf[w, :n] = np.arange(1, n + 1) / max(n, 1)
        return phonetic._Menus(table.menus, table.kinds, cdf, table.counts)

    monkeypatch.setattr(phonetic, "_menus", even_kinds)
    assert len(_mismatches(PhoneticG(), np.random.PCG64, draws=20)) > 5


WORDS = ["comedy", "definitely", "cool", "easy", "really", "love", "phone", "knight", "The", "film,", '"smart', "u",
         "sooo", "x-ray", "it's", "OK", "a", "!!", "2"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=0, max_size=14), st.sampled_from(TRANSFORMS),
       st.sampled_from(["clean", "faithful"]), st.sampled_from((0.0, *DEGREES)), st.integers(0, 2**32),
       st.integers(1, 6))
def test_draws_in_a_row_equal_the_scalar_draws_on_any_text(tokens, cls, mode, degree, seed, draws):
    transform, ex = cls(mode=mode), Example("x", " ".join(tokens))
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    assert _drawn(transform.apply_many(ex, degree, ours, draws)) == _drawn(_scalar_draws(transform, ex, degree,
                                                                                         theirs, draws))
    assert repr(ours.bit_generator.state) == repr(theirs.bit_generator.state)
