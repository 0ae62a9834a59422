"""Glyph-M / Glyph-G (Chen et al. 2023, Table 1; RobTest's code, Char/glyph_transform.py; docs/attacks.md)."""

from __future__ import annotations

import unicodedata

import numpy as np

from robust import Example
from robust.plugins.attacks.glyph import (
    DISALLOWED,
    ECES,
    SIMILAR,
    GlyphG,
    GlyphM,
    dces_neighbours,
    ices_neighbours,
    substitute_char,
)
from robust.toolkit.transforms import budget, char_degree, word_modification_rate, words

TEXT = "I watch a smart sweet and playful romantic comedy"  # letters only, no q/Q: ECES maps every char
RNG = np.random.default_rng(0)


def test_tables_match_the_appendix():
    assert len(SIMILAR) == 38 and len(ECES) == 51
    assert {len(options) for options in SIMILAR.values()} == {1, 2}  # Glyph-M's vectorised draw relies on it
    assert SIMILAR["o"] == "0\u043e" and SIMILAR["e"] == "\u0435" and SIMILAR["x"] == "\u00d7"
    # Table 1's "ŝmârt ... romaňtîĉ" are ECES neighbours
    assert [substitute_char(c, "eces", RNG) for c in "sanic"] == list("ŝâňîĉ")
    assert substitute_char("Q", "eces", RNG) == "Q" and substitute_char("A", "similar", RNG) == "A"


def test_dces_keeps_letter_and_case_and_drops_disallowed_scripts():
    chars, probs = dces_neighbours("a")
    assert 0 < len(chars) <= 20 and abs(sum(probs) - 1) < 1e-9
    assert "à" in chars and "á" in chars and "a" not in chars and "A" not in chars
    for c in chars:
        name = unicodedata.name(c).split()
        case = next(w for w in name if w in ("SMALL", "CAPITAL"))  # first case word decides (ᴀ is SMALL)
        assert "A" in name and case == "SMALL" and not DISALLOWED.intersection(name)
    assert dces_neighbours(" ") == ((), ())


def test_ices_rebuild_finds_look_alikes():
    chars, probs = ices_neighbours("a")
    assert chars[0] == "\u0430"  # Cyrillic а renders identically
    assert "\u043e" in ices_neighbours("o")[0] and abs(sum(probs) - 1) < 1e-9
    assert all(ord(c) <= 30000 and c.lower() != "a" for c in chars)
    assert ices_neighbours("\u4e00") == ((), ())  # not in the font's/space's vocabulary


def test_glyph_m_substitutes_exactly_k_characters():
    for seed in range(10):
        out = GlyphM(spaces=("eces",)).apply(Example("x", TEXT), 0.2, np.random.default_rng(seed))[0].text
        assert len(out) == len(TEXT)
        assert char_degree(TEXT, out) == budget(len(TEXT), 0.2) / len(TEXT)
        assert [i for i, c in enumerate(out) if c == " "] == [i for i, c in enumerate(TEXT) if c == " "]


def test_glyph_m_uses_one_space_per_variant():
    for seed in range(10):
        out = GlyphM().apply(Example("x", TEXT), 0.3, np.random.default_rng(seed))[0].text
        changed = [(a, b) for a, b in zip(TEXT, out, strict=True) if a != b]
        spaces = [{s for s in ("similar", "eces") if b in (SIMILAR.get(a, "") if s == "similar" else ECES[a])}
                  for a, b in changed]
        if all(spaces):  # only checkable when the draw used the two table spaces
            assert set.intersection(*spaces)


def test_glyph_g_one_char_per_word_and_exact_rate():
    for seed in range(10):
        out = GlyphG(spaces=("eces",)).apply(Example("x", TEXT), 0.4, np.random.default_rng(seed))[0].text
        a, b = words(TEXT), words(out)
        assert all(sum(x != y for x, y in zip(u, v, strict=True)) <= 1 for u, v in zip(a, b, strict=True))
        assert word_modification_rate(TEXT, out) == budget(len(a), 0.4) / len(a)


