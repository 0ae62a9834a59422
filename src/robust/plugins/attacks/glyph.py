"""Glyph (Chen et al. 2023, Table 1): replace characters by visually similar ones.

Four spaces, one chosen uniformly (per draw for Glyph-M, per word for Glyph-G):
- `similar`: TextBugger's table (RobTest's code, Char/glyph_transform.py);
- `eces`: VIPER's "easy" space, one accented neighbour per ASCII letter (RobTest-Demo's `selected.neighbors`);
- `dces`: VIPER's description-based space, rebuilt from Python's Unicode character names (`unicodedata`)
  instead of NamesList.txt: same letter token and case, VIPER's disallowed scripts removed, 20 nearest
  by token-count distance of the names, p ∝ exp(-0.5·dist);
- `ices`: VIPER's image-based space, rebuilt ("ICES-rebuilt", docs/attacks.md): 24×24 renderings of every
  letter/number/punctuation/symbol code point ≤ 30000 that matplotlib's bundled DejaVu Sans covers, cosine
  top-20, p ∝ similarity. Built on first use and cached under `cache_dir()/glyph/`.
Substitutions are length-preserving, so Glyph-M's relative edit distance is exactly count / len(s). Glyph-G's draws
of an example at a degree (`apply_many`, RobTest's aug_num) run compiled with numba where it is installed, with
the texts and generator state of the Python draws.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from robust import Example, Setting, Transform, hookimpl
from robust.toolkit.compiled import Compiled
from robust.toolkit.draws import Draws
from robust.toolkit.lazy import np
from robust.toolkit.threads import one_blas_thread
from robust.toolkit.transforms import MODE, WordTransform, budget, char_degree, replace_word, with_degree, words

SPACES = ("similar", "dces", "eces", "ices")
MAX_CODE = 30000  # VIPER/RobTest keep code points <= 30000 (decimal)
TOP_N = 20

# TextBugger visual table (RobTest's code, Char/glyph_transform.py): a string value lists the alternatives (one
# drawn uniformly).
SIMILAR: dict[str, str] = {
    "-": "˗", "9": "৭", "8": "Ȣ", "7": "𝟕", "6": "б", "5": "Ƽ", "4": "Ꮞ", "3": "Ʒ",
    "2": "ᒿ", "1": "l", "0": "O", "'": "`", "a": "ɑ", "b": "Ь6", "c": "ϲ", "d": "ԁ",
    "e": "е", "f": "𝚏", "g": "ɡ9", "h": "հ", "i": "і1", "j": "ϳ", "k": "𝒌", "l": "ⅼ1",
    "m": "ｍ", "n": "ո", "o": "0о", "p": "р", "q": "ԛ9", "r": "ⲅ", "s": "5ѕ", "t": "𝚝",
    "u": "ս", "v": "ѵ", "w": "ԝ", "x": "×", "y": "у", "z": "ᴢ2",
}
# VIPER ECES `selected.neighbors` (RobTest-Demo); Q maps to itself.
ECES = dict(zip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPRSTUVWXYZ",
                "âḃĉḑêḟǵĥîĵǩᶅḿňôṕʠřŝẗǔṽẘẍŷẑÂḂĈĎÊḞĜĤÎĴǨĹḾŇÔṔŘŜŤÛṼŴẌŶẐ", strict=True))
# VIPER's disallowed description tokens (VIPER's code, DCES).
DISALLOWED = frozenset(
    "TAG MALAYALAM BAMUM HIRAGANA RUNIC TAI SUNDANESE BATAK LEPCHA CHAM TELUGU DEVANGARAI BUGINESE MYANMAR "
    "LINEAR SYLOTI PHAGS-PA CHEROKEE CANADIAN YI LYCIAN HANGUL KATAKANA JAVANESE ARABIC KANNADA BUHID "
    "TAGBANWA DESERET REJANG BOPOMOFO PERMIC OSAGE TAGALOG MEETEI CARIAN UGARITIC ORIYA ELBASAN CYPRIOT "
    "HANUNOO GUJARATI LYDIAN MONGOLIAN AVESTAN MEROITIC KHAROSHTHI HUNGARIAN KHUDAWADI ETHIOPIC PERSIAN "
    "OSMANYA TIBETAN BENGALI TURKIC THROWING HANIFI BRAHMI KAITHI LIMBU LAO CHAKMA DEVANAGARI ITALIC CJK "
    "MEDEFAIDRIN DIAMOND SAURASHTRA ADLAM DUPLOYAN".split()
)
ICES_VERSION = "dejavu-24-v1"


def _usable(original: str, candidate: str) -> bool:
    """A real one-character change that stays one character when lower-cased (keeps the degree exact)."""
    return (len(candidate) == 1 and len(candidate.lower()) == 1
            and candidate.lower() != original.lower())


def _allowed_name(name: str) -> bool:
    return not DISALLOWED.intersection(name.split())


def _case(tokens: list[str]) -> str | None:
    return next((t for t in tokens if t in ("SMALL", "CAPITAL")), None)


# --- DCES -----------------------------------------------------------------------------------------------
@functools.cache
def _named_chars() -> list[tuple[str, list[str]]]:
    out = []
    for code in range(33, MAX_CODE + 1):
        char = chr(code)
        name = unicodedata.name(char, "")
        if name and _allowed_name(name):
            out.append((char, name.split()))
    return out


@functools.cache
def _by_letter_token() -> dict[str, list[tuple[str, list[str]]]]:
    """The named characters under each one-character token of their names ("A" -> 'A', 'Á', 'Ⓐ', ...)."""
    index: dict[str, list[tuple[str, list[str]]]] = {}
    for entry in _named_chars():
        for token in {t for t in entry[1] if len(t) == 1}:
            index.setdefault(token, []).append(entry)
    return index


@functools.cache
def dces_neighbours(char: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """Up to 20 description neighbours of `char` and their sampling probabilities (∝ exp(-0.5·dist))."""
    tokens = unicodedata.name(char, "").split()
    ids = {t for t in tokens if len(t) == 1}
    if not ids:
        return (), ()
    case = _case(tokens)
    query = set(tokens)
    scored = []
    index = _by_letter_token()
    # the names sharing one of its letter tokens, each once (the sort below fixes the order)
    sharing = {other: other_tokens for i in ids for other, other_tokens in index.get(i, ())}
    for other, other_tokens in sharing.items():
        if other == char:
            continue
        if case is not None and _case(other_tokens) != case:
            continue
        if not _usable(char, other):
            continue
        # Euclidean distance between binary token-count vectors of the two names
        dist = len(query.symmetric_difference(other_tokens)) ** 0.5
        scored.append((dist, other))
    scored.sort()
    top = scored[:TOP_N]
    if not top:
        return (), ()
    weights = np.exp(-0.5 * np.array([d for d, _ in top]))
    return tuple(c for _, c in top), tuple((weights / weights.sum()).tolist())


# --- ICES-rebuilt -----------------------------------------------------------------------------------------
def _font_path() -> str:
    import matplotlib

    return os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans.ttf")


def _render_space() -> tuple[str, np.ndarray]:
    """(characters, unit-normalised 576-dim renderings) of every covered letter/number/punct/symbol."""
    from matplotlib import ft2font
    from PIL import Image, ImageDraw, ImageFont

    path = _font_path()
    covered = ft2font.FT2Font(path).get_charmap()
    font = ImageFont.truetype(path, 20)
    chars, vectors = [], []
    for code in sorted(covered):
        char = chr(code)
        if code < 33 or code > MAX_CODE or unicodedata.category(char)[0] not in "LNPS":
            continue
        if not _allowed_name(unicodedata.name(char, "")):
            continue
        image = Image.new("L", (24, 24), 0)
        ImageDraw.Draw(image).text((2, -2), char, font=font, fill=255)
        vec = np.asarray(image, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(vec))
        if norm > 0:
            chars.append(char)
            vectors.append(vec / norm)
    return "".join(chars), np.stack(vectors)


@functools.cache
def _ices() -> tuple[str, np.ndarray, dict[str, int]]:
    from robust import cache_dir

    path = cache_dir() / "glyph" / f"ices-{ICES_VERSION}.npz"
    if path.exists():
        data = np.load(path)
        chars, vectors = str(data["chars"]), data["vectors"]
    else:
        chars, vectors = _render_space()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")  # concurrent builders never collide
        np.savez_compressed(tmp, chars=np.array(chars), vectors=vectors)
        tmp.replace(path)
    return chars, vectors, {c: i for i, c in enumerate(chars)}


def _most_similar(sims: np.ndarray, usable: Callable[[int], bool], head: int = 64) -> list[int]:
    """The TOP_N usable indices by descending similarity, ties by index (a stable argsort of -sims): sorted among
    the `head` most similar first (ties at its edge included), the whole space only when too few are usable."""
    if len(sims) > head:
        top = np.flatnonzero(sims >= np.partition(sims, len(sims) - head)[len(sims) - head])
        order = [int(i) for i in top[np.argsort(-sims[top], kind="stable")] if usable(int(i))]
        if len(order) >= TOP_N:
            return order[:TOP_N]
    return list(itertools.islice((int(i) for i in np.argsort(-sims, kind="stable") if usable(int(i))), TOP_N))


@functools.cache
def ices_neighbours(char: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The 20 most similar renderings of `char` (cosine) and probabilities ∝ similarity."""
    chars, vectors, index = _ices()
    if char not in index:
        return (), ()
    with one_blas_thread():  # one product per character: not worth waking BLAS's spinning workers
        sims = vectors @ vectors[index[char]]
    order = _most_similar(sims, lambda i: _usable(char, chars[i]))
    weights = np.clip(sims[order].astype(np.float64), 1e-6, None)
    return tuple(chars[i] for i in order), tuple((weights / weights.sum()).tolist())


