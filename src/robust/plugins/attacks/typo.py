"""Typo (Chen et al. 2023, Table 1): one-character keyboard typos — delete, insert, replace, swap, repeat.

Typo-M edits random characters (degree = relative Levenshtein distance); Typo-G edits at most one character
per word (degree = word modification rate). `mode="clean"` (default, docs/attacks.md) spends the budget k on
successful edits, counting a swap as its Levenshtein cost of 2; `mode="faithful"` reproduces RobTest's code
(k attempts, failures consume budget, the index-0 swap quirk; docs/attacks.md).
"""

from __future__ import annotations

from typing import Any, ClassVar

from robust import Example, Transform, hookimpl
from robust.toolkit.compiled import Compiled
from robust.toolkit.draws import Draws
from robust.toolkit.lazy import Levenshtein, np
from robust.toolkit.transforms import (
    MODE,
    WordTransform,
    budget,
    char_degree,
    levenshtein,
    replace_word,
    with_degree,
    words,
)

# Keyboard neighbours, "copy from textbugger" (RobTest's code, Char/typo_transform.py); looked up with char.lower().
KEYBOARD: dict[str, str] = {
    "q": "was", "w": "qeasd", "e": "wrsdf", "r": "etdfg", "t": "ryfgh", "y": "tughj", "u": "yihjk",
    "i": "uojkl", "o": "ipkl", "p": "ol", "a": "qwszx", "s": "qweadzx", "d": "wersfxc", "f": "ertdgcv",
    "g": "rtyfhvb", "h": "tyugjbn", "j": "yuihknm", "k": "uiojlm", "l": "opk", ";": "op[l',./",
    "'": "p[];./", "z": "asx", "x": "sdzc", "c": "dfxv", "v": "fgcb", "b": "ghvn", "n": "hjbm", "m": "jkn",
    ",": "mkl.", ".": ",l;/",
}
OPS = ("delete", "insert", "replace", "swap", "repeat")


def _neighbour(char: str, rng: np.random.Generator | Draws) -> str | None:
    options = KEYBOARD.get(char.lower())
    return options[int(rng.integers(len(options)))] if options else None


def typo(text: str, pos: int, op: str, rng: np.random.Generator | Draws, faithful: bool) -> str | None:
    """`text` with one typo operation at character `pos`, or None when the operation fails there."""
    char = text[pos]
    if op == "delete":
        return typo_at(text, pos, op) if len(text) > 1 else None
    if op in ("insert", "replace"):
        new = _neighbour(char, rng)
        return None if new is None else typo_at(text, pos, op, new)
    if op == "swap":  # with the previous character
        if pos == 0 and not faithful:
            return None
        if text[pos - 1] == " " or char == " ":
            return None
    return typo_at(text, pos, op)


def typo_at(text: str, pos: int, op: str, new: str = "") -> str:
    """`text` with operation `op` done at character `pos` (`new`: the inserted or replacing character). A swap
    exchanges it with the previous character; at index 0 that is text[-1], RobTest's quirk (RobTest's code,
    Char/typo_transform.py)."""
    if op == "delete":
        return text[:pos] + text[pos + 1:]
    if op == "repeat":
        return text[:pos] + text[pos] + text[pos:]
    if op in ("insert", "replace"):
        return text[:pos] + new + text[pos + (op == "replace"):]
    return text[:pos - 1] + text[pos] + text[pos - 1] + text[pos + 1:]


def _cost(before: str, after: str, op: str) -> int:
    """Levenshtein cost of one operation on lower-cased text (a swap costs 2, or 0 if it changed nothing)."""
    if op == "swap":
        return levenshtein(before.lower(), after.lower())
    return 1


def _random_op(rng: np.random.Generator | Draws) -> str:
    return OPS[int(rng.integers(len(OPS)))]


def _faithful(config: dict) -> bool:
    return config["mode"] == "faithful"


def _load_walk() -> Any:
    """Typo-M's and Typo-G's draws compiled (`robust.toolkit.typo_walk`): both kernels called once, so that they
    compile here, in the loading thread."""
    from robust.toolkit.typo_walk import TypoWalk

    walk = TypoWalk(KEYBOARD, OPS)
    walk("a typo", 2, np.random.default_rng(0))
    walk.word_edits("a typo", 1, np.random.default_rng(0), 1)
    return walk


# the compiled draws once loaded (`Compiled`: until then the draws run the Python loop, with the same results);
# `_load_walk` looked up when loading (tests replace it)
_compiled_draw = Compiled("Typo-M's and Typo-G's draws", lambda: _load_walk())


def _warm_up(transform: Transform) -> None:
    """`Transform.warm_up` of both: the compiled draws start loading (clean mode's), while the model loads."""
    if not _faithful(transform.config):
        _compiled_draw.loading()


