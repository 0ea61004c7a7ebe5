"""The joint fit of contacts sharing a ball within one frame interval."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.table import TableSpec
from rules.table import CushionId
from tracking.geometry import TableCache
from tracking.shared_impulses import Interval, Limits, shared_contacts

D = 57.15
DT = 1 / 60
GEO = TableCache(TableSpec.standard("9ft"))
LIMITS = Limits(D, 12.0, 120.0, 3.5)
NOISE = 60.0  # one frame's velocity noise with 0.7 mm centres


def _forked(impulses: tuple[float, float], rng: np.random.Generator) -> Interval:
    """Ball 0 at 1500 mm/s along +x strikes balls 1 and 2 (at rest, 30 degrees either side of
    its path) at once, half-way through the interval, with the given impulses (mm/s); ball 3
    rests well away. Velocities after carry one frame's noise."""
    tau = DT / 2
    p0 = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [300.0, 300.0]])
    v_before = np.array([[1500.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    normals = [np.array([np.cos(a), np.sin(a)]) for a in (np.pi / 6, -np.pi / 6)]
    at_touch = p0[0] + v_before[0] * tau
    for k, n in ((1, normals[0]), (2, normals[1])):
        p0[k] = at_touch + D * n
    v_after = v_before.copy()
    for k, (n, j) in enumerate(zip(normals, impulses, strict=True), start=1):
        v_after[0] -= j * n
        v_after[k] += j * n
    p1 = p0 + v_before * tau + v_after * (DT - tau)
    v_out = v_after + rng.normal(0.0, NOISE / 2, v_after.shape)
    return Interval(p0, p1, v_before, v_out, np.full(4, NOISE), DT)


def _candidates(pairs) -> np.ndarray:
    c = np.zeros((4, 4), dtype=bool)
    for a, b in pairs:
        c[a, b] = True
    return c


@pytest.mark.parametrize("seed", range(5))
def test_two_contacts_of_one_ball_in_one_interval_are_both_found(seed: int) -> None:
    scene = _forked((700.0, 700.0), np.random.default_rng(seed))
    found = shared_contacts(scene, _candidates([(0, 1), (0, 2)]), set(), GEO, LIMITS)
    assert sorted((a, b) for a, b, _ in found.pairs) == [(0, 1), (0, 2)]
    for _, _, tau in found.pairs:
        assert tau == pytest.approx(DT / 2, abs=1e-3)


@pytest.mark.parametrize("seed", range(5))
def test_a_contact_the_pair_test_found_is_not_found_again(seed: int) -> None:
    scene = _forked((700.0, 700.0), np.random.default_rng(seed))
    found = shared_contacts(scene, _candidates([(0, 1), (0, 2)]), {(0, 1)}, GEO, LIMITS)
    assert [(a, b) for a, b, _ in found.pairs] == [(0, 2)]


@pytest.mark.parametrize("seed", range(5))
def test_a_touch_with_no_impulse_is_no_contact(seed: int) -> None:
    # Ball 2 only grazes: ball 0's whole kick is ball 1's impulse.
    scene = _forked((900.0, 0.0), np.random.default_rng(seed))
    found = shared_contacts(scene, _candidates([(0, 1), (0, 2)]), set(), GEO, LIMITS)
    assert [(a, b) for a, b, _ in found.pairs] == [(0, 1)]


def test_a_kick_within_the_margin_of_the_noise_is_no_contact() -> None:
    # 300 mm/s impulses pass one pair's threshold (3.5 x 60 = 210) but not the shared fit's
    # twice that: a split kick rests on every ball's velocity before being right.
    scene = _forked((300.0, 300.0), np.random.default_rng(0))
    assert shared_contacts(scene, _candidates([(0, 1), (0, 2)]), set(), GEO, LIMITS).pairs == ()


def test_a_ball_that_never_comes_within_touching_distance_is_no_contact() -> None:
    # Ball 3 is a candidate (near enough by the coarse reach) but 300 mm off all interval.
    scene = _forked((700.0, 700.0), np.random.default_rng(1))
    found = shared_contacts(scene, _candidates([(0, 1), (0, 2), (0, 3)]), set(), GEO, LIMITS)
    assert sorted((a, b) for a, b, _ in found.pairs) == [(0, 1), (0, 2)]


def test_a_ball_struck_against_a_cushion_has_its_contact() -> None:
    # Ball 1 at 1500 mm/s stops dead on ball 0, which rests against the head cushion and
    # comes straight back off it at 1300 mm/s: ball 0's kick is the cushion's push less the
    # ball's, and the cushion's push is fitted with it.
    nose = GEO.nose(CushionId.HEAD)
    normal = np.asarray(nose.normal)
    at = np.asarray(nose.start) + nose.along / 2 + normal * (D / 2 + 0.5)
    tau = DT / 3
    p0 = np.array([at, at + normal * (D + 1500.0 * tau)])
    v_before = np.array([[0.0, 0.0], -1500.0 * normal])
    v_after = np.array([1300.0 * normal, [0.0, 0.0]])
    p1 = p0 + v_before * tau + v_after * (DT - tau)
    rng = np.random.default_rng(3)
    scene = Interval(
        p0, p1, v_before, v_after + rng.normal(0, NOISE / 2, (2, 2)), np.full(2, NOISE), DT
    )
    candidates = np.array([[False, True], [False, False]])
    found = shared_contacts(scene, candidates, set(), GEO, LIMITS)
    assert [(a, b) for a, b, _ in found.pairs] == [(0, 1)]
    assert found.pairs[0][2] == pytest.approx(tau, abs=1e-3)
    # ... and the cushion's push, when the ball reached it: a contact of its own (3.20).
    ((ball, wall, at),) = found.walls
    assert (ball, GEO.walls[wall].cushion) == (0, CushionId.HEAD)
    assert at == pytest.approx(tau, abs=1e-3)


def _head_nose() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The head cushion nose's normal and unit tangent, and where a ball's centre is when it
    touches the nose's middle."""
    nose = GEO.nose(CushionId.HEAD)
    normal, tangent = np.asarray(nose.normal), np.asarray(nose.along) / np.hypot(*nose.along)
    return normal, tangent, np.asarray(nose.start) + nose.along / 2 + normal * D / 2


def _off_the_nose(into: float, along: float, at: float, seed: int) -> Interval:
    """Ball 0 meets the head cushion's nose ``at`` s into the interval, coming in at ``into``
    mm/s and along it at ``along``, and comes off at 0.8 of that; ball 1 rests far off."""
    normal, tangent, touch = _head_nose()
    v_in, v_off = -into * normal + along * tangent, 0.8 * into * normal + along * tangent
    p0 = np.array([touch - v_in * at, [0.0, 0.0]])
    v_before = np.array([v_in, [0.0, 0.0]])
    v_after = np.array([v_off, [0.0, 0.0]])
    p1 = p0 + v_before * at + v_after * (DT - at)
    rng = np.random.default_rng(seed)
    v_out = v_after + rng.normal(0, NOISE / 2, (2, 2))
    return Interval(p0, p1, v_before, v_out, np.full(2, NOISE), DT)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_a_ball_alone_off_a_cushion_has_its_contact_rule_3_20(share: float, seed: int) -> None:
    # In a rattle the jaws turn a ball every frame or two: each turn, fitted on its own
    # interval, is a cushion contact timed inside it.
    scene = _off_the_nose(2000.0, 800.0, share * DT, seed)
    none = np.zeros((2, 2), dtype=bool)
    ((ball, wall, at),) = shared_contacts(scene, none, set(), GEO, LIMITS, alone=[0]).walls
    assert (ball, GEO.walls[wall].cushion) == (0, CushionId.HEAD)
    assert at == pytest.approx(share * DT, abs=0.2 * DT)


def test_a_ball_alone_turned_short_of_the_cushion_has_no_contact_rule_3_20() -> None:
    # The same turn 30 mm short of the nose, within the fit's reach (a kick the noise made, or
    # a hidden ball's): the ball never reached the cushion inside the interval.
    scene = _off_the_nose(2000.0, 800.0, DT / 2, 0)
    short = np.asarray(GEO.nose(CushionId.HEAD).normal) * 30.0
    moved = Interval(
        scene.p0 + short, scene.p1 + short, scene.v_before, scene.v_out, scene.noise, scene.dt
    )
    none = np.zeros((2, 2), dtype=bool)
    assert shared_contacts(moved, none, set(), GEO, LIMITS, alone=[0]).walls == ()


def _followed(seed: int) -> Interval:
    """Ball 0 comes off the head cushion's nose (as `_off_the_nose`) while ball 1 follows it
    in, 45 mm behind: near enough to be a candidate, never touching it inside the interval."""
    scene = _off_the_nose(2000.0, 0.0, DT / 2, seed)
    normal, _, _ = _head_nose()
    behind = scene.p0[0] + normal * (D + 45.0)
    v_follow = -300.0 * normal
    p0 = np.array([scene.p0[0], behind])
    p1 = np.array([scene.p1[0], behind + v_follow * DT])
    v_before = np.array([scene.v_before[0], v_follow])
    v_out = np.array([scene.v_out[0], v_follow])
    return Interval(p0, p1, v_before, v_out, scene.noise, DT)


@pytest.mark.parametrize("seed", range(4))
def test_a_ball_followed_into_a_cushion_has_its_contact_rule_3_20(seed: int) -> None:
    # The following ball is near enough to be a candidate, but touches ball 0 only after the
    # rebound's interval: the rebound is ball 0's alone.
    scene = _followed(seed)
    candidates = np.array([[False, True], [False, False]])
    found = shared_contacts(scene, candidates, set(), GEO, LIMITS, alone=[0])
    assert found.pairs == ()
    ((ball, wall, at),) = found.walls
    assert (ball, GEO.walls[wall].cushion) == (0, CushionId.HEAD)
    assert at == pytest.approx(DT / 2, abs=0.2 * DT)


def _struck_back_after(seed: int) -> Interval:
    """Ball 0 runs into the head cushion at 1100 mm/s, touching it 0.6 of the way through the
    interval, and comes off at 880; ball 1 follows it in at 470 mm/s, 9.5 mm behind at f0,
    and the two meet 5 ms after f1, a 1000 mm/s impulse: the steps after the interval, from
    which their velocities out are measured, carry that contact."""
    normal, _, touch = _head_nose()
    at, meet = 0.6 * DT, DT + 0.005
    p0 = np.array([touch + 1100.0 * at * normal, touch + (1100.0 * at + D + 9.5) * normal])
    v_before = np.array([-1100.0 * normal, -470.0 * normal])
    p1 = np.array([touch + 880.0 * (DT - at) * normal, p0[1] - 470.0 * DT * normal])
    # Over the step after f1: 5 ms as they were, then the impulse.
    rest = DT - (meet - DT)
    v_out = np.array(
        [
            (880.0 * (meet - DT) - 120.0 * rest) / DT * normal,
            (-470.0 * (meet - DT) + 530.0 * rest) / DT * normal,
        ]
    )
    rng = np.random.default_rng(seed)
    v_out += rng.normal(0, NOISE / 2, (2, 2))
    return Interval(p0, p1, v_before, v_out, np.full(2, NOISE), DT)


@pytest.mark.parametrize("seed", range(4))
def test_a_ball_struck_back_after_its_rebound_is_not_struck_in_it_rule_3_20(seed: int) -> None:
    # Parting as they came in, the two meet only after ball 0 came off the cushion, after
    # the interval: the kick the step after shows is the next interval's contact, not this
    # one's (a contact here would come before the rebound, and hide it).
    scene = _struck_back_after(seed)
    candidates = np.array([[False, True], [False, False]])
    assert shared_contacts(scene, candidates, set(), GEO, LIMITS).pairs == ()


@pytest.mark.parametrize("seed", range(12))
def test_a_ball_leaving_a_cushion_slowly_late_in_the_interval_has_its_contact_rule_3_20(
    seed: int,
) -> None:
    # In at 600 mm/s, touching at 0.7 of the interval, off at 250 mm/s: the time it left,
    # from a centre placed to 0.7 mm a few millimetres off the nose, is 3 ms uncertain, and
    # often seems to come before the time it got there.
    normal, tangent, touch = _head_nose()
    at = 0.7 * DT
    v_in, v_off = -600.0 * normal + 200.0 * tangent, 250.0 * normal + 200.0 * tangent
    rng = np.random.default_rng(seed)
    p0 = np.array([touch - v_in * at, [0.0, 0.0]]) + rng.normal(0, 0.7, (2, 2))
    p1 = np.array([touch + v_off * (DT - at), [0.0, 0.0]]) + rng.normal(0, 0.7, (2, 2))
    v_before = np.array([v_in, [0.0, 0.0]])
    v_out = np.array([v_off, [0.0, 0.0]]) + rng.normal(0, NOISE / 2, (2, 2))
    scene = Interval(p0, p1, v_before, v_out, np.full(2, NOISE), DT)
    none = np.zeros((2, 2), dtype=bool)
    ((ball, wall, t),) = shared_contacts(scene, none, set(), GEO, LIMITS, alone=[0]).walls
    assert (ball, GEO.walls[wall].cushion) == (0, CushionId.HEAD)
    assert t == pytest.approx(at, abs=0.25 * DT)


@pytest.mark.parametrize("seed", range(5))
def test_a_ball_struck_back_into_a_cushion_is_timed_after_the_strike_rule_3_20(seed: int) -> None:
    # Ball 0 touched the head cushion in the interval before and is coming off it at 480 mm/s
    # when a contact found in this one strikes it back in at 1000 mm/s, 7 ms in; it reaches
    # the nose 6 ms later and leaves at 800 mm/s. Its velocity coming in is still its way in
    # to the first touch (1600 mm/s), which carried on reaches the nose 2 ms in: the touch is
    # timed by its way off, after the strike, not between the two.
    normal, _, touching = _head_nose()
    p0 = touching + normal * 2.7
    struck, touch = 0.007, 0.007 + (2.7 + 0.48 * 7.0) / 1000.0
    p1 = touching + normal * 800.0 * (DT - touch)
    rng = np.random.default_rng(seed)
    scene = Interval(
        p0[None, :],
        p1[None, :],
        (-1600.0 * normal)[None, :],
        (800.0 * normal + rng.normal(0, NOISE / 2, 2))[None, :],
        np.full(1, NOISE),
        DT,
        struck=np.array([struck]),
    )
    found = shared_contacts(scene, np.zeros((1, 1), dtype=bool), set(), GEO, LIMITS, alone=[0])
    ((ball, wall, at),) = found.walls
    assert (ball, GEO.walls[wall].cushion) == (0, CushionId.HEAD)
    assert at == pytest.approx(touch, abs=1.5e-3)


@pytest.mark.parametrize("seed", range(4))
def test_a_ball_falling_past_a_jaw_takes_no_push_from_it_rule_3_20(seed: int) -> None:
    # Ball 0 rolls into the right side pocket beside the foot half's jaw at 1.2 m/s and drops
    # past the shelf in the interval: its path bends back and down the pocket. The bend is the
    # fall, not the jaw's push.
    pocket = next(p for p in GEO.pockets if p.id.value == "side-right")
    mouth, axis = np.asarray(pocket.mouth_centre), np.asarray(pocket.axis)
    across = np.array([-axis[1], axis[0]])
    p0 = mouth + across * 30.0 - axis * 0.9
    v_before = 1025.0 * axis + 570.0 * across
    p1 = p0 + (667.0 * axis + 122.0 * across) * DT
    v_after = 580.0 * axis - 255.0 * across
    assert float((p1 + v_after * DT - mouth) @ axis) > pocket.shelf  # falling by the next frame
    rng = np.random.default_rng(seed)
    v_out = v_after + rng.normal(0, NOISE / 2, 2)
    scene = Interval(
        np.array([p0, [0.0, 0.0]]),
        np.array([p1, [0.0, 0.0]]),
        np.array([v_before, [0.0, 0.0]]),
        np.array([v_out, [0.0, 0.0]]),
        np.full(2, NOISE),
        DT,
    )
    none = np.zeros((2, 2), dtype=bool)
    assert shared_contacts(scene, none, set(), GEO, LIMITS, alone=[0]).walls == ()