# --- clean mode: only look-alikes of the same letter ---------------------------------------------------------
# Cyrillic and Greek letters drawn like a Latin one (the usual homoglyph confusables)
CONFUSABLES = {"a": "а", "c": "с", "e": "е", "h": "һ", "i": "іι", "j": "ј", "o": "оο", "p": "р", "s": "ѕ", "x": "х",
               "y": "у", "A": "АΑ", "B": "ВΒ", "C": "С", "E": "ЕΕ", "H": "НΗ", "I": "ІΙ", "K": "КΚ", "M": "МΜ",
               "O": "ОΟ", "P": "РΡ", "T": "ТΤ", "X": "ХΧ"}
_NOT_A_LOOK_ALIKE = ("COMBINING", "CIRCLED", "PARENTHESIZED", "SUBSCRIPT", "SUPERSCRIPT", "MODIFIER", "TURNED",
                     "REVERSED", "INVERTED", "SMALL CAPITAL", "FULLWIDTH")


@functools.cache
def looks_like(char: str, candidate: str) -> bool:
    """Whether `candidate` reads as the same letter as `char` (clean mode): the same Latin letter with a mark
    ('é', 'ṧ', 'ƫ': by decomposition or by its Unicode name), a Cyrillic/Greek confusable ('а' for 'a'), and
    nothing combining, circled, sub/superscript, turned or small-capital."""
    name = unicodedata.name(candidate, "")
    if not name or any(token in name for token in _NOT_A_LOOK_ALIKE):
        return False
    if candidate in CONFUSABLES.get(char, ""):
        return True
    marks = unicodedata.normalize("NFKD", candidate)
    if "".join(c for c in marks if not unicodedata.combining(c)) == char:  # "é" = "e" + a mark; not "⁈" = "?!"
        return True
    words = name.split()
    latin = words[:3] in (["LATIN", "SMALL", "LETTER"], ["LATIN", "CAPITAL", "LETTER"])
    letter = words[3] if latin and len(words) > 3 else ""
    case_ok = ("SMALL" in words) == char.islower()
    return len(letter) == 1 and letter == char.upper() and case_ok


