"""How many threads torch computes with (intra-op), chosen once per process when the first model loads; and
numpy's BLAS held at one thread for robust's own small products (`one_blas_thread`).

torch's default is the machine's physical cores, which oversubscribes a process limited to fewer CPUs (a
container's CPU quota, `taskset`, a shared CI runner). robust uses the CPUs this process may really run on:
the affinity mask, capped by a cgroup CPU quota, capped by torch's default. `ROBUST_THREADS=N` sets it
explicitly; when `OMP_NUM_THREADS` is set, torch already follows it and robust leaves it alone.
Inter-op threads are left alone: model calls are sequential, nothing runs on the inter-op pool.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_configured = False


def usable_cpus() -> int:
    """CPUs this process may run on: the affinity mask, capped by a cgroup v2/v1 CPU quota."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    quota = _cgroup_quota()
    return max(1, min(count, quota) if quota else count)


def _cgroup_quota() -> int | None:
    try:
        text = Path("/sys/fs/cgroup/cpu.max").read_text().split()
        if text and text[0] != "max":
            return math.ceil(int(text[0]) / int(text[1]))
    except (OSError, ValueError, IndexError):
        pass
    try:
        quota = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").read_text())
        period = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us").read_text())
        if quota > 0 and period > 0:
            return math.ceil(quota / period)
    except (OSError, ValueError):
        pass
    return None


def chosen_threads(default: int) -> int | None:
    """The intra-op thread count robust sets, given torch's `default`; None: leave torch's choice."""
    explicit = os.environ.get("ROBUST_THREADS", "").strip()
    if explicit:
        try:
            return max(1, int(explicit))
        except ValueError:
            from robust.core.errors import RobustError

            raise RobustError(f"ROBUST_THREADS must be a whole number, not {explicit!r}") from None
    if os.environ.get("OMP_NUM_THREADS", "").strip():
        return None
    return max(1, min(usable_cpus(), default))


def configure_threads() -> int:
    """Set torch's intra-op threads once per process (see the module docstring); returns the count in use."""
    global _configured
    import torch

    if not _configured:
        _configured = True
        n = chosen_threads(torch.get_num_threads())
        if n is not None and n != torch.get_num_threads():
            torch.set_num_threads(n)
    return torch.get_num_threads()


@functools.cache
def _blas_pools() -> Any:
    """The BLAS libraries loaded when first asked (numpy's OpenBLAS, MKL, ...), through threadpoolctl."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """numpy's BLAS computes the block on the calling thread only (~7 µs to set and restore).

    For robust's own products inside a run (a look-up table's row, computed once per character): OpenBLAS hands a
    product of a few million multiply-adds to its worker threads, which then spin-wait for more work and, with a
    product every few milliseconds, keep a core busy for the whole run (2.4 s of CPU in a 2.9 s RobTest glyph run,
    a core taken from the model under test or the chunk being prepared). On one thread the product is the same to
    the bit (OpenBLAS splits a matrix-vector product by output rows). Large one-off products (SynBench's
    eigendecompositions) keep every thread."""
    with _blas_pools().limit(limits=1):
        yield
