"""A typo transform's clean draw compiled with numba (`TypoWalk`; RobTest's Typo-M uses it): the same texts,
distances and generator state as its Python loop (`TypoM._clean_loop`), without the interpreter's cost per
candidate edit. `TypoWalk.many` makes an example's draws at a degree in one call, and `TypoWalk.word_edits` does
the same for Typo-G's word-level draws (`word_draws`); `glyph_draws` does it for Glyph-G's and
`sound_alike_draws` and `respelt_draws` for Phonetic-G's and -M's (their tables are built in
robust.plugins.attacks.glyph and .phonetic). The word-level kernels live here, beside the stream helpers they call,
because numba's disk cache of a function is not invalidated by a change to a jitted function of another module.

A clean draw of an MR sentence measures ~46 candidate edits with a Levenshtein distance to the original and keeps
~35; in Python each candidate costs a few µs of interpreter work around a sub-µs distance (docs/performance.md).
Here the whole draw is one compiled call:

- the 32-bit random stream is read from a block of the bit generator's 64-bit outputs and mapped to [0, n) as
  numpy maps it (Lemire's method, as `robust.toolkit.draws.Draws` does); the generator is then rewound and
  advanced by exactly the outputs used, so that it ends where numpy's scalar calls leave it;
- the distance is Myers' bit-vector algorithm (G. Myers, "A fast bit-vector algorithm for approximate string
  matching based on dynamic programming", JACM 46(3), 1999, Section 4's blocks; global distance: a +1 enters the
  first block at every column), with the original as the pattern. Its match masks and the original's column
  states are built once per sentence, and the current text's column states are kept, so that a candidate is
  computed only from the column its edit changes: the degree measured incrementally.

Texts are compared lower-cased, as `char_degree` compares them. The compiled walk takes a text whose lower case is
one character per character (all but those holding 'İ', lower-cased to two characters, or 'Σ', lower-cased by its
neighbours); those, and generators without numpy's 32-bit buffer (MT19937), are left to the caller's Python loop,
as every draw is where numba is not installed (the `fast` extra): importing this module then raises ImportError.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numba
import numpy as np

ASCII = 128  # ids below this are ASCII code points; a sentence's other lower-cased characters get ids from 128 on
_UTF32 = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
jit = numba.njit(cache=True, nogil=True)  # compiled at first use, then cached on disk by numba
u64 = np.uint64
zero, one, high, mask32, two32, shift32 = u64(0), u64(1), u64(1 << 63), u64(0xFFFFFFFF), u64(1 << 32), u64(32)


@jit
def extend(peq: Any, last: Any, ids: Any, start: int, end: int, vp: Any, vn: Any, score: Any) -> None:
    """Rows start+1..end of the column states of ids[:end] against the pattern, from row `start`: Myers'
    block-based algorithm. Row j holds the vertical deltas after j characters (vp, vn: blocks of 64 pattern
    characters) and score[j] = D[m][j]. A block passes its bottom horizontal delta (+1: plus, -1: minus) into
    the next one; a +1 enters the first block at every column (global distance: D[0][j] = j)."""
    blocks = np.uint64(vp.shape[1])
    final = blocks - one
    for col in range(start, end):
        j, c = np.uint64(col), np.uint64(ids[col])  # unsigned indices: no wrap-around checks
        plus, minus = one, zero
        for b in range(blocks):
            match, pv, mv = peq[c, b], vp[j, b], vn[j, b]
            xv = match | mv
            eq = match | minus
            xh = (((eq & pv) + pv) ^ pv) | eq
            ph = mv | ~(xh | pv)
            mh = pv & xh
            bit = last if b == final else high
            out_plus, out_minus = (one if ph & bit else zero), (one if mh & bit else zero)
            ph = (ph << one) | plus
            mh = (mh << one) | minus
            vp[j + one, b] = mh | ~(xv | ph)
            vn[j + one, b] = ph & xv
            plus, minus = out_plus, out_minus
        score[col + 1] = score[col] + np.int64(plus) - np.int64(minus)


@jit
def columns(peq: Any, last: Any, m: int, ids: Any, vp: Any, vn: Any, score: Any) -> None:
    """All column states of ids against the pattern (m characters), from row 0: D[i][0] = i."""
    vp[0, :] = ~u64(0)
    vn[0, :] = 0
    score[0] = m
    extend(peq, last, ids, 0, len(ids), vp, vn, score)


@jit
def next32(stream: Any, rs: Any) -> Any:
    """numpy's `next_uint32`: a 64-bit output's low half, then its high half. rs = [outputs read, a high half
    pending, that half, the block ran out]."""
    if rs[1]:
        rs[1] = 0
        return rs[2]
    if rs[0] >= len(stream):
        rs[3] = 1
        return u64(0)
    raw = stream[rs[0]]
    rs[0] += 1
    rs[1], rs[2] = 1, raw >> shift32
    return raw & mask32


@jit
def uniform(stream: Any, rs: Any) -> Any:
    """numpy's `Generator.random()` (`next_double`), as `Draws.random`: one whole 64-bit output's top 53 bits,
    the pending 32-bit half left alone."""
    if rs[0] >= len(stream):
        rs[3] = 1
        return 0.0
    raw = stream[rs[0]]
    rs[0] += 1
    return np.float64(raw >> u64(11)) * (1.0 / 9007199254740992.0)


@jit
def from_cdf(cdf: Any, n: int, stream: Any, rs: Any) -> int:
    """numpy's `rng.choice(n, p=...)` without its checks, as the Python draws make it: one uniform, the index of
    the first of cdf[:n] above it (bisect_right; the last entry is 1.0, above every uniform)."""
    u, j = uniform(stream, rs), 0
    while j < n - 1 and cdf[j] <= u:
        j += 1
    return j


@jit
def integers(n: int, stream: Any, rs: Any) -> int:
    """numpy's `Generator.integers(n)`: Lemire's nearly divisionless mapping, as `Draws.integers`."""
    if n == 1:
        return np.int64(0)
    un = u64(n)
    m = next32(stream, rs) * un
    if m & mask32 < un:
        threshold = (two32 - un) % un
        while m & mask32 < threshold and not rs[3]:
            m = next32(stream, rs) * un
    return np.int64(m >> shift32)


@jit
def permutation(n: int, positions: Any, stream: Any, rs: Any) -> None:
    """positions[:n] = numpy's `Generator.permutation(n)`: a Fisher-Yates shuffle of arange(n) whose index is
    drawn by masked rejection from the 32-bit stream (numpy's `random_interval`; checked once per process by
    `agrees_with_numpy`)."""
    for x in range(n):
        positions[x] = x
    for i in range(n - 1, 0, -1):
        mask = u64(i)
        for shift in (1, 2, 4, 8, 16):
            mask |= mask >> u64(shift)
        j = next32(stream, rs) & mask
        while j > u64(i) and not rs[3]:
            j = next32(stream, rs) & mask
        positions[i], positions[np.int64(j)] = positions[np.int64(j)], positions[i]


@jit
def moved(a: Any, src: int, dst: int, count: int) -> None:
    """a[dst:dst + count] = a[src:src + count], overlapping or not (a memmove)."""
    if dst > src:
        for x in range(count - 1, -1, -1):
            a[dst + x] = a[src + x]
    else:
        for x in range(count):
            a[dst + x] = a[src + x]


@jit
def walk_pass(text: Any, ids: Any, n: int, dist: int, k: int, positions: Any, stream: Any, rs: Any, peq: Any,
              last: Any, options: Any, neighbours: Any, vp: Any, vn: Any, score: Any, cand: Any) -> Any:
    """One pass of the clean draw over positions[:n] (the inner loop of TypoM._clean_loop). vp/vn/score: the current
    text's column states (row j: after its first j characters), cand: a candidate's ids. Returns the text's
    length, its distance and whether an edit was kept."""
    progressed = False
    new_codes = np.empty(2, dtype=np.int32)
    new_ids = np.empty(2, dtype=np.int32)
    for i in range(n):  # the positions drawn for the text the pass began with
        if dist >= k:
            break
        pos = positions[i]
        op = integers(5, stream, rs)  # TypoWalk.OPS: delete, insert, replace, swap, repeat
        if rs[3]:
            break
        if pos >= n or (text[pos] == 32 and op != 1 and op != 4):
            continue
        start, width, resume = pos, 1, pos  # the candidate: text[:start] + `width` new characters + text[resume:]
        if op == 0:  # delete
            if n <= 1:
                continue
            width, resume = 0, pos + 1
        elif op == 1 or op == 2:  # insert, replace: a keyboard neighbour of the lower-cased character
            c = ids[pos]
            if c >= len(options) - 1 or options[c] == options[c + 1]:
                continue
            pick = neighbours[options[c] + integers(options[c + 1] - options[c], stream, rs)]
            if rs[3]:
                break
            new_codes[0] = new_ids[0] = pick
            resume = pos + (op == 2)
        elif op == 3:  # swap with the previous character
            if pos == 0 or text[pos - 1] == 32 or text[pos] == 32:
                continue
            start, width, resume = pos - 1, 2, pos + 1
            new_codes[0], new_ids[0], new_codes[1], new_ids[1] = text[pos], ids[pos], text[pos - 1], ids[pos - 1]
        else:  # repeat
            new_codes[0], new_ids[0] = text[pos], ids[pos]
        # the candidate's columns from `start` on, written over the current text's (those before are shared)
        new_n = n + width - (resume - start)
        cand[start:start + width] = new_ids[:width]
        cand[start + width:new_n] = ids[resume:n]
        extend(peq, last, cand, start, new_n, vp, vn, score)
        new_dist = score[new_n]
        if new_dist <= dist or new_dist > k:  # no progress (edits cancelled) or past the budget (a swap costs 2)
            extend(peq, last, ids, start, n, vp, vn, score)  # the current text's columns back (a quarter of the
            continue  # candidates: cheaper than keeping a copy of every candidate's columns)
        moved(text, resume, start + width, n - resume)  # keep it: the text and its ids
        text[start:start + width] = new_codes[:width]
        ids[start:new_n] = cand[start:new_n]
        n, dist, progressed = new_n, new_dist, True
    return n, dist, progressed


@jit
def draw(codes: Any, ids: Any, vp0: Any, vn0: Any, score0: Any, k: int, peq: Any, last: Any, options: Any,
         neighbours: Any, stream: Any, rs: Any) -> Any:
    """The clean draw (TypoM._clean_loop) from the original's code points, ids and column states: returns the
    drawn text's code points and its distance (rs[3] set: the stream ran out; the caller draws again, longer)."""
    m = len(codes)
    cap = m + k + 2  # every kept edit raises the distance, and lengthens the text by at most one
    text, tid = np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.int32)
    text[:m], tid[:m] = codes, ids
    shape = (cap + 1, vp0.shape[1])
    vp, vn, score = np.empty(shape, np.uint64), np.empty(shape, np.uint64), np.empty(cap + 1, dtype=np.int64)
    vp[:m + 1], vn[:m + 1], score[:m + 1] = vp0, vn0, score0
    positions, cand = np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int32)
    n, dist, idle = m, 0, 0
    while dist < k and idle < 4 and not rs[3]:
        permutation(n, positions, stream, rs)  # each pass re-drawn on the current text
        if rs[3]:
            break
        n, dist, progressed = walk_pass(text, tid, n, dist, k, positions, stream, rs, peq, last, options,
                                        neighbours, vp, vn, score, cand)
        idle = 0 if progressed else idle + 1
    return text[:n].copy(), dist