# --- one substitution -------------------------------------------------------------------------------------
@functools.cache
def _drawable(char: str, space: str, clean: bool) -> tuple[tuple[str, ...], list[float]]:
    """The neighbours of `char` in `space` ('dces' or 'ices'; `clean`: those `looks_like` accepts, renormalised)
    and their cumulative probabilities, as numpy's `Generator.choice(n, p=probs)` computes them."""
    candidates, probs = dces_neighbours(char) if space == "dces" else ices_neighbours(char)
    if clean:
        kept = [(c, p) for c, p in zip(candidates, probs, strict=True) if looks_like(char, c)]
        candidates = tuple(c for c, _ in kept)
        total = sum(p for _, p in kept)
        probs = tuple(p / total for _, p in kept)
    if not candidates:
        return (), []
    cdf = np.asarray(probs, dtype=np.float64).cumsum()
    cdf /= cdf[-1]
    return candidates, cdf.tolist()


def substitute_char(char: str, space: str, rng: np.random.Generator | Draws, clean: bool = False) -> str:
    """A look-alike of `char` from `space` (the character itself when the space has none); `clean` keeps only
    the description- and image-based neighbours that `looks_like` accepts (the curated tables are kept)."""
    if space == "similar":
        options = SIMILAR.get(char, "")
        return options[int(rng.integers(len(options)))] if options else char
    if space == "eces":
        return ECES.get(char, char)
    candidates, cdf = _drawable(char, space, clean)
    if not candidates:
        return char
    # rng.choice(len(candidates), p=probs) without its per-call checks: one uniform, the first cdf entry above it
    return candidates[bisect.bisect_right(cdf, rng.random())]


