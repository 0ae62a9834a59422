"""Does the model wait for robust? A simulated GPU victim's busy share on a RobTest typo run (issue 32).

The victim is a naive-Bayes bag-of-words classifier (word log-odds counted once, by this script, on the MR
training split) on a simulated device, one for the whole machine, that spends `--per-text` seconds per text on
a batch while its caller sleeps with the GIL released, as a GPU kernel or a server request does. `--device`
says how the next batch gets it (`Device`): `queue` (the default) as a GPU stream or a server's request queue
does, a batch queued while the device is busy starting the moment it is free; `lock`, the model of earlier
figures, held until its caller has woken and let go. The device is shared through a file in its folder (an
`fcntl.flock`, and in `queue` mode its next-free time), so chunks computed at once in one process
(`--overlap`, ROBUST_OVERLAP) and Ray workers on one machine (`--executor ray --workers N`) all queue for it,
as processes sharing one GPU do. Each process appends a line per batch to its own stats file there (device
and held seconds, texts, its CPU and peak RSS); the busy share is their summed device seconds / wall seconds of
the whole run.

The victim reaches Ray workers by name, as any model does: this module is also the plugin. The script writes a
dist-info (`METADATA`, `entry_points.txt` under the group `robust`) into a temporary site directory, puts it
and this folder on PYTHONPATH (forwarded to Ray workers, as ROBUST_* variables are) and runs `--model
sim-gpu`, so every process builds `SimulatedGPU` through the plugin registry and loads the word log-odds from
the device's folder. Each configuration runs in a fresh process (its peak resident memory is its own):

    python benchmarks/model_busy.py                      # queue, in-process, overlap 1, 2, 4; 30 µs, 30 examples
    python benchmarks/model_busy.py --device queue lock --executor in-process ray --overlap 1 2 --workers 1 2 3
    python benchmarks/model_busy.py --overlap 1 2 --per-text 30e-6 100e-6 --limit 100 --timeline
    python benchmarks/model_busy.py --overlap 2 3 4 --warm none compiled run   # what a process's first run pays
    python benchmarks/model_busy.py --overlap 2 3 4 --load 0 1 2               # ... with a model that loads
    python benchmarks/model_busy.py --overlap 1 2 3 --launches 0 150           # ... with a GPU's kernel launches
    python benchmarks/model_busy.py --overlap 2 3 --launches 150 --load 2 --sync off on --host-turn off on

`--launches N` gives each batch's host side N tiny torch ops before it queues for the device, each of which lets
go of the GIL while torch dispatches it, as a CUDA kernel launch does (a BERT-base forward pass issues ~150-200),
with Python holding the GIL between them: a GPU forward pass's host work, which competes for the GIL with robust's
own threads (torch is then imported before the run, as a GPU model's process has it). `--host-turn on` is an
experiment on that competition: a batch's host side runs under one lock (`take_turns`), at which robust's other
threads wait, outside the GIL, at their next model call; `--sync on` makes each batch's host side first wait for
the work queued on the device, as a forward pass that reads a device tensor on the host does.

Columns: the device model, the kernel launches a batch (`--launches`), whether a batch's host side first waits for
the device (`--sync`), whether it takes turns (`--host-turn`), executor, Ray workers, overlap (chunks computed at
once per process), what the process did before the measured run (`--warm`: nothing, the compiled draws loaded, or
the same run once), the seconds the model takes to load (`--load`: its `preload` sleeps with the GIL released, as a
GPU model's weights and CUDA context load; the benchmark's preparation, and what the transforms' `warm_up` starts,
run meanwhile), the run's wall seconds (a Ray run starts Ray before, apart: *Ray start s*; its workers start within
the wall), when the device's first batch began (seconds into the run: data, model and plan before it), the device's
busy share of the wall (in brackets: of the span from the first batch to the last, which leaves out start-up), the
seconds while every process computed (from the last one's first batch to the first one's last) and the busy share
then, the share of the wall the device was held (`lock`; `queue`: the busy share), the device's idle seconds between
batches (in gaps under 2 ms and longer; in brackets, those while a batch was ready for it: the hand-off from one
caller to the next, the rest being robust's own work in every thread and process), the ms a batch held the lock
beyond its busy time (`lock`: its host compute waiting for the GIL, a sleeper woken late), model queries and queries
per wall second, texts per batch, CPU seconds of every process of the run (this one and its descendants: Ray's own
processes and its workers, sampled from /proc every 0.5 s and at each batch) per wall second and apart (this
process, the workers and what they had used by their first batch, Ray's own), robust's own CPU per query (that CPU
minus the victim's compute; the simulated device's bookkeeping, its locks and stats lines, counts as robust's), peak
RSS of this process and of the largest worker, and a digest of the stored records (equal digests: equal records).
`--timeline` prints the busy share of each second after the table.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import functools
import hashlib
import json
import math
import os
import resource
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import robust

DEVICE = "ROBUST_SIM_DEVICE"  # the simulated device's folder: weights.json, its lock file, stats-PID.txt
DEVICES: list[Device] = []  # this process's devices (their logs flushed before they are read)
HERE = Path(__file__).resolve().parent
#: what the process does before the measured run: nothing (a fresh process, as `robust run` is), load the compiled
#: draws (numba's one-time load), or the same run once (every one-time cost paid)
WARM = ("none", "compiled", "run")


#: held while a batch's host side runs (`--host-turn`); robust's threads wait for it at each model call
HOST_TURN = threading.RLock()


@functools.cache
def take_turns() -> None:
    """An experiment (`--host-turn`), once a process: every `OutputCache.map` call first waits while another thread
    runs a batch's host side (HOST_TURN), so that robust's other threads wait there, blocked outside the GIL, instead
    of taking the GIL from the launching thread at each kernel launch. Re-entrant: a model called inside a batch's
    host side passes."""
    from robust.core.batching import OutputCache

    original = OutputCache.map

    def map_(self: Any, *args: Any, **kwargs: Any) -> Any:
        with HOST_TURN:
            pass
        return original(self, *args, **kwargs)

    OutputCache.map = map_


# the victim: a plugin every process (this one, Ray's workers) builds by name ---------------------------------
class Device:
    """One simulated accelerator shared by every process on the machine, `per_text` seconds per text with the GIL
    released, a batch at a time. Two models of how the next batch gets the device:

    - `queue` (a GPU's stream, a server's request queue): a batch is queued once its host side is done (here the
      naive-Bayes compute, standing for tokenisation and kernel launches) and runs from the moment the device is
      free, while its caller sleeps (GIL released) until its results are there; the device's next-free time is
      kept under a thread lock, and with `shared` (Ray's workers) in the lock file, under an flock, so every thread
      and process queues on one device.
    - `lock`: the device is held (a thread lock, with `shared` an flock among processes too) from the host compute
      until its caller has woken up after the sleep and let go, so the next batch also waits for that thread to wake
      and take the GIL: a device no real GPU or server is, kept to compare with the figures measured with it.

    Without `shared` (one process), the device keeps its next-free time in memory and its log lines in a list: the
    file's system calls (flock, pread, pwrite, a line's write) each let go of the GIL, and the thread that did waits
    to take it back while it holds the device's lock. A device a driver runs does no such thing for its caller; those
    waits were the simulator's own, and cost a few points of busy share (twenty-second pass)."""

    def __init__(self, folder: Path, per_text: float, mode: str = "queue", launches: int = 0,
                 host_turn: bool = False, sync: bool = False, shared: bool = True) -> None:
        self.per_text, self.mode, self.lock = per_text, mode, threading.Lock()
        self.launches, self.sync, self.shared = launches, sync, shared
        self.next_free = 0.0  # without `shared`: when the device is done with the work queued on it
        self.host_side = HOST_TURN if host_turn else contextlib.nullcontext()
        if host_turn:
            take_turns()
        if launches:
            import torch

            self._tensor = torch.zeros(8)
        self.fd = os.open(folder / "lock", os.O_RDWR | os.O_CREAT)
        # the process's log, a line a batch: written at once where another process reads it meanwhile, else kept
        # (`lines`: a list's append is atomic, where a text file's buffer is not thread-safe) until `flush`
        self.log = open(folder / f"stats-{os.getpid()}.txt", "a", buffering=1)  # noqa: SIM115
        self.lines: list[str] = []
        DEVICES.append(self)

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """The device to this thread alone: the process's thread lock, then (`shared`) the machine's flock."""
        with self.lock:
            if self.shared:
                fcntl.flock(self.fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                if self.shared:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)

    def launch(self) -> None:
        """The host side of a GPU forward pass: `launches` tiny torch ops, each of which lets go of the GIL while
        torch dispatches it (as a CUDA kernel launch does), with Python between them holding it."""
        x = self._tensor if self.launches else None
        for _ in range(self.launches):
            x = x + 1

    def _free(self) -> float:
        """When the device is done with the work queued on it (time.monotonic; read under `held`)."""
        if not self.shared:
            return self.next_free
        return struct.unpack("d", os.pread(self.fd, 8, 0).ljust(8, b"\0"))[0]

    def drained(self) -> None:
        """Wait (GIL released) until the device has done the work queued on it: a forward pass that reads a
        device tensor on the host (transformers' SDPA mask check, `padding_mask.all()`) waits so at its start."""
        with self.held():
            free = self._free()
        time.sleep(max(0.0, free - time.monotonic()))

    def run(self, fn, texts: list[str]):
        arrived = time.monotonic()  # the batch reaches the device (lock: its lock; queue: its host compute)
        if self.mode == "queue":
            cpu = time.thread_time()
            with self.host_side:
                out = fn(texts)
                if self.sync:
                    self.drained()
                self.launch()
            compute, busy = time.thread_time() - cpu, self.per_text * len(texts)
            with self.held():  # only to take the device's next free span
                arrived = time.monotonic()
                began = max(arrived, self._free())
                ended = began + busy
                if self.shared:
                    os.pwrite(self.fd, struct.pack("d", ended), 0)
                else:
                    self.next_free = ended
            time.sleep(max(0.0, ended - time.monotonic()))  # the caller waits for its results
        else:
            with self.held():
                began, cpu = time.monotonic(), time.thread_time()
                out = fn(texts)
                compute = time.thread_time() - cpu
                time.sleep(self.per_text * len(texts))
                ended = time.monotonic()
            # busy: the compute plus the sleep asked for (a loaded machine wakes a sleeper late; a GPU would
            # have finished on time); held: what the lock really was held
            busy = compute + self.per_text * len(texts)
        use = resource.getrusage(resource.RUSAGE_SELF)
        cpu_s = use.ru_utime + use.ru_stime
        line = f"{began} {ended} {busy} {compute} {len(texts)} {cpu_s} {use.ru_maxrss} {arrived}\n"
        if self.shared:
            self.log.write(line)
        else:
            self.lines.append(line)
        return out

    def flush(self) -> None:
        """The lines kept so far, written to the log."""
        lines, self.lines = self.lines, []
        self.log.write("".join(lines))


