"""How well the progress ETA predicts a run's end (issue 34).

Record: runs one `robust run` in a fresh process whose `Estimate` logs its work list (item kind and expected
cost) and, at every finished chunk, the time and the items; the schedule goes to a JSON file. Replay: feeds a
schedule to the `Estimate` of the code on the path, under a fake clock, and prints, every `--every` seconds of
the run, elapsed, ETA and (elapsed + ETA) / real total (1.00 is a perfect estimate; within [0.67, 1.5] is
within 1.5x). Replaying one schedule with two versions of the code compares their estimators on the very same
run, whatever the machine's load did to it. A recording also notes the run's peak resident memory.

    python benchmarks/eta_calibration.py --record run.json                 # the mission's command, --limit 12
    python benchmarks/eta_calibration.py --record run.json --limit 0       # the full quick preset
    python benchmarks/eta_calibration.py --replay run.json                 # this code's estimator on it
    python benchmarks/eta_calibration.py --replay run.json --unweighted    # without RobTest's length weights
    PYTHONPATH=OLD/src python benchmarks/eta_calibration.py --replay run.json   # another version's
    python benchmarks/eta_calibration.py --replay old.json --interleave    # a recording of an older order, replayed
                                                                           # in the interleaved one
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: the mission's command (the quick preset, 50 examples) on a quiet machine: 14:33 (issue 34)
MISSION_SECONDS = 873.0


def child(schedule: str, argv: list[str]) -> None:
    """Run the CLI in this process with its progress logging the schedule (every item's kind and expected cost,
    and, at every finished chunk, the time, the items, the model's query count and the seconds spent in the model's
    `classify` so far); write it at exit. RobTest's
    items also get the cost of the formula before issue 34 (`old_cost`) and their example's length weight
    (`weight`), to replay the estimators before."""
    import atexit

    from robust.core.interfaces import ModelAdapter
    from robust.engine import progress
    from robust.plugins.benchmarks.robtest.benchmark import RobTest

    log: dict[str, Any] = {"todo": {}, "done": 0, "total": 0, "events": [], "old_cost": {}, "weight": {}, "end": 0.0}
    init, advance, cost = progress.RunProgress.__init__, progress.RunProgress.advance, RobTest.item_cost
    classify = ModelAdapter.classify
    start, model_seconds = [0.0], [0.0]

    def timed_classify(self, texts):
        began = time.monotonic()
        try:
            return classify(self, texts)
        finally:
            model_seconds[0] += time.monotonic() - began

    def logged_init(self, title, estimate, queries, *args, **kw):
        log.update(total=estimate.total, done=estimate.done, todo={k: list(v) for k, v in estimate.todo.items()})
        start[0] = time.monotonic()
        init(self, title, estimate, queries, *args, **kw)

    def logged_advance(self, ids):
        ids = list(ids)
        advance(self, ids)
        log["events"].append([time.monotonic() - start[0], ids, self.queries() - self.base_queries,
                              model_seconds[0]])

    def logged_cost(self, item):
        cell = item.payload
        old = 1.0 if cell.kind == "clean" else float(self._size("aug_num")) if cell.kind in ("rule", "augment") \
            else len(self.examples[cell.example].text.split()) * (1 + 40 * cell.degree)
        log["old_cost"][item.id] = old
        log["weight"][item.id] = self.length_weights[cell.example]
        return cost(self, item)

    progress.RunProgress.__init__, progress.RunProgress.advance = logged_init, logged_advance
    ModelAdapter.classify = timed_classify
    RobTest.item_cost = logged_cost

    def write() -> None:
        from peak import peak_rss_mb

        log["end"] = log["events"][-1][0] if log["events"] else 0.0
        log["peak_rss_mb"] = peak_rss_mb()  # the whole run's
        Path(schedule).write_text(json.dumps(log))

    atexit.register(write)
    from robust.cli import main

    sys.argv = ["robust", *argv]
    main()


def record(args: argparse.Namespace) -> None:
    command = ["run", "--bench", args.bench, "--attack", args.attack, "--quiet"]
    command += ["--model", args.model] if args.model else []
    command += ["--limit", str(args.limit)] if args.limit else []
    env = {**os.environ, "ROBUST_HOME": os.environ.get("ROBUST_HOME") or tempfile.mkdtemp(prefix="robust-eta-")}
    start = time.monotonic()
    proc = subprocess.run([sys.executable, __file__, "--child", str(args.record), "--", *command], env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"the run failed: {proc.stderr.strip().splitlines()[-3:]}")
    log = json.loads(Path(args.record).read_text())
    print(f"robust {' '.join(command)}: {len(log['todo'])} items in {log['end']:.0f} s of computing "
          f"({time.monotonic() - start:.0f} s with start-up), peak RSS {log['peak_rss_mb']:.0f} MB; "
          f"schedule in {args.record}")


class Clock:
    """A stand-in for the `time` module whose monotonic() is set by the replay."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def interleaved(log: dict[str, Any]) -> list[list[Any]]:
    """The recorded work in the order of a run that interleaves its kinds (`interleave`, on RobTest's items, one
    example's items of a kind a group), cut into chunks by the executor's `ChunkSizer`: each item takes its
    share of its recorded chunk's seconds and model queries (by expected cost). An approximation of that run: a
    recorded chunk's seconds are split by the guess, and the machine's load over time moves with the items."""
    from robust.engine.executor import ChunkSizer
    from robust.engine.progress import interleave

    todo = log["todo"]
    seconds: dict[str, float] = {}
    queries: dict[str, float] = {}
    at, made = 0.0, 0
    for event in log["events"]:
        cost = sum(todo[i][1] for i in event[1]) or 1.0
        for i in event[1]:
            seconds[i] = (event[0] - at) * todo[i][1] / cost
            queries[i] = (event[2] - made) * todo[i][1] / cost
        at, made = event[0], event[2]
    example = {i: i.rsplit("/", 1)[1] for i in todo}
    order = interleave([i for i in todo if i in seconds], lambda i: todo[i][0], lambda i: todo[i][1],
                       lambda i: f"{todo[i][0]}/{example[i]}")
    sizer, out, start, at, made = ChunkSizer(56, 2.0), [], 0, 0.0, 0.0
    while start < len(order):
        chunk = order[start : start + sizer.size]
        took = sum(seconds[i] for i in chunk)
        sizer.observe(len(chunk), took)
        at, made = at + took, made + sum(queries[i] for i in chunk)
        out.append([at, chunk, round(made)])
        start += len(chunk)
    return out


