"""How well the progress ETA predicts a run's end (issue 34): runs one `robust run` in a fresh process with plain
progress lines every few seconds, stamps each line with the time it arrived, and prints, over the run, elapsed,
ETA, (elapsed + ETA) / real total (1.0 is a perfect estimate) and the ETA's own elapsed clock.

    python benchmarks/eta_calibration.py                         # the mission's command at --limit 12
    python benchmarks/eta_calibration.py --limit 0 --every 30    # the full quick preset (about 15 minutes idle)
    python benchmarks/eta_calibration.py --log run.log           # ... keeping the raw stamped lines

Each row is one progress line; `ratio` is within [1/1.5, 1.5] when the ETA is off by less than 1.5x.
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

LINE = re.compile(r"(?P<elapsed>[\d:]+) elapsed · ETA (?P<eta>[\d:]+|-:--)")


@dataclass(frozen=True)
class Stamp:
    at: float  # seconds since the process started, as seen here
    elapsed: float  # the run's elapsed clock, as printed
    eta: float | None


def seconds(clock: str) -> float | None:
    """`1:02:03` / `4:05` as seconds; `-:--` as None."""
    if "-" in clock:
        return None
    total = 0.0
    for part in clock.split(":"):
        total = 60 * total + int(part)
    return total


def run(command: list[str], env: dict[str, str], log: Path | None) -> tuple[list[Stamp], float]:
    """The stamped progress lines of one run and its total (its last progress line's elapsed time)."""
    start = time.monotonic()
    stamps: list[Stamp] = []
    lines: list[str] = []
    with subprocess.Popen(command, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True) as proc:
        assert proc.stderr is not None
        for raw in proc.stderr:
            at = time.monotonic() - start
            lines.append(f"{at:8.1f} {raw.rstrip()}")
            match = LINE.search(raw)
            if match:
                stamps.append(Stamp(at, seconds(match["elapsed"]) or 0.0, seconds(match["eta"])))
    if log:
        log.write_text("\n".join(lines) + "\n")
    if proc.returncode or not stamps:
        sys.exit(f"the run failed (exit {proc.returncode}):\n" + "\n".join(lines[-20:]))
    return stamps, stamps[-1].elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default="robtest")
    parser.add_argument("--attack", default="typo")
    parser.add_argument("--model", default=None, help="default: the benchmark's default (probe:minilm)")
    parser.add_argument("--limit", type=int, default=12, help="examples (0: the preset's size)")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between progress lines")
    parser.add_argument("--log", type=Path, default=None, help="write the stamped stderr here")
    args = parser.parse_args()
    command = [sys.executable, "-m", "robust.cli", "run", "--bench", args.bench, "--attack", args.attack]
    command += ["--model", args.model] if args.model else []
    command += ["--limit", str(args.limit)] if args.limit else []
    home = tempfile.mkdtemp(prefix="robust-eta-")
    env = {**os.environ, "ROBUST_HOME": os.environ.get("ROBUST_HOME", home),
           "ROBUST_PROGRESS_SECONDS": str(args.every)}
    stamps, total = run(command, env, args.log)
    print(f"$ {' '.join(command[2:])}   total {total:.0f} s")
    print(f"{'elapsed s':>9} {'ETA s':>7} {'(elapsed+ETA)/total':>20}")
    worst_after_minute = 1.0
    for s in stamps:
        if s.eta is None:
            print(f"{s.elapsed:9.0f} {'-':>7} {'-':>20}")
            continue
        ratio = (s.elapsed + s.eta) / total
        if s.elapsed >= min(60.0, total / 4):
            worst_after_minute = max(worst_after_minute, ratio, 1 / ratio if ratio else float("inf"))
        print(f"{s.elapsed:9.0f} {s.eta:7.0f} {ratio:20.2f}")
    print(f"worst factor from the first minute (or quarter of the run) on: {worst_after_minute:.2f}x")


if __name__ == "__main__":
    main()