@jit
def draw_many(codes: Any, ids: Any, vp0: Any, vn0: Any, score0: Any, k: int, draws: int, peq: Any, last: Any,
              options: Any, neighbours: Any, stream: Any, rs: Any) -> Any:
    """`draws` clean draws in a row from one stream (RobTest's aug_num draws of an example at a degree): the drawn
    texts' code points side by side (row i: draw i, its first lengths[i]), their lengths and distances."""
    cap = len(codes) + k + 2
    out = np.zeros((draws, cap), dtype=np.int32)
    lengths, dists = np.zeros(draws, dtype=np.int64), np.zeros(draws, dtype=np.int64)
    for i in range(draws):
        text, dist = draw(codes, ids, vp0, vn0, score0, k, peq, last, options, neighbours, stream, rs)
        if rs[3]:
            break
        out[i, :len(text)] = text
        lengths[i], dists[i] = len(text), dist
    return out, lengths, dists


@jit
def word_draws(codes: Any, starts: Any, lengths: Any, keys: Any, k: int, draws: int, options: Any, neighbours: Any,
               stream: Any, rs: Any) -> Any:
    """`draws` clean Typo-G draws in a row (`WordTransform.apply` with `TypoG.substitute`): each a permutation of
    the words, then at each word in that order until k words have changed, a position, an operation and (insert,
    replace) a keyboard neighbour. keys[i]: the keyboard id of character i's lower case, -1 for none. Returns
    the edits that changed a word, a row each [draw, word, operation, position, new character], and their
    number."""
    words = len(starts)
    edits = np.zeros((draws * min(k, words), 5), dtype=np.int64)
    order = np.empty(words, dtype=np.int64)
    count = 0
    for d in range(draws):
        permutation(words, order, stream, rs)
        spent = 0
        for i in range(words):
            if spent >= k or rs[3]:
                break
            w = order[i]
            at = starts[w]
            pos = integers(lengths[w], stream, rs)
            op = integers(5, stream, rs)  # TypoWalk.OPS: delete, insert, replace, swap, repeat
            new = -1
            if op == 0:  # delete: a word of one character cannot lose it
                changed = lengths[w] > 1
            elif op == 1 or op == 2:  # insert, replace: a keyboard neighbour of the lower-cased character
                c = keys[at + pos]
                changed = c >= 0 and options[c] != options[c + 1]
                if changed:
                    new = neighbours[options[c] + integers(options[c + 1] - options[c], stream, rs)]
                    changed = op == 1 or new != codes[at + pos]
            elif op == 3:  # swap with the previous character: none at 0, nothing changed between equal ones
                changed = pos > 0 and codes[at + pos - 1] != codes[at + pos]
            else:  # repeat
                changed = True
            if changed and not rs[3]:
                edits[count, 0], edits[count, 1], edits[count, 2], edits[count, 3] = d, w, op, pos
                edits[count, 4] = new
                count += 1
                spent += 1
        if rs[3]:
            break
    return edits, count


