"""What a sleep between bursts of work costs a thread's CPU on this machine (issue 32).

When a simulated GPU makes robust's thread wait (`model_busy.py` with 30 µs a text, one chunk at a time), robust's
own CPU per query rises by ~9 µs, ~25 %: the same work costs more CPU when the thread sleeps ~1.2 ms after each
batch. This reproduces that without robust: the same pure-Python burst (`--burst-us` of CPU) run `--rounds` times
back to back and `--rounds` times with a sleep after each, in alternating blocks, on a small working set (dict and
string work on a few hundred keys) and a large one (a table of `--table` entries read at random, as robust's caches
and lexicons are read). If the CPU per burst rises with the sleeps here too, the rise is the machine's (caches,
branch predictors and TLBs refilled after the CPU went idle, the sleep's own system calls), not robust's.

    python benchmarks/sleep_cost.py
    python benchmarks/sleep_cost.py --sleep-ms 0 0.1 1.2 5 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable


def small_burst(n: int) -> Callable[[], int]:
    """Dict and string work on a few hundred keys: a working set that stays in the CPU's caches."""

    def burst() -> int:
        table, total = {}, 0
        for i in range(n):
            key = str(i)
            table[key] = i * 3
            total += len(key) + table[key] % 7
        return total

    return burst


def large_burst(n: int, size: int) -> Callable[[], int]:
    """Reads of a large dict at random keys: a working set of tens of MB, as robust's caches and lexicons."""
    table = {f"word{i}": (i, str(i)) for i in range(size)}
    keys = [f"word{random.Random(i).randrange(size)}" for i in range(n * 4)]
    state = {"at": 0}

    def burst() -> int:
        at, total = state["at"], 0
        for key in keys[at: at + n]:
            total += table[key][0]
        state["at"] = (at + n) % (len(keys) - n)
        return total

    return burst


def calibrated(make: Callable[[int], Callable[[], int]], target_us: float) -> Callable[[], int]:
    """A burst of `make(n)` whose n makes it take about `target_us` of CPU."""
    n = 100
    while True:
        burst = make(n)
        burst()
        start = time.process_time()
        for _ in range(50):
            burst()
        took = (time.process_time() - start) / 50 * 1e6
        if took >= target_us * 0.9 or n > 10**7:
            return make(max(1, int(n * target_us / took)))
        n *= 2


def cpu_per_burst(burst: Callable[[], int], rounds: int, sleep_s: float, blocks: int = 20) -> tuple[float, float]:
    """CPU µs per burst without sleeps and with `sleep_s` of sleep after each, over `rounds` bursts each, in
    alternating blocks (this machine's speed drifts by tens of percent within a minute)."""
    spent = {0.0: 0.0, sleep_s: 0.0}
    for _ in range(blocks):
        for pause in spent:
            start = time.process_time()
            for _ in range(rounds // blocks):
                burst()
                if pause:
                    time.sleep(pause)
            spent[pause] += time.process_time() - start
    done = rounds // blocks * blocks
    return spent[0.0] / done * 1e6, spent[sleep_s] / done * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst-us", type=float, default=800.0, help="CPU per burst (robust's work per batch of "
                        "~40 texts at ~20 µs a text is ~800 µs)")
    parser.add_argument("--sleep-ms", type=float, nargs="+", default=[0.1, 1.2], help="sleeps after each burst")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the whole comparison (the machine drifts)")
    parser.add_argument("--table", type=int, default=500_000, help="entries of the large working set")
    args = parser.parse_args()
    if min(args.sleep_ms) < 0 or args.burst_us <= 0 or args.rounds < 20 or args.repeats < 1 or args.table < 1:
        parser.error("--sleep-ms must be >= 0, --burst-us > 0, --rounds >= 20 (20 alternating blocks), "
                     "--repeats and --table >= 1")
    bursts = {"small working set": calibrated(small_burst, args.burst_us),
              "large working set": calibrated(lambda n: large_burst(n, args.table), args.burst_us)}
    print("| working set | repeat | " + " | ".join(
        f"CPU µs a burst: no sleep → sleep {ms:g} ms (rise)" for ms in args.sleep_ms) + " |")
    print("|---|---|" + "---|" * len(args.sleep_ms))
    for name, burst in bursts.items():
        for repeat in range(1, args.repeats + 1):
            cells = []
            for ms in args.sleep_ms:
                base, slept = cpu_per_burst(burst, args.rounds, ms / 1000)
                cells.append(f"{base:.0f} → {slept:.0f} (+{slept - base:.0f}, {100 * (slept / base - 1):+.0f} %)")
            print(f"| {name} | {repeat} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
