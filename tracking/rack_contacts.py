"""Rack and pack hits, for the segmenter: balls at rest touching one another (a rack) that a
moving ball hit, and balls rolling on pressed together (a pack, as racked balls often leave the
rack) that a ball or a cushion struck. Momentum passes through frozen balls, so which pairs
pushed is decided for the whole cluster at once, once the frames after the hit show how each
ball's velocity changed, not pair by pair."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.optimize import nnls

from rules.events import EventKind, ShotEvent
from tracking.ball_contacts import GAP_K
from tracking.fits import launch_velocity
from tracking.geometry import closest_distance, touch_roots
from tracking.model import BALLS, TrackFrame
from tracking.shared_impulses import linked_to, push_column

_RACK_MIN_PUSH = 60.0
"""Smallest impulse (as mm/s of a ball's velocity) a pair of a hit rack is counted as pushing
with (`RackContacts._solve_cluster`). Lower, the breaks find a few more of the rack's weak
pushes (30: 2-4 per seed set), but a full rack seen 0.7 mm off pushes through pairs side by
side that part (`test_a_full_rack_seen_a_little_off_pushes_through_no_pair_that_parts`)."""

_RACK_SIGMAS = 2.5
"""... and how many of the fitted velocities' sigmas it must be over."""

_PACK_SIGMAS = 3.5
"""... for a pack (`RackContacts._pack_hit`): its velocity changes rest on a noisy fit before
the hit as well as one after. With the physics prior on a pack's pairs too, 3.5 sigmas (4
before it) change the breaks' ball-ball contacts (true/false/missed) from 1139/27/110 to
1141/28/108 on the tuned seeds, 1078/51/107 to 1081/49/104 on the held-out ones and
1029/70/131 to 1031/67/129 on the next 300 (the prior at 4 sigmas: within one either way)."""

_PACK_REL_MM_S = 400.0
"""Balls pressed together whose velocities coming in (each fitted over a few frames, to some
100 mm/s) differ by no more than this roll on as one pack."""

_CLUSTER_BALLS = 3
"""The fewest balls of a rack or a pack: two are judged as a pair."""

_PRIOR_SHARE = 0.3
"""The sigma of a rack's or pack's pair's impulse from the physics of the collision
(`shared_out`), as a share of it (`RackContacts._with_physics`) ..."""

_PRIOR_FLOOR_MM_S = 30.0
"""... and the least, mm/s: on the benchmark's 30 breaks, 0.3 and 30 drop 13 false pairs and
keep every true one; a tighter prior (0.1 and 10) loses a dozen true ones."""

_PGS_SWEEPS = 300
"""Gauss-Seidel sweeps of `shared_out` at most: a 16-ball rack settles in well under."""

_RACK_FROZEN_MM = 4.0
"""Racked balls seen this close to touching are taken to be frozen together
(`_frozen_together`): a few times a resting centre's error."""


@dataclass(frozen=True, slots=True)
class RackHit:
    """A rack or a pack that was hit, waiting for the frames after the hit to share out its
    impulse.

    Attributes:
        members: Their rows.
        rest: (m, 2) their centres at the hit (a rack's at rest), pressed to touching.
        edges: The touching pairs, as indices into ``members``.
        hits: (index into ``members``, unit normal) of each push from outside that may have
            struck one: a moving ball's on a rack; any ball's or cushion's on a pack.
        t1: The end of the interval the hit fell in.
        time: When the moving balls touched it (filled in as those contacts are found).
        v_before: (m, 2) a pack's velocities coming in; None for a rack (at rest).
        strikes: (k, 2) the strikers' velocities coming in, one per hit (a cushion's: zero).
        fixed: (k,) which hits are a cushion's (immovable); None: none is.
    """

    members: tuple[int, ...]
    rest: np.ndarray
    edges: tuple[tuple[int, int], ...]
    hits: tuple[tuple[int, np.ndarray], ...]
    t1: float
    time: list[float]
    v_before: np.ndarray | None = None
    strikes: np.ndarray | None = None
    fixed: np.ndarray | None = None


class RackContacts:
    """The segmenter's rack hits: a part of `Segmenter`, working on the state its ``__init__``
    sets up (the racks hit and waiting, the balls held for them, the contacts found)."""

    def _cluster_hit(self, live, f0, f1, p0, v_before, gaps, kicked, reach) -> RackHit | None:
        """A rack (three or more balls at rest, touching) of which a ball was kicked in this
        interval: its contacts are decided together once the frames after show how each
        ball left (`_solve_cluster`), not pair by pair."""
        d, tol = self._d, self.config.touch_tolerance_mm
        rest = ~f0.moving[live]
        if not (kicked & rest).any():
            return None
        touching = (gaps <= d + tol) & rest[:, None] & rest[None, :]
        np.fill_diagonal(touching, False)
        free = ~self._since(self._held, live, f0.time, strict=False)
        for start in np.flatnonzero(kicked & rest & free & touching.any(axis=1)):
            members = linked_to(touching, int(start))
            if len(members) < _CLUSTER_BALLS:
                continue
            edges = _edges(members, touching)
            index = {k: i for i, k in enumerate(members)}
            hits, strikes = [], []
            dt = f1.time - f0.time
            for m in np.flatnonzero(f0.moving[live]):
                # The first rack ball on its path, carried on from f0 (not its net step: it
                # may have come back off the rack within the interval).
                first = None
                for h in members:
                    roots = touch_roots(p0[m] - p0[h], v_before[m], d)
                    on_path = roots and -0.15 * dt <= roots[0] <= 1.15 * dt
                    if on_path and (first is None or roots[0] < first[0]):
                        first = (roots[0], h)
                if first is not None:
                    tau, h = max(first[0], 0.0), first[1]
                    n = p0[h] - (p0[m] + v_before[m] * tau)
                    hits.append((index[h], n / max(float(np.hypot(*n)), 1e-9)))
                    strikes.append(v_before[m])
            if not hits:
                continue
            rows = tuple(int(live[k]) for k in members)
            rest = _frozen_together(p0[members], edges, d)
            cluster = RackHit(
                rows, rest, edges, tuple(hits), f1.time, [], strikes=np.array(strikes)
            )
            self._hold_cluster(cluster, 3 * (f1.time - f0.time))
            return cluster
        return None

    def _pack_hit(self, live, f0, f1, p0, v_before, gaps, kicked) -> RackHit | None:
        """A pack (three or more balls rolling on pressed together, as racked balls often
        leave the rack) of which a ball was kicked in this interval. Like a rack, it passes an
        impulse on through its pressed pairs at once: its contacts are shared out together
        (`_solve_cluster`) once the frames after show how each ball's velocity changed."""
        moving = f0.moving[live]
        if not (kicked & moving).any():
            return None
        rel = np.hypot(*(v_before[:, None, :] - v_before[None, :, :]).transpose(2, 0, 1))
        pressed = (gaps <= self._d + _RACK_FROZEN_MM) & (rel <= _PACK_REL_MM_S)
        pressed &= moving[:, None] & moving[None, :]
        np.fill_diagonal(pressed, False)
        free = ~self._since(self._held, live, f0.time, strict=False)
        free &= ~self._since(self._packed, live, f0.time, strict=False)
        dt = f1.time - f0.time
        for start in np.flatnonzero(kicked & moving & free & pressed.any(axis=1)):
            members = linked_to(pressed, int(start))
            if len(members) < _CLUSTER_BALLS or not free[members].all():
                continue
            edges = _edges(members, pressed)
            pushes, strikes, fixed = self._pushes_on(live, members, p0, v_before, dt)
            if not pushes:
                continue  # nothing from outside could have changed the pack's velocities
            at = p0[members] + v_before[members] * 0.5 * dt
            centres = _frozen_together(at, edges, self._d)
            rows = tuple(int(live[k]) for k in members)
            cluster = RackHit(
                rows,
                centres,
                edges,
                pushes,
                f1.time,
                [],
                v_before[members].copy(),
                np.array(strikes),
                np.array(fixed),
            )
            self._hold_cluster(cluster, 3 * dt)
            return cluster
        return None

    def _pushes_on(self, live, members: list[int], p0, v_before, dt: float):
        """(index into ``members``, unit normal) of every push a pack may take from outside
        in the interval: from each ball that comes within touching distance of a member, and
        from each cushion within reach of one; with each pusher's velocity coming in (a
        cushion's: zero) and whether it is a cushion (immovable)."""
        pushes, strikes, fixed = [], [], []
        reach = self._d + self.config.touch_tolerance_mm
        outside = np.setdiff1d(np.arange(len(live)), members)
        for i, k in enumerate(members):
            for m in outside:
                rel_p = p0[k] - p0[m]
                if closest_distance(rel_p, v_before[k] - v_before[m], 0.0, dt) <= reach:
                    pushes.append((i, rel_p / max(float(np.hypot(*rel_p)), 1e-9)))
                    strikes.append(v_before[m])
                    fixed.append(False)
            wall_reach = reach - self._d / 2 + float(np.hypot(*v_before[k])) * dt
            for w in self._geo.walls_within(p0[k] + v_before[k] * 0.5 * dt, wall_reach):
                pushes.append((i, self._geo.wall_normals[w]))
                strikes.append(np.zeros(2))
                fixed.append(True)
        return tuple(pushes), strikes, fixed

    def _hold_cluster(self, cluster: RackHit, span: float) -> None:
        """Keep a hit cluster's balls and pairs out of the pair-by-pair tests until it is
        solved."""
        self._clusters.append(cluster)
        until = cluster.t1 + span
        held = self._held if cluster.v_before is None else self._packed
        for r in cluster.members:
            held[r] = until
        rows = cluster.members
        for i, j in cluster.edges:
            self._rack_pairs[(min(rows[i], rows[j]), max(rows[i], rows[j]))] = until

    def _left_the_rack(self, live, p0, v_before, f0: TrackFrame) -> None:
        """In the interval just after a rack's hit, its balls' velocities coming in: from
        where each lay to where it is at f0, since the hit (the filter has not caught up with
        a ball set moving inside the last interval)."""
        for c in self._clusters:
            if abs(c.t1 - f0.time) > 1e-9 or c.v_before is not None:
                continue
            hit = min(c.time) if c.time else None
            if hit is None or f0.time - hit < 1e-3:
                continue
            for i, r in enumerate(c.members):
                for k in np.flatnonzero(live == r):
                    v_before[k] = (p0[k] - c.rest[i]) / (f0.time - hit)

    def _in_rack_solve(self, pair: tuple[int, int], hit: RackHit | None, t0: float) -> bool:
        """Whether a pair's contacts are left to a hit rack's share-out
        (`_solve_cluster`): every pair of its balls in the interval of the hit, and
        its frozen pairs until it is solved. Two of its balls that were not frozen together
        meet after the hit as any two balls do."""
        if hit is not None and pair[0] in hit.members and pair[1] in hit.members:
            return True
        return self._rack_pairs.get(pair, -math.inf) >= t0

    def _solve_cluster(self, c: RackHit, after: list[TrackFrame]) -> list[ShotEvent]:
        """Which touching pairs of a hit rack (or pack) pushed on each other: momentum passes
        through frozen balls, so each ball's velocity changes by the sum of the impulses of its
        contacts, along their lines of centres. The impulses (non-negative: balls only push)
        are solved by least squares from how each ball's velocity changed
        (`_velocity_changes`); a pair whose impulse is lost in the noise did not (visibly)
        touch. A rack has more contacts than its balls have degrees of freedom (30 against 27
        for fifteen balls), but pushes cannot pull: from exact velocities this finds exactly
        the pairs the virtual table's breaks pushed through."""
        m = len(c.members)
        hit = min(c.time) if c.time else c.t1 - 0.5 * (after[1].time - after[0].time)
        change, sig = self._velocity_changes(c, after, hit)
        t = np.array([f.time for f in after])
        columns = []
        for i, j in c.edges:
            n = c.rest[j] - c.rest[i]
            columns.append(push_column(m, i, j, n / max(float(np.hypot(*n)), 1e-9)))
        for h, n in c.hits:
            col = np.zeros(2 * m)
            col[2 * h : 2 * h + 2] += n
            columns.append(col)
        # Each ball's velocity counts by how well its frames after the hit fix it.
        weight = np.repeat(1.0 / np.maximum(sig, 1e-6), 2)
        design = weight[:, None] * np.array(columns).T
        target = weight * np.nan_to_num(change).reshape(-1)
        if c.strikes is not None:
            design, target = self._with_physics(c, design, target)
        impulse, _ = nnls(design, target)
        noise = float(np.median(sig)) if len(sig) else math.inf
        # A hit rack passes the impulse on through its touching pairs, so a push on one is
        # expected, not a surprise among noise: a smaller impulse than the pair test's kick
        # counts.
        sigmas = _RACK_SIGMAS if c.v_before is None else _PACK_SIGMAS
        threshold = max(_RACK_MIN_PUSH, sigmas * noise)
        events = []
        for (i, j), lam in zip(c.edges, impulse[: len(c.edges)], strict=True):
            if lam < threshold:
                continue
            a, b = BALLS[c.members[i]], BALLS[c.members[j]]
            key = (min(c.members[i], c.members[j]), max(c.members[i], c.members[j]))
            if self._touching_since(key, hit):
                continue  # pressed together since they touched: the blow passed through it
            self._pair_last[key] = hit
            self._contact_times.append((hit, key))
            events.append(
                ShotEvent(
                    EventKind.BALL_BALL,
                    hit,
                    (a, b),
                    confidence=float(min(0.95, 0.6 + 0.1 * lam / threshold)),
                    time_uncertainty=0.5 * (t[1] - t[0]),
                )
            )
        return events

    def _with_physics(self, c: RackHit, design: np.ndarray, target: np.ndarray):
        """A rack's or pack's share-out fit with the impulses a simultaneous collision of its
        pressed balls with its strikers gives (`shared_out`) as a prior on each pair's: the
        balls' velocities leave it open (more contacts than the rack has degrees of freedom),
        and their noise alone picks pushes through pairs that, pressed side by side, part. A
        pack rolls in at its velocities before the hit, and a cushion it may be driven into
        is immovable. The prior's sigma is a share of the impulse and a floor
        (`_PRIOR_SHARE`, `_PRIOR_FLOOR_MM_S`): a real rack's gaps share the blow out less
        evenly."""
        m, n_edges = len(c.members), len(c.edges)
        bodies = np.vstack([c.rest, [c.rest[h] - n * self._d for h, n in c.hits]])
        coming = np.zeros((m, 2)) if c.v_before is None else c.v_before
        velocities = np.vstack([coming, c.strikes])
        pairs = np.array([*c.edges, *((m + k, h) for k, (h, _) in enumerate(c.hits))])
        movable = np.ones(len(bodies))
        if c.fixed is not None:
            movable[m:][c.fixed] = 0.0
        e = self.config.ball_restitution
        prior = shared_out(bodies, velocities, pairs, e, movable)[:n_edges]
        rows = np.zeros((n_edges, design.shape[1]))
        sigma = _PRIOR_SHARE * prior + _PRIOR_FLOOR_MM_S
        rows[np.arange(n_edges), np.arange(n_edges)] = 1.0 / sigma
        return np.vstack([design, rows]), np.concatenate([target, prior / sigma])

    def _velocity_changes(self, c: RackHit, after: list[TrackFrame], hit: float):
        """(m, 2) how each ball of a hit cluster changed velocity at ``hit``, and (m,) each
        change's sigma, from its frames after the hit up to its next contact: a racked ball's
        launch from rest, fitted as a ball sliding to a roll (`fits.launch_velocity`: a line
        misses it by as much as the smallest push counted); a packed ball's change alike, on
        its centres less its rolling on at its velocity before (a rolling ball struck slides
        by the change until it rolls again)."""
        change = np.zeros((len(c.members), 2))
        sig = np.zeros(len(c.members))
        for i, r in enumerate(c.members):
            mine = self._before_next_contact(r, c, after)
            t = np.array([f.time for f in mine])
            pts = np.array([f.measured[r] if f.seen[r] else f.positions[r] for f in mine])
            sigma = float(np.nanmedian([f.measured_sigma[r] for f in mine if f.seen[r]] or [2.0]))
            coming = np.zeros(2) if c.v_before is None else c.v_before[i]
            rolled_on = pts - np.outer(t - hit, coming)
            change[i], sig[i] = launch_velocity(t, rolled_on, hit, self.config.sliding_decel, sigma)
        if c.v_before is not None:
            sig *= math.sqrt(2.0)  # the fit before the hit is as noisy
        return change, sig

    def _before_next_contact(self, r: int, c: RackHit, after: list[TrackFrame]):
        """The frames after a rack's hit that show how ball ``r`` left it: those before its
        next contact (with a racked ball it was not frozen to, or any other), at least two."""
        hit = min(c.time) if c.time else c.t1 - (after[1].time - after[0].time)
        later = [t for t, pair in self._contact_times if r in pair and t > hit + 1e-6]
        later += [p.event.time for p in self._pending if r in p.pair and p.event.time > hit + 1e-6]
        cut = min(later, default=math.inf)
        before = [f for f in after if f.time < cut]
        return before if len(before) >= 2 else after[:2]

    def _solved_racks(self, frames: list[TrackFrame]) -> list[ShotEvent]:
        """The contacts of the hit racks whose `GAP_K` frames after the hit have come; the
        others wait."""
        times = [f.time for f in frames]
        out, unsolved = [], []
        for c in self._clusters:
            i1 = times.index(c.t1) if c.t1 in times else -1
            if i1 < 0:
                continue  # the frames are gone (a gap in the input): not solved
            if i1 + GAP_K > len(frames):
                unsolved.append(c)
            else:
                out += self._solve_cluster(c, frames[i1 : i1 + GAP_K])
        self._clusters = unsolved
        return out


def _edges(members: list[int], linked: np.ndarray) -> tuple[tuple[int, int], ...]:
    """The ``linked`` pairs among ``members``, as pairs of indices into ``members``."""
    return tuple(
        (a, b)
        for a, i in enumerate(members)
        for b, j in enumerate(members)
        if i < j and linked[i, j]
    )


def _frozen_together(rest: np.ndarray, edges, d: float, sweeps: int = 30) -> np.ndarray:
    """A rack's centres at rest, each pair seen within `_RACK_FROZEN_MM` of touching pushed
    or pulled apart evenly, sweep after sweep, until it touches. A racked ball is seen a
    millimetre or so off (the detector's offsets at rest do not average out), while the rack's
    pairs are frozen together: the lines of centres the impulses are shared along turn by
    degrees with those errors, and the share-out, with more contacts than the rack has degrees
    of freedom, swings with them."""
    pts = rest.tolist()  # plain floats: a few hundred tiny steps, once per rack hit
    frozen = [(i, j) for i, j in edges if abs(math.dist(pts[i], pts[j]) - d) <= _RACK_FROZEN_MM]
    for _ in range(sweeps):
        worst = 0.0
        for i, j in frozen:
            (xi, yi), (xj, yj) = pts[i], pts[j]
            dist = max(math.hypot(xj - xi, yj - yi), 1e-9)
            k = 0.5 * (dist - d) / dist
            pts[i] = [xi + k * (xj - xi), yi + k * (yj - yi)]
            pts[j] = [xj - k * (xj - xi), yj - k * (yj - yi)]
            worst = max(worst, abs(dist - d))
        if worst < 0.01:
            break
    return np.array(pts)


@njit(cache=True, nogil=True)
def shared_out(
    centres: np.ndarray,
    velocities: np.ndarray,
    pairs: np.ndarray,
    restitution: float,
    movable: np.ndarray,
) -> np.ndarray:
    """Each touching pair's impulse (mm/s of a ball's velocity) when balls of equal mass at
    ``centres`` (n, 2) moving at ``velocities`` (n, 2) collide all at once through ``pairs``
    (k, 2): every contact compresses together until none approaches (projected Gauss-Seidel),
    then gives back ``restitution`` times its compression (Poisson's hypothesis). A blow
    spreads through a rack this way, not down one line of balls as one pair after another
    would send it. ``movable`` (n,) is 1 for a ball, 0 for a body nothing moves (a cushion,
    placed a ball's diameter behind the ball it pushes, along the cushion's normal)."""
    vel = velocities.copy()
    k = len(pairs)
    normals = np.empty((k, 2))
    for c in range(k):
        d = centres[pairs[c, 1]] - centres[pairs[c, 0]]
        normals[c] = d / max(math.hypot(d[0], d[1]), 1e-9)
    lam = np.zeros(k)
    for _ in range(_PGS_SWEEPS):
        worst = 0.0
        for c in range(k):
            a, b = pairs[c, 0], pairs[c, 1]
            n = normals[c]
            w = movable[a] + movable[b]
            if w == 0.0:
                continue
            approach = (vel[a, 0] - vel[b, 0]) * n[0] + (vel[a, 1] - vel[b, 1]) * n[1]
            new = max(lam[c] + approach / w, 0.0)
            step = new - lam[c]
            if step != 0.0:
                lam[c] = new
                vel[a] -= movable[a] * step * n
                vel[b] += movable[b] * step * n
                worst = max(worst, abs(step))
        if worst < 1e-6:
            break
    return lam * (1.0 + restitution)