def replay(path: Path, every: float, old_costs: bool = False, reorder: bool = False,
           unweighted: bool = False) -> list[tuple[float, float | None, float | None]]:
    """(elapsed, ETA, (elapsed + ETA) / total) every `every` seconds of the recorded run; `old_costs`: RobTest's
    item costs before issue 34; `unweighted`: its costs without the examples' length weights (before the
    nineteenth pass of docs/performance/own-cost.md); `reorder`: its work in the order of a run that interleaves its
    kinds (`interleaved`), for a schedule recorded before. An estimator whose `advance` takes no query count (before
    issue 34) gets none."""
    import inspect

    from robust.engine import progress

    log = json.loads(path.read_text())
    if reorder:
        log["events"] = interleaved(log)
    weight = log.get("weight", {}) if unweighted else {}
    todo = {k: (kind, log["old_cost"].get(k, cost) if old_costs else cost / weight.get(k, 1.0))
            for k, (kind, cost) in log["todo"].items()}
    counts = "queries" in inspect.signature(progress.Estimate.advance).parameters
    clock, real = Clock(), progress.time
    progress.time = clock  # type: ignore[assignment] - the estimator reads time.monotonic()
    try:
        estimate = progress.Estimate(log["total"], log["done"], todo)
        total, rows, events, t, queried = log["end"], [], list(log["events"]), every, 0
        while t < total:
            while events and events[0][0] <= t:
                at, ids, queries = events.pop(0)[:3]
                clock.now = at
                if counts:
                    estimate.advance(ids, queries - queried)
                else:
                    estimate.advance(ids)
                queried = queries
            clock.now = t
            eta = estimate.eta
            rows.append((t, eta, None if eta is None else (t + eta) / total))
            t += every
    finally:
        progress.time = real
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", type=Path, help="run the command and write its schedule here")
    parser.add_argument("--replay", type=Path, help="replay a schedule with this code's estimator")
    parser.add_argument("--bench", default="robtest")
    parser.add_argument("--attack", default="typo")
    parser.add_argument("--model", default=None, help="default: the benchmark's default (probe:minilm)")
    parser.add_argument("--limit", type=int, default=12, help="examples (0: the preset's size)")
    parser.add_argument("--every", type=float, default=15.0, help="seconds between replayed progress lines")
    parser.add_argument("--old-costs", action="store_true", help="replay with RobTest's item costs before issue 34")
    parser.add_argument("--interleave", action="store_true",
                        help="replay the recorded work in the order of a run interleaving its kinds (for a schedule "
                             "recorded before)")
    parser.add_argument("--unweighted", action="store_true",
                        help="replay with RobTest's item costs without its examples' length weights")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.child:
        child(args.child, [a for a in rest if a != "--"])
        return
    if args.record:
        record(args)
    if args.replay:
        rows = replay(args.replay, args.every, args.old_costs, args.interleave, args.unweighted)
        total = json.loads(args.replay.read_text())["end"]
        print(f"| elapsed | ETA | (elapsed + ETA) / total ({total:.0f} s) |\n|---|---|---|")
        for t, eta, ratio in rows:
            print(f"| {t:.0f} s | {'-' if eta is None else f'{eta:.0f} s'} | "
                  f"{'-' if ratio is None else f'{ratio:.2f}'} |")
        for since, what in ((60.0, "the first minute"),
                            (total * 60 / MISSION_SECONDS, "the share of the run a minute is of the mission's")):
            late = [r for t, _, r in rows if r is not None and t >= since]
            worst = max((max(r, 1 / r) for r in late), default=float("nan"))
            print(f"worst factor from {what} ({since:.0f} s) on: {worst:.2f}x")


if __name__ == "__main__":
    main()