def _look_alikes(char: str, space: str, clean: bool) -> tuple[str, ...] | str:
    """What `substitute_char` draws `char`'s replacement from in `space` (empty: it keeps the character)."""
    if space == "similar":
        return SIMILAR.get(char, "")
    if space == "eces":
        return ECES.get(char, "")
    return _drawable(char, space, clean)[0]


@dataclass(frozen=True)
class _Sentence:
    """A sentence as Glyph-M draws from it in one space: its characters (numpy's UCS-4 array), which of them the
    space changes (never a space), and per character a row of the look-alike tables of its distinct characters:
    `options` (a row's look-alikes, padded), `counts` (how many) and `cdf` (their cumulative probabilities,
    padded with +inf; dces and ices)."""

    chars: np.ndarray
    changes: np.ndarray
    rows: np.ndarray
    options: np.ndarray
    counts: np.ndarray
    cdf: np.ndarray


@functools.lru_cache(maxsize=1024)
def _sentence(text: str, space: str, clean: bool) -> _Sentence:
    """`text` prepared for Glyph-M in `space`: asked for every draw of a sentence, so kept per sentence."""
    distinct = sorted(set(text))
    look = [_look_alikes(c, space, clean) if c != " " else "" for c in distinct]
    width = max([1, *(len(o) for o in look)])
    options = np.full((len(distinct), width), " ", dtype="<U1")
    cdf = np.full((len(distinct), width), np.inf)
    for row, (char, alikes) in enumerate(zip(distinct, look, strict=True)):
        options[row, :len(alikes)] = list(alikes)
        if space in ("dces", "ices") and alikes:
            cdf[row, :len(alikes)] = _drawable(char, space, clean)[1]
    counts = np.array([len(o) for o in look], dtype=np.int64)
    chars = _chars(text)
    rows = np.searchsorted(np.array(distinct), chars)
    return _Sentence(chars, counts[rows] > 0, rows, options, counts, cdf)


