"""The options of one benchmark run, kept in the environment so pool workers and subprocesses
see the same ones (``python -m bench --jobs N --all`` sets them).

- ``$RAILBIRD_BENCH_JOBS``: worker processes for the accuracy benchmarks' corpora (default: the
  number of cores).
- ``$RAILBIRD_BENCH_ALL``: ``1`` runs every corpus at its whole size (e.g. every virtual-table
  scenario in `bench.pipeline`), not the default selection.
"""

from __future__ import annotations

import os

JOBS_ENV = "RAILBIRD_BENCH_JOBS"
ALL_ENV = "RAILBIRD_BENCH_ALL"


def jobs() -> int:
    """How many worker processes a pool uses: ``$RAILBIRD_BENCH_JOBS``, else the cores.

    Raises:
        ValueError: the variable is set but is not a positive whole number.
    """
    text = os.environ.get(JOBS_ENV, "").strip()
    if not text:
        return max(os.cpu_count() or 1, 1)
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f"${JOBS_ENV} is {text!r}: it must be a positive whole number")
    return count


def whole_corpus() -> bool:
    """Whether this run covers every corpus item (``--all``), not the default selection."""
    return os.environ.get(ALL_ENV, "").strip() not in ("", "0")
