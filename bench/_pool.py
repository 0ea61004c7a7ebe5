"""Independent corpus items over the machine's cores, for the accuracy benchmarks.

An accuracy benchmark measures how right railbird is, not how fast: its corpus items (a
scenario to render and detect, a shot to track and score) are independent, so they run in a
pool of worker processes, one per core. Each worker runs OpenCV on one thread, so the pool
never asks for more cores than it has. Timing benchmarks never use this: they run alone, in
one process (see `bench._harness`).

Workers are started by a fork server (or spawned), so the function and items must be picklable
and the function importable (module level), and a ``__main__`` module must guard its work with
``if __name__ == "__main__"``.

A figure that is a speed (milliseconds per frame) may still come from a pool item when it is
the item's own CPU time (``time.process_time`` in the worker): that is what the item cost,
whatever else ran. Wall time inside a pool is not a speed.

The number of workers is ``$RAILBIRD_BENCH_JOBS`` when set (``python -m bench --jobs N`` sets
it), else the number of cores; with one worker, items run in this process, in order.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from bench._options import jobs

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Done(Generic[R]):
    """One item's result and what it cost the worker that ran it.

    Attributes:
        value: What the function returned.
        cpu_s: The worker's CPU seconds for this item (its own cost, whatever else ran).
    """

    value: R
    cpu_s: float


def parallel_map(
    fn: Callable[[T], R],
    items: Sequence[T],
    *,
    workers: int | None = None,
    cost: Callable[[T], float] | None = None,
) -> list[Done[R]]:
    """``fn(item)`` for every item, over a pool of processes; results in the items' order.

    Args:
        fn: A module-level function (workers receive it by pickling).
        items: Its arguments, each picklable.
        workers: Pool size (default `jobs()`); 1 runs every item here, in order.
        cost: An estimate of each item's cost: the dearest are started first, so the last
            item to finish is a cheap one and the cores stay busy to the end.

    Returns:
        One `Done` per item, in the order of ``items``.

    Raises:
        Exception: what ``fn`` raised for an item, as it was raised (the items not started
            yet are dropped).
    """
    workers = min(workers or jobs(), len(items)) or 1
    order = list(range(len(items)))
    if cost is not None:
        order.sort(key=lambda k: -cost(items[k]))
    if workers == 1:
        return [_timed(fn, item) for item in items]
    results: list[Done[R] | None] = [None] * len(items)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_context(),
        initializer=_worker_init,
        initargs=(_bench_environment(),),
    )
    try:
        futures = {k: pool.submit(_timed, fn, items[k]) for k in order}
        for k, future in futures.items():
            results[k] = future.result()
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)  # one failure: do not wait for the rest
        raise
    pool.shutdown(wait=True)
    done = [r for r in results if r is not None]
    _worker_cpu[0] += sum(d.cpu_s for d in done)
    return done


_worker_cpu = [0.0]


def worker_cpu_seconds() -> float:
    """CPU seconds the pools' workers have spent on items so far in this process (workers
    are the fork server's children, so this process's own accounts never see them)."""
    return _worker_cpu[0]


@dataclass(frozen=True, slots=True)
class Task:
    """A piece of preparation: a zero-argument call (a ``functools.partial`` of a module-level
    function) that makes an input a benchmark will read from its cache.

    Attributes:
        call: What to run; its return value is dropped.
        label: What it makes, for the report.
        cost: An estimate of its cost (e.g. frames to render), to start the dearest first.
    """

    call: Callable[[], object]
    label: str
    cost: float = 1.0


def run_tasks(tasks: Sequence[Task], *, workers: int | None = None) -> list[Done[str | None]]:
    """Every task over a pool; a task that raises is reported (its error text), not raised.

    Returns:
        One `Done` per task, in order: None when it ran, else ``"TypeName: message"``.
    """
    return parallel_map(_attempt, tasks, workers=workers, cost=lambda task: task.cost)


def _attempt(task: Task) -> str | None:
    try:
        task.call()
    except Exception as exc:  # the benchmark that needs it will fail with its own error
        log.warning("preparing %s failed: %s", task.label, exc)
        return f"{type(exc).__name__}: {exc}"
    return None


def _timed(fn: Callable[[T], R], item: T) -> Done[R]:
    started = time.process_time()
    value = fn(item)
    return Done(value, time.process_time() - started)


def _bench_environment() -> dict[str, str]:
    """This run's ``RAILBIRD_*`` variables (options, cache folders) as they are now."""
    return {k: v for k, v in os.environ.items() if k.startswith("RAILBIRD_")}


def _worker_init(environment: dict[str, str]) -> None:
    # A fork server keeps the environment it started with: give each worker this run's.
    for key in [k for k in os.environ if k.startswith("RAILBIRD_")]:
        del os.environ[key]
    os.environ.update(environment)
    # Each worker has one core: OpenCV's own threads would only fight the other workers.
    import cv2

    cv2.setNumThreads(1)


def _context() -> multiprocessing.context.BaseContext:
    """Workers forked from a fresh server process, never from this one.

    Forking this process is not safe: OpenCV's and the benchmarks' threads may hold locks at
    that moment, and the copy waits on them for ever. A fork server has no such threads;
    numpy and OpenCV are imported in it once so each worker starts with them.
    """
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["numpy", "cv2"])
    return context