@jit
def glyph_draws(codes: Any, rows: Any, starts: Any, lengths: Any, kinds: Any, counts: Any, options: Any, cdf: Any,
                k: int, draws: int, stream: Any, rs: Any) -> Any:
    """`draws` Glyph-G draws in a row (`WordTransform.apply` with `GlyphG.substitute`): each a permutation of the
    words, then at each word in that order until k words have changed, a space s, a position and a look-alike of
    its character. rows[i]: character i's row of the tables (the sentence's distinct characters); counts[r, s]:
    its number of look-alikes in space s (0: none, the word unchanged), options[r, s]: their code points, drawn
    as kinds[s] says: 0 one of them by `integers` (TextBugger's table), 1 the only one, no draw (ECES), 2 by a
    uniform, the first cdf[r, s] entry above it (bisect_right; DCES, ICES). Returns the edits that changed a
    word, a row each [draw, word, position, new code point], and their number."""
    words, spaces = len(starts), len(kinds)
    edits = np.zeros((draws * min(k, words), 4), dtype=np.int64)
    order = np.empty(words, dtype=np.int64)
    count = 0
    for d in range(draws):
        permutation(words, order, stream, rs)
        spent = 0
        for i in range(words):
            if spent >= k or rs[3]:
                break
            w = order[i]
            s = integers(spaces, stream, rs)
            pos = integers(lengths[w], stream, rs)
            at = starts[w] + pos
            r, new = rows[at], codes[at]
            n = counts[r, s]
            if n > 0:
                if kinds[s] == 0:
                    new = options[r, s, integers(n, stream, rs)]
                elif kinds[s] == 1:
                    new = options[r, s, 0]
                else:
                    new = options[r, s, from_cdf(cdf[r, s], n, stream, rs)]
            if new != codes[at] and not rs[3]:
                edits[count, 0], edits[count, 1], edits[count, 2], edits[count, 3] = d, w, pos, new
                count += 1
                spent += 1
        if rs[3]:
            break
    return edits, count