def _chars(text: str) -> np.ndarray:
    """`text` as numpy's array of UCS-4 characters (a lone surrogate kept as it is)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<U1")


def _substituted(sentence: _Sentence, positions: np.ndarray, space: str, rng: np.random.Generator) -> str:
    """The sentence with `substitute_char` at each of `positions` (characters the space changes), in their
    order, drawn as one `rng` call with the values and generator state of the scalar calls one at a time:
    `integers(2)` is Lemire's method on the 32-bit stream, which never rejects a power-of-two bound, and
    `random(n)` is n `random()`; a uniform's pick is bisect's, the number of cdf entries at or below it."""
    rows = sentence.rows[positions]
    if space == "eces":
        picks = np.zeros(len(rows), dtype=np.int64)
    elif space == "similar":  # one or two look-alikes a character (test_tables_match_the_appendix)
        counts = sentence.counts[rows]
        picks = np.zeros(len(rows), dtype=np.int64)
        drawn = counts > 1  # numpy's integers(1) draws nothing; integers(2) is the top bit of the 32-bit stream's
        picks[drawn] = rng.integers(0, 1 << 32, size=int(drawn.sum()), dtype=np.uint32) >> 31  # next value
    else:
        picks = (sentence.cdf[rows] <= rng.random(len(rows))[:, None]).sum(axis=1)
    chars = sentence.chars.copy()
    chars[positions] = sentence.options[rows, picks]
    return chars.tobytes().decode("utf-32-le", "surrogatepass")


@dataclass(frozen=True)
class _Words:
    """A sentence's whitespace words as Glyph-G's compiled draws take them (`typo_walk.glyph_draws`): their code
    points side by side, each one's row of the tables (the sentence's distinct characters), where each word starts
    and its length; per row and configured space, the look-alikes' number (`counts`), code points (`options`) and
    cumulative probabilities (`cdf`, dces and ices; padded with +inf), and per space how it draws (`kinds`)."""

    codes: np.ndarray  # int32
    rows: np.ndarray  # int64
    starts: np.ndarray  # int64 [words]
    lengths: np.ndarray  # int64 [words]
    kinds: np.ndarray  # int64 [spaces]: 0 one of the options by integers (similar), 1 the only one (eces), 2 by cdf
    counts: np.ndarray  # int64 [rows, spaces]
    options: np.ndarray  # int32 [rows, spaces, widest]
    cdf: np.ndarray  # float64 [rows, spaces, widest]


_KINDS = {"similar": 0, "eces": 1, "dces": 2, "ices": 2}


@functools.lru_cache(maxsize=512)
def _words(text: str, spaces: tuple[str, ...], clean: bool) -> _Words:
    """`text` prepared for Glyph-G's compiled draws: the tables of `_look_alikes` and `_drawable`, which
    `substitute_char` draws from, for each distinct character of its words."""
    source = words(text)
    lengths = np.array([len(w) for w in source], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    codes = np.frombuffer("".join(source).encode("utf-32-le", "surrogatepass"), dtype="<u4")
    distinct, rows = np.unique(codes, return_inverse=True)
    look = [[_look_alikes(chr(c), space, clean) for space in spaces] for c in distinct.tolist()]
    width = max([1, *(len(alikes) for per in look for alikes in per)])
    counts = np.zeros((len(distinct), len(spaces)), dtype=np.int64)
    options = np.zeros((len(distinct), len(spaces), width), dtype=np.int32)
    cdf = np.full((len(distinct), len(spaces), width), np.inf)
    for row, (code, per) in enumerate(zip(distinct.tolist(), look, strict=True)):
        for s, (space, alikes) in enumerate(zip(spaces, per, strict=True)):
            counts[row, s] = len(alikes)
            options[row, s, :len(alikes)] = [ord(a) for a in alikes]
            if _KINDS[space] == 2 and alikes:
                cdf[row, s, :len(alikes)] = _drawable(chr(code), space, clean)[1]
    return _Words(codes.astype(np.int32), rows.astype(np.int64).reshape(-1), starts, lengths,
                  np.array([_KINDS[space] for space in spaces], dtype=np.int64), counts, options, cdf)


def _glyph_edits(walk: Any, text: str, k: int, rng: np.random.Generator, draws: int, spaces: tuple[str, ...],
                 clean: bool) -> list[list[tuple[int, int, str]]] | None:
    """`draws` Glyph-G draws in a row on `rng` (k changed words each) in one compiled call (`walk`: the module
    robust.toolkit.typo_walk): per draw, its edits as (word index, position, look-alike); None where the compiled
    draws cannot replay the generator's stream (MT19937)."""
    table = _words(text, spaces, clean)
    drawn = walk.replayed(rng, draws * (4 * len(table.starts) + 32), lambda stream, rs: walk.glyph_draws(
        table.codes, table.rows, table.starts, table.lengths, table.kinds, table.counts, table.options, table.cdf,
        k, draws, stream, rs))
    if drawn is None:
        return None
    edits, count = drawn
    out: list[list[tuple[int, int, str]]] = [[] for _ in range(draws)]
    for d, w, pos, new in edits[:count].tolist():
        out[d].append((w, pos, chr(new)))
    return out


def _load_walk() -> Any:
    """Glyph-G's draws compiled (`typo_walk.glyph_draws`), called once so that they compile here, in the loading
    thread (spaces whose tables need no rendering: the kernel's types are those of every space)."""
    from robust.toolkit import typo_walk

    _glyph_edits(typo_walk, "a glyph", 1, np.random.default_rng(0), 1, ("similar", "eces"), True)
    return typo_walk