class SimulatedGPU(robust.ModelAdapter):
    name = "sim-gpu"
    description = "Naive-Bayes word classifier on a simulated GPU (benchmarks/model_busy.py; needs ROBUST_SIM_DEVICE)"
    capabilities = frozenset({"classify"})
    settings = {"batch_size": robust.Setting(64, min=1),
                "per_text": robust.Setting(30e-6, min=0.0, help="device seconds per text"),
                "device": robust.Setting("queue", choices=("queue", "lock"), help="how a batch gets the device"),
                "load": robust.Setting(0.0, min=0.0, help="seconds `preload` sleeps with the GIL released, as a GPU "
                                                          "model's weights and CUDA context load"),
                "launches": robust.Setting(0, min=0, help="tiny torch ops per batch on the host, each letting go "
                                                          "of the GIL as a CUDA kernel launch does"),
                "host_turn": robust.Setting(False, help="the host side of a batch runs while robust's other threads "
                                                        "wait at their next model call (`take_turns`)"),
                "sync": robust.Setting(False, help="a batch's host side first waits for the device's queued work"),
                "shared": robust.Setting(True, help="the device is shared with other processes through its lock "
                                                    "file (Ray's workers); off: with this process's threads only")}

    def __init__(self, arg: str = "", **config) -> None:
        super().__init__(arg, **config)
        folder = Path(os.environ[DEVICE])
        weights = json.loads((folder / "weights.json").read_text())
        self.labels = weights["labels"]
        self.index = {w: i for i, w in enumerate(weights["logp"])}
        self.logp = np.array([*weights["logp"].values(), [0.0] * len(self.labels)])  # last row: unknown words
        self.device = Device(folder, float(self.config["per_text"]), self.config["device"],
                             int(self.config["launches"]), bool(self.config["host_turn"]), bool(self.config["sync"]),
                             bool(self.config["shared"]))

    def naive_bayes(self, texts: list[str]) -> np.ndarray:
        """Class probabilities: a softmax over the summed log-probabilities of each text's words (one numpy pass
        for the batch, a few µs per text: the host's share of a GPU call, not a CPU model)."""
        if not texts:
            return np.zeros((0, len(self.labels)))
        unknown, index = len(self.index), self.index
        # each text's rows, then the zero row (so none is empty), summed in order: a text's sum is its own alone
        words = [[index.get(w, unknown) for w in t.lower().split()] + [unknown] for t in texts]
        starts = np.cumsum([0] + [len(ws) for ws in words[:-1]])
        z = np.add.reduceat(self.logp[[i for ws in words for i in ws]], starts, axis=0)
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(1, keepdims=True)

    def preload(self) -> None:
        time.sleep(float(self.config["load"]))

    def _classify(self, texts):
        return list(self.device.run(self.naive_bayes, list(texts)))


