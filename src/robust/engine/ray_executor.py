"""`--executor ray`: a run's work items computed by a pool of Ray actors, its records committed by the driver.

Each actor rebuilds the run from its stored configuration once (`Runner.build` + `Runner.plan`: one model
load per actor) and then computes tasks of item ids, cut into chunks whose size adapts as in-process (each
expected to take about ROBUST_CHUNK_SECONDS, never more than the benchmark's `chunk_size` items; the actor
keeps its measure from task to task) and, as in-process, up to `overlap` of them at once (ROBUST_OVERLAP, else
the model's), yielding every chunk's records as soon as it is done, in any order. The driver commits
each chunk in one transaction (`on_done`), so:

- a worker killed mid-task loses nothing that reached the driver: the driver starts a new worker and queues
  the items the dead one had not delivered, so each item is committed once (and the store ignores an item
  id it already holds in any case);
- a driver killed mid-run leaves every committed chunk in the store, and `robust run --resume` (with this
  executor or in-process) computes only the rest.

Ray is imported only when this executor is created: `pip install 'robust[ray]'`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from robust.core.errors import RobustError
from robust.core.interfaces import WorkItem
from robust.engine.executor import ChunkSizer, Job, OnDone, chunked, overlap_for, run_overlapped
from robust.engine.memory import peak_memory_mb

INSTALL = "--executor ray needs Ray: pip install 'robust[ray]' (Ray 2.x)"
#: variables the workers need to rebuild a run as the driver would (plugins, caches, offline switches)
FORWARDED = ("PYTHONPATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "TOKENIZERS_PARALLELISM")
MAX_CHUNKS_PER_TASK = 16  # bounds how much one task holds back from the other workers


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RobustError(INSTALL) from None
    return ray


def forwarded_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("ROBUST_") or k in FORWARDED}


RAY_AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


def _no_opt_out_advice(record: logging.LogRecord) -> bool:
    """Drop Ray's notice that it enabled token authentication for a local cluster (its secure default), which tells
    the user how to opt out, from what robust prints; every other record of that logger passes."""
    return not record.getMessage().startswith("Token authentication is enabled for this Ray cluster")


def _check_reachable(address: str | None, timeout: float = 10.0) -> None:
    """A HOST:PORT address must accept a connection (ray.init would retry an unreachable one for minutes)."""
    host, _, port = (address or "").rpartition(":")
    if "://" in (address or "") or not host or not port.isdigit():
        return  # `auto`, a ray:// client address or none: ray.init answers quickly
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise RobustError(f"cannot reach a Ray cluster at {address!r}: {exc.strerror or exc}") from None


@dataclass
class Delivery:
    """A chunk a worker computed: its item ids and records, the model queries made since the worker's previous
    chunk, the worker's process id and its peak memory so far (MB)."""

    ids: list[str]
    records: list[dict[str, Any]]
    queries: int
    pid: int
    peak_mb: float | None


class Worker:
    """One actor: the run rebuilt from its stored config (the model loads on first use, once), then chunks of
    at most `chunk_size` items."""

    def __init__(self, config: dict[str, Any], run_id: str, chunk_size: int) -> None:
        self.error: Exception | None = None
        try:
            self.sizer = ChunkSizer(chunk_size)
            from robust.core.plugins import get_registry
            from robust.engine.runner import RunConfig, Runner

            runner = Runner(get_registry(), None)  # type: ignore[arg-type]  # config.out is set: no store needed
            self.bench, self.ctx = runner.build(RunConfig.from_json(config), run_id)
            self.items = {item.id: item for item in runner.plan(self.bench, self.ctx)}
        except Exception as exc:  # raised by ready(), so the driver fails with the cause, not a dead actor
            self.error = exc

    def ready(self) -> int:
        if self.error is not None:
            raise self.error
        return os.getpid()

    def run(self, ids: list[str]) -> Iterator[Delivery]:
        """A Delivery for each chunk of a task, as each finishes (in any order when chunks overlap)."""
        missing = [i for i in ids if i not in self.items]
        if missing:
            raise RuntimeError(f"item {missing[0]!r} is not among the items the worker planned: "
                               f"benchmark {self.bench.name!r} does not list its items deterministically")
        queries = self.ctx.model.queries if self.ctx.model else 0
        overlap = overlap_for(self.ctx.model)
        for chunk, records in run_overlapped([self.items[i] for i in ids], self._work, self.sizer, overlap):
            before, queries = queries, self.ctx.model.queries if self.ctx.model else 0
            yield Delivery([item.id for item in chunk], records, queries - before, os.getpid(), peak_memory_mb())

    def _work(self, chunk: Sequence[WorkItem]) -> list[dict[str, Any]]:
        return self.bench.run_batch(chunk, self.ctx)