@jit
def sound_alike_draws(kinds: Any, cdf: Any, counts: Any, k: int, draws: int, stream: Any, rs: Any) -> Any:
    """`draws` clean Phonetic-G draws in a row (`_Phonetic._walk_clean`, one edit a word): each a permutation of
    the words, then at each word in that order until k words have changed, a kind of spelling by a uniform (the
    first of cdf[w, :kinds[w]] above it: bisect_right) and one of its counts[w, kind] spellings by `integers`; a
    word with no kinds (kinds[w] == 0) is passed over without a draw. Returns the edits, a row each [draw, word,
    kind, spelling], and their number."""
    words = len(kinds)
    edits = np.zeros((draws * min(k, words), 4), dtype=np.int64)
    order = np.empty(words, dtype=np.int64)
    count = 0
    for d in range(draws):
        permutation(words, order, stream, rs)
        spent = 0
        for i in range(words):
            if spent >= k or rs[3]:
                break
            w = order[i]
            n = kinds[w]
            if n == 0:
                continue
            j = from_cdf(cdf[w], n, stream, rs)
            pick = integers(counts[w, j], stream, rs)
            if not rs[3]:
                edits[count, 0], edits[count, 1], edits[count, 2], edits[count, 3] = d, w, j, pick
                count += 1
                spent += 1
        if rs[3]:
            break
    return edits, count