@robust.hookimpl
def register_models(register):
    register(SimulatedGPU)


def dictionary_weights() -> dict:
    """Labels and per-word log-probabilities per label: naive Bayes over lower-cased words, add-one smoothing,
    MR training split."""
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    examples = robust.load_examples("mr-train", RunContext("busy", 0, None, get_registry()))
    labels = sorted({ex.label for ex in examples}, key=str)
    counts = {lab: Counter() for lab in labels}
    for ex in examples:
        counts[ex.label].update(ex.text.lower().split())
    vocab = set().union(*counts.values())
    totals = {lab: sum(c.values()) + len(vocab) for lab, c in counts.items()}
    return {"labels": labels,
            "logp": {w: [math.log((counts[lab][w] + 1) / totals[lab]) for lab in labels] for w in sorted(vocab)}}


def install_victim(site: Path) -> None:
    """This module as an installed plugin distribution in `site` (the module itself is found in HERE)."""
    dist = site / "robust_sim_gpu-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: robust-sim-gpu\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(f"[robust]\nbusy = {Path(__file__).stem}\n")


# one run, in a fresh process ---------------------------------------------------------------------------------
@dataclass
class DeviceLog:
    """The device's batches, [began, ended, busy, compute, texts, process CPU, peak RSS KB], by process id."""

    batches: dict[int, list[list[float]]]

    @classmethod
    def read(cls, folder: Path, since: float = -math.inf) -> DeviceLog:
        """The batches logged in `folder` that began at `since` or later (time.monotonic)."""
        found = {int(path.stem.split("-")[1]): [b for b in ([float(x) for x in line.split()] for line in
                                                            path.read_text().splitlines()) if b[0] >= since]
                 for path in folder.glob("stats-*.txt")}
        return cls({pid: lines for pid, lines in found.items() if lines})  # a Ray run's driver queries nothing

    def total(self, column: int) -> float:
        return sum(b[column] for lines in self.batches.values() for b in lines)

    @property
    def span(self) -> tuple[float, float]:
        """From the first batch's start to the last one's end."""
        return min(v[0][0] for v in self.batches.values()), max(v[-1][1] for v in self.batches.values())

    @property
    def steady(self) -> tuple[float, float]:
        """While every process computes: from the last process's first batch to the first process's last."""
        return max(v[0][0] for v in self.batches.values()), min(v[-1][1] for v in self.batches.values())

    def idle(self, short: float = 2e-3) -> tuple[float, float]:
        """Seconds the device stood idle between batches (from the first to the last): in gaps shorter than `short`
        and longer (`handoff` says how much of it a batch was ready)."""
        batches = sorted((b[0], b[1]) for lines in self.batches.values() for b in lines)
        gaps = [b[0] - a[1] for a, b in zip(batches, batches[1:]) if b[0] > a[1]]
        return sum(g for g in gaps if g < short), sum(g for g in gaps if g >= short)

    def handoff(self) -> float:
        """Seconds the device stood idle while a batch was ready for it (a batch had arrived at the device's lock
        and not yet begun: the hand-off from one batch's thread or process to the next one's)."""
        batches = sorted((b[0], b[1], b[7]) for lines in self.batches.values() for b in lines)
        first = math.inf  # the earliest arrival of the batches that begin from here on
        ready = [0.0] * len(batches)
        for i in range(len(batches) - 1, -1, -1):
            first = ready[i] = min(first, batches[i][2])
        return sum(max(0.0, b[0] - max(a[1], r)) for a, b, r in zip(batches, batches[1:], ready[1:]))

    def by_second(self) -> list[float]:
        """The device's busy share in each second from the first batch on (the last second: of its part)."""
        lo, hi = self.span
        spans = [(b[0], b[1], b[2] / (b[1] - b[0]) if b[1] > b[0] else 0.0)
                 for lines in self.batches.values() for b in lines]
        return [sum(max(0.0, min(s + 1, e) - max(s, b)) * f for b, e, f in spans) / (min(s + 1, hi) - s)
                for s in np.arange(lo, hi, 1.0)]

    def share(self, window: tuple[float, float]) -> float:
        """Device-busy seconds of the batches within `window` / its length."""
        lo, hi = window
        busy = sum(b[2] for lines in self.batches.values() for b in lines if lo <= b[0] and b[1] <= hi)
        return busy / (hi - lo) if hi > lo else math.nan


