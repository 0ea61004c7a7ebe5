"""numpy's summation order in compiled loops: a sum or mean taken in a loop is bit for bit the
array expression's it replaced (numpy sums in blocks of up to 128 with eight running sums, and
halves longer runs)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def pairwise_sum(values: np.ndarray, start: int, n: int) -> float:
    """numpy's pairwise sum of ``values[start:start + n]``: blocks of up to 128 summed with
    eight running sums, larger runs split in halves (a multiple of eight first), left plus
    right. Without recursion (numba cannot cache a recursive function)."""
    todo_start = np.empty(64, np.int64)
    todo_n = np.empty(64, np.int64)
    todo_join = np.empty(64, np.bool_)
    sums = np.empty(64)
    top, done = 0, 0
    todo_start[0], todo_n[0], todo_join[0] = start, n, False
    top = 1
    while top:
        top -= 1
        s, m, join = todo_start[top], todo_n[top], todo_join[top]
        if join:  # both halves summed: the right one is on top
            done -= 1
            sums[done - 1] = sums[done - 1] + sums[done]
        elif m <= 128:
            sums[done] = block_sum(values, s, m)
            done += 1
        else:
            half = m // 2
            half -= half % 8
            todo_start[top], todo_n[top], todo_join[top] = s, m, True
            todo_start[top + 1], todo_n[top + 1], todo_join[top + 1] = s + half, m - half, False
            todo_start[top + 2], todo_n[top + 2], todo_join[top + 2] = s, half, False
            top += 3
    return sums[0]


@njit(cache=True, nogil=True)
def block_sum(values: np.ndarray, start: int, n: int) -> float:
    """numpy's sum of up to 128 values ``values[start:start + n]``: eight running sums, then
    pairs, then the rest."""
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    r = values[start : start + 8].copy()
    i = 8
    while i < n - n % 8:
        for j in range(8):
            r[j] += values[start + i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while i < n:
        total += values[start + i]
        i += 1
    return total
