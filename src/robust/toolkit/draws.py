"""Many small random integers (and uniforms) at C speed, with exactly the values and the generator state of one
`rng.integers(n)` (or `rng.random()`) call per draw.

`Generator.integers(n)` costs about 1.5 µs of Python call overhead per scalar, more than a typo edit itself. `Draws`
reads the bit generator's 64-bit outputs one at a time (`random_raw()`, a plain int: ~0.3 µs for two draws) and
maps them to [0, n) as numpy does: Lemire's nearly divisionless method (D. Lemire, "Fast Random Integer
Generation in an Interval", ACM TOMACS 29(1), 2019, Algorithm 5; numpy's `buffered_bounded_lemire_uint32`), the
32-bit stream being each 64-bit output's low half then its high half (numpy's `next_uint32`, whose unused high
half the generator keeps in its state). A uniform is one whole 64-bit output's top 53 bits (numpy's `next_double`
for PCG64, PCG64DXSM, SFC64 and Philox), which leaves the buffered half alone. On `close` the generator is where the
scalar calls would have left it: it has advanced by exactly the outputs read, and its buffered half is written back
when that changed.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

_MASK = 0xFFFFFFFF
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


class Draws:
    """`draws.integers(n)` == `rng.integers(n)` for 1 <= n <= 2**32, `draws.random()` == `rng.random()`. Use as a
    context manager (or call `close`): the generator is synced on exit. Generators whose state has no 32-bit
    buffer (MT19937) are served by `rng` directly."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        state: dict[str, Any] = rng.bit_generator.state
        self.exact = "has_uint32" in state
        if not self.exact:
            self.integers = lambda n: int(rng.integers(n))  # type: ignore[method-assign]
            self.random = lambda: float(rng.random())  # type: ignore[method-assign]
            return
        self._raw = rng.bit_generator.random_raw
        # numpy's buffer: a high half waiting to be used (`has_uint32`) and the last one buffered (`uinteger`)
        self._pending: bool = state["has_uint32"] == 1
        self._last: int = state["uinteger"]
        self._moved = False

    def _next(self) -> int:
        """The next value of numpy's 32-bit stream (`next_uint32`)."""
        self._moved = True
        if self._pending:
            self._pending = False
            return self._last
        raw = self._raw()
        self._last, self._pending = raw >> 32, True
        return raw & _MASK

    def integers(self, n: int) -> int:
        """A uniform integer in [0, n) (numpy's `Generator.integers(n)` for an int n)."""
        if n == 1:
            return 0  # numpy returns the offset without drawing
        m = self._next() * n
        if m & _MASK < n:  # Lemire's rejection, taken with probability < n / 2**32
            threshold = (2**32 - n) % n
            while m & _MASK < threshold:
                m = self._next() * n
        return m >> 32

    def random(self) -> float:
        """A uniform float in [0, 1) (numpy's `Generator.random()`)."""
        return (self._raw() >> 11) * _UNIT

    def close(self) -> None:
        """Leave the generator where `integers` calls of numpy would have: it has advanced by the outputs read;
        its buffer (whether a half is waiting, and the last half buffered) is written back if anything was drawn."""
        if not self.exact or self._rng is None:
            return
        rng, self._rng = self._rng, None  # type: ignore[assignment]
        if not self._moved:
            return
        state = rng.bit_generator.state
        state["has_uint32"], state["uinteger"] = int(self._pending), self._last
        rng.bit_generator.state = state

    def __enter__(self) -> Draws:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def draws_for(rng: np.random.Generator, integers_only: bool) -> Any:
    """A context manager giving what a caller draws from: a `Draws` over `rng` where it draws nothing but
    `integers(n)` and `random()` (a transform's `integer_draws`), else `rng` itself."""
    return Draws(rng) if integers_only else nullcontext(rng)