def one(executor: str, workers: int, overlap: int, per_text: float, limit: int, attack: str,
        device: str = "queue", warm: str = "none", load: float = 0.0, launches: int = 0,
        host_turn: bool = False, sync: bool = False) -> dict:
    """One run in this process (Ray workers as its descendants), after `warm` (WARM); its measures as a dict."""
    from peak import peak_rss_mb
    from ray_scaling import CpuMeter

    from robust.engine.evaluate import evaluate

    def run() -> Any:  # robust.engine.evaluate.Evaluation
        with tempfile.TemporaryDirectory() as home:
            return evaluate("robtest", model="sim-gpu", attack=attack, limit=limit,
                            settings={"model.per_text": per_text, "model.device": device, "model.load": load,
                                      "model.launches": launches, "model.host_turn": host_turn, "model.sync": sync,
                                      "model.shared": executor == "ray"},
                            store=Path(home) / "robust.db", executor=executor,
                            workers=workers if executor == "ray" else None)

    if launches:
        import torch  # noqa: F401 - as a GPU model's process has (imported here, not timed in the run)

    if warm == "compiled":
        from robust.core.plugins import get_registry
        from robust.toolkit.compiled import compile_all

        get_registry()  # the plugins imported, each with its compiled draws' loader
        compile_all()
    elif warm == "run":
        run()

    ray_start = 0.0
    if executor == "ray":  # started before the run (a cluster is up before runs are sent to it), timed apart
        import logging

        import ray

        began = time.perf_counter()
        ray.init(num_cpus=max(workers, os.cpu_count() or 1), include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING)
        ray_start = time.perf_counter() - began
    meter = CpuMeter(0.5)
    meter.start()
    began, start = time.perf_counter(), time.monotonic()
    measured = run()
    wall, cpu = time.perf_counter() - began, meter.stop()
    plugin = sys.modules.get(Path(__file__).stem)  # the module as the plugin registry imported it (not __main__)
    for device_ in (plugin.DEVICES if plugin else DEVICES):
        device_.flush()
    log = DeviceLog.read(Path(os.environ[DEVICE]), since=start)
    by_pid = {pid: t - meter.base.get(pid, 0.0) for pid, t in meter.last.items()}
    for pid, lines in log.batches.items():  # a worker's CPU at its last batch, if it ended before a sample
        by_pid[pid] = max(by_pid.get(pid, 0.0), lines[-1][5] - meter.base.get(pid, 0.0))
    cpu = max(cpu, sum(by_pid.values()))
    driver = by_pid.get(os.getpid(), 0.0)
    workers_cpu = sum(by_pid[pid] for pid in log.batches if pid != os.getpid())
    # a worker's CPU by its first batch: its process start, imports, the run rebuilt and planned, its first chunk
    startup = sum(lines[0][5] - meter.base.get(pid, 0.0) for pid, lines in log.batches.items() if pid != os.getpid())
    lo, hi = log.steady
    idle_short, idle_long = log.idle()
    queries, texts = measured.run.queries, log.total(4)
    rss = [int(lines[-1][6]) for pid, lines in log.batches.items() if pid != os.getpid()]
    records = hashlib.sha256(json.dumps(measured.records, sort_keys=True).encode()).hexdigest()[:10]
    return {"device": device, "executor": executor, "workers": workers if executor == "ray" else "", "overlap": overlap,
            "warm": warm, "load_s": load, "launches": launches, "host_turn": host_turn, "sync": sync,
            "per_text_us": round(per_text * 1e6), "limit": limit, "ray_start_s": round(ray_start, 2),
            "wall_s": round(wall, 2), "first_batch_s": round(log.span[0] - start, 2),
            "busy_share": round(log.total(2) / wall, 3), "span_share": round(log.share(log.span), 3),
            "steady_share": round(log.share(log.steady), 3), "steady_s": round(max(0.0, hi - lo), 2),
            "held_share": round(sum(b[1] - b[0] for v in log.batches.values() for b in v) / wall, 3),
            "idle_short_s": round(idle_short, 2), "idle_long_s": round(idle_long, 2),
            "handoff_s": round(log.handoff(), 2),
            "overshoot_ms": round(1e3 * (log.total(1) - log.total(0) - log.total(2))
                                  / sum(map(len, log.batches.values())), 2),
            "queries": queries, "queries_per_s": round(queries / wall), "device_texts": round(texts),
            "texts_per_batch": round(texts / sum(map(len, log.batches.values())), 1),
            "processes": len(log.batches), "cpu_share": round(cpu / wall, 2), "driver_cpu_s": round(driver, 2),
            "workers_cpu_s": round(workers_cpu, 2),
            "startup_cpu_s": round(startup, 2), "ray_cpu_s": round(cpu - driver - workers_cpu, 2),
            "own_cpu_us_per_query": round((cpu - log.total(3)) / queries * 1e6, 1),
            "by_second": [round(x, 2) for x in log.by_second()], "peak_rss_mb": round(peak_rss_mb()),
            "worker_rss_mb": round(max(rss, default=0) / 1024), "records": records}


