"""Contacts that share a ball inside one frame interval, solved together.

The pair test (`BallContacts._pair_contact`) asks of each pair whether one ball's velocity
changed along their line of centres. A ball hit by two balls at once, or pinned between a ball
and a cushion, changes velocity by the sum of two impulses, along neither line: the pair test
turns both contacts down. Here every candidate contact of a group of balls linked by candidate
pairs is given a non-negative impulse along its line of centres at its touch (and every cushion
within reach a push along its normal), the impulses are fitted together to the balls' velocity
changes weighted by their noise, and a contact counts when its impulse is large and the fit
without it is clearly worse. A cushion's push counts as its contact when the ball also reached
the cushion and left it inside the interval. Pure: arrays in, contacts out."""

from __future__ import annotations

import math
from collections.abc import Sequence
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

_LATE = 0.15
"""How far (a share of the interval) a touch carried along a fitted line may fall outside the
interval and still be in it: one frame's centres are a millimetre or two off."""

_PARTED_MM = 3.0
"""A gap between two balls this wide is no noise on a touch (a gap is placed to a millimetre)."""

_ORDER_SIGMAS = 2.0
"""How many of its noise sigmas (`_order_slack`) a ball may seem to leave a wall before it
reached it and still have touched it."""


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
        stale: (n,) the balls hit in the interval before, whose velocity coming in may not
            be theirs yet (None: none).
        struck: (n,) when each ball's contact with another ball already found in the
            interval struck it, s into the interval (inf: none; None: none at all).
    """

    p0: np.ndarray
    p1: np.ndarray
    v_before: np.ndarray
    v_out: np.ndarray
    noise: np.ndarray
    dt: float
    stale: np.ndarray | None = None
    struck: np.ndarray | None = None

    def parting(self, a: int, b: int, diameter: float) -> bool:
        """Whether balls ``a`` and ``b`` are clearly apart at f0 (`_PARTED_MM`) and moving
        apart as they came in, neither hit just before (its velocity in would be stale)."""
        if self.stale is not None and (self.stale[a] or self.stale[b]):
            return False
        rel_p = self.p0[b] - self.p0[a]
        rel_v = self.v_before[b] - self.v_before[a]
        return float(np.hypot(*rel_p)) > diameter + _PARTED_MM and float(rel_p @ rel_v) > 0.0


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


@dataclass(frozen=True, slots=True)
class SharedContacts:
    """What the joint fit of one interval found that the pair test had not.

    Attributes:
        pairs: (a, b, time into the interval) of each ball-ball contact.
        walls: (ball, wall, time into the interval) of each cushion contact; ``wall`` indexes
            the table's walls (`TableCache.walls`).
    """

    pairs: tuple[tuple[int, int, float], ...] = ()
    walls: tuple[tuple[int, int, float], ...] = ()


def shared_contacts(
    scene: Interval,
    candidates: np.ndarray,
    found: set[tuple[int, int]],
    geo: TableCache,
    limits: Limits,
    alone: Sequence[int] = (),
) -> SharedContacts:
    """The contacts the joint fit finds among ``candidates`` ((n, n) upper-triangular bool:
    pairs near enough, one of them kicked) that the pair test did not (``found``), and the
    cushion contacts of their balls; and those of the kicked moving balls ``alone`` that touch
    no other ball in the interval (a ball near another that comes off a cushion a frame before
    the other reaches it is alone in its rebound's interval)."""
    pairs: list[tuple[int, int, float]] = []
    walls: list[tuple[int, int, float]] = []
    touching: set[int] = set()
    for members in _groups(candidates):
        edges = _touching(scene, candidates, members, geo, limits)
        touching.update(k for edge in edges for k in edge)
        if not edges or all(e in found for e in edges):
            continue
        fit = _fitted(scene, members, edges, geo, limits)
        if fit is not None:
            hits = _pair_hits(scene, fit, edges, found, limits)
            pairs += hits
            walls += _wall_hits(scene, fit, edges, geo, limits, _strikes(scene, hits))
    for k in alone:
        if k in touching:
            continue  # judged with its group (or, all found, by the rebound test and the press)
        fit = _fitted(scene, [k], [], geo, limits)
        if fit is not None:
            walls += _wall_hits(scene, fit, [], geo, limits, _strikes(scene, []))
    return SharedContacts(tuple(pairs), tuple(walls))


def linked_to(linked: np.ndarray, start: int) -> list[int]:
    """The balls reached from ``start`` through ``linked`` ((n, n) symmetric bool) pairs, in
    order (``start`` among them)."""
    group, todo = {start}, [start]
    while todo:
        for k in np.flatnonzero(linked[todo.pop()]):
            if int(k) not in group:
                group.add(int(k))
                todo.append(int(k))
    return sorted(group)


def _groups(candidates: np.ndarray) -> list[list[int]]:
    """The groups of balls linked by candidate pairs."""
    linked = candidates | candidates.T
    groups: list[list[int]] = []
    seen: set[int] = set()
    for start in np.flatnonzero(linked.any(axis=1)):
        if int(start) not in seen:
            groups.append(linked_to(linked, int(start)))
            seen.update(groups[-1])
    return groups


def _touching(scene: Interval, candidates, members: list[int], geo: TableCache, limits: Limits):
    """The candidate pairs of a group that come within touching distance in the interval, by
    their motion coming in or by their step across it; two clearly parting as they came in
    only by a cushion turning one back (`_bounced`): the step after a contact just past the
    interval's end carries its kick, and would put it here."""
    reach = limits.diameter + limits.tolerance
    edges = []
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            if not candidates[a, b]:
                continue
            rel_p = scene.p0[b] - scene.p0[a]
            rel_v = scene.v_before[b] - scene.v_before[a]
            if scene.parting(a, b, limits.diameter):
                # Parting as they came in: only a cushion turning one back brings them together.
                if _bounced(scene, a, b, geo) is not None:
                    edges.append((a, b))
                continue
            rel_step = (scene.p1[b] - scene.p1[a] - rel_p) / scene.dt
            close = min(
                closest_distance(rel_p, rel_v, 0.0, scene.dt),
                closest_distance(rel_p, rel_step, 0.0, scene.dt),
            )
            if close <= reach:
                edges.append((a, b))
    return edges


def _bounced(scene: Interval, a: int, b: int, geo: TableCache) -> tuple[float, np.ndarray] | None:
    """`TableCache.bounced_touch` of ``a`` and ``b`` in the interval, to `_PARTED_MM`: the
    ways turned back at full speed bring them together sooner than the rebound does."""
    p0 = scene.p0[[a, b]]
    return geo.bounced_touch(p0, scene.v_before[[a, b]], scene.dt, _PARTED_MM)


def _touch(
    scene: Interval, a: int, b: int, geo: TableCache, limits: Limits
) -> tuple[float, np.ndarray]:
    """When in the interval ``a`` and ``b`` touch by their motion coming in (or come closest;
    or, parting, touch after a cushion turned one back: `_bounced`), and their line of
    centres then (unit, from a to b)."""
    rel_p = scene.p0[b] - scene.p0[a]
    rel_v = scene.v_before[b] - scene.v_before[a]
    if scene.parting(a, b, limits.diameter):
        bounced = _bounced(scene, a, b, geo)
        if bounced is not None:
            return bounced
    roots = touch_roots(rel_p, rel_v, limits.diameter)
    tau = roots[0] if roots else closest_time(rel_p, rel_v, 0.0, scene.dt)
    tau = float(np.clip(tau, 0.0, scene.dt))
    n = rel_p + rel_v * tau
    return tau, n / max(float(np.hypot(*n)), 1e-9)


def _wall_columns(scene: Interval, members: list[int], geo: TableCache, limits: Limits):
    """A push along the normal of every cushion (nose or jaw) a member may reach in the
    interval, and (member, wall) for each: a ball pinned against a cushion takes its impulse
    too."""
    cols, pushed = [], []
    for i, k in enumerate(members):
        mid = scene.p0[k] + scene.v_before[k] * 0.5 * scene.dt
        reach = limits.diameter / 2 + limits.tolerance
        reach += float(np.hypot(*scene.v_before[k])) * scene.dt
        # Past a jaw's pocket shelf by the frame after, a ball is falling: its path bends
        # with no rubber touched.
        after = (scene.p1[k] + scene.v_out[k] * scene.dt)[None]
        for w in geo.walls_within(mid, reach):
            if not geo.walls[w].on_slate(after)[0]:
                continue
            col = np.zeros(2 * len(members))
            col[2 * i : 2 * i + 2] = geo.wall_normals[w]
            cols.append(col)
            pushed.append((k, int(w)))
    return cols, pushed


@dataclass(frozen=True, slots=True)
class _Fit:
    """One group's joint fit: its design (columns: the pairs, then the walls; rows: the
    members' velocity components, in noise units), the change it fits, the impulses found
    and the residual, and the touch (time, normal) of each pair and (ball, wall) of each
    wall column."""

    design: np.ndarray
    change: np.ndarray
    impulse: np.ndarray
    residual: float
    touches: list[tuple[float, np.ndarray]]
    pushed: list[tuple[int, int]]

    def counts(self, column: int, kick: float) -> bool:
        """Whether a column's impulse is large, and the fit clearly worse without it."""
        if self.impulse[column] < SHARED_KICK_FACTOR * kick:
            return False
        worse = _worse_without(self.design, self.change, column) - self.residual**2
        return worse >= WORSE_WITHOUT_CHI2


def _fitted(scene, members, edges, geo, limits) -> _Fit | None:
    """The impulses of one group's pairs and walls, fitted together to its balls' velocity
    changes (non-negative least squares, weighted by each ball's noise); None when there is
    neither a pair nor a wall to fit (a lone ball out of every wall's reach: scipy's nnls
    crashes on an empty design)."""
    index = {k: i for i, k in enumerate(members)}
    m = len(members)
    touches = [_touch(scene, a, b, geo, limits) for a, b in edges]
    cols = [
        push_column(m, index[a], index[b], normal)
        for (a, b), (_, normal) in zip(edges, touches, strict=True)
    ]
    wall_cols, pushed = _wall_columns(scene, members, geo, limits)
    if not cols and not wall_cols:
        return None
    sigma = np.repeat(np.maximum(scene.noise[members], 1.0), 2)
    design = np.array(cols + wall_cols).T / sigma[:, None]
    change = (scene.v_out[members] - scene.v_before[members]).reshape(-1) / sigma
    impulse, residual = nnls(design, change)
    return _Fit(design, change, impulse, float(residual), touches, pushed)


def _pair_hits(scene, fit: _Fit, edges, found, limits) -> list[tuple[int, int, float]]:
    """The group's ball-ball contacts the pair test had not found whose impulse counts."""
    out = []
    for e, (a, b) in enumerate(edges):
        kick = max(limits.min_kick, limits.sigmas * max(scene.noise[a], scene.noise[b]))
        if (a, b) not in found and fit.counts(e, kick):
            out.append((a, b, fit.touches[e][0]))
    return out


def _strikes(scene: Interval, hits: list[tuple[int, int, float]]) -> np.ndarray:
    """(n,) when each ball was first struck in the interval by a contact found there before
    (`Interval.struck`) or among ``hits``, s into it (inf: not struck)."""
    out = np.full(len(scene.p0), math.inf) if scene.struck is None else scene.struck.copy()
    for a, b, tau in hits:
        out[[a, b]] = np.minimum(out[[a, b]], tau)
    return out


def _wall_hits(
    scene, fit: _Fit, edges, geo: TableCache, limits, known: np.ndarray
) -> list[tuple[int, int, float]]:
    """The group's cushion contacts: a wall whose push counts, that the ball reached inside
    the interval going in (by its line in, or struck into it by a ball where it lay) and left
    inside it going out (by its line out, carried back from f1). ``known``: `_strikes`."""
    rad = limits.diameter / 2
    struck: dict[int, float] = {}
    for (a, b), (tau, _) in zip(edges, fit.touches, strict=True):
        for k in (a, b):
            struck[k] = min(struck.get(k, math.inf), tau)
    out = []
    for c, (k, w) in enumerate(fit.pushed, start=len(fit.touches)):
        if not fit.counts(c, max(limits.min_kick, limits.sigmas * scene.noise[k])):
            continue
        normal, start = geo.wall_normals[w], geo.wall_starts[w]
        gap_in = float((scene.p0[k] - start) @ normal) - rad
        gap_out = float((scene.p1[k] - start) @ normal) - rad
        vn_in = float(scene.v_before[k] @ normal)
        vn_out = float(scene.v_out[k] @ normal)
        if vn_out <= 0:
            continue  # not coming off it
        came = gap_in / -vn_in if vn_in < 0 else math.inf
        if gap_in <= limits.tolerance:
            came = min(came, struck.get(k, math.inf))  # lying against it, struck into it
        # Its line in reaching the wall before a strike found in the interval is stale, or
        # an earlier touch (`tracking.arrivals`): this touch comes after the strike.
        driven = came < known[k] < math.inf
        if driven:
            came = known[k]
        left = scene.dt - gap_out / vn_out
        late = _LATE * scene.dt
        if not (-late <= came <= left + late + _order_slack(scene, k, vn_in, vn_out)):
            continue
        if not -late <= left <= scene.dt + late:
            continue
        # Struck into it, it gets there some time after the strike; when, only its way off says.
        t = max(came, left) if driven else 0.5 * (came + left)
        out.append((k, w, float(np.clip(t, 0.0, scene.dt))))
    return out


def _order_slack(scene: Interval, k: int, vn_in: float, vn_out: float) -> float:
    """How far ball ``k``'s time of leaving a wall may come before its time of reaching it,
    by their noise: each is a gap over a speed, and a ball leaving at 250 mm/s is timed only to
    3 ms by a centre placed to 0.8 mm."""
    sigma = scene.noise[k] * scene.dt / math.sqrt(2.0)  # one centre's, from one step's
    coming = sigma / -vn_in if vn_in < 0 else 0.0
    return _ORDER_SIGMAS * math.hypot(coming, sigma / vn_out)


def _worse_without(design: np.ndarray, change: np.ndarray, e: int) -> float:
    """The fit's chi-square with column ``e`` left out."""
    if design.shape[1] == 1:
        return float(change @ change)  # scipy's nnls cannot take an empty design
    rest = np.delete(design, e, axis=1)
    return math.pow(nnls(rest, change)[1], 2)
