"""A simple shooter that plays whole racks on the virtual table (multi-shot truth).

It plays 9-ball the way a club player thinks: the lowest ball is the target; for each pocket,
if the object ball's path to the pocket and the cue ball's path to the ghost ball are clear and
the cut is not too thin, it is a candidate; the thinnest-cut, shortest shot wins. With no
candidate it hits the target full and hopes. Ball in hand (after a scratch) goes where the
best straight-in shot is. A 9 pocketed on a foul is spotted (rule 5.7).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from calibration.table import TableSpec
from hardware.sim import aim
from hardware.sim.play import Play
from hardware.sim.racks import (
    eight_ball_order,
    kitchen_spot,
    nine_ball_order,
    racked,
    straight_pool_order,
)
from rules.balls import BallGroup, BallId
from rules.shot import Placement, Shot
from rules.table import PocketId, Point, RackShape

MAX_CUT_DEG = 65.0


@dataclass(frozen=True, slots=True)
class ShotPlan:
    """A chosen shot: where to send which ball, how hard, from where."""

    target: BallId
    pocket: PocketId | None
    heading_deg: float
    speed: float
    cut_deg: float


def plan_shot(
    table: TableSpec, balls: dict[BallId, Point], target: BallId | list[BallId]
) -> ShotPlan:
    """The easiest pot of ``target`` (or of any of several targets) from where the cue ball
    is; with no pot on, a full hit on the first target."""
    if isinstance(target, list):
        plans = [plan_shot(table, balls, t) for t in target]
        potting = [p for p in plans if p.pocket is not None]
        return min(potting, key=lambda p: p.cut_deg) if potting else plans[0]
    r = table.ball_diameter / 2
    cue = balls[BallId.CUE]
    obj = balls[target]
    others = [p for b, p in balls.items() if b not in (BallId.CUE, target)]
    best: tuple[float, ShotPlan] | None = None
    for pocket in PocketId:
        t = aim.pocket_target(table, pocket)
        g = aim.ghost_with_throw(cue, obj, t, r)
        cut = aim.cut_angle_deg(cue, obj, t, r)
        if cut > MAX_CUT_DEG or math.dist(cue, g) < 1.0:
            continue
        if not aim.path_clear(obj, t, others, r) or not aim.path_clear(cue, g, others, r):
            continue
        if not aim.on_cloth(table, g, r, -r):
            continue
        travel, run = math.dist(cue, g), math.dist(obj, t)
        score = cut + 0.02 * (travel + run)
        plan = ShotPlan(
            target, pocket, aim.heading_deg(cue, g), aim.shot_speed(travel, run, cut), cut
        )
        if best is None or score < best[0]:
            best = (score, plan)
    if best is not None:
        return best[1]
    return ShotPlan(target, None, aim.heading_deg(cue, obj), 2500.0, 0.0)


def ball_in_hand_spot(table: TableSpec, balls: dict[BallId, Point], target: BallId) -> Point:
    """Where to put the cue ball for a straight-in shot at ``target`` (some pocket)."""
    r = table.ball_diameter / 2
    obj = balls[target]
    others = [p for b, p in balls.items() if b not in (BallId.CUE, target)]
    for pocket in sorted(PocketId, key=lambda p: math.dist(obj, aim.pocket_target(table, p))):
        t = aim.pocket_target(table, pocket)
        d = aim.unit((t[0] - obj[0], t[1] - obj[1]))
        for back in (350.0, 250.0, 500.0, 150.0):
            spot = (obj[0] - d[0] * (2 * r + back), obj[1] - d[1] * (2 * r + back))
            if (
                aim.on_cloth(table, spot, r, 5.0)
                and all(math.dist(spot, p) > 2 * r + 5 for p in balls.values())
                and aim.path_clear(obj, t, others, r)
                and aim.path_clear(spot, obj, others, r)
            ):
                return spot
    for k in range(40):
        spot = (-table.length / 4 - 200 + 15 * k, 0.0)
        if all(math.dist(spot, p) > 2 * r + 5 for p in balls.values()):
            return spot
    raise ValueError("no free spot for the cue ball")


def spot_ball(table: TableSpec, balls: dict[BallId, Point]) -> Point:
    """Where a spotted ball goes: the foot spot, or behind it on the long string (3.32)."""
    r = table.ball_diameter / 2
    fx, fy = table.foot_spot
    for k in range(60):
        for sign in (1.0, -1.0):
            spot = (fx + sign * k * 2.0, fy)
            if aim.on_cloth(table, spot, r) and all(
                math.dist(spot, p) > 2 * r + 0.5 for p in balls.values()
            ):
                return spot
    raise ValueError("no room to spot a ball")


def play_nine_ball_rack(rng: random.Random, table: TableSpec, max_shots: int = 25) -> Play:
    """Break and play a rack of 9-ball until the 9 drops or ``max_shots``."""
    rack = racked(table, RackShape.DIAMOND, nine_ball_order(rng), rng)
    cue = kitchen_spot(table, rng)
    play = Play(table, [(BallId.CUE, cue), *rack])
    apex = rack[0][1]
    play.shoot(
        rng.uniform(8000.0, 10000.0),
        aim.heading_deg(cue, (apex[0], apex[1] + rng.uniform(-6, 6))),
        show_cue=True,
    )
    _judge(play, play.shots[-1])
    while len(play.shots) < max_shots:
        balls = play.on_cloth()
        if BallId.NINE not in balls:
            last = play.shots[-1]
            if BallId.NINE in last.pocketed and not _fouled(last):
                break
            play.wait(2.0)
            play.place(BallId.NINE, spot_ball(table, balls), hand_s=1.0)
            balls = play.on_cloth()
        target = min((b for b in balls if b.is_object_ball), key=lambda b: b.number)
        play.wait(rng.uniform(1.0, 2.5))
        placement = None
        if BallId.CUE not in balls:
            spot = ball_in_hand_spot(table, balls, target)
            play.place(BallId.CUE, spot, hand_s=1.2)
            play.wait(rng.uniform(1.0, 2.0))
            placement = Placement(spot, table.in_kitchen(spot), spot[0] - table.head_string_x)
            balls = play.on_cloth()
        plan = plan_shot(table, balls, target)
        play.strike(plan.speed, plan.heading_deg, follow=rng.uniform(-0.25, 0.3), show_cue=True)
        shot = play.settle(placement=placement)
        _judge(play, shot)
    return play


def _fouled(shot: Shot) -> bool:
    fc = shot.first_contact
    lowest = min((b for b in shot.at_strike.balls if b.is_object_ball), key=lambda b: b.number)
    return (
        BallId.CUE in shot.pocketed
        or fc is None
        or fc.ball != lowest
        or not (shot.pocketed or shot.balls_to_cushion_after_first_contact)
    )


def _judge(play: Play, shot: Shot) -> None:
    """The plain 9-ball calls a referee makes on this shot (fouls it surely is)."""
    fc = shot.first_contact
    lowest = min((b for b in shot.at_strike.balls if b.is_object_ball), key=lambda b: b.number)
    if BallId.CUE in shot.pocketed:
        play.expect("foul", "3.20", "cue ball pocketed")
    if fc is None:
        play.expect("foul", "3.18", "no ball hit")
    elif fc.ball != lowest and not fc.is_split:
        play.expect("foul", "5.1", f"hit the {fc.ball} before the {lowest}")
    elif not (shot.pocketed or shot.balls_to_cushion_after_first_contact):
        play.expect("foul", "5.9", "no cushion after contact, nothing pocketed")


def play_eight_ball_rack(rng: random.Random, table: TableSpec, max_shots: int = 30) -> Play:
    """Break and play a rack of 8-ball between two players until the 8 drops or ``max_shots``.

    Groups are set by the first ball legally pocketed after the break (rule 4.10); a foul
    gives the opponent ball in hand anywhere (4.14); the 8 on the break is spotted (4.8).
    """
    rack = racked(table, RackShape.TRIANGLE, eight_ball_order(rng), rng)
    cue = kitchen_spot(table, rng)
    play = Play(table, [(BallId.CUE, cue), *rack])
    apex = rack[0][1]
    heading = aim.heading_deg(cue, (apex[0], apex[1] + rng.uniform(-6, 6)))
    play.shoot(rng.uniform(8500.0, 10500.0), heading, show_cue=True)
    groups: dict[int, BallGroup] = {}
    player = 0
    shot = play.shots[-1]
    foul = BallId.CUE in shot.pocketed
    if foul:
        play.expect("foul", "4.6", "scratch on the break")
    if BallId.EIGHT in shot.pocketed:
        play.expect("flag", "4.8", "the 8 on the break: spotted")
        play.wait(2.0)
        play.place(BallId.EIGHT, spot_ball(table, play.on_cloth()), hand_s=1.0)
    if foul or not [b for b in shot.pocketed if b.is_object_ball]:
        player = 1
    kitchen_only = foul  # a scratch on the break: ball in hand behind the head string (4.6)
    while len(play.shots) < max_shots:
        balls = play.on_cloth()
        targets = _eight_ball_targets(balls, groups.get(player))
        play.wait(rng.uniform(1.0, 2.5))
        placement = None
        if BallId.CUE not in balls:
            if kitchen_only:
                spot = _kitchen_spot_for(table, balls, rng)
            else:
                spot = ball_in_hand_spot(table, balls, targets[0])
            play.place(BallId.CUE, spot, hand_s=1.2)
            play.wait(rng.uniform(1.0, 2.0))
            placement = Placement(spot, table.in_kitchen(spot), spot[0] - table.head_string_x)
            balls = play.on_cloth()
        kitchen_only = False
        plan = plan_shot(table, balls, targets)
        play.strike(plan.speed, plan.heading_deg, follow=rng.uniform(-0.25, 0.3), show_cue=True)
        shot = play.settle(placement=placement)
        fc = shot.first_contact
        own = groups.get(player)
        legal_first = fc is not None and fc.ball in targets
        rail = bool(shot.pocketed or shot.balls_to_cushion_after_first_contact)
        foul = BallId.CUE in shot.pocketed or not legal_first or not rail
        if BallId.CUE in shot.pocketed:
            play.expect("foul", "3.20", "cue ball pocketed")
        elif not legal_first:
            play.expect("foul", "4.11" if own else "4.9", "wrong ball first")
        elif not rail:
            play.expect("foul", "3.19", "no cushion after contact, nothing pocketed")
        if BallId.EIGHT in shot.pocketed:
            won = not foul and targets == [BallId.EIGHT]
            play.expect("win" if won else "loss", "4.20", f"player {player} and the 8")
            break
        made = [b for b in shot.pocketed if b.is_object_ball]
        if not foul and own is None and made:
            groups[player] = made[0].group
            other = BallGroup.STRIPES if made[0].group is BallGroup.SOLIDS else BallGroup.SOLIDS
            groups[1 - player] = other
        mine = [b for b in made if groups.get(player) in (None, b.group)]
        if foul or not mine:
            player = 1 - player
    return play


def _kitchen_spot_for(table: TableSpec, balls: dict[BallId, Point], rng: random.Random) -> Point:
    """A free spot behind the head string."""
    r = table.ball_diameter / 2
    for _ in range(100):
        spot = kitchen_spot(table, rng)
        if all(math.dist(spot, p) > 2 * r + 5 for p in balls.values()):
            return spot
    raise ValueError("no free spot in the kitchen")


def _eight_ball_targets(balls: dict[BallId, Point], group: BallGroup | None) -> list[BallId]:
    on = [b for b in balls if b.is_object_ball]
    if group is None:
        return [b for b in on if b is not BallId.EIGHT] or [BallId.EIGHT]
    mine = [b for b in on if b.group is group]
    return mine or [BallId.EIGHT]


def play_straight_pool(rng: random.Random, table: TableSpec, max_shots: int = 40) -> Play:
    """14.1 continuous: break, then run balls; when one object ball is left, the other 14 are
    re-racked with the apex empty (rule 6.7.3) and play goes on.

    Re-racks where the 15th ball or the cue ball lies in the rack's footprint (the cases of
    rule 6.7.6) end the scenario instead of being played out.
    """
    rack = racked(table, RackShape.TRIANGLE, straight_pool_order(rng), rng)
    cue = kitchen_spot(table, rng)
    play = Play(table, [(BallId.CUE, cue), *rack])
    apex = rack[0][1]
    heading = aim.heading_deg(cue, (apex[0], apex[1] + rng.uniform(-6, 6)))
    play.shoot(rng.uniform(8500.0, 10500.0), heading, show_cue=True)
    footprint = table.rack_footprint(RackShape.TRIANGLE)
    r = table.ball_diameter / 2
    kitchen_only = BallId.CUE in play.shots[-1].pocketed
    while len(play.shots) < max_shots:
        balls = play.on_cloth()
        objects = [b for b in balls if b.is_object_ball]
        if len(objects) == 1 and BallId.CUE in balls:
            if any(_inside(footprint, p, r) for p in balls.values()):
                break
            play.wait(rng.uniform(2.0, 4.0))
            _rerack(play, table, rng, [b for b in rack_ids() if b not in objects])
            balls = play.on_cloth()
            objects = [b for b in balls if b.is_object_ball]
        if not objects:
            break
        play.wait(rng.uniform(1.0, 2.5))
        placement = None
        if BallId.CUE not in balls:
            spot = (
                _kitchen_spot_for(table, balls, rng)
                if kitchen_only
                else ball_in_hand_spot(table, balls, objects[0])
            )
            play.place(BallId.CUE, spot, hand_s=1.2)
            play.wait(rng.uniform(1.0, 2.0))
            placement = Placement(spot, table.in_kitchen(spot), spot[0] - table.head_string_x)
            balls = play.on_cloth()
        plan = plan_shot(table, balls, objects)
        play.strike(plan.speed, plan.heading_deg, follow=rng.uniform(-0.25, 0.3), show_cue=True)
        shot = play.settle(placement=placement)
        rail = bool(shot.pocketed or shot.balls_to_cushion_after_first_contact)
        kitchen_only = BallId.CUE in shot.pocketed
        if kitchen_only:
            play.expect("foul", "6.10", "scratch: -1, ball in hand behind the head string (6.11)")
        elif shot.first_contact is None or not rail:
            play.expect("foul", "6.10", "no contact or no cushion: -1")
    return play


def rack_ids() -> list[BallId]:
    """The fifteen object balls."""
    return [BallId.numbered(n) for n in range(1, 16)]


def _inside(polygon: tuple[Point, ...], p: Point, radius: float) -> bool:
    from hardware.sim.truth import point_in_polygon

    edges = zip(polygon, (*polygon[1:], polygon[0]), strict=True)
    near_edge = any(aim.segment_distance(p, a, b) < radius + 1.0 for a, b in edges)
    return point_in_polygon(p, polygon) or near_edge


def _rerack(play: Play, table: TableSpec, rng: random.Random, balls: list[BallId]) -> None:
    from hardware.sim.truth import RackTruth
    from rules.shot import Layout

    rng.shuffle(balls)
    slots = racked(table, RackShape.TRIANGLE, [BallId.CUE, *balls], rng)[1:]
    fx, fy = table.foot_spot
    start = play.time
    for ball, p in slots:
        play.engine.place(play.index(ball), p)
        play.wait(0.08)
    play.show_hand((fx + 120.0, fy + 60.0), start - 0.5, play.time + 0.3)
    play.show_hand((fx + 120.0, fy - 60.0), start - 0.5, play.time + 0.3)
    layout = Layout.of(dict(slots))
    play.racks.append(RackTruth(play.time, RackShape.TRIANGLE, layout, apex_empty=True))
    play.expect("legal", "6.7.3", "14 balls re-racked, apex empty", shot=len(play.shots) - 1)
