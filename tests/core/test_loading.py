"""robust.toolkit.loading: what a transform's `warm_up` starts loads once, whichever thread asks first."""

from __future__ import annotations

import sys
import threading

import pytest

from robust.toolkit.loading import Once, import_soon


def test_a_load_begun_in_the_background_is_waited_for_not_made_twice():
    release, calls = threading.Event(), []

    def load():
        calls.append(threading.current_thread().name)
        release.wait(10)
        return object()

    once = Once("thing", load)
    assert not once.started
    once.start()
    assert once.started
    got: list[object] = []
    askers = [threading.Thread(target=lambda: got.append(once.get())) for _ in range(4)]
    for asker in askers:
        asker.start()
    release.set()
    for asker in askers:
        asker.join(10)
    assert calls == ["robust-load thing"]  # one load, in its own thread
    assert len(got) == 4 and all(g is got[0] for g in got) and once.get() is got[0]


def test_nothing_begun_loads_in_the_callers_thread():
    once = Once("thing", lambda: threading.current_thread().name)
    assert once.get() == threading.current_thread().name


def test_a_failed_load_is_said_to_its_caller_and_made_again():
    attempts = []

    def load():
        attempts.append(1)
        if len(attempts) < 3:
            raise FileNotFoundError("pipeline.bin")
        return "loaded"

    once = Once("thing", load)
    with pytest.raises(FileNotFoundError, match="pipeline.bin"):
        once.get()  # loaded in the caller's thread: its error raised there
    assert isinstance(once.start().exception(10), FileNotFoundError)  # a background load fails where no one waits
    assert once.get() == "loaded" and len(attempts) == 3  # neither failure is kept: the next call loads again


def test_an_import_begun_soon_is_the_callers_import(tmp_path, monkeypatch, capfd):
    (tmp_path / "slow_module_for_robust.py").write_text(
        "import time\nLOADS = getattr(__import__('builtins'), '_robust_loads', 0) + 1\n"
        "__import__('builtins')._robust_loads = LOADS\ntime.sleep(0.3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import builtins

    monkeypatch.setattr(builtins, "_robust_loads", 0, raising=False)
    import_soon("slow_module_for_robust", "no_such_module_for_robust")
    import slow_module_for_robust  # waits for the import under way (Python's import lock), not a second one

    assert slow_module_for_robust.LOADS == 1 and builtins._robust_loads == 1
    sys.modules.pop("slow_module_for_robust")
    assert "Traceback" not in capfd.readouterr().err  # the missing module is left to a caller's own import
