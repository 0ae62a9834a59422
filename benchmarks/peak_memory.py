"""Peak resident memory of a `robust run`, beside its time: the mission's command (`run --bench robtest --attack
typo`, probe:minilm) at each `--limit`, for this tree and optionally an older one (issue 32, "Memory").

    python benchmarks/peak_memory.py --limit 10 25 50
    python benchmarks/peak_memory.py --limit 10 --old /path/to/old/src          # before vs after
    python benchmarks/peak_memory.py --limit 10 --old /path/to/old/src --together  # both at once (a busy machine
                                                                                   # slows them alike)

Every run is a fresh `python -m robust.cli` process on a fresh run store (the probe head stays cached in
ROBUST_CACHE), started under `nice`. Peak RSS is the kernel's high-water mark of the process (`ru_maxrss` from
`wait4`, as `/usr/bin/time -v` reports it); CPU is user + system seconds (system time counts the page faults of
memory mapped and returned); the machine's load average (`os.getloadavg`) is printed beside each row, as the
wall time means little on a shared machine (1, 5 and 15 minutes, at the end of each run). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMAND = ("run", "--bench", "robtest", "--attack", "typo")


@dataclass
class Measured:
    tree: str
    limit: int
    peak_mb: float
    user_s: float
    system_s: float
    wall_s: float
    queries: str
    load: str


def start(src: Path, limit: int, extra: list[str], home: Path) -> subprocess.Popen:
    """`robust run` in a fresh process and run store (`home`), its report written to home/out.txt."""
    env = {**os.environ, "PYTHONPATH": str(src), "ROBUST_HOME": str(home)}
    cmd = ["nice", sys.executable, "-m", "robust.cli", *COMMAND, "--limit", str(limit), *extra]
    with open(home / "out.txt", "w") as out:
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.DEVNULL)


def finish(proc: subprocess.Popen, home: Path, tree: str, limit: int, began: float) -> Measured:
    _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak RSS and CPU (Popen.wait gives neither)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{tree} --limit {limit} failed (exit {proc.returncode})")
    found = re.search(r"model_queries\W*([0-9][0-9,]*)", (home / "out.txt").read_text())
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    return Measured(tree, limit, usage.ru_maxrss / 1024, usage.ru_utime, usage.ru_stime, time.monotonic() - began,
                    found.group(1) if found else "?", load)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, nargs="+", default=[10])
    parser.add_argument("--old", type=Path, help="an older tree's src directory, measured first (or --together)")
    parser.add_argument("--together", action="store_true", help="run the old and new tree at once")
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="more `robust run` arguments")
    args = parser.parse_args()
    trees = ([("before", args.old)] if args.old else []) + [("after" if args.old else "this tree", HERE.parent / "src")]
    print("| tree | --limit | peak RSS MB | CPU s (user + system) | wall s | model queries | load average |")
    print("|---|---|---|---|---|---|---|")
    for limit in args.limit:
        with tempfile.TemporaryDirectory() as tmp:
            batches = [trees] if args.together else [[tree] for tree in trees]
            for batch in batches:
                began = time.monotonic()
                homes = [Path(tempfile.mkdtemp(dir=tmp)) for _ in batch]
                procs = [start(src, limit, args.extra, home) for (_, src), home in zip(batch, homes)]
                for (name, _), proc, home in zip(batch, procs, homes):
                    m = finish(proc, home, name, limit, began)
                    print(f"| {m.tree} | {m.limit} | {m.peak_mb:.0f} | {m.user_s + m.system_s:.0f} ({m.user_s:.0f} + "
                          f"{m.system_s:.0f}) | {m.wall_s:.0f} | {m.queries} | {m.load} |", flush=True)


if __name__ == "__main__":
    main()