@jit
def word_distance(codes: Any, a: int, a_end: int, b: int, b_end: int, row: Any) -> int:
    """The Levenshtein distance of codes[a:a_end] and codes[b:b_end] (unit costs, one row of the table; `row`: at
    least b_end - b + 1 entries)."""
    m = b_end - b
    for j in range(m + 1):
        row[j] = j
    for i in range(a, a_end):
        diag, row[0] = row[0], i - a + 1
        for j in range(1, m + 1):
            up = row[j]
            row[j] = min(up + 1, row[j - 1] + 1, diag + (codes[i] != codes[b + j - 1]))
            diag = up
    return row[m]


@jit
def respelt_draws(roots: Any, lengths: Any, state: Any, cdf: Any, first: Any, counts: Any, children: Any, starts: Any,
                  ends: Any, codes: Any, k: int, draws: int, stream: Any, rs: Any) -> Any:
    """Clean Phonetic-M draws in a row (`_Phonetic._walk_clean` with `PhoneticM._draw`) over a graph of spellings:
    each a permutation of the words, then at each word in that order while the spent budget is below k,
    randint(1, len) capped at 3 edits, each from the current spelling's node: a kind by a uniform (the first of
    cdf[node, :state[node]] above it) and one of its counts[node, kind] spellings, children[first[node, kind] + i],
    by `integers`; a node of state 0 takes no edit. The drawn spelling is kept where its Levenshtein distance to the
    word (node codes[starts:ends]) fits the budget. It stops before a draw that reaches a node not yet in the graph
    (state -1) or runs out of the stream, the stream rewound to that draw's start. Returns the edits of the draws
    made, a row each [draw, word, node], their number, the draws made and the missing node (-1: none; fewer draws
    made than asked for and none missing: the stream ran out)."""
    words = len(roots)
    edits = np.zeros((draws * words, 3), dtype=np.int64)
    order = np.empty(words, dtype=np.int64)
    row = np.empty(64, dtype=np.int64)
    start = rs.copy()
    count = 0
    for d in range(draws):
        start[:] = rs
        kept = count
        permutation(words, order, stream, rs)
        spent = 0
        for i in range(words):
            if spent >= k or rs[3]:
                break
            w = order[i]
            root = roots[w]
            edits_left = min(3, 1 + integers(lengths[w], stream, rs))
            node = root
            for _ in range(edits_left):
                n = state[node]
                if n < 0:  # not in the graph yet: the caller adds it and draws again from this draw's start
                    missing = -1 if rs[3] else node
                    rs[:] = start
                    return edits, kept, d, missing
                if n == 0:
                    break
                j = from_cdf(cdf[node], n, stream, rs)
                node = children[first[node, j] + integers(counts[node, j], stream, rs)]
            if node == root or rs[3]:
                continue
            if ends[node] - starts[node] + 1 > len(row):
                row = np.empty(2 * (ends[node] - starts[node] + 1), dtype=np.int64)
            cost = word_distance(codes, starts[root], ends[root], starts[node], ends[node], row)
            if spent + cost <= k:
                edits[count, 0], edits[count, 1], edits[count, 2] = d, w, node
                count += 1
                spent += cost
        if rs[3]:  # the stream ran out: the caller reads more and draws again from this draw's start
            rs[:] = start
            return edits, kept, d, -1
    return edits, count, draws, -1


