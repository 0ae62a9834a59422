"""bound_heap: big buffers stay mapped and go back to the OS when freed, where glibc's default would keep them in
the heap once a large mapping has been freed (its threshold rises to that size)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys, numpy as np
from robust.toolkit.heap import bound_heap
if sys.argv[1] == "bound":
    assert bound_heap()
def rss(): return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
big = np.ones(2**21); del big          # a 16 MiB mapping freed: glibc raises its threshold to 16 MiB
before = rss()
held = [np.ones(2**17) for _ in range(200)]   # 200 buffers of 1 MiB
del held[:199]                         # all but the last freed (the last pins the heap's top)
print(rss() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator (Linux)")
def test_freed_buffers_return_to_the_os_with_the_threshold_bound(monkeypatch):
    def left(mode: str) -> float:
        out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True)
        return float(out.stdout)

    assert left("bound") < 20  # MiB still resident after freeing 199 of 200 MiB
    assert left("default") > 150  # negative control: glibc's raised threshold keeps them in the heap
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "65536")
    from robust.toolkit import heap

    monkeypatch.setattr(heap, "_done", False)
    assert heap.bound_heap() is False  # the user's own setting is left alone
