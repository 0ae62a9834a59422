"""Many small random integers (and uniforms) at C speed, with exactly the values and the generator state of one
`rng.integers(n)` (or `rng.random()`) call per draw.

`Generator.integers(n)` costs about 1.5 µs of Python call overhead per scalar, more than a typo edit itself. `Draws`
reads the bit generator's 64-bit outputs one at a time (`random_raw()`, a plain int: ~0.3 µs for two draws) and
maps them to [0, n) as numpy does: Lemire's nearly divisionless method (D. Lemire, "Fast Random Integer
Generation in an Interval", ACM TOMACS 29(1), 2019, Algorithm 5; numpy's `buffered_bounded_lemire_uint32`), the
32-bit stream being each 64-bit output's low half then its high half (numpy's `next_uint32`, whose unused high
half the generator keeps in its state). A uniform is one whole 64-bit output's top 53 bits (numpy's `next_double`
for PCG64, PCG64DXSM, SFC64 and Philox), which leaves the buffered half alone. A permutation is numpy's
Fisher-Yates shuffle of range(n), each index drawn from the 32-bit stream by masked rejection (numpy's
`random_interval`), so that one `Draws` serves draws that permute between their integers. On `close` the generator is
where the scalar calls would have left it: it has advanced by exactly the outputs read, and its buffered half is
written back when that changed.
"""

from __future__ import annotations

import functools
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

_MASK = 0xFFFFFFFF
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


