"""Contacts that share a ball inside one frame interval, solved together.

The pair test (`BallContacts._pair_contact`) asks of each pair whether one ball's velocity
changed along their line of centres. A ball hit by two balls at once, or pinned between a ball
and a cushion, changes velocity by the sum of two impulses, along neither line: the pair test
turns both contacts down. Here every candidate contact of a group of balls linked by candidate
pairs is given a non-negative impulse along its line of centres at its touch (and every cushion
within reach a push along its normal), the impulses are fitted together to the balls' velocity
changes weighted by their noise, and a contact counts when its impulse is large and the fit
without it is clearly worse. Pure: arrays in, contacts out."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from tracking.geometry import TableCache, closest_distance, closest_time, touch_roots

SHARED_KICK_FACTOR = 2.0
"""A shared impulse counts from this many times the pair test's kick threshold: a velocity
change split among several contacts rests on every ball's velocity before being right (one
ball's stale velocity after an earlier contact gives a phantom impulse), so it needs more
margin than one pair's kick."""

WORSE_WITHOUT_CHI2 = 25.0
"""How much worse (chi-square, in noise units) the fit without a contact must be for the
contact to count: five sigmas."""


@dataclass(frozen=True, slots=True)
class Interval:
    """The balls of one frame interval (f0, f1], as parallel arrays over the same rows.

    Attributes:
        p0: (n, 2) centres at f0.
        p1: (n, 2) centres at f1.
        v_before: (n, 2) velocities coming into the interval, mm/s.
        v_out: (n, 2) velocities over the step after it, mm/s.
        noise: (n,) each ball's velocity noise over one frame, mm/s.
        dt: The interval's length, s.
    """

    p0: np.ndarray
    p1: np.ndarray
    v_before: np.ndarray
    v_out: np.ndarray
    noise: np.ndarray
    dt: float


@dataclass(frozen=True, slots=True)
class Limits:
    """What a contact must show: touching distance (diameter, tolerance, mm) and the pair
    test's kick threshold (the least velocity change, mm/s, and noise sigmas)."""

    diameter: float
    tolerance: float
    min_kick: float
    sigmas: float


def push_column(m: int, a: int, b: int, normal: np.ndarray) -> np.ndarray:
    """(2m,) the velocity change of ``m`` balls per unit impulse of ``a`` pushing ``b`` along
    ``normal`` (unit, from a to b)."""
    col = np.zeros(2 * m)
    col[2 * b : 2 * b + 2] += normal
    col[2 * a : 2 * a + 2] -= normal
    return col


def shared_contacts(
    scene: Interval,
    candidates: np.ndarray,
    found: set[tuple[int, int]],
    geo: TableCache,
    limits: Limits,
) -> list[tuple[int, int, float]]:
    """(a, b, time into the interval) of each contact the joint fit finds among
    ``candidates`` ((n, n) upper-triangular bool: pairs near enough, one of them kicked) that
    the pair test did not (``found``)."""
    out: list[tuple[int, int, float]] = []
    for members in _groups(candidates):
        edges = _touching(scene, candidates, members, limits)
        if not edges or all(e in found for e in edges):
            continue
        out += _solved(scene, members, edges, found, geo, limits)
    return out


def _groups(candidates: np.ndarray) -> list[list[int]]:
    """The groups of balls linked by candidate pairs."""
    linked = candidates | candidates.T
    groups, seen = [], set()
    for start in np.flatnonzero(linked.any(axis=1)):
        if int(start) in seen:
            continue
        group, todo = {int(start)}, [int(start)]
        while todo:
            for k in np.flatnonzero(linked[todo.pop()]):
                if int(k) not in group:
                    group.add(int(k))
                    todo.append(int(k))
        seen |= group
        groups.append(sorted(group))
    return groups


def _touching(scene: Interval, candidates, members: list[int], limits: Limits):
    """The candidate pairs of a group that come within touching distance in the interval, by
    their motion coming in or by their step across it."""
    reach = limits.diameter + limits.tolerance
    edges = []
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            if not candidates[a, b]:
                continue
            rel_p = scene.p0[b] - scene.p0[a]
            rel_v = scene.v_before[b] - scene.v_before[a]
            rel_step = (scene.p1[b] - scene.p1[a] - rel_p) / scene.dt
            close = min(
                closest_distance(rel_p, rel_v, 0.0, scene.dt),
                closest_distance(rel_p, rel_step, 0.0, scene.dt),
            )
            if close <= reach:
                edges.append((a, b))
    return edges


def _touch(scene: Interval, a: int, b: int, diameter: float) -> tuple[float, np.ndarray]:
    """When in the interval ``a`` and ``b`` touch by their motion coming in (or come closest),
    and their line of centres then (unit, from a to b)."""
    rel_p = scene.p0[b] - scene.p0[a]
    rel_v = scene.v_before[b] - scene.v_before[a]
    roots = touch_roots(rel_p, rel_v, diameter)
    tau = roots[0] if roots else closest_time(rel_p, rel_v, 0.0, scene.dt)
    tau = float(np.clip(tau, 0.0, scene.dt))
    n = rel_p + rel_v * tau
    return tau, n / max(float(np.hypot(*n)), 1e-9)


def _wall_columns(scene: Interval, members: list[int], geo: TableCache, limits: Limits):
    """A push along the normal of every cushion (nose or jaw) a member may reach in the
    interval: a ball pinned against a cushion takes its impulse too."""
    cols = []
    for i, k in enumerate(members):
        mid = scene.p0[k] + scene.v_before[k] * 0.5 * scene.dt
        along = geo.walls_along(mid)
        if not len(along):
            continue
        dist = np.einsum("wi,wi->w", mid - geo.wall_starts[along], geo.wall_normals[along])
        reach = limits.diameter / 2 + limits.tolerance
        reach += float(np.hypot(*scene.v_before[k])) * scene.dt
        for w in along[dist <= reach]:
            col = np.zeros(2 * len(members))
            col[2 * i : 2 * i + 2] = geo.wall_normals[w]
            cols.append(col)
    return cols


def _solved(scene, members, edges, found, geo, limits) -> list[tuple[int, int, float]]:
    """The contacts of one group whose shared impulse counts."""
    index = {k: i for i, k in enumerate(members)}
    m = len(members)
    touches = [_touch(scene, a, b, limits.diameter) for a, b in edges]
    cols = [
        push_column(m, index[a], index[b], normal)
        for (a, b), (_, normal) in zip(edges, touches, strict=True)
    ]
    cols += _wall_columns(scene, members, geo, limits)
    sigma = np.repeat(np.maximum(scene.noise[members], 1.0), 2)
    design = np.array(cols).T / sigma[:, None]
    change = (scene.v_out[members] - scene.v_before[members]).reshape(-1) / sigma
    impulse, residual = nnls(design, change)
    out = []
    for e, (a, b) in enumerate(edges):
        if (a, b) in found:
            continue
        kick = max(limits.min_kick, limits.sigmas * max(scene.noise[a], scene.noise[b]))
        if impulse[e] < SHARED_KICK_FACTOR * kick:
            continue
        if _worse_without(design, change, e) - residual**2 < WORSE_WITHOUT_CHI2:
            continue
        out.append((a, b, touches[e][0]))
    return out


def _worse_without(design: np.ndarray, change: np.ndarray, e: int) -> float:
    """The fit's chi-square with column ``e`` left out."""
    if design.shape[1] == 1:
        return float(change @ change)  # scipy's nnls cannot take an empty design
    rest = np.delete(design, e, axis=1)
    return math.pow(nnls(rest, change)[1], 2)
