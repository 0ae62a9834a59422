"""What a transform will need, loaded in a thread of its own while the model under test loads (`Transform.warm_up`):
a library's import, a pipeline, a helper model's weights. The draws then find it loaded instead of waiting for it
after the model has loaded, with the model's device idle.

Python's import lock makes an import begun here and the caller's own `import` one import; `Once` does the same for
anything else loaded once (the caller's `get()` waits for a load under way); a model adapter's `preload` takes its own
lock (`hf:`). What fails here is left to the caller's first use, which loads it again and says why.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class Once:
    """`load()` run once, in whichever thread asks first: `start()` begins it in a thread of its own without waiting,
    `get()` waits for it (or runs it in the caller's thread when none has begun) and returns its result or raises its
    error. A load that failed is run again by the next call."""

    def __init__(self, what: str, load: Callable[[], Any]) -> None:
        self.what = what  # the loading thread's name: "robust-load <what>"
        self._load = load
        self._future: Future | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        """Whether a load has begun (or ended with a result)."""
        return self._future is not None

    def start(self) -> Future:
        """The load, begun in a thread of its own unless one has begun (wait for it with `.result()`)."""
        future, mine = self._claim()
        if mine:
            threading.Thread(target=self._run, args=(future,), name=f"robust-load {self.what}", daemon=True).start()
        return future

    def get(self) -> Any:
        """The loaded result: the load under way waited for, or made here."""
        future, mine = self._claim()
        if mine:
            self._run(future)
        return future.result()

    def reset(self) -> None:
        """Forget the load (tests): the next call loads again."""
        with self._lock:
            self._future = None

    def _claim(self) -> tuple[Future, bool]:
        with self._lock:
            if self._future is None:
                self._future = Future()
                return self._future, True
            return self._future, False

    def _run(self, future: Future) -> None:
        try:
            future.set_result(self._load())
        except BaseException as error:  # noqa: BLE001 - given to every caller waiting, and loaded again after
            with self._lock:
                if self._future is future:
                    self._future = None
            future.set_exception(error)


def in_background(what: str, work: Callable[[], Any]) -> None:
    """`work()` in a daemon thread of its own, without waiting; an error there is dropped (the caller's own first
    use does the same work and says why it fails)."""

    def run() -> None:
        try:
            work()
        except BaseException:  # noqa: BLE001 - the first use fails again, in the caller's thread, and says why
            pass

    threading.Thread(target=run, name=f"robust-load {what}", daemon=True).start()


def import_soon(*modules: str) -> None:
    """Import `modules` in a thread of its own (an import of one of them meanwhile waits for it there)."""
    in_background(", ".join(modules), lambda: [importlib.import_module(name) for name in modules])


def preload_soon(model: Any) -> None:
    """`model.preload()` (its weights) in a thread of its own."""
    in_background(str(getattr(model, "identity", type(model).__name__)), model.preload)