class Draws:
    """`draws.integers(n)` == `rng.integers(n)` for 1 <= n <= 2**32 (and with `size=k`), `draws.random()` ==
    `rng.random()`, `draws.permutation(n)` == `rng.permutation(n).tolist()`. Use as a context manager (or call
    `close`): the generator is synced on exit. Generators whose state has no 32-bit buffer (MT19937) are served by
    `rng` directly."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        state: dict[str, Any] = rng.bit_generator.state
        self.exact = "has_uint32" in state
        if not self.exact:
            self.integers = lambda n, size=None: (  # type: ignore[method-assign]
                int(rng.integers(n)) if size is None else rng.integers(n, size=size))
            self.integer_list = lambda n, size: rng.integers(n, size=size).tolist()  # type: ignore[method-assign]
            self.random = lambda: float(rng.random())  # type: ignore[method-assign]
            return
        self._raw = rng.bit_generator.random_raw
        self._pending: bool
        self._last: int
        self._pending0: bool  # the buffer as the generator holds it
        self._last0: int
        self._load(state)

    def _next(self) -> int:
        """The next value of numpy's 32-bit stream (`next_uint32`)."""
        if self._pending:
            self._pending = False
            return self._last
        raw = self._raw()
        self._last, self._pending = raw >> 32, True
        return raw & _MASK

    def integers(self, n: int, size: int | None = None) -> Any:
        """A uniform integer in [0, n) (numpy's `Generator.integers(n)` for an int n); with `size`, an array of them
        (`Generator.integers(n, size=size)`, which draws what as many scalar calls draw: checked once a process)."""
        if size is not None:
            return self._many(n, size)
        if n == 1:
            return 0  # numpy returns the offset without drawing
        if self._pending:  # `_next`, written out: the most frequent call of the draws that use this
            self._pending = False
            m = self._last * n
        else:
            raw = self._raw()
            self._last, self._pending = raw >> 32, True
            m = (raw & _MASK) * n
        if m & _MASK < n:  # Lemire's rejection, taken with probability < n / 2**32
            threshold = (2**32 - n) % n
            while m & _MASK < threshold:
                m = self._next() * n
        return m >> 32

    def integer_list(self, n: int, size: int) -> list[int]:
        """`integers(n, size=size).tolist()`, with no array made where numpy draws an array as it draws scalars."""
        if size >= 0 and _arrays_as_scalars():
            return [self.integers(n) for _ in range(size)]
        return self._many(n, size).tolist()

    def _many(self, n: int, size: int) -> Any:
        import numpy as np

        if size >= 0 and _arrays_as_scalars():  # a negative size: numpy's own error
            return np.array([self.integers(n) for _ in range(size)], dtype=np.int64)
        return self._by_generator(lambda rng: rng.integers(n, size=size))

    def random(self) -> float:
        """A uniform float in [0, 1) (numpy's `Generator.random()`)."""
        return (self._raw() >> 11) * _UNIT

    def permutation(self, n: int) -> list[int]:
        """numpy's `Generator.permutation(n)` as a list: arange(n) shuffled from the last index down, index i
        swapped with one drawn in [0, i] by masking the 32-bit stream to i's bits and rejecting values above i
        (numpy's `random_interval`). Where this numpy shuffles otherwise (checked once a process) the generator
        draws it, synced before and read back after."""
        if self.exact and _shuffles_as_numpy():
            return self._shuffled(n)
        return self._by_generator(lambda rng: permutation(n, rng))

    def _by_generator(self, draw: Any) -> Any:
        """`draw(rng)` made by the generator itself, its 32-bit buffer synced before and read back after."""
        if not self.exact:
            return draw(self._rng)
        self._sync()
        out = draw(self._rng)
        self._load(self._rng.bit_generator.state)
        return out

    def _shuffled(self, n: int) -> list[int]:
        """numpy's shuffle of range(n) on the 32-bit stream (`permutation`, of an exact `Draws`). Outputs are read
        in blocks of those numpy would read in any case: at index i with no half pending, i values are still to
        come, from at least ceil(i / 2) outputs."""
        out = list(range(n))
        pending, last = self._pending, self._last
        block: list[int] = []
        at = 0
        for i in range(n - 1, 0, -1):
            mask = (1 << i.bit_length()) - 1
            while True:
                if pending:
                    pending, j = False, last & mask
                else:
                    if at == len(block):
                        block, at = self._raw((i + 1) // 2).tolist(), 0
                    value = block[at]
                    at += 1
                    last, pending, j = value >> 32, True, value & mask  # mask < 2**32: the low half's bits
                if j <= i:
                    break
            out[i], out[j] = out[j], out[i]
        self._pending, self._last = pending, last
        return out

    def _load(self, state: dict[str, Any]) -> None:
        # numpy's buffer: a high half waiting to be used (`has_uint32`) and the last one buffered (`uinteger`)
        self._pending = self._pending0 = state["has_uint32"] == 1
        self._last = self._last0 = state["uinteger"]

    def _sync(self) -> None:
        """Write the buffer back into the generator if it changed."""
        if (self._pending, self._last) == (self._pending0, self._last0):
            return
        state = self._rng.bit_generator.state
        state["has_uint32"], state["uinteger"] = int(self._pending), self._last
        self._rng.bit_generator.state = state
        self._load(state)

    def close(self) -> None:
        """Leave the generator where `integers` calls of numpy would have: it has advanced by the outputs read;
        its buffer (whether a half is waiting, and the last half buffered) is written back if it changed."""
        if not self.exact or self._rng is None:
            return
        self._sync()
        self._rng = None  # type: ignore[assignment]

    def __enter__(self) -> Draws:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@functools.cache
def _shuffles_as_numpy() -> bool:
    """Whether `Draws.permutation` gives this numpy's permutations and leaves its generator as they do (numpy's
    shuffle is not part of its API), a half of the 32-bit stream pending or not."""
    import numpy as np

    for n in (2, 3, 17, 200, 1000):
        for pending in (False, True):
            ours, theirs = np.random.default_rng(n), np.random.default_rng(n)
            if pending:
                ours.integers(3), theirs.integers(3)
            with Draws(ours) as draws:
                drawn = [draws._shuffled(n), draws.integers(1000)]
            if (drawn != [theirs.permutation(n).tolist(), theirs.integers(1000)]
                    or ours.bit_generator.state != theirs.bit_generator.state):
                return False
    return True


@functools.cache
def _arrays_as_scalars() -> bool:
    """Whether this numpy's `rng.integers(n, size=k)` draws the values and leaves the generator state of k calls of
    `rng.integers(n)` (both map the buffered 32-bit stream by Lemire's method: an implementation detail)."""
    import numpy as np

    for seed, n, size in ((1, 5, 4), (2, 36, 5), (3, 5000, 3), (4, 1, 3), (5, 2**31 + 5, 3)):
        for pending in (False, True):
            ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
            if pending:
                ours.integers(3), theirs.integers(3)
            if (ours.integers(n, size=size).tolist() != [int(theirs.integers(n)) for _ in range(size)]
                    or ours.bit_generator.state != theirs.bit_generator.state):
                return False
    return True


@functools.cache
def _shuffle_is_permutation() -> bool:
    """Whether this numpy's `rng.shuffle` of a list draws `rng.permutation`'s order (both are its Fisher-Yates shuffle
    on `random_interval`, an implementation detail, so checked once a process), generator state included."""
    import numpy as np

    for n in (1, 2, 3, 17, 200):
        ours, theirs = np.random.default_rng(n), np.random.default_rng(n)
        ours.integers(3), theirs.integers(3)  # a half of the 32-bit stream pending
        order = list(range(n))
        ours.shuffle(order)
        if order != theirs.permutation(n).tolist() or ours.bit_generator.state != theirs.bit_generator.state:
            return False
    return True


def permutation(n: int, rng: np.random.Generator) -> list[int]:
    """`rng.permutation(n).tolist()`, drawn by shuffling a list where that is the same (no array made and converted)."""
    if _shuffle_is_permutation():
        order = list(range(n))
        rng.shuffle(order)
        return order
    return rng.permutation(n).tolist()


def integer_list(rng: np.random.Generator | Draws, n: int, size: int) -> list[int]:
    """`rng.integers(n, size=size).tolist()` for a generator or a `Draws` (whose scalars then make no array)."""
    return rng.integer_list(n, size) if isinstance(rng, Draws) else rng.integers(n, size=size).tolist()


def draws_for(rng: np.random.Generator, integers_only: bool) -> Any:
    """A context manager giving what a caller draws from: a `Draws` over `rng` where it draws nothing but
    `integers(n)` and `random()` (a transform's `integer_draws`), else `rng` itself."""
    return Draws(rng) if integers_only else nullcontext(rng)


def same_state(a: Any, b: Any) -> bool:
    """Whether two bit generator states (`rng.bit_generator.state`) are equal, arrays (MT19937's key, Philox's
    counter) compared by value: a generator that drew nothing in between has the same state."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)
    if hasattr(a, "shape") or hasattr(b, "shape"):
        import numpy as np

        return bool(np.array_equal(a, b))
    return bool(a == b)
