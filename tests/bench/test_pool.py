from __future__ import annotations

import functools
import os

import pytest

from bench._options import ALL_ENV, JOBS_ENV, jobs, whole_corpus
from bench._pool import Task, parallel_map, run_tasks, worker_cpu_seconds
from tests.bench.tasks import (
    append_line,
    environment_value,
    fail_on_three,
    spin,
    square_with_pid,
)


def test_parallel_map_keeps_the_items_order_and_uses_other_processes() -> None:
    done = parallel_map(square_with_pid, list(range(8)), workers=2, cost=lambda x: x % 3)
    assert [d.value[0] for d in done] == [x * x for x in range(8)]
    assert {d.value[1] for d in done} - {os.getpid()}  # ran in the workers
    assert all(d.cpu_s >= 0 for d in done)


def test_the_workers_cpu_time_is_counted() -> None:
    before = worker_cpu_seconds()
    done = parallel_map(spin, [0.05, 0.05], workers=2)
    assert all(d.cpu_s >= 0.04 for d in done)
    assert worker_cpu_seconds() - before == pytest.approx(sum(d.cpu_s for d in done))


def test_one_worker_runs_the_items_here_in_order() -> None:
    done = parallel_map(square_with_pid, [3, 1, 2], workers=1)
    assert [d.value for d in done] == [(9, os.getpid()), (1, os.getpid()), (4, os.getpid())]


def test_an_item_that_raises_raises_its_own_error() -> None:
    with pytest.raises(ValueError, match="item 3 is bad"):
        parallel_map(fail_on_three, [1, 2, 3, 4], workers=2)


def test_tasks_start_dearest_first_and_a_failed_task_is_reported_not_raised(tmp_path) -> None:
    log = tmp_path / "order.txt"
    tasks = [
        Task(functools.partial(append_line, log, "cheap"), "cheap", cost=1.0),
        Task(functools.partial(fail_on_three, 3), "broken", cost=0.5),
        Task(functools.partial(append_line, log, "dear"), "dear", cost=9.0),
    ]
    done = run_tasks(tasks, workers=1)
    assert [d.value for d in done] == [None, "ValueError: item 3 is bad", None]
    assert log.read_text().split() == ["cheap", "dear"]  # one worker: in the given order
    done = run_tasks(tasks, workers=2)
    assert done[1].value == "ValueError: item 3 is bad"
    assert sorted(log.read_text().split()) == ["cheap", "cheap", "dear", "dear"]


def test_the_workers_count_comes_from_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(JOBS_ENV, raising=False)
    assert jobs() == (os.cpu_count() or 1)
    monkeypatch.setenv(JOBS_ENV, "3")
    assert jobs() == 3
    for bad in ("0", "-1", "two"):
        monkeypatch.setenv(JOBS_ENV, bad)
        with pytest.raises(ValueError, match=f"RAILBIRD_BENCH_JOBS is '{bad}'"):
            jobs()


def test_the_whole_corpus_is_asked_for_by_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(ALL_ENV, raising=False)
    assert not whole_corpus()
    monkeypatch.setenv(ALL_ENV, "0")
    assert not whole_corpus()
    monkeypatch.setenv(ALL_ENV, "1")
    assert whole_corpus()


def test_workers_see_the_run_options_set_after_the_first_pool(monkeypatch) -> None:
    monkeypatch.setenv(ALL_ENV, "0")
    parallel_map(square_with_pid, [1, 2], workers=2)  # the fork server starts now
    monkeypatch.setenv(ALL_ENV, "1")
    monkeypatch.setenv("RAILBIRD_BENCH_CACHE", "/somewhere/else")
    done = parallel_map(environment_value, [ALL_ENV, "RAILBIRD_BENCH_CACHE"], workers=2)
    assert [d.value for d in done] == ["1", "/somewhere/else"]
