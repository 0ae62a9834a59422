"""Glyph-G's compiled draws (numba, `typo_walk.glyph_draws`) against its Python draws: `GlyphG.apply_many` gives
the texts, degrees and generator state of `GlyphG.apply` called in a row, in every space and mode."""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba", reason="numba not installed: Glyph-G draws in Python")

from robust import Example  # noqa: E402
from robust.plugins.attacks import glyph  # noqa: E402
from robust.plugins.attacks.glyph import SPACES, GlyphG  # noqa: E402
from robust.toolkit import typo_walk  # noqa: E402

from .short_blocks import short_blocks  # noqa: E402

SENTENCES = [
    "the film is a great deal of fun , and a fine showcase for the actors .",
    "a muddled , melodramatic paean to a dead star ; it's 2 hours too long !!",
    "Ébouriffant, naïve et drôle : un film À voir , Œuvre ß",  # non-ASCII letters, with and without look-alikes
    "𝟕 𝚏ilm 𝒌ool 😀 qu𝚝e 𝕏",  # astral characters: look-alikes themselves, and none
    "I a A x 1 0 - ' q Q z",  # one-letter words
    "!!! ??? ... ;;; 😀😀 ___",  # no look-alikes in any space: every draw unreached
    "THE QUICK Brown fox JUMPS over 1234567890 lazy-dogs' tails",
]
# every combination of the spaces, in their order and one reordered; the default (all four) among them
COMBINATIONS = [c for n in range(1, 5) for c in itertools.combinations(SPACES, n)] + [("ices", "similar", "eces")]
DEGREES = (0.05, 0.1, 0.3, 0.6, 1.0)
GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.SFC64, np.random.Philox]


@pytest.fixture(scope="module", autouse=True)
def compiled():
    """The compiled draws, waited for: until the loading thread is done, apply_many draws in Python."""
    assert glyph._compiled_draw.loading().result(timeout=600) is typo_walk


def _mismatches(transform: GlyphG, bits: type, seed: int = 11, draws: int = 20) -> list[tuple]:
    """The (sentence, degree) whose compiled draws differ from `apply` in a row: texts, degrees, flags, state."""
    out = []
    for text, degree in itertools.product(SENTENCES, DEGREES):
        ex = Example("x", text)
        compiled, loop = np.random.Generator(bits(seed)), np.random.Generator(bits(seed))
        compiled.integers(7), loop.integers(7)  # a half of the 32-bit stream left pending
        ours = transform.apply_many(ex, degree, compiled, draws)
        theirs = [transform.apply(ex, degree, loop) for _ in range(draws)]
        if ([[(v.text, v.meta["achieved"], v.meta["unreached"]) for v in vs] for vs in ours]
                != [[(v.text, v.meta["achieved"], v.meta["unreached"]) for v in vs] for vs in theirs]
                or repr(compiled.bit_generator.state) != repr(loop.bit_generator.state)):
            out.append((text, degree))
    return out


@pytest.mark.parametrize("bits", GENERATORS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("mode", ["clean", "faithful"])
def test_compiled_draws_equal_the_python_draws(bits, mode, monkeypatch):
    drawn = []
    edits = glyph._glyph_edits
    monkeypatch.setattr(glyph, "_glyph_edits", lambda *a: drawn.append(edits(*a)) or drawn[-1])
    for spaces in COMBINATIONS:
        assert _mismatches(GlyphG(spaces=spaces, mode=mode), bits) == [], spaces
    assert drawn and all(d is not None for d in drawn)  # drawn compiled, not by the fallback
    assert sum(len(e) for d in drawn for e in d) > 10_000  # and changing words


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcoilsxz OQ19-'.\u00e9\u00c9\u212a\U0001d7d5\U0001f600\u0430"), min_size=1,
               max_size=60), st.sampled_from(COMBINATIONS), st.booleans(), st.sampled_from(DEGREES),
       st.integers(0, 2**32))
def test_compiled_draws_equal_the_python_draws_on_any_text(text, spaces, clean, degree, seed):
    transform = GlyphG(spaces=spaces, mode="clean" if clean else "faithful")
    ex = Example("x", text)
    compiled, loop = np.random.default_rng(seed), np.random.default_rng(seed)
    ours = transform.apply_many(ex, degree, compiled, 5)
    theirs = [transform.apply(ex, degree, loop) for _ in range(5)]
    assert [[(v.text, v.meta) for v in vs] for vs in ours] == [[(v.text, v.meta) for v in vs] for vs in theirs]
    assert repr(compiled.bit_generator.state) == repr(loop.bit_generator.state)


def test_the_default_spaces_draws_change_words():
    rng = np.random.default_rng(0)
    variants = GlyphG().apply_many(Example("x", SENTENCES[0]), 0.6, rng, 20)
    changed = {c for (v,) in variants for c in v.text if c not in SENTENCES[0]}
    assert len(changed) > 10 and not any(v.meta["unreached"] for (v,) in variants)