@dataclass(frozen=True)
class Sentence:
    """An original sentence prepared for the compiled walk: code points, ids of the lower-cased characters (an
    ASCII one's code point, others from 128 on), the pattern's match masks and the original's column states."""

    codes: Any  # int32 [m]
    ids: Any  # int32 [m]
    peq: Any  # uint64 [ids, blocks]: bit i of block b set where character 64*b + i has that id
    last: Any  # uint64: the pattern's last character's bit in the last block
    vp: Any  # uint64 [m + 1, blocks]: the original's own column states
    vn: Any
    score: Any  # int64 [m + 1]


@lru_cache(maxsize=512)
def prepare(text: str) -> Sentence | None:
    """`text` for the compiled walk, or None where its lower case is not one character per character."""
    ids, extra = [], {}
    for char in text:
        low = char.lower()
        if len(low) != 1 or char == "\u03a3":
            return None
        code = ord(low)
        ids.append(code if code < ASCII else extra.setdefault(code, ASCII + len(extra)))
    m = len(text)
    blocks = (m + 63) // 64
    peq = np.zeros((ASCII + len(extra), blocks), dtype=np.uint64)
    for i, c in enumerate(ids):
        peq[c, i // 64] |= np.uint64(1 << (i % 64))
    sentence = Sentence(np.array([ord(c) for c in text], dtype=np.int32), np.array(ids, dtype=np.int32), peq,
                        np.uint64(1 << ((m - 1) % 64)), np.empty((m + 1, blocks), dtype=np.uint64),
                        np.empty((m + 1, blocks), dtype=np.uint64), np.empty(m + 1, dtype=np.int64))
    columns(peq, sentence.last, m, sentence.ids, sentence.vp, sentence.vn, sentence.score)
    return sentence


@dataclass(frozen=True)
class Words:
    """A sentence's whitespace words for the compiled Typo-G draw: their code points side by side, where each
    starts and its length, and each character's keyboard id (its lower case's, where that is one key; else -1)."""

    codes: Any  # int32
    starts: Any  # int64 [words]
    lengths: Any  # int64 [words]
    keys: Any  # int64


@lru_cache(maxsize=512)
def prepare_words(text: str, keyboard: frozenset[str]) -> Words:
    """`text`'s words (`str.split`) prepared for `word_draws`."""
    source = text.split()
    joined = "".join(source)
    lengths = np.array([len(w) for w in source], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    keys = np.array([ord(c.lower()) if c.lower() in keyboard else -1 for c in joined], dtype=np.int64)
    return Words(np.array([ord(c) for c in joined], dtype=np.int32), starts, lengths, keys)


@lru_cache(maxsize=1)
def agrees_with_numpy() -> bool:
    """Whether `permutation` draws numpy's permutations on this numpy (its shuffle is not part of its API), and
    `uniform` its `random()` without touching a pending half of the 32-bit stream."""
    for n in (1, 2, 3, 17, 200):
        rng = np.random.default_rng(n)
        rng.integers(3)  # a half of the 32-bit stream left pending
        state = rng.bit_generator.state
        stream = rng.bit_generator.random_raw(4 * n + 32)
        rs = np.array([0, state["has_uint32"], state["uinteger"], 0], dtype=np.uint64)
        rng.bit_generator.state = state
        positions = np.empty(n, dtype=np.int64)
        permutation(n, positions, stream, rs)
        if rs[3] or not np.array_equal(positions, rng.permutation(n)):
            return False
        drawn = [uniform(stream, rs), integers(1000, stream, rs), uniform(stream, rs), integers(1000, stream, rs)]
        if rs[3] or drawn != [rng.random(), rng.integers(1000), rng.random(), rng.integers(1000)]:
            return False
    return True


def replayed(rng: Any, size: int, run: Any) -> Any:
    """`run(stream, rs)` on a block of `size` of the generator's 64-bit outputs, read again four times longer where
    the draws outran it; the generator is then rewound and advanced as numpy's scalar calls leave it. None for a
    generator without numpy's 32-bit buffer (MT19937), whose stream is not replayed."""
    bits = rng.bit_generator
    saved = bits.state
    if "has_uint32" not in saved or not agrees_with_numpy():
        return None
    pending, half = saved["has_uint32"], saved["uinteger"]
    while True:
        stream = bits.random_raw(size)
        rs = np.array([0, pending, half, 0], dtype=np.uint64)
        out = run(stream, rs)
        if not rs[3]:
            break
        bits.state = saved
        size *= 4
    # rewind, with numpy's 32-bit buffer as the draws left it (reading raw outputs leaves that buffer alone), then
    # advance by the outputs used
    saved["has_uint32"], saved["uinteger"] = int(rs[1]), int(rs[2])
    bits.state = saved
    if rs[0]:
        bits.random_raw(int(rs[0]))
    return out


class TypoWalk:
    """A typo transform's clean draw, compiled: `walk(text, k, rng)` edits random characters of `text` (the
    operations OPS, in that order of their draw; insert and replace put a neighbour of the lower-cased character,
    from `keyboard`) while the lower-cased Levenshtein distance to the original grows, up to k; it returns (text,
    distance), or None where it cannot replay the caller's Python loop draw for draw (the caller then runs it)."""

    OPS = ("delete", "insert", "replace", "swap", "repeat")

    def __init__(self, keyboard: Mapping[str, str], ops: Sequence[str]) -> None:
        if tuple(ops) != self.OPS:
            raise ValueError(f"TypoWalk draws the operations {self.OPS} in this order, not {tuple(ops)}")
        if any(len(key) != 1 or ord(key) >= ASCII or any(ord(c) >= ASCII for c in near)
               for key, near in keyboard.items()):
            raise ValueError("TypoWalk's keyboard maps ASCII characters to ASCII neighbours")
        options, neighbours = [0], []
        for code in range(ASCII):  # CSR over ASCII ids: the neighbours of c are neighbours[options[c]:options[c+1]]
            neighbours.extend(ord(c) for c in keyboard.get(chr(code), ""))
            options.append(len(neighbours))
        self._options = np.array(options, dtype=np.int64)
        self._neighbours = np.array(neighbours, dtype=np.int32)
        self._keys = frozenset(keyboard)

    def __call__(self, text: str, k: int, rng: Any) -> tuple[str, int] | None:
        drawn = self.many(text, k, rng, 1)
        return None if drawn is None else drawn[0]

    def many(self, text: str, k: int, rng: Any, draws: int) -> list[tuple[str, int]] | None:
        """`draws` walks in a row on `rng` (what as many calls give), in one compiled call: the generator's state is
        read and written once for all of them."""
        sentence = prepare(text)
        if sentence is None:
            return None
        drawn = replayed(rng, draws * (2 * (len(text) + k) + 32), lambda stream, rs: draw_many(
            sentence.codes, sentence.ids, sentence.vp, sentence.vn, sentence.score, k, draws, sentence.peq,
            sentence.last, self._options, self._neighbours, stream, rs))
        if drawn is None:
            return None
        out, lengths, dists = drawn
        return [(row[:n].tobytes().decode(_UTF32), int(dist))
                for row, n, dist in zip(out, lengths.tolist(), dists.tolist(), strict=True)]

    def word_edits(self, text: str, k: int, rng: Any, draws: int) -> list[list[tuple[int, int, int, str]]] | None:
        """`draws` clean Typo-G draws in a row on `rng` (k changed words each), in one compiled call: per draw, its
        edits in order, as (word index, index in OPS, position, new character or '')."""
        words = prepare_words(text, self._keys)
        drawn = replayed(rng, draws * (3 * len(words.starts) + 32), lambda stream, rs: word_draws(
            words.codes, words.starts, words.lengths, words.keys, k, draws, self._options, self._neighbours,
            stream, rs))
        if drawn is None:
            return None
        edits, count = drawn
        out: list[list[tuple[int, int, int, str]]] = [[] for _ in range(draws)]
        for d, w, op, pos, new in edits[:count].tolist():
            out[d].append((w, op, pos, chr(new) if new >= 0 else ""))
        return out
