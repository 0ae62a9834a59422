"""Peak resident memory (RSS) for the benchmark scripts, in MB (MiB), to print beside their times.

A process's peak is a high-water mark: the largest RSS since the process started (or since `reset_peak_rss`).
Of several runs in one process only the first has a peak of its own (a later one shows the largest so far), so
a script that wants one peak per row runs each row in a fresh process (`run_child`). Imported as `from peak
import ...` by the scripts in this folder (run as `python benchmarks/x.py`, which puts the folder on sys.path).
"""

from __future__ import annotations

import json
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


def peak_line() -> str:
    """The line a script prints at its end when its rows ran in this one process."""
    return (f"peak RSS of this process: {peak_rss_mb():.0f} MB (its high-water mark over everything above: what "
            "ran after the first run in this process has no peak of its own)")


@dataclass
class ChildRun:
    """A finished child process: its exit code, output, wall time, CPU (user + system) and own peak RSS."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    cpu_s: float
    peak_mb: float


def run_child(cmd: list[str], **popen) -> ChildRun:
    """Run `cmd` to its end with its output captured; its wall time, CPU and peak RSS are its own.

    The kernel counts into a new process's peak the memory of the process it was started from (at its exec), so
    a child started from a large process (one that has loaded torch) would show that process's size: `cmd` is
    started from a small launcher (this file run as a script; its ~13 MB are the floor of a peak), which measures
    it with `os.wait4` (its CPU, and its peak: the largest of it and its waited-for descendants, as
    `/usr/bin/time -v` reports them). Children still running when it ends (daemons) are not counted;
    `getrusage(RUSAGE_CHILDREN)` would give the largest peak of all children ended so far (a maximum, not a sum),
    not this one's."""
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryFile("w+") as out, \
            tempfile.TemporaryFile("w+") as err:
        report = os.path.join(tmp, "usage.json")
        launcher = [sys.executable, "-I", "-S", os.path.abspath(__file__), report, *cmd]
        code = subprocess.run(launcher, stdout=out, stderr=err, text=True, **popen).returncode
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
        if not os.path.exists(report):  # the launcher itself failed (e.g. `cmd` not found)
            return ChildRun(code or 1, stdout, stderr, 0.0, 0.0, 0.0)
        with open(report) as f:
            usage = json.load(f)
        return ChildRun(usage["returncode"], stdout, stderr, usage["wall_s"], usage["cpu_s"], usage["peak_mb"])


def _launch(report: str, cmd: list[str]) -> int:
    """Run `cmd` (its output to this process's) and write its exit code, wall, CPU and peak RSS to `report`."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    with open(report, "w") as f:
        json.dump({"returncode": proc.returncode, "wall_s": time.perf_counter() - start,
                   "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / _MAXRSS_PER_MB}, f)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(_launch(sys.argv[1], sys.argv[2:]) & 0xFF)
