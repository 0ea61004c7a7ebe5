"""The break: the cue ball on the apex of a frozen rack, and which rack balls pushed on which."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hardware.sim.contact import simultaneous
from rules.balls import OBJECT_BALLS, BallId
from rules.events import EventKind, ShotEvent
from tests.tracking.helpers import run, slid_then_rolled
from tests.tracking.test_contacts_moving import FRAME, _detections
from tracking.rack_contacts import shared_out
from tracking.segmenter import SegmenterConfig
from vision.detections import Detections, one_hot

D = 57.15
RACK = [BallId.ONE, BallId.TWO, BallId.THREE, BallId.FOUR, BallId.FIVE, BallId.SIX]
"""A six-ball triangle: the apex, then rows of two and three."""

SLIDING = SegmenterConfig().sliding_decel
"""mm/s^2: how fast a ball struck without spin slows until it rolls."""

FRICTIONLESS = SegmenterConfig(sliding_decel=0.0)
"""The balls here run on in straight legs at their launch speeds (`_played_out`): the segmenter
is told they do not slide to a roll."""


FULL_RACK = list(OBJECT_BALLS)
"""A fifteen-ball triangle: the apex, then rows of two to five."""


def _rack(seed: int, rows: int = 3) -> list[tuple[float, float]]:
    rng = np.random.default_rng(seed)
    spots = [(r, c - r / 2) for r in range(rows) for c in range(r + 1)]
    step = (D + 0.1) * np.array([np.sqrt(3) / 2, 1.0])
    return [
        (600.0 + r * step[0] + rng.uniform(-0.02, 0.02), c * step[1] + rng.uniform(-0.02, 0.02))
        for r, c in spots
    ]


def _break(
    seed: int,
    speed: float = 8000.0,
    aim: float = 0.0,
    sliding: float = 0.0,
    rows: int = 3,
    least: float = 1e-9,
):
    """The cue ball at ``speed`` from (-700, aim) into the rack (of ``rows`` rows), struck at
    0.3 s; the rack scatters as the virtual table's own cluster contact says, each leg after
    the hit slowing at ``sliding`` mm/s^2 until it rolls (0: straight on at its launch speed).
    Returns the paths, the hit time, and the touching pairs that carried an impulse of more
    than ``least`` (mm/s of a ball's velocity)."""
    rack = _rack(seed, rows)
    apex = np.array(rack[0])
    gap = apex[0] - np.sqrt(D**2 - (apex[1] - aim) ** 2) - (-700.0)
    t_hit = 0.3 + gap / speed
    hit_at = (-700.0 + gap, aim)
    positions = [hit_at, *rack]
    balls = [BallId.CUE, *(RACK if rows == 3 else FULL_RACK[: len(rack)])]
    contacts = [
        (i, j)
        for i, j in itertools.combinations(range(len(positions)), 2)
        if np.hypot(*np.subtract(positions[i], positions[j])) < D + 0.5
    ]
    velocities = [(speed, 0.0)] + [(0.0, 0.0)] * len(rack)
    after, impulses = simultaneous(positions, velocities, contacts, 0.95)
    pushed = {
        frozenset((balls[i], balls[j]))
        for (i, j), lam in zip(contacts, impulses, strict=True)
        if lam > least
    }

    legs = _played_out(positions, after, t_hit)

    def path(k: int):
        def at(t: float) -> tuple[float, float]:
            if k == 0 and t < t_hit:
                return (-700.0 + speed * max(0.0, t - 0.3), aim)
            t0, p, v = next(leg for leg in reversed(legs[k]) if leg[0] <= max(t, t_hit))
            run = v * slid_then_rolled(t - t0, float(np.hypot(*v)), sliding)
            return (p[0] + run[0], p[1] + run[1])

        return at

    return {b: path(k) for k, b in enumerate(balls)}, t_hit, pushed


def _played_out(positions, velocities, t0: float, seconds: float = 0.6, e: float = 0.95):
    """Each ball's straight legs (start time, start, velocity) from ``t0``: the balls run on
    from the hit and collide again when two meet (equal masses, restitution ``e``, along the
    line of centres), as the 1 catches the 5 a frame or so after most breaks here."""
    p = np.array(positions, dtype=float)
    v = np.array(velocities, dtype=float)
    legs = [[(t0, p[k].copy(), v[k].copy())] for k in range(len(p))]
    t = t0
    while True:
        meet = (np.inf, -1, -1)
        for i, j in itertools.combinations(range(len(p)), 2):
            dp, dv = p[j] - p[i], v[j] - v[i]
            a, b, c = dv @ dv, 2 * (dp @ dv), dp @ dp - D * D
            disc = b * b - 4 * a * c
            if b >= 0 or a < 1e-9 or disc < 0:
                continue  # not closing, or never reaching touching distance
            s = max(0.0, (-b - np.sqrt(disc)) / (2 * a))
            if s > 1e-6 and s < meet[0]:
                meet = (s, i, j)
        s, i, j = meet
        if t + s > t0 + seconds:
            return legs
        t, p = t + s, p + v * s
        n = (p[j] - p[i]) / np.hypot(*(p[j] - p[i]))
        push = (1 + e) / 2 * ((v[i] - v[j]) @ n)
        v[i], v[j] = v[i] - push * n, v[j] + push * n
        legs[i].append((t, p[i].copy(), v[i].copy()))
        legs[j].append((t, p[j].copy(), v[j].copy()))


def _at_hit(contacts: list[ShotEvent], t_hit: float) -> set[frozenset[BallId]]:
    """The pairs of the contacts timed within half a frame of the hit (the share-out times
    them all at it): the balls' later collisions (`_played_out`: the 1 catching the 5 a frame
    or so after the hit, in most seeds) are contacts of their own."""
    return {frozenset(e.balls) for e in contacts if abs(e.time - t_hit) <= FRAME / 2}


@pytest.mark.parametrize(("seed", "aim"), [(0, 0.0), (1, 6.0), (2, -10.0)])
def test_the_rack_balls_that_pushed_on_each_other_on_the_break(seed: int, aim: float) -> None:
    # Momentum passes through the frozen balls: each leaves with the sum of its contacts'
    # impulses, so the pairs that pushed are solved from how all of them left, not judged
    # pair by pair (a ball pushed by two neighbours moves along neither line of centres).
    paths, t_hit, pushed = _break(seed, aim=aim)
    result = run(_detections(paths, 0.6, seed), segmenter=FRICTIONLESS)
    assert _at_hit(result.of_kind(EventKind.BALL_BALL), t_hit) == pushed
    assert result.shots[0].first_contact.ball is BallId.ONE


@pytest.mark.parametrize(
    ("speed", "seed", "aim"), [(1500.0, 0, 0.0), (1500.0, 1, 6.0), (2500.0, 1, 6.0)]
)
def test_a_soft_break_still_shows_the_rack_balls_that_pushed_weakly(
    speed: float, seed: int, aim: float
) -> None:
    # Struck softly, the back row's pairs push with a tenth of a metre per second or so: too
    # little for a kick seen in one frame's velocities, but a hit rack is expected to pass
    # the impulse on, so the cluster solve keeps a push well over its noise.
    paths, t_hit, pushed = _break(seed, speed=speed, aim=aim)
    result = run(_detections(paths, t_hit + 0.3, seed), segmenter=FRICTIONLESS)
    assert _at_hit(result.of_kind(EventKind.BALL_BALL), t_hit) == pushed


@pytest.mark.parametrize(
    ("speed", "seed", "aim"), [(1500.0, 2, 0.0), (1500.0, 3, 6.0), (2500.0, 0, -10.0)]
)
def test_rack_balls_sliding_off_show_the_pushes_of_their_launch(
    speed: float, seed: int, aim: float
) -> None:
    # Struck through their centres, racked balls leave sliding and slow by some 60 mm/s over
    # the frames their velocities are fitted on: as much as the weak back-row pushes of a soft
    # break. Fitted as launched balls, the pushes are those of the hit (each of these breaks
    # loses a weak push when a line is fitted instead).
    paths, t_hit, pushed = _break(seed, speed=speed, aim=aim, sliding=SLIDING)
    found = run(_detections(paths, t_hit + 0.3, seed)).of_kind(EventKind.BALL_BALL)
    assert _at_hit(found, t_hit) == pushed


def test_a_rack_seen_a_little_off_still_shows_the_pairs_that_pushed() -> None:
    # The detector places each racked ball about 0.7 mm off (its median error at rest is
    # 0.6 mm), the same way frame after frame: the lines of centres turn by a degree or two,
    # and the impulse's share-out swings with them. The solve takes the rack's pairs seen
    # within a few millimetres of touching to be frozen together. Exact in 10 of 12 seeds or
    # more (5 of 12 before); the rest add a back-row pair pushing sideways.
    exact = 0
    for seed in range(12):
        paths, t_hit, pushed = _break(seed)
        offsets = np.random.default_rng(100 + seed).normal(0.0, 0.7, (len(paths), 2))
        seen = {b: _offset(p, o) for (b, p), o in zip(paths.items(), offsets, strict=True)}
        result = run(_detections(seen, 0.6, seed), segmenter=FRICTIONLESS)
        found = result.of_kind(EventKind.BALL_BALL)
        exact += _at_hit(found, t_hit) == pushed
    assert exact >= 10


def test_a_full_rack_seen_a_little_off_pushes_through_no_pair_that_parts() -> None:
    # Fifteen balls: more contacts (30) than the velocities fix, and with each ball seen
    # 0.7 mm off the least-squares share-out pushes through pairs frozen side by side that
    # part (15 such over 12 seeds without the collision's physics as a prior). Every push of
    # 0.1 m/s and more is still found.
    extra = missing = 0
    for seed in range(12):
        paths, t_hit, pushed = _break(seed, rows=5)
        strong = _break(seed, rows=5, least=100.0)[2]
        offsets = np.random.default_rng(100 + seed).normal(0.0, 0.7, (len(paths), 2))
        seen = {b: _offset(p, o) for (b, p), o in zip(paths.items(), offsets, strict=True)}
        result = run(_detections(seen, 0.6, seed), segmenter=FRICTIONLESS)
        found = _at_hit(result.of_kind(EventKind.BALL_BALL), t_hit)
        extra += len(found - pushed)
        missing += len(strong - found)
    assert missing == 0
    assert extra <= 12


def test_a_blow_shared_out_through_a_frozen_rack() -> None:
    # Head on, two balls swap velocities less what restitution keeps (Poisson): (1 + e) / 2.
    two = shared_out(
        np.array([[0.0, 0.0], [D, 0.0]]),
        np.array([[1000.0, 0.0], [0.0, 0.0]]),
        np.array([[0, 1]]),
        0.95,
        np.ones(2),
    )
    assert two == pytest.approx([975.0])
    # A six-ball triangle struck full on its apex: the blow splits between the two balls
    # behind it, which part from each other (no push between them), and passes on.
    rows = [(0.0, 0.0), (1.0, -0.5), (1.0, 0.5), (2.0, -1.0), (2.0, 0.0), (2.0, 1.0)]
    step = D * np.array([np.sqrt(3) / 2, 1.0])
    centres = np.array([(-D, 0.0), *(np.multiply(rc, step) for rc in rows)])
    velocities = np.zeros_like(centres)
    velocities[0] = (8000.0, 0.0)
    pairs = np.array(
        [
            (i, j)
            for i, j in itertools.combinations(range(len(centres)), 2)
            if abs(np.hypot(*(centres[i] - centres[j])) - D) < 1e-6
        ]
    )
    impulses = shared_out(centres, velocities, pairs, 0.95, np.ones(len(centres)))
    lam = dict(zip(map(tuple, pairs.tolist()), impulses, strict=True))
    assert lam[(0, 1)] > 0
    assert lam[(2, 3)] == pytest.approx(0.0, abs=1e-6)  # side by side behind the apex
    assert lam[(2, 4)] == pytest.approx(lam[(3, 6)])  # the rack is symmetric about the hit
    assert lam[(4, 5)] == pytest.approx(0.0, abs=1e-6)


def _offset(path, offset):
    """A ball's path as the detector places it: off by a fixed ``offset``."""
    return lambda t: tuple(np.add(path(t), offset))


def _detections_blurred(paths, seconds: float, seed: int, blurred: BallId, sigma: float):
    """As `_detections`, with one ball's centres ``sigma`` mm off each way and reported so (a
    ball seen through the breaker's arm, or blurred)."""
    rng = np.random.default_rng(seed)
    balls = list(paths)
    spread = np.array([sigma if b is blurred else 0.7 for b in balls])
    out = []
    for k in range(int(seconds * 60)):
        t = k * FRAME
        pts = np.array([paths[b](t) for b in balls], dtype=float)
        pts += rng.normal(0.0, 1.0, pts.shape) * spread[:, None]
        reported = np.where(spread > 1.0, spread, 0.75)
        out.append(Detections.of(k, t, pts, sigma=reported, identity=one_hot(balls, 0.95)))
    return out


def test_a_rack_ball_seen_badly_counts_less_in_the_share_out() -> None:
    # The impulses are fitted to every rack ball's velocity after the hit; one ball's velocity,
    # fixed by centres four times noisier than the others', would swing them all if it
    # counted as much. Exact in 12 of 12 seeds (8 of 12 unweighted).
    exact = 0
    for seed in range(12):
        paths, t_hit, pushed = _break(seed)
        detections = _detections_blurred(paths, 0.6, seed, BallId.FIVE, 4.0)
        found = run(detections, segmenter=FRICTIONLESS).of_kind(EventKind.BALL_BALL)
        exact += _at_hit(found, t_hit) == pushed
    assert exact >= 11


def _knocked_on():
    """A rack with a gap: the 1 and the 2 in a row along x, the spot after the 2 empty and
    the 5 beyond it, the 3 and the 4 above linking them (1-2, 2-3, 3-4, 4-5 frozen, the 2
    and the 5 a ball width apart). The cue ball hits the 1 full at 8 m/s: the 1 stops, the
    2 takes its speed along the row, crosses the gap and strikes the 5 full, stopping dead
    while the 5 goes on. Returns the paths, the hit's time and the 2-5 contact's."""
    t_hit = 0.3 + 0.4 * FRAME
    speed = 3000.0
    t_25 = t_hit + D / speed
    spots = {
        BallId.ONE: (0.0, 0.0),
        BallId.TWO: (D, 0.0),
        BallId.THREE: (1.5 * D, D * np.sqrt(3) / 2),
        BallId.FOUR: (2.5 * D, D * np.sqrt(3) / 2),
        BallId.FIVE: (3 * D, 0.0),
    }

    def rolling(ball: BallId, t0: float, t1: float = np.inf):
        def at(t: float) -> tuple[float, float]:
            x, y = spots[ball]
            return (x + speed * max(0.0, min(t, t1) - t0), y)

        return at

    paths = {b: rolling(b, np.inf) for b in spots}
    paths[BallId.CUE] = lambda t: (-D - 8000.0 * max(0.0, t_hit - t), 0.0)
    paths[BallId.TWO] = rolling(BallId.TWO, t_hit, t_25)
    paths[BallId.FIVE] = rolling(BallId.FIVE, t_25)
    return paths, t_hit, t_25


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_racked_balls_that_were_not_touching_collide_during_the_hit(seed: int) -> None:
    # The rack's frozen pairs wait for the share-out while it is solved, a few frames; two
    # of its balls that were not frozen together meet in those frames as any two balls do
    # (on the virtual table's breaks, kicks of 0.5 to 2.4 m/s 10-60 ms after the hit were
    # lost while every racked pair waited).
    paths, t_hit, t_25 = _knocked_on()
    result = run(_detections(paths, 0.6, seed), segmenter=FRICTIONLESS)
    contacts = result.of_kind(EventKind.BALL_BALL)
    found = [e.time for e in contacts if set(e.balls) == {BallId.TWO, BallId.FIVE}]
    assert found == [pytest.approx(t_25, abs=FRAME)]
    # The 5 leaves with the 2's blow, not the rack's: its velocity for the share-out is the
    # one before it (at rest), and the 3 and the 4, which never moved, pushed on nothing.
    assert frozenset((BallId.THREE, BallId.FOUR)) not in _at_hit(contacts, t_hit)


def _pack(seed: int, shape: str, speed: float = 2500.0, sliding: float = 0.0):
    """Three balls rolling on pressed together at 600 mm/s along +x from 0.2 s (a ``line``,
    or a ``wedge``: one ahead of two side by side), and the 4 rolling after them at
    ``speed`` along their line, from 0.2 s, until it hits the last of them; all collide as the
    virtual table's cluster contact says, each ball's change of velocity slowing at
    ``sliding`` mm/s^2 until it rolls (it was rolling: only the change slides). Returns the
    paths, the hit time and the pairs that carried an impulse."""
    rng = np.random.default_rng(seed)
    step = D + 0.1
    back = -step * np.sqrt(3) / 2
    if shape == "line":
        spots = np.array([(0.0, 0.0), (-step, 0.0), (-2 * step, 0.0)])
    else:
        spots = np.array([(0.0, 0.0), (back, step / 2), (back, -step / 2)])
    pack = list(spots + np.array([-200.0, 30.0]) + rng.uniform(-0.02, 0.02, spots.shape))
    last = min(pack, key=lambda p: p[0])
    aim = last[1] + rng.uniform(-8.0, 8.0)
    start = np.array([last[0] - np.sqrt(D**2 - (aim - last[1]) ** 2) - 500.0, aim])
    t_hit = 0.2 + 500.0 / (speed - 600.0)
    at_hit = [p + np.array([600.0 * (t_hit - 0.2), 0.0]) for p in pack]
    hitter = start + np.array([speed * (t_hit - 0.2), 0.0])
    positions = [hitter, *at_hit]
    balls = [BallId.FOUR, BallId.ONE, BallId.TWO, BallId.THREE]
    contacts = [
        (i, j)
        for i, j in itertools.combinations(range(len(positions)), 2)
        if np.hypot(*np.subtract(positions[i], positions[j])) < D + 0.5
    ]
    before = [(speed, 0.0)] + [(600.0, 0.0)] * 3
    after, impulses = simultaneous(positions, before, contacts, 0.95)
    pushed = {
        frozenset((balls[i], balls[j]))
        for (i, j), lam in zip(contacts, impulses, strict=True)
        if lam > 1e-9 and i > 0
    }
    legs = _played_out(positions, after, t_hit)
    origins = [start, *pack]

    def path(k: int):
        def at(t: float) -> tuple[float, float]:
            if t < t_hit:
                moved = np.array(before[k]) * max(0.0, t - 0.2)
                return tuple(origins[k] + moved)
            t0, p, v = next(leg for leg in reversed(legs[k]) if leg[0] <= t)
            if t0 > t_hit:
                return tuple(p + v * (t - t0))
            change = v - before[k]
            slid = slid_then_rolled(t - t0, float(np.hypot(*change)), sliding)
            return tuple(p + np.array(before[k]) * (t - t0) + change * slid)

        return at

    paths = {b: path(k) for k, b in enumerate(balls)}
    paths[BallId.CUE] = lambda t: (-1000.0, -400.0)
    return paths, t_hit, pushed


def test_a_pack_struck_from_behind_passes_the_blow_through_its_pressed_pairs() -> None:
    # Balls leaving a rack often roll on pressed together; struck, the pack passes the blow
    # on at once, as a rack does, and its pairs are shared out from how each ball's velocity
    # changed, not judged one by one (which gets 10 of these 24 packs right: a push along a
    # line of pressed balls hides in one frame's noise).
    packed = {BallId.ONE, BallId.TWO, BallId.THREE}
    right = 0
    for shape, seed in itertools.product(("line", "wedge"), range(12)):
        paths, t_hit, pushed = _pack(seed, shape, sliding=SLIDING)
        found = run(_detections(paths, t_hit + 0.4, seed)).of_kind(EventKind.BALL_BALL)
        at_hit = {frozenset(e.balls) for e in found if abs(e.time - t_hit) <= 2 * FRAME}
        right += {pair for pair in at_hit if pair <= packed} == pushed
    assert right >= 20


def test_a_wedge_struck_from_behind_pushes_through_few_pairs_that_did_not_push() -> None:
    # The balls of a wedge struck from behind part as often as they push: the two side by
    # side at its back both take the 4's blow, and the one ahead takes it from one of them.
    # Their velocities alone leave the share-out open; the physics of the pack's collision
    # as a prior on each pair (as for a rack) settles it. Without the prior, 11 pairs of
    # these 40 wedges that did not push were found pushing at the hit.
    packed = {BallId.ONE, BallId.TWO, BallId.THREE}
    false = 0
    for seed in range(40):
        paths, t_hit, pushed = _pack(seed, "wedge", sliding=SLIDING)
        found = run(_detections(paths, t_hit + 0.4, seed)).of_kind(EventKind.BALL_BALL)
        at_hit = {frozenset(e.balls) for e in found if abs(e.time - t_hit) <= 2 * FRAME}
        false += sum(pair <= packed for pair in at_hit - pushed)
    assert false <= 8


def test_a_blow_shared_out_against_an_immovable_body() -> None:
    # A ball driven square into a cushion takes the whole of its rebound, (1 + e) times its
    # speed; against a free ball it shares it, as two balls do. A pack pressed against a
    # cushion passes the cushion's push on through its pairs.
    wall = np.array([[0.0, 0.0], [D, 0.0]])
    into = np.array([[0.0, 0.0], [-1000.0, 0.0]])
    assert shared_out(wall, into, np.array([[0, 1]]), 0.95, np.array([0.0, 1.0])) == (
        pytest.approx([1950.0])
    )
    assert shared_out(wall, into, np.array([[0, 1]]), 0.95, np.ones(2)) == pytest.approx([975.0])
    pack = np.array([[0.0, 0.0], [D, 0.0], [2 * D, 0.0]])
    rolling = np.array([[0.0, 0.0], [-600.0, 0.0], [-600.0, 0.0]])
    impulses = shared_out(pack, rolling, np.array([[0, 1], [1, 2]]), 0.95, np.array([0, 1, 1.0]))
    assert impulses[0] > 0 and impulses[1] > 0


@pytest.mark.parametrize(
    "shot", [("break-14.1", 1001), ("break-14.1", 1009), ("break-8ball", 1007)]
)
def test_a_pair_pressed_together_since_it_touched_is_not_touched_again(shot) -> None:
    # Balls leave a rack pressed together, as a pack; struck again within a tenth of a
    # second, the pack passes the blow through its pressed pairs, but a pair that never came
    # apart since it touched touched once (a camera, like the truth here, counts a second touch
    # once the two part). Virtual-table breaks where such a pair was found touching again: in
    # 14.1/1009 by the pack's share-out, in 14.1/1001 by the pair test, in 8ball/1007 by the
    # share-out again, one centre 4 mm off making the gap look open.
    from bench.pipeline import WINDOW_S, track_shots
    from bench.tracking import _seen
    from tests.tracking.helpers import came_apart, observable

    sn = _seen(shot)
    _, events = track_shots(sn, sensors=True)
    contacts = [e for e in sn.run.truth.events if e.kind is EventKind.BALL_BALL]
    truth = observable(contacts, FRAME, came_apart(sn.run))
    found = sorted((e for e in events if e.kind is EventKind.BALL_BALL), key=lambda e: e.time)
    for first, again in itertools.combinations(found, 2):
        if set(first.balls) == set(again.balls) and 0.0 < again.time - first.time <= 0.1:
            touched = [t for t in truth if set(t.balls) == set(again.balls)]
            assert any(abs(t.time - again.time) <= WINDOW_S for t in touched), again
