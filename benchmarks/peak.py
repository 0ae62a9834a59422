"""Peak resident memory (RSS) for the benchmark scripts, in MB (MiB), to print beside their times.

A process's peak is a high-water mark: the largest RSS since the process started (or since `reset_peak_rss`).
Of several runs in one process only the first has a peak of its own (a later one shows the largest so far), so
a script that wants one peak per row runs each row in a fresh process (`run_child`). Imported as `from peak
import ...` by the scripts in this folder (run as `python benchmarks/x.py`, which puts the folder on sys.path).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

# ru_maxrss is in KiB on Linux and in bytes on macOS
_MAXRSS_PER_MB = 1024 * 1024 if sys.platform == "darwin" else 1024
_STATUS = "/proc/self/status"


def _status_mb(field: str) -> float:
    with open(_STATUS) as f:
        line = next(x for x in f if x.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM on Linux (what `reset_peak_rss` resets), else `ru_maxrss`."""
    if os.path.exists(_STATUS):
        return _status_mb("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / _MAXRSS_PER_MB


def reset_peak_rss() -> float:
    """Reset this process's peak RSS to its current RSS (Linux `clear_refs` 5) and return that RSS in MB (0 without
    /proc); elsewhere nothing is reset: the peak then includes what came before."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _status_mb("VmRSS") if os.path.exists(_STATUS) else 0.0


def children_peak_rss_mb() -> float:
    """The largest peak RSS of this process's ended and waited-for children (and their waited-for descendants):
    the maximum over them, not their sum; 0 before any has ended. Running children (e.g. Ray's workers) are
    not included."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / _MAXRSS_PER_MB


def peak_line() -> str:
    """The line a script prints at its end when its rows ran in this one process."""
    return (f"peak RSS of this process: {peak_rss_mb():.0f} MB (a high-water mark: rows after the first ran in "
            "the same process and have no peak of their own)")


@dataclass
class ChildRun:
    """A finished child process: its output, wall time, CPU (user + system) and its own peak RSS."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    peak_mb: float


def run_child(cmd: list[str], **popen) -> ChildRun:
    """Run `cmd` to its end with its output captured; its CPU and peak RSS are its own (and its waited-for
    descendants'), from `os.wait4` (as `/usr/bin/time -v` reports them), not those of earlier children."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, **popen)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return ChildRun(proc.returncode, out.read(), err.read(), wall, usage.ru_utime + usage.ru_stime,
                        usage.ru_maxrss / _MAXRSS_PER_MB)