# the table ---------------------------------------------------------------------------------------------------
def configurations(args: argparse.Namespace) -> list[tuple[str, int]]:
    """(executor, workers) in the order asked."""
    return [(ex, n) for ex in args.executor for n in (args.workers if ex == "ray" else [1])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executor", nargs="+", default=["in-process"], choices=("in-process", "ray"))
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3], help="Ray workers (with --executor ray)")
    parser.add_argument("--overlap", type=int, nargs="+", default=[1, 2, 4], help="chunks computed at once per process")
    parser.add_argument("--per-text", type=float, nargs="+", default=[30e-6], help="device seconds per text")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--attack", default="typo")
    parser.add_argument("--device", nargs="+", default=["queue"], choices=("queue", "lock"),
                        help="how a batch gets the simulated device (see Device)")
    parser.add_argument("--warm", nargs="+", default=["none"], choices=WARM,
                        help="what the process does before the measured run (in-process only): see WARM")
    parser.add_argument("--load", type=float, nargs="+", default=[0.0],
                        help="seconds the model takes to load (its preload sleeps, GIL released)")
    parser.add_argument("--launches", type=int, nargs="+", default=[0],
                        help="tiny torch ops a batch's host side issues, each letting go of the GIL as a CUDA "
                             "kernel launch does (a BERT-base forward pass launches ~150-200)")
    parser.add_argument("--sync", nargs="+", default=["off"], choices=("off", "on"),
                        help="a batch's host side first waits for the device's queued work (see Device.drained)")
    parser.add_argument("--host-turn", nargs="+", default=["off"], choices=("off", "on"),
                        help="an experiment: robust's threads wait at their next model call while a batch's host "
                             "side runs (see take_turns)")
    parser.add_argument("--timeline", action="store_true", help="print each run's busy share second by second")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.warm != ["none"] and "ray" in args.executor:
        parser.error("--warm warms this process, not Ray's workers: use it with --executor in-process")
    if args.one:
        print(json.dumps(one(args.executor[0], args.workers[0], args.overlap[0], args.per_text[0], args.limit,
                             args.attack, args.device[0], args.warm[0], args.load[0], args.launches[0],
                             args.host_turn == ["on"], args.sync == ["on"])))
        return
    with tempfile.TemporaryDirectory() as tmp:
        site, weights = Path(tmp) / "site", Path(tmp) / "weights.json"
        install_victim(site)
        weights.write_text(json.dumps(dictionary_weights()))
        path = os.pathsep.join(p for p in (str(site), str(HERE), os.environ.get("PYTHONPATH")) if p)
        print(HEADER)
        seconds: list[list[float]] = []
        for mode, per_text, warm, load, launches, sync, turn in (
                (m, t, w, s, n, y, h) for m in args.device for t in args.per_text for w in args.warm
                for s in args.load for n in args.launches for y in args.sync for h in args.host_turn):
            for executor, workers in configurations(args):
                for overlap in args.overlap:
                    device = Path(tempfile.mkdtemp(dir=tmp))
                    (device / "weights.json").symlink_to(weights)
                    env = {**os.environ, "PYTHONPATH": path, DEVICE: str(device), "ROBUST_OVERLAP": str(overlap)}
                    cmd = [sys.executable, __file__, "--one", "--executor", executor, "--workers", str(workers),
                           "--overlap", str(overlap), "--per-text", str(per_text), "--limit", str(args.limit),
                           "--attack", args.attack, "--device", mode, "--warm", warm, "--load", str(load),
                           "--launches", str(launches), "--sync", sync, "--host-turn", turn]
                    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
                    if out.returncode:
                        raise SystemExit(out.stderr.strip().splitlines()[-1:])
                    result = json.loads(out.stdout.strip().splitlines()[-1])
                    print(row(result), flush=True)
                    seconds.append(result["by_second"])
        if args.timeline:  # after the table, which a line between its rows would end
            print("\nThe device's busy share in each second from the first batch on, a line per row:")
            for shares in seconds:
                print("- " + " ".join(f"{x:.0%}" for x in shares))