class RayExecutor:
    """Runs chunks on a pool of Ray actors: on the cluster at `address` (`auto`: the running one), else on a
    local Ray started for the run (and stopped after it)."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None,
                 gpus_per_worker: float | None = None, chunks_per_task: int | None = None,
                 retries: int = 3, in_flight: int = 2) -> None:
        self.ray = import_ray()
        if workers is not None and workers < 1:
            raise RobustError(f"--workers (workers= from Python) must be at least 1, not {workers}")
        env_gpus = os.environ.get("ROBUST_RAY_GPUS_PER_WORKER")
        if gpus_per_worker is None and env_gpus:
            try:
                gpus_per_worker = float(env_gpus)
            except ValueError:
                raise RobustError(f"ROBUST_RAY_GPUS_PER_WORKER must be a number, not {env_gpus!r}") from None
        if gpus_per_worker is not None and gpus_per_worker < 0:
            raise RobustError(f"GPUs per worker must be 0 or more, not {gpus_per_worker}")
        self.address, self.workers, self.gpus_per_worker = address, workers, gpus_per_worker
        self.chunks_per_task, self.retries, self.in_flight = chunks_per_task, retries, max(1, in_flight)
        self.pids: list[int] = []  # process ids of the workers that became ready
        self.chunks_by_pid: Counter[int] = Counter()  # chunks each worker process delivered
        self.items_by_pid: Counter[int] = Counter()  # items each worker process delivered
        self.deaths = 0  # workers that died during the last run
        self._owned = False  # whether this executor initialised Ray
        if address:
            self.connect()

    # connecting -------------------------------------------------------------------------------------------
    def connect(self) -> None:
        """Join the cluster at `address`, or start a local Ray (stopped after the run), unless Ray is already
        initialised in this process. With an address this happens when the executor is made, so an unreachable
        cluster is one line before any run exists."""
        ray = self.ray
        if ray.is_initialized():
            return
        _check_reachable(self.address)
        keep = signal.getsignal(signal.SIGTERM)  # ray.init replaces it; the runner's marks a run `interrupted`
        try:
            # a local cluster gets Ray's default, token authentication, without Ray's advice to opt out of it
            logging.getLogger(RAY_AUTH_LOGGER).addFilter(_no_opt_out_advice)
            ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING,
                     **({} if self.address else {"include_dashboard": False}))
        except (ConnectionError, RuntimeError, TimeoutError) as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise RobustError(f"cannot reach a Ray cluster at {self.address!r}: {first}") from None
        finally:
            logging.getLogger(RAY_AUTH_LOGGER).removeFilter(_no_opt_out_advice)
            with contextlib.suppress(ValueError):  # not the main thread: nothing was replaced
                signal.signal(signal.SIGTERM, keep)
        self._owned = True

    def disconnect(self) -> None:
        if self._owned:
            self.ray.shutdown()
            self._owned = False

    def _placement(self, n_chunks: int) -> tuple[int, float]:
        """(workers, GPUs per worker): one GPU each when the cluster has GPUs, else one CPU each."""
        resources = self.ray.cluster_resources()
        gpus = self.gpus_per_worker
        if gpus is None:
            gpus = 1.0 if resources.get("GPU", 0) >= 1 else 0.0
        fit = int(resources.get("GPU", 0) / gpus) if gpus else int(resources.get("CPU", 1))
        return max(1, min(self.workers or fit, n_chunks)), gpus

    # running ----------------------------------------------------------------------------------------------
    def run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        if not items:
            return
        self.connect()
        try:
            pool = _Pool(self, job, items, on_done)
            try:
                pool.run()
            finally:
                for actor in pool.actors:
                    self.ray.kill(actor, no_restart=True)
        finally:
            self.disconnect()

    def _get(self, ref: Any) -> Any:
        """A worker's result, or its exception as the driver would have raised it (a dead worker's
        RayActorError passes through)."""
        from ray.exceptions import RayTaskError

        try:
            return self.ray.get(ref)
        except RayTaskError as exc:
            raise exc.cause if isinstance(exc.cause, Exception) else exc from None


class _Pool:
    """One run on the actors: tasks of consecutive blocks of `chunk_size` items go to ready actors, chunks come
    back one by one and are committed by the driver; a dead actor is replaced and the items it had not
    delivered go back to the queue."""

    def __init__(self, executor: RayExecutor, job: Job, items: Sequence[WorkItem], on_done: OnDone) -> None:
        self.ex, self.job, self.on_done = executor, job, on_done
        self.by_id = {item.id: item for item in items}
        self.blocks = deque([item.id for item in block] for block in chunked(items, job.chunk_size))
        self.size, gpus = executor._placement(len(self.blocks))
        self.actor_class = executor.ray.remote(Worker).options(
            num_cpus=1, num_gpus=gpus, max_restarts=0, runtime_env={"env_vars": forwarded_env()})
        self.actors: list[Any] = []
        self.starting: dict[Any, int] = {}  # ready() of an actor -> its index; tasks go to ready actors only
        self.ready: list[int] = []
        self.streams: dict[Any, tuple[int, list[str]]] = {}  # a task -> its actor, the item ids still to come
        executor.deaths = 0
        for _ in range(self.size):
            self.start()

    def start(self) -> None:
        self.actors.append(self.actor_class.remote(self.job.config, self.job.run_id, self.job.chunk_size))
        self.starting[self.actors[-1].ready.remote()] = len(self.actors) - 1

    def task_size(self) -> int:
        """Blocks in the next task. Guided self-scheduling: big tasks first (consecutive items share a worker's
        output cache), smaller ones as the queue drains, so workers finish together."""
        if self.ex.chunks_per_task:
            return self.ex.chunks_per_task
        return max(1, min(MAX_CHUNKS_PER_TASK, -(-len(self.blocks) // (2 * self.size))))

    def fill(self) -> None:
        """Up to `in_flight` tasks queued on each ready actor (so none waits for the driver), idle actors first,
        keeping blocks for the actors still starting."""
        in_flight = self.ex.in_flight
        queued = Counter(k for k, _ in self.streams.values())
        for depth in range(in_flight):
            for k in self.ready:
                size = min(self.task_size(), len(self.blocks))
                if size and queued[k] == depth and (depth == 0 or len(self.blocks) - size >= len(self.starting)):
                    task = [i for _ in range(size) for i in self.blocks.popleft()]
                    # back-pressure: a worker pauses when `in_flight` chunks wait for the driver's commits
                    method = self.actors[k].run.options(_generator_backpressure_num_objects=in_flight)
                    self.streams[method.remote(task)] = (k, list(task))
                    queued[k] += 1

    def died(self, k: int, exc: Exception) -> None:
        """Replace a dead actor; the items it had not delivered go to the front of the queue."""
        self.ex.deaths += 1
        if self.ex.deaths > self.ex.retries:
            cause = (str(exc).strip().splitlines() or ["no cause given"])[0]
            raise RobustError(f"a Ray worker died ({cause}); {self.ex.deaths} deaths in this run, {self.ex.retries} "
                              f"replaced: the finished records are stored, continue with "
                              f"`robust run --resume {self.job.run_id}`")
        if k in self.ready:
            self.ready.remove(k)
        for stream, (owner, rest) in list(self.streams.items()):
            if owner == k:
                self.blocks.extendleft(reversed(chunked(rest, self.job.chunk_size)))
                del self.streams[stream]
        self.ex.ray.kill(self.actors[k], no_restart=True)
        self.start()

    def run(self) -> None:
        from ray.exceptions import RayActorError

        while self.streams or (self.blocks and self.starting):
            ref = self.ex.ray.wait([*self.starting, *self.streams], num_returns=1)[0][0]
            if ref in self.starting:
                k = self.starting.pop(ref)
                try:
                    self.ex.pids.append(self.ex._get(ref))
                    self.ready.append(k)
                except RayActorError as exc:
                    self.died(k, exc)
            else:
                k, rest = self.streams[ref]
                try:
                    got: Delivery = self.ex._get(next(ref))
                except StopIteration:
                    del self.streams[ref]
                except RayActorError as exc:
                    self.died(k, exc)
                else:
                    delivered = set(got.ids)  # chunks come back in any order when a worker overlaps them
                    assert delivered <= set(rest), "a worker delivers only its task's items, each once"
                    rest[:] = [i for i in rest if i not in delivered]
                    self.ex.chunks_by_pid[got.pid] += 1
                    self.ex.items_by_pid[got.pid] += len(got.ids)
                    self.on_done([self.by_id[i] for i in got.ids], got.records, got.queries, got.peak_mb)
                    continue
            self.fill()