def test_a_wrong_kernel_is_caught(monkeypatch):
    """Negative control: description- and image-based neighbours drawn with equal probabilities instead of
    theirs (the compiled draws' tables tampered with) make draws the test above tells apart."""
    tables = glyph._words

    def uniform_cdf(text, spaces, clean):
        table = tables(text, spaces, clean)
        cdf = table.cdf.copy()
        for r, s in zip(*np.nonzero(table.counts), strict=True):
            if table.kinds[s] == 2:
                n = table.counts[r, s]
                cdf[r, s, :n] = np.arange(1, n + 1) / n
        return dataclasses.replace(table, cdf=cdf)

    monkeypatch.setattr(glyph, "_words", uniform_cdf)
    assert len(_mismatches(GlyphG(), np.random.PCG64)) > 10
    monkeypatch.setattr(glyph, "_words", tables)
    assert _mismatches(GlyphG(), np.random.PCG64) == []


def test_draws_outrunning_their_block_are_read_again():
    """The compiled draws read a block of the generator's outputs ahead; where they need more, they draw again from
    the same state with a longer block (here from 5 outputs), to the same draws."""
    calls: list[int] = []
    Short = short_blocks(calls, glyph_draws=typo_walk.glyph_draws)

    text = SENTENCES[1]
    k = len(text.split())  # every word
    short, loop = np.random.default_rng(8), np.random.default_rng(8)
    edits = glyph._glyph_edits(Short, text, k, short, 20, SPACES, True)
    assert len(calls) > 2 and calls[0] == 5
    theirs = [GlyphG().apply(Example("x", text), 1.0, loop)[0].text for _ in range(20)]
    words = text.split()
    for drawn, expected in zip(edits, theirs, strict=True):
        tokens = list(words)
        for w, pos, new in drawn:
            tokens[w] = words[w][:pos] + new + words[w][pos + 1:]
        assert " ".join(tokens) == expected
    assert repr(short.bit_generator.state) == repr(loop.bit_generator.state)


def test_mt19937_draws_in_python():
    """A generator without numpy's 32-bit buffer is not replayed: apply_many runs the Python loop."""
    rng = np.random.Generator(np.random.MT19937(3))
    assert glyph._glyph_edits(typo_walk, SENTENCES[0], 3, rng, 5, SPACES, True) is None
    assert _mismatches(GlyphG(), np.random.MT19937) == []


def test_a_compiler_that_fails_leaves_the_python_draws(monkeypatch):
    """numba installed but unable to compile here: one warning, and Glyph-G draws in Python, the same draws."""

    def broken(*args):
        raise RuntimeError("no LLVM target for this machine")

    monkeypatch.setattr(typo_walk, "glyph_draws", broken)
    with pytest.warns(RuntimeWarning, match="could not compile Glyph-G's draws.*no LLVM target"):
        assert glyph._compiled_draw.build() is None


def test_draws_do_not_wait_for_the_compiled_draws(monkeypatch):
    """Until the loading thread is done, Glyph-G's apply_many draws in Python (the same draws), then compiled."""
    import threading

    ready, used = threading.Event(), []

    def slow_load():
        ready.wait(30)
        return typo_walk

    edits = glyph._glyph_edits
    monkeypatch.setattr(glyph, "_load_walk", slow_load)
    monkeypatch.setattr(glyph, "_glyph_edits", lambda *a: used.append(1) or edits(*a))
    glyph._compiled_draw.reset()
    try:
        assert glyph._compiled_draw() is None
        assert _mismatches(GlyphG(), np.random.PCG64) == [] and not used
        ready.set()
        assert glyph._compiled_draw.loading().result(timeout=30) is typo_walk
        assert _mismatches(GlyphG(), np.random.PCG64) == [] and used
    finally:
        glyph._compiled_draw.reset()
        glyph._compiled_draw.loading().result(timeout=600)


def test_nothing_is_compiled_at_registration():
    """Importing and registering the plugins starts no loading thread and imports no numba."""
    code = ("import sys, threading\n"
            "from robust.core.plugins import get_registry\n"
            "get_registry().get('transform', 'glyph-G').create(); get_registry().get('transform', 'typo-G').create()\n"
            "assert 'numba' not in sys.modules, 'numba imported'\n"
            "assert not [t for t in threading.enumerate() if t.name.startswith('robust-compile')]\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_setup_compiles_every_loader_in_the_foreground(monkeypatch, tmp_path):
    """`robust setup compiled-draws` builds Typo's and Glyph's loaders in its own thread (what they compile is then
    cached by numba) and marks it done; without numba it says the draws run in Python and marks nothing."""
    from robust.plugins.attacks import typo
    from robust.plugins.resources import CompiledDraws
    from robust.toolkit import compiled, loading

    monkeypatch.setenv("ROBUST_CACHE", str(tmp_path))
    resource = CompiledDraws()
    assert not resource.ready()
    threads = []
    monkeypatch.setattr(loading.threading, "Thread", lambda *a, **k: threads.append(k) or pytest.fail("a thread"))
    line = resource.setup()
    assert "Typo-M's and Typo-G's draws" in line and "Glyph-G's draws" in line and resource.ready() and not threads
    assert {typo._compiled_draw.what, glyph._compiled_draw.what} <= {loader.what for loader in compiled.LOADERS}
    resource.path().unlink()

    def no_numba():
        raise ImportError("No module named 'numba'", name="numba")

    for loader in compiled.LOADERS:
        monkeypatch.setattr(loader, "_load", no_numba)
    assert "numba is not installed" in resource.setup() and not resource.ready()
    find_spec = importlib.util.find_spec  # where numba is not installed there is nothing to set up
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba" else find_spec(name, *a))
    assert resource.ready()
