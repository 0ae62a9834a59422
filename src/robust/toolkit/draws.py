"""Many small random integers at C speed, with exactly the values and the generator state of one
`rng.integers(n)` call per draw.

`Generator.integers(n)` costs about 1.5 µs of Python call overhead per scalar, more than a typo edit itself. A
`Draws` block reads the bit generator's 32-bit stream in one `random_raw` call and maps it to [0, n) as numpy
does: Lemire's nearly divisionless method (D. Lemire, "Fast Random Integer Generation in an Interval", ACM TOMACS
29(1), 2019, Algorithm 5; numpy's `buffered_bounded_lemire_uint32`), the stream being each 64-bit output's low
half then its high half (numpy's `next_uint32`). On `close` the generator is put where the scalar calls would have
left it, so whatever draws next (a permutation, the next example) sees the same stream.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

_MASK = 0xFFFFFFFF


class Draws:
    """`draws.integers(n)` == `rng.integers(n)` for 1 <= n <= 2**32, read ahead `size` at a time. Use as a
    context manager (or call `close`): the generator is synced on exit. Generators whose state has no 32-bit
    buffer (MT19937) are served by `rng.integers` directly."""

    def __init__(self, rng: np.random.Generator, size: int = 64) -> None:
        self._rng, self._size = rng, max(1, size)
        self._saved: dict[str, Any] = rng.bit_generator.state
        self.exact = "has_uint32" in self._saved
        if not self.exact:
            self.integers = lambda n: int(rng.integers(n))  # type: ignore[method-assign]
        self._stream: list[int] = [self._saved["uinteger"]] if self.exact and self._saved["has_uint32"] else []
        self._left = iter(self._stream)

    def integers(self, n: int) -> int:
        """A uniform integer in [0, n) (numpy's `Generator.integers(n)` for an int n)."""
        if n == 1:
            return 0  # numpy returns the offset without drawing
        u = next(self._left, None)
        m = (self._refill() if u is None else u) * n
        if m & _MASK < n:  # Lemire's rejection, taken with probability < n / 2**32
            threshold = (2**32 - n) % n
            while m & _MASK < threshold:
                u = next(self._left, None)
                m = (self._refill() if u is None else u) * n
        return m >> 32

    def _refill(self) -> int:
        """The next `size` 64-bit outputs appended as their 32-bit halves; returns the first new half."""

        used = self._used()
        raw = self._rng.bit_generator.random_raw(self._size)
        self._stream += raw.astype("<u8").view("<u4").tolist()  # each output's low half, then its high half
        self._left = iter(self._stream[used + 1:])
        return self._stream[used]

    def _used(self) -> int:
        return len(self._stream) - operator.length_hint(self._left)

    def close(self) -> None:
        """Leave the generator where `integers` calls of numpy would have: restore, then consume what was used."""
        if not self.exact or self._rng is None:
            return
        import numpy as np

        used = self._used()
        self._rng.bit_generator.state = self._saved
        if used:
            self._rng.integers(0, 2**32, size=used, dtype=np.uint32)  # numpy's next_uint32, `used` times
        self._rng = None  # type: ignore[assignment]

    def __enter__(self) -> Draws:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
