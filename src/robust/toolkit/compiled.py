"""Compiled draws (numba) loaded in a thread of their own, for transforms that also draw in Python.

numba's import and a kernel's first call in a process take ~1 s (the first compile ever ~20 s, then cached on
disk), which the draws need not wait for: until the thread is done they run the Python path, whose results and
generator state are the compiled ones'. Without numba (the `fast` extra) every draw runs in Python; a numba that
does not import or compile here is said once, and every draw runs in Python as well.

The first compile must finish for numba to cache it: a process that ends sooner (a short run) leaves it to the
next one, having spent a core on it. `robust setup compiled-draws` (`compile_all`; `robust setup` and install.sh
include it) compiles every loader once, in the foreground, so that every run finds them cached.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from robust.toolkit.loading import Once


class Compiled:
    """`load()` (imports the compiled module and calls its kernels once, so that they compile), run once in a
    thread of its own at the first call (`Once`); calling this object gives its result once it is there, else None."""

    def __init__(self, what: str, load: Callable[[], Any]) -> None:
        self.what = what  # for the warning: "numba could not compile <what>"
        self._load = load
        self._once = Once(f"compile {what}", self.build)
        LOADERS.append(self)

    def __call__(self) -> Any:
        """The compiled draws once loaded, else None (still loading, or not to be had here)."""
        future = self.loading()
        return future.result() if future.done() else None

    @property
    def started(self) -> bool:
        """Whether the load has begun (`benchmarks/own_cost.py` waits for those that have, before it measures)."""
        return self._once.started

    def loading(self) -> Future:
        """The load, started at the first call (wait with `.result()`)."""
        return self._once.start()

    def build(self) -> Any:
        """`load()`, or None: without numba silently, with a numba that fails to import or compile with a warning."""
        try:
            return self._load()
        except ImportError as error:
            if error.name in ("numba", "llvmlite"):  # not installed: the `fast` extra
                return None
            failure: Exception = error
        except Exception as error:  # noqa: BLE001 - any failure of the compiler leaves the Python path, which is exact
            failure = error
        warnings.warn(f"robust: numba could not compile {self.what} ({type(failure).__name__}: {failure}); "
                      "it draws in Python, with the same results", RuntimeWarning, stacklevel=2)
        return None

    def reset(self) -> None:
        """Forget the load (tests): the next call starts another."""
        self._once.reset()


#: every loader made (one per module that draws compiled: those of the plugins imported so far)
LOADERS: list[Compiled] = []


def compile_all() -> dict[str, bool]:
    """Build every loader now, in this thread (what each compiles is then cached on disk by numba): its `what` ->
    whether it compiled (False without numba, or with one that fails here: said by `build`)."""
    return {loader.what: loader.build() is not None for loader in LOADERS}
