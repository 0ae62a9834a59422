"""`--executor ray`: a run's work items computed by a pool of Ray actors, its records committed by the driver.

Each actor rebuilds the run from its stored configuration once (`Runner.build` + `Runner.plan`: one model
load per actor) and then computes tasks of item ids, yielding every chunk's records as soon as it is done.
The driver commits each chunk in one transaction (`on_done`), so:

- a worker killed mid-task loses nothing that reached the driver; Ray restarts it and replays the task, and
  a chunk that arrives twice is dropped by item id (the store also ignores an id it already holds);
- a driver killed mid-run leaves every committed chunk in the store, and `robust run --resume` (with this
  executor or in-process) computes only the rest.

Ray is imported only when this executor is created: `pip install 'robust[ray]'`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from typing import Any

from robust.core.errors import RobustError
from robust.core.executor import Job, OnDone, check_records, chunked
from robust.core.interfaces import WorkItem

INSTALL = "--executor ray needs Ray: pip install 'robust[ray]' (Ray 2.x)"
#: variables the workers need to rebuild a run as the driver would (plugins, caches, offline switches)
FORWARDED = ("PYTHONPATH", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HOME", "TOKENIZERS_PARALLELISM")
TASKS_PER_WORKER = 4  # enough tasks to balance the load between workers
MAX_CHUNKS_PER_TASK = 16  # a task's chunks stream back one by one, so this only bounds replay after a crash


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RobustError(INSTALL) from None
    return ray


def forwarded_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("ROBUST_") or k in FORWARDED}


class Worker:
    """One actor: the run rebuilt from its stored config (the model loads on first use, once), then chunks."""

    def __init__(self, config: dict[str, Any], run_id: str) -> None:
        self.error: Exception | None = None
        try:
            from robust.core.plugins import get_registry
            from robust.core.runner import RunConfig, Runner

            runner = Runner(get_registry(), None)  # type: ignore[arg-type]  # config.out is set: no store needed
            self.bench, self.ctx = runner.build(RunConfig.from_json(config), run_id)
            self.items = {item.id: item for item in runner.plan(self.bench, self.ctx)}
        except Exception as exc:  # raised by ready(), so the driver fails with the cause, not a dead actor
            self.error = exc

    def ready(self) -> int:
        if self.error is not None:
            raise self.error
        return os.getpid()

    def run(self, chunks: list[list[str]]) -> Iterator[tuple[list[str], list[dict[str, Any]], int, int]]:
        """(item ids, records, model queries, this process's id) for each chunk, as each finishes."""
        for ids in chunks:
            missing = [i for i in ids if i not in self.items]
            if missing:
                raise RuntimeError(f"item {missing[0]!r} is not among the items the worker planned: "
                                   f"benchmark {self.bench.name!r} does not list its items deterministically")
            chunk = [self.items[i] for i in ids]
            before = self.ctx.model.queries if self.ctx.model else 0
            records = self.bench.run_batch(chunk, self.ctx)
            check_records(chunk, records)
            yield ids, records, (self.ctx.model.queries if self.ctx.model else 0) - before, os.getpid()


class RayExecutor:
    """Runs chunks on a pool of Ray actors: on the cluster at `address` (`auto`: the running one), else on a
    local Ray started for the run (and stopped after it)."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None,
                 gpus_per_worker: float | None = None, chunks_per_task: int | None = None,
                 retries: int = 3, in_flight: int = 2) -> None:
        self.ray = import_ray()
        if workers is not None and workers < 1:
            raise RobustError(f"--workers must be at least 1, not {workers}")
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

    # connecting -------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _connected(self) -> Iterator[None]:
        """Ray initialised for the run: joined at `address`, or started locally and shut down afterwards."""
        ray = self.ray
        if ray.is_initialized():
            yield
            return
        keep = signal.getsignal(signal.SIGTERM)  # ray.init replaces it; the runner's marks a run `interrupted`
        try:
            ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING,
                     **({} if self.address else {"include_dashboard": False}))
        except ConnectionError as exc:
            raise RobustError(f"cannot reach a Ray cluster at {self.address!r}: {str(exc).splitlines()[0]}") from None
        finally:
            with contextlib.suppress(ValueError):  # not the main thread: nothing was replaced
                signal.signal(signal.SIGTERM, keep)
        try:
            yield
        finally:
            ray.shutdown()

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
        with self._connected():
            actors: list[Any] = []
            try:
                self._run(job, items, on_done, actors)
            finally:
                for actor in actors:
                    self.ray.kill(actor, no_restart=True)

    def _run(self, job: Job, items: Sequence[WorkItem], on_done: OnDone, actors: list[Any]) -> None:
        ray = self.ray
        chunks = [[item.id for item in chunk] for chunk in chunked(items, job.chunk_size)]
        n, gpus = self._placement(len(chunks))
        per_task = self.chunks_per_task or max(1, min(MAX_CHUNKS_PER_TASK, len(chunks) // (n * TASKS_PER_WORKER)))
        tasks = deque(chunks[i : i + per_task] for i in range(0, len(chunks), per_task))
        actor_class = ray.remote(Worker).options(
            num_cpus=1, num_gpus=gpus, max_restarts=self.retries, max_task_retries=self.retries,
            runtime_env={"env_vars": forwarded_env()})
        actors += [actor_class.remote(job.config, job.run_id) for _ in range(n)]
        starting = {actor.ready.remote(): k for k, actor in enumerate(actors)}  # tasks go to ready actors only
        ready: list[int] = []
        queued: Counter[int] = Counter()  # tasks queued per actor
        streams: dict[Any, int] = {}  # a task's stream of chunks -> its actor
        by_id = {item.id: item for item in items}
        committed: set[str] = set()

        def fill() -> None:
            """Up to `in_flight` tasks queued on each ready actor (so none waits for the driver), keeping a task
            for each actor still starting."""
            for depth in range(self.in_flight):  # idle actors first
                for k in ready:
                    if tasks and queued[k] == depth and (depth == 0 or len(tasks) > len(starting)):
                        # back-pressure: a worker pauses when `in_flight` chunks wait for the driver's commits
                        method = actors[k].run.options(_generator_backpressure_num_objects=self.in_flight)
                        streams[method.remote(tasks.popleft())] = k
                        queued[k] += 1

        while streams or (tasks and starting):
            ref = ray.wait([*starting, *streams], num_returns=1)[0][0]
            if ref in starting:
                ready.append(starting.pop(ref))
                self.pids.append(self._get(ref, job))
                fill()
                continue
            try:
                chunk_ref = next(ref)
            except StopIteration:
                queued[streams.pop(ref)] -= 1
                fill()
                continue
            ids, records, queries, pid = self._get(chunk_ref, job)
            self.chunks_by_pid[pid] += 1
            fresh = [(i, rec) for i, rec in zip(ids, records) if i not in committed]  # a replayed chunk
            if fresh:
                on_done([by_id[i] for i, _ in fresh], [rec for _, rec in fresh], queries)
                committed.update(i for i, _ in fresh)

    def _get(self, ref: Any, job: Job) -> Any:
        """A worker's result; its exception as the driver would have raised it; a worker that kept dying as
        one line saying how to continue."""
        from ray.exceptions import RayActorError, RayTaskError

        try:
            return self.ray.get(ref)
        except RayTaskError as exc:
            raise exc.cause if isinstance(exc.cause, Exception) else exc from None
        except RayActorError as exc:
            cause = (str(exc).strip().splitlines() or ["no cause given"])[0]
            raise RobustError(f"a Ray worker died ({cause}) and {self.retries} restart(s) did not help; the finished "
                              f"records are stored: continue with `robust run --resume {job.run_id}`") from None