class TypoM(Transform):
    """Malicious typos: one-character keyboard edits at random characters (relative edit distance)."""

    name = "typo-M"
    dimension = "typo"
    description = "Typo-M: keyboard typos (delete/insert/replace/swap/repeat) at random characters"
    unit: ClassVar[str] = "char"
    settings = {"mode": MODE}
    integer_draws = True  # edit draws a position, an op and a neighbour
    warm_up = _warm_up

    def apply(self, example: Example, degree: float, rng: np.random.Generator) -> list[Example]:
        faithful = _faithful(self.config)
        text = example.text
        k = budget(len(text), degree)
        if k == 0:
            return [example]
        if faithful:
            text = self._faithful_draw(text, k, rng)
            return [with_degree(example, text, degree, self.measure(example.text, text))]
        text, dist = self._clean_draw(text, k, rng)  # dist: the lower-cased Levenshtein distance `measure` takes
        return [with_degree(example, text, degree, dist / len(example.text))]

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        # clean draws in a row, compiled as one call (the generator's state read and written once for all)
        k = budget(len(example.text), degree)
        compiled = _compiled_draw() if k and not _faithful(self.config) else None
        drawn = compiled.many(example.text, k, rng, draws) if compiled is not None else None
        if drawn is None:
            return super().apply_many(example, degree, rng, draws)
        return [[with_degree(example, text, degree, dist / len(example.text))] for text, dist in drawn]

    @staticmethod
    def _faithful_draw(text: str, k: int, rng: np.random.Generator) -> str:
        """RobTest's loop: k attempts at a random permutation of the positions, failures included (RobTest's code,
        Char/typo_transform.py)."""
        positions = rng.permutation(len(text))
        for i in range(min(k, len(positions))):
            pos = int(positions[i])
            op = _random_op(rng)
            if pos >= len(text) or (text[pos] == " " and op not in ("insert", "repeat")):
                continue
            new = typo(text, pos, op, rng, True)
            if new is None:
                continue
            positions[positions >= pos] += len(new) - len(text)  # keep the remaining positions aligned
            text = new
        return text

    @staticmethod
    def _clean_draw(text: str, k: int, rng: np.random.Generator) -> tuple[str, int]:
        """Edits at random positions until the lower-cased Levenshtein distance to the original is k
        (docs/attacks.md); returns the text and its distance: compiled where it can be (`_compiled_draw`), else
        `_clean_loop`, with the same texts and generator state."""
        compiled = _compiled_draw()
        drawn = compiled(text, k, rng) if compiled is not None else None
        return drawn if drawn is not None else TypoM._clean_loop(text, k, rng)

    @staticmethod
    def _clean_loop(text: str, k: int, rng: np.random.Generator) -> tuple[str, int]:
        """The clean draw in Python (and the reference the compiled one is tested against).

        Progress is the measured distance, not a sum of edit costs: two edits can overlap or cancel ("ab" ->
        "aab" -> "ab"), and a pass over the positions can run out when many operations fail (digits, spaces),
        which is why summing costs over one permutation left Typo-M at 0.47 for d = 0.6. Positions are walked
        in random permutations (each pass re-drawn on the current text) until k is reached or 4 passes failed.
        """
        distance = Levenshtein.distance  # C++, bit-parallel
        original, dist, idle = text.lower(), 0, 0
        while dist < k and idle < 4:
            progressed = False
            positions = rng.permutation(len(text)).tolist()
            with Draws(rng) as draws:  # the ops and neighbours of this pass at C speed
                for pos in positions:
                    if dist >= k:
                        break
                    op = OPS[draws.integers(len(OPS))]
                    if pos >= len(text) or (text[pos] == " " and op not in ("insert", "repeat")):
                        continue
                    new = typo(text, pos, op, draws, False)
                    if new is None:
                        continue
                    # one edit moves the distance by at most 2 (a swap): a cut-off at that bound (or k) lets
                    # rapidfuzz stop early and changes no answer below it (above it returns cut-off + 1 > k)
                    new_dist = distance(original, new.lower(), score_cutoff=min(k, dist + 2))
                    if new_dist <= dist or new_dist > k:
                        continue  # no progress (edits cancelled) or past the budget (a swap costs 2)
                    text, dist, progressed = new, new_dist, True
            idle = 0 if progressed else idle + 1
        return text, dist

    def edit(self, text: str, index: int, rng: np.random.Generator | Draws, original: str) -> str | None:
        # RobTest's transform_char: a random character of the CURRENT word (edits can accumulate)
        faithful = _faithful(self.config)
        return replace_word(
            text, index, lambda word: typo(word, int(rng.integers(len(word))), _random_op(rng), rng, faithful))

    def measure(self, original: str, perturbed: str) -> float:
        return char_degree(original, perturbed)


class TypoG(WordTransform):
    """General typos: at most one keyboard edit per word at random words (word modification rate)."""

    name = "typo-G"
    dimension = "typo"
    description = "Typo-G: one keyboard typo in each of ceil(N_w*d) random words"
    settings = {"mode": MODE}
    integer_draws = True  # substitute (and so edit) draws a position, an op and a neighbour
    warm_up = _warm_up

    @property
    def counts_failures(self) -> bool:  # type: ignore[override]
        return _faithful(self.config)  # faithful: failed attempts consume the budget

    def substitute(self, word: str, tokens: list[str], index: int, rng: np.random.Generator | Draws) -> str | None:
        faithful = _faithful(self.config)
        new = typo(word, int(rng.integers(len(word))), _random_op(rng), rng, faithful)
        return new or None

    def apply_many(self, example: Example, degree: float, rng: np.random.Generator, draws: int) -> list[list[Example]]:
        # clean draws in a row, compiled as one call: the kernel gives each draw's edits, the words are rebuilt here
        source = words(example.text)
        k = budget(len(source), degree)
        compiled = _compiled_draw() if k and not _faithful(self.config) else None
        drawn = compiled.word_edits(example.text, k, rng, draws) if compiled is not None else None
        if drawn is None:
            return super().apply_many(example, degree, rng, draws)
        out = []
        for edits in drawn:
            tokens = list(source)
            for index, op, pos, new in edits:
                tokens[index] = typo_at(tokens[index], pos, OPS[op], new)
            out.append([self.drawn(example, source, tokens, degree)])
        return out


TRANSFORMS = [TypoM, TypoG]


@hookimpl
def register_transforms(register):
    for transform in TRANSFORMS:
        register(transform)