def test_clean_mode_keeps_only_look_alikes_of_the_same_letter():
    from robust.plugins.attacks.glyph import ECES, SIMILAR, looks_like

    text = "the hard-to-predict chemistry between bullock and grant proves to be sensational ."

    def foreign(mode: str) -> list[tuple[str, str]]:
        out = []
        for seed in range(30):
            new = GlyphM(mode=mode).apply(Example("x", text), 0.3, np.random.default_rng(seed))[0].text
            out += [(a, b) for a, b in zip(text, new, strict=True)
                    if a != b and b not in SIMILAR.get(a, "") + ECES.get(a, "") and not looks_like(a, b)]
        return out

    assert foreign("clean") == []
    assert len(foreign("faithful")) > 10  # negative control: VIPER's spaces also give other letters and marks
    assert looks_like("e", "é") and looks_like("a", "а") and not looks_like("h", "ṇ") and not looks_like("e", "ⓔ")


def _glyph_m_one_at_a_time(text: str, degree: float, rng: np.random.Generator, spaces: tuple[str, ...],
                           clean: bool) -> str:
    """Glyph-M's draw as RobTest's loop makes it: one scalar call per character (the reference)."""
    k = budget(len(text), degree)
    space = spaces[int(rng.integers(len(spaces)))]
    chars, done = list(text), 0
    for pos in rng.permutation(len(text)).tolist():
        if done >= k:
            break
        if chars[pos] != " " and (new := substitute_char(chars[pos], space, rng, clean)) != chars[pos]:
            chars[pos], done = new, done + 1
    return "".join(chars)


def test_glyph_m_draws_as_the_one_at_a_time_loop():
    """`apply` draws the chosen characters' look-alikes in one numpy call per draw: the texts and the generator's
    state are those of the scalar calls, in every space and mode, on every bit generator."""
    texts = [TEXT, "the hard-to-predict chemistry between bullock and grant proves to be sensational .",
             "Q 9 ... 12 Zebras: x-ray, é!", "   ", "αβγ 东京 ok", "lone \ud800 surrogate, 𝚏ull-width 𝟕"]
    generators = (np.random.PCG64, np.random.SFC64, np.random.Philox, np.random.MT19937)
    for spaces in (("similar",), ("eces",), ("dces",), ("ices",), ("similar", "dces", "eces", "ices")):
        for mode in ("clean", "faithful"):
            glyph = GlyphM(spaces=spaces, mode=mode)
            for seed, (text, degree, bit) in enumerate(
                    (t, d, b) for t in texts for d in (0.05, 0.3, 1.0) for b in generators):
                ours, theirs = np.random.Generator(bit(seed)), np.random.Generator(bit(seed))
                out = glyph.apply(Example("x", text), degree, ours)[0].text
                assert out == _glyph_m_one_at_a_time(text, degree, theirs, spaces, mode == "clean"), (spaces, text)
                assert ours.integers(1 << 30, size=3).tolist() == theirs.integers(1 << 30, size=3).tolist()
                assert ours.random() == theirs.random()


def test_most_similar_is_the_stable_sort_s_prefix():
    """ICES neighbours: sorting only the most similar (ties at the edge included) gives the full stable sort's
    first usable 20, also with many ties and when few of the head are usable."""
    import itertools

    from robust.plugins.attacks.glyph import _most_similar

    rng = np.random.default_rng(3)
    for trial in range(200):
        sims = rng.integers(0, 6 if trial % 2 else 1000, size=rng.integers(1, 300)).astype(np.float32)
        blocked = set(rng.choice(len(sims), size=len(sims) * (trial % 5) // 5, replace=False).tolist())

        def usable(i: int, blocked: set[int] = blocked) -> bool:
            return i not in blocked

        full = list(itertools.islice((int(i) for i in np.argsort(-sims, kind="stable") if usable(int(i))), 20))
        assert _most_similar(sims, usable, head=16) == full
