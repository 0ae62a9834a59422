"""A process's peak memory, recorded with each run (what it takes to compute, beside how long)."""

from __future__ import annotations

import sys


def peak_memory_mb() -> float | None:
    """This process's peak resident memory since it started, in MB (MiB): the kernel's high-water mark
    (`getrusage`'s `ru_maxrss`, KiB on Linux, bytes on macOS); None where there is none (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