# the compiled draws once loaded (`Compiled`: until then the draws run the Python loop, with the same results);
# `_load_walk` looked up when loading (tests replace it)
_compiled_draw = Compiled("Glyph-G's draws", lambda: _load_walk())


SPACES_SETTING = Setting(SPACES, choices=SPACES, min_items=1,
                         help="look-alike spaces drawn from (one per draw for -M, per word for -G)")


def _spaces(config: dict) -> tuple[str, ...]:
    return tuple(config["spaces"])


def _clean(config: dict) -> bool:
    return config["mode"] == "clean"


def _pick(spaces: tuple[str, ...], rng: np.random.Generator | Draws) -> str:
    return spaces[int(rng.integers(len(spaces)))]


def _replace_random_char(word: str, space: str, rng: np.random.Generator | Draws, clean: bool) -> str | None:
    pos = int(rng.integers(len(word)))
    new = substitute_char(word[pos], space, rng, clean)
    return word[:pos] + new + word[pos + 1:] if new != word[pos] else None


class GlyphM(Transform):
    """Malicious glyphs: ceil(len(s)*d) look-alike substitutions at random characters."""

    name = "glyph-M"
    dimension = "glyph"
    description = "Glyph-M: visually similar characters (TextBugger/VIPER spaces) at random positions"
    unit: ClassVar[str] = "char"
    settings = {"spaces": SPACES_SETTING, "mode": MODE}
    integer_draws = True  # a space, a position and a look-alike: integers and uniforms

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        text = example.text
        k = budget(len(text), degree)
        if k == 0:
            return [example]
        # one space per generated variant (RobTest's code, Char/glyph_transform.py)
        space = _pick(_spaces(self.config), rng)
        clean = _clean(self.config)
        positions = rng.permutation(len(text))
        # the first k positions, in that order, whose character the space changes: an unchanged character (a
        # space, one without look-alikes) consumes no budget and no draw
        sentence = _sentence(text, space, clean)
        new_text = _substituted(sentence, positions[sentence.changes[positions]][:k], space, rng)
        return [with_degree(example, new_text, degree, self.measure(text, new_text))]

    def edit(self, text: str, index: int, rng: np.random.Generator, original: str) -> str | None:
        space = _pick(_spaces(self.config), rng)
        clean = _clean(self.config)
        return replace_word(text, index, lambda word: _replace_random_char(word, space, rng, clean))

    def measure(self, original: str, perturbed: str) -> float:
        return char_degree(original, perturbed)


class GlyphG(WordTransform):
    """General glyphs: one look-alike character in each of ceil(N_w*d) random words."""

    name = "glyph-G"
    dimension = "glyph"
    description = "Glyph-G: one visually similar character in each of ceil(N_w*d) random words"
    settings = {"spaces": SPACES_SETTING, "mode": MODE}
    integer_draws = True  # a space, a position and a look-alike: integers and uniforms

    def warm_up(self) -> None:
        _compiled_draw.loading()  # its draws run compiled once loaded: they load while the model does

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator) -> str | None:
        return _replace_random_char(word, _pick(_spaces(self.config), rng), rng, _clean(self.config))

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        # draws in a row, compiled as one call: the kernel gives each draw's edits, the words are rebuilt here
        source = words(example.text)
        k = budget(len(source), degree)
        walk = _compiled_draw() if k else None
        drawn = (_glyph_edits(walk, example.text, k, rng, draws, _spaces(self.config), _clean(self.config))
                 if walk is not None else None)
        if drawn is None:
            return super().apply_many(example, degree, rng, draws)
        out = []
        for edits in drawn:
            tokens = list(source)
            for index, pos, new in edits:
                word = source[index]
                tokens[index] = word[:pos] + new + word[pos + 1:]
            out.append([self.drawn(example, source, tokens, degree)])
        return out


TRANSFORMS = [GlyphM, GlyphG]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)


__all__ = ["ECES", "SIMILAR", "GlyphG", "GlyphM", "dces_neighbours", "ices_neighbours", "substitute_char"]