HEADER = ("| device | launches | sync | host turn | executor | workers | overlap | before the run | model load s "
          "| device µs/text | Ray start s "
          "| wall s | first batch at s "
          "| device busy: of wall (of its span) | all processes at work: s, busy | lock held "
          "| device idle s: gaps < 2 ms / longer (with a batch ready) | held, not busy: ms a batch "
          "| queries | queries/s "
          "| texts/batch | CPU/wall, all processes "
          "| CPU s: driver / workers (by their first batch) / Ray's own | robust's own CPU µs/query "
          "| peak RSS MB (largest worker) | records |\n" + "|---" * 26 + "|")


def row(r: dict) -> str:
    cells = [r["device"], r["launches"], "on" if r["sync"] else "off", "on" if r["host_turn"] else "off",
             r["executor"], r["workers"], r["overlap"], r["warm"], r["load_s"], r["per_text_us"],
             r["ray_start_s"] or "", r["wall_s"], r["first_batch_s"],
             f"{r['busy_share']:.0%} ({r['span_share']:.0%})", f"{r['steady_s']}, {r['steady_share']:.0%}",
             f"{r['held_share']:.0%}", f"{r['idle_short_s']} / {r['idle_long_s']} ({r['handoff_s']})",
             r["overshoot_ms"],
             f"{r['queries']:,}", f"{r['queries_per_s']:,}", r["texts_per_batch"],
             r["cpu_share"],
             (f"{r['driver_cpu_s']} / {r['workers_cpu_s']} ({r['startup_cpu_s']}) / {r['ray_cpu_s']}" if r["workers"]
              else f"{r['driver_cpu_s']} / – / –"),
             r["own_cpu_us_per_query"],
             f"{r['peak_rss_mb']} ({r['worker_rss_mb']})" if r["worker_rss_mb"] else r["peak_rss_mb"], r["records"]]
    return "| " + " | ".join(map(str, cells)) + " |"


if __name__ == "__main__":
    main()
