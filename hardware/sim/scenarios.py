"""The scenario library: named, seeded situations on the virtual table with exact truth.

`list_scenarios()` names them; `run_scenario(name, seed)` plays one and returns its
`SimResult` (for the renderer and the sensors) and `ScenarioTruth` (for the judge of
accuracy). The same name and seed always give the same run.

Scenarios that physics must produce (a cut that drops, a kick that hits its ball, a rattle) are
generated from seeded random set-ups and checked against what they claim; a set-up that does
not do it is discarded and the next variant of the same seed is tried, so the truth of every
run is what its name says. Situations physics alone does not give (jumps, a double hit, a
push, a hand touching a ball, a ball settling into a pocket, placements, the lag, arms over
the table, the 14.1 re-rack) are scripted on top of the engine.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from calibration.table import TableSpec
from hardware.sim import aim
from hardware.sim.motion import GRAVITY_MM_S2, BallState
from hardware.sim.physics import SimulationError
from hardware.sim.play import Play, cue_travel_toward, frame_truth
from hardware.sim.racks import (
    eight_ball_order,
    kitchen_spot,
    nine_ball_order,
    racked,
    straight_pool_order,
)
from hardware.sim.result import SimResult
from hardware.sim.shooter import play_eight_ball_rack, play_nine_ball_rack, play_straight_pool
from hardware.sim.truth import LagLane, LagTruth, RackTruth, ScenarioTruth
from rules.balls import NINE_BALL_SET, OBJECT_BALLS, BallId
from rules.events import EventKind, ShotEvent, involving, of_kind, select
from rules.shot import DoubleHitEvidence, JumpEvidence, Layout, Placement, PushEvidence, Shot
from rules.table import CushionId, PocketId, Point, RackShape

CAMERA_HEIGHT_MM = 2500.0
"""Camera height assumed for the apparent-radius growth in jump evidence."""
LIGHT_HEIGHT_MM = 1000.0
"""Height of the lamp over the cloth, for the ball that touches the light."""
RAIL_TOP_MM = 40.0
"""Height of the rail top above the cloth, where a jumped ball can come to rest."""
RAIL_WIDTH_MM = 150.0
"""Cushion nose to the outer edge of the rail."""


class _Retry(Exception):
    """This variant of the set-up does not work; try the next."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """A named generator of one situation.

    Attributes:
        name: Its name (``railbird sim NAME``).
        kind: Its family: ``break``, ``shot``, ``scripted`` or ``game``.
        description: What happens.
        build: Plays the scenario from a seeded random generator on a table.
        claim: What its truth must show; variants failing it are discarded.
        attempts: How many variants to try before giving up.
    """

    name: str
    kind: str
    description: str
    build: Callable[[random.Random, TableSpec], Play]
    claim: Callable[[Play], bool]
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class ScenarioRun:
    """One run of a scenario: the motion and its truth."""

    scenario: Scenario
    seed: int
    play: Play
    result: SimResult
    truth: ScenarioTruth

    @property
    def game(self) -> str:
        """The game a monitor referees this run as: the one a break or rack names, else 9-ball
        when every ball is in its set (5.2), else 8-ball (a fifteen-ball table)."""
        for game, mark in (("14.1", "14.1"), ("8-ball", "8ball"), ("9-ball", "9ball")):
            if mark in self.scenario.name:
                return game
        balls = {BallId(label) for label in self.truth.balls}
        return "9-ball" if balls <= NINE_BALL_TABLE else "8-ball"


_SCENARIOS: dict[str, Scenario] = {}
NINE_BALL_TABLE = frozenset((BallId.CUE, *NINE_BALL_SET))


def _always(_: Play) -> bool:
    return True


def scenario(
    name: str,
    kind: str,
    description: str,
    attempts: int = 20,
    claim: Callable[[Play], bool] = _always,
) -> Callable[
    [Callable[[random.Random, TableSpec], Play]], Callable[[random.Random, TableSpec], Play]
]:
    """Register a scenario builder under ``name``."""

    def register(build: Callable[[random.Random, TableSpec], Play]):
        _SCENARIOS[name] = Scenario(name, kind, description, build, claim, attempts)
        return build

    return register


def list_scenarios() -> tuple[Scenario, ...]:
    """Every scenario, in registration order."""
    return tuple(_SCENARIOS.values())


def get_scenario(name: str) -> Scenario:
    """A scenario by name.

    Raises:
        SimulationError: no scenario has that name (the message lists them).
    """
    if name not in _SCENARIOS:
        known = ", ".join(_SCENARIOS)
        raise SimulationError(f"no scenario named {name!r}; known: {known}")
    return _SCENARIOS[name]


def run_scenario(name: str, seed: int = 0, table: TableSpec | None = None) -> ScenarioRun:
    """Play scenario ``name`` with ``seed``: the same pair always gives the same run.

    Raises:
        SimulationError: unknown name, or no variant did what the scenario claims.
    """
    sc = get_scenario(name)
    table = table or TableSpec.standard("9ft")
    for attempt in range(sc.attempts):
        rng = random.Random(f"{name}/{seed}/{attempt}")
        try:
            play = sc.build(rng, table)
        except (_Retry, SimulationError):
            continue
        if sc.claim(play):
            truth = play.truth(name, seed, sc.description)
            return ScenarioRun(sc, seed, play, play.result(), truth)
    raise SimulationError(
        f"scenario {name!r} seed {seed}: no variant in {sc.attempts} did what it claims"
    )


# Set-up helpers -------------------------------------------------------------------------------


def _radius(table: TableSpec) -> float:
    return table.ball_diameter / 2


def free_spot(
    table: TableSpec,
    rng: random.Random,
    taken: list[Point],
    margin: float = 40.0,
    keep_clear: list[tuple[Point, Point]] | None = None,
) -> Point:
    """A random spot on the cloth clear of other balls, cushions and the given paths."""
    r = _radius(table)
    for _ in range(200):
        p = (
            rng.uniform(-table.length / 2 + r + margin, table.length / 2 - r - margin),
            rng.uniform(-table.width / 2 + r + margin, table.width / 2 - r - margin),
        )
        if not aim.on_cloth(table, p, r, margin):
            continue
        if any(math.dist(p, q) < 2 * r + 20 for q in taken):
            continue
        if keep_clear and any(aim.segment_distance(p, a, b) < 2 * r + 15 for a, b in keep_clear):
            continue
        return p
    raise _Retry


def _rotate(v: Point, deg: float) -> Point:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)


@dataclass(frozen=True, slots=True)
class _CutSetup:
    cue: Point
    obj: Point
    pocket: PocketId
    heading: float
    speed: float
    cut: float


def _cut_setup(
    table: TableSpec,
    rng: random.Random,
    cut_range: tuple[float, float] = (5.0, 40.0),
    obj_range: tuple[float, float] = (250.0, 1100.0),
    cue_range: tuple[float, float] = (250.0, 800.0),
    pocket: PocketId | None = None,
) -> _CutSetup:
    r = _radius(table)
    pocket = pocket or rng.choice(list(PocketId))
    target = aim.pocket_target(table, pocket)
    p = table.pocket(pocket)
    # Object ball in front of the pocket, within the pocket's reach.
    spread = 40.0 if pocket.is_corner else 55.0
    direction = _rotate((-p.axis[0], -p.axis[1]), rng.uniform(-spread, spread))
    dist = rng.uniform(*obj_range)
    obj = (target[0] + direction[0] * dist, target[1] + direction[1] * dist)
    if not aim.on_cloth(table, obj, r, 50.0):
        raise _Retry
    d = aim.unit((target[0] - obj[0], target[1] - obj[1]))
    g = aim.ghost(obj, target, r)
    cut = rng.uniform(*cut_range) * rng.choice((-1.0, 1.0))
    u = _rotate(d, cut)
    travel = rng.uniform(*cue_range)
    cue = (g[0] - u[0] * travel, g[1] - u[1] * travel)
    if not aim.on_cloth(table, cue, r, 5.0):
        raise _Retry
    speed = aim.shot_speed(travel, math.dist(obj, target), abs(cut))
    thrown = aim.ghost_with_throw(cue, obj, target, r)
    return _CutSetup(cue, obj, pocket, aim.heading_deg(cue, thrown), speed, abs(cut))


def _object(rng: random.Random, exclude: tuple[BallId, ...] = ()) -> BallId:
    return rng.choice([b for b in OBJECT_BALLS if b not in exclude])


def _extras(
    table: TableSpec,
    rng: random.Random,
    taken: list[Point],
    paths: list[tuple[Point, Point]],
    used: list[BallId],
    count: int,
) -> list[tuple[BallId, Point]]:
    out = []
    for _ in range(count):
        ball = _object(rng, tuple(used))
        p = free_spot(table, rng, taken, keep_clear=paths)
        taken.append(p)
        used.append(ball)
        out.append((ball, p))
    return out


def _last(play: Play) -> Shot:
    return play.shots[-1]


def _pocketed_where(shot: Shot, ball: BallId) -> PocketId | None:
    return shot.pocket_of(ball)


# Breaks ----------------------------------------------------------------------------------------


def _break(table: TableSpec, rng: random.Random, shape: RackShape, order: list[BallId]) -> Play:
    rack = racked(table, shape, order, rng)
    cue = kitchen_spot(table, rng)
    play = Play(table, [(BallId.CUE, cue), *rack])
    apex = rack[0][1]
    aim_at = (apex[0], apex[1] + rng.uniform(-8.0, 8.0))
    play.shoot(
        rng.uniform(8000.0, 10500.0),
        aim.heading_deg(cue, aim_at),
        follow=rng.uniform(-0.15, 0.1),
        side=rng.uniform(-0.05, 0.05),
        show_cue=True,
    )
    return play


def _all_rest(play: Play) -> bool:
    shot = _last(play)
    return shot.is_complete and shot.events[-1].kind is EventKind.ALL_AT_REST


def _object_balls_to_cushions(shot: Shot) -> int:
    return len([b for b in shot.balls_to_cushion_after_first_contact if b.is_object_ball])


def _object_pocketed(shot: Shot) -> list[BallId]:
    return [b for b in shot.pocketed if b.is_object_ball]


@scenario("break-8ball", "break", "8-ball break from a WPA rack (4.3)", claim=_all_rest)
def _break_8(rng: random.Random, table: TableSpec) -> Play:
    play = _break(table, rng, RackShape.TRIANGLE, eight_ball_order(rng))
    shot = _last(play)
    if BallId.CUE in shot.pocketed:
        play.expect("foul", "4.6", "scratch on the break")
    elif _object_pocketed(shot) or _object_balls_to_cushions(shot) >= 4:
        play.expect("legal", "4.5", "a ball pocketed or four balls to cushions")
    else:
        play.expect("foul", "4.5", "illegal break: nothing pocketed, under four balls to cushions")
    if BallId.EIGHT in shot.pocketed:
        play.expect("flag", "4.8", "the 8 pocketed on the break")
    return play


@scenario("break-9ball", "break", "9-ball break from a WPA diamond rack (5.2)", claim=_all_rest)
def _break_9(rng: random.Random, table: TableSpec) -> Play:
    play = _break(table, rng, RackShape.DIAMOND, nine_ball_order(rng))
    shot = _last(play)
    fc = shot.first_contact
    if BallId.CUE in shot.pocketed:
        play.expect("foul", "5.4", "scratch on the break")
    elif fc is None or fc.ball is not BallId.ONE:
        play.expect("foul", "5.4", "the 1 not hit first on the break")
    elif _object_pocketed(shot) or _object_balls_to_cushions(shot) >= 4:
        play.expect("legal", "5.4", "the 1 first, then a ball pocketed or four to cushions")
    else:
        play.expect("foul", "5.4", "illegal break: nothing pocketed, under four balls to cushions")
    return play


@scenario("break-14.1", "break", "14.1 opening break from a WPA rack (6.4)", claim=_all_rest)
def _break_14(rng: random.Random, table: TableSpec) -> Play:
    play = _break(table, rng, RackShape.TRIANGLE, straight_pool_order(rng))
    shot = _last(play)
    fc = shot.first_contact
    cue_to_cushion = fc is not None and bool(
        shot.cushion_contacts(BallId.CUE, since=shot.cue_ball_contacts[0])
    )
    if cue_to_cushion and _object_balls_to_cushions(shot) >= 2:
        play.expect(
            "legal", "6.6", "cue ball to a cushion after contact, two object balls to cushions"
        )
    else:
        play.expect("foul", "6.6", "break violation")
    return play


# Single shots ----------------------------------------------------------------------------------


def _cut_claim(play: Play) -> bool:
    shot = _last(play)
    target = play.target
    fc = shot.first_contact
    return (
        fc is not None
        and fc.ball == target[0]
        and shot.pocket_of(target[0]) is target[1]
        and BallId.CUE not in shot.pocketed
    )


def _cut_play(rng: random.Random, table: TableSpec, extras: int = 2, **kw) -> Play:
    setup = _cut_setup(table, rng, **kw)
    obj = _object(rng)
    target = aim.pocket_target(table, setup.pocket)
    taken = [setup.cue, setup.obj]
    others = _extras(
        table, rng, taken, [(setup.cue, setup.obj), (setup.obj, target)], [obj], extras
    )
    play = Play(table, [(BallId.CUE, setup.cue), (obj, setup.obj), *others])
    play.target = (obj, setup.pocket)
    play.shoot(setup.speed, setup.heading, follow=rng.uniform(-0.2, 0.3))
    return play


@scenario("cut-shot", "shot", "a cut shot that drops its object ball", 60, _cut_claim)
def _cut(rng: random.Random, table: TableSpec) -> Play:
    play = _cut_play(rng, table, rng.randint(0, 4))
    play.expect("legal", "3.18", "object ball hit first and pocketed")
    return play


@scenario(
    "arm-and-cue",
    "scripted",
    "the player's arm and cue over the table hide balls around the strike",
    60,
    lambda p: _cut_claim(p) and _occluded_at_strike(p),
)
def _arm(rng: random.Random, table: TableSpec) -> Play:
    setup = _cut_setup(table, rng)
    obj = _object(rng)
    r = _radius(table)
    h = math.radians(setup.heading)
    hidden = (setup.cue[0] - math.cos(h) * 930, setup.cue[1] - math.sin(h) * 930)
    if not aim.on_cloth(table, hidden, r, 5.0):
        raise _Retry
    extra = _object(rng, (obj,))
    play = Play(table, [(BallId.CUE, setup.cue), (obj, setup.obj), (extra, hidden)])
    play.target = (obj, setup.pocket)
    play.wait(1.5)
    play.shoot(setup.speed, setup.heading, show_cue=True)
    return play


def _occluded_at_strike(play: Play) -> bool:
    frames = frame_truth(play.result(), [_last(play).strike_time])
    return any(b.occluded for b in frames[0].balls)


def _bank_claim(play: Play) -> bool:
    if not _cut_claim(play):
        return False
    shot = _last(play)
    obj, _ = play.target
    drop = select(shot.events, of_kind(EventKind.POCKETED), involving(obj))[0]
    banks = [e for e in shot.cushion_contacts(obj) if e.time < drop.time]
    return bool(banks)


def find_headings(
    table: TableSpec,
    layout: list[tuple[BallId, Point]],
    ball: BallId,
    speed: float,
    headings: list[float],
    works: Callable[[Shot], bool],
    follow: float = 0.0,
) -> list[float]:
    """Headings (of those tried) for which sending ``ball`` at ``speed`` does what ``works``
    wants: the engine itself aims banks and kicks, where mirror geometry is off by the
    cushion's restitution, friction and the ball's spin."""
    good = []
    for h in headings:
        play = Play(table, layout)
        play.strike(speed, h, follow=follow, ball=ball)
        if works(play.settle()):
            good.append(h)
    return good


def _middle_of_longest_run(values: list[float], step: float) -> float:
    runs: list[list[float]] = []
    for v in values:
        if runs and abs(v - runs[-1][-1] - step) < step / 2:
            runs[-1].append(v)
        else:
            runs.append([v])
    best = max(runs, key=len)
    return best[len(best) // 2]


@scenario(
    "bank-shot",
    "shot",
    "an object ball banked off a long cushion into a pocket",
    60,
    _bank_claim,
)
def _bank(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    pocket = rng.choice(list(PocketId))
    sy = 1.0 if pocket.value.endswith("left") else -1.0
    target = aim.pocket_target(table, pocket)
    line = -sy * (table.width / 2 - r)
    mirrored = (target[0], 2 * line - target[1])
    obj = (
        rng.uniform(-table.length / 2 + 250, table.length / 2 - 250),
        sy * rng.uniform(-100, 300),
    )
    if not aim.on_cloth(table, obj, r, 60.0):
        raise _Retry
    ball = _object(rng)
    # The object ball leaves the contact sliding without spin, as a struck ball does.
    obj_speed = aim.speed_to_travel(2.2 * math.dist(obj, mirrored), 600.0) * 1.3
    centre = aim.heading_deg(obj, mirrored)

    def drops(shot: Shot) -> bool:
        return shot.pocket_of(ball) is pocket and bool(shot.cushion_contacts(ball))

    # Coarse then fine: one-degree steps find the window, quarter degrees centre it.
    coarse = find_headings(
        table, [(ball, obj)], ball, obj_speed, [centre + k for k in range(-5, 6)], drops
    )
    if not coarse:
        raise _Retry
    step = 0.25
    mid = coarse[len(coarse) // 2]
    tries = [mid + step * k for k in range(-6, 7)]
    good = find_headings(table, [(ball, obj)], ball, obj_speed, tries, drops)
    d = _rotate((1.0, 0.0), _middle_of_longest_run(good, step))
    g = (obj[0] - 2 * r * d[0], obj[1] - 2 * r * d[1])
    u = _rotate(d, rng.uniform(-5.0, 5.0))
    travel = rng.uniform(150.0, 400.0)
    cue = (g[0] - u[0] * travel, g[1] - u[1] * travel)
    if not aim.on_cloth(table, cue, r, 5.0):
        raise _Retry
    play = Play(table, [(BallId.CUE, cue), (ball, obj)])
    play.target = (ball, pocket)
    cos_cut = max(u[0] * d[0] + u[1] * d[1], 0.5)
    speed = aim.speed_to_travel(travel, obj_speed / (0.975 * cos_cut))
    play.shoot(min(speed, 7000.0), aim.heading_deg(cue, g), follow=-0.1)
    play.expect("legal", "3.18", "bank: object ball to a cushion, then pocketed")
    return play


def _kick_claim(play: Play) -> bool:
    shot = _last(play)
    obj = play.target
    fc = shot.first_contact
    if fc is None or fc.ball != obj:
        return False
    return bool([e for e in shot.cushion_contacts(BallId.CUE) if e.time < fc.time])


@scenario(
    "kick-shot",
    "shot",
    "the cue ball kicks off a cushion to hit a ball it cannot see",
    60,
    _kick_claim,
)
def _kick(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    sy = rng.choice((-1.0, 1.0))
    line = sy * (table.width / 2 - r)
    obj = (rng.uniform(-table.length / 2 + 300, table.length / 2 - 300), rng.uniform(-300, 300))
    cue = (rng.uniform(-table.length / 2 + 300, table.length / 2 - 300), rng.uniform(-300, 300))
    if math.dist(obj, cue) < 500:
        raise _Retry
    mirrored = (obj[0], 2 * line - obj[1])
    blocker = ((obj[0] + cue[0]) / 2, (obj[1] + cue[1]) / 2)
    ball, block = _object(rng), _object(rng)
    while block == ball:
        block = _object(rng)
    layout = [(BallId.CUE, cue), (ball, obj), (block, blocker)]
    speed = aim.speed_to_travel(math.dist(cue, mirrored) * 1.5, 900.0)
    step = 0.3
    centre = aim.heading_deg(cue, mirrored)

    def kicks(shot: Shot) -> bool:
        fc = shot.first_contact
        if fc is None or fc.ball != ball:
            return False
        return bool([e for e in shot.cushion_contacts(BallId.CUE) if e.time < fc.time])

    tries = [centre + step * k for k in range(-12, 13)]
    good = find_headings(table, layout, BallId.CUE, speed, tries, kicks, 0.3)
    if not good:
        raise _Retry
    play = Play(table, layout)
    play.target = ball
    play.shoot(speed, _middle_of_longest_run(good, step), follow=0.3)
    play.expect("legal", "3.18", "kick: cue ball to a cushion, then the object ball")
    return play


def _combo_claim(play: Play) -> bool:
    shot = _last(play)
    first, second, pocket = play.target
    fc = shot.first_contact
    touched = select(shot.events, of_kind(EventKind.BALL_BALL), involving(first), involving(second))
    return (
        fc is not None
        and fc.ball == first
        and bool(touched)
        and shot.pocket_of(second) is pocket
        and BallId.CUE not in shot.pocketed
    )


@scenario(
    "combination", "shot", "the cue ball drives one ball into another that drops", 150, _combo_claim
)
def _combo(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    inner = _cut_setup(
        table, rng, cut_range=(0.0, 15.0), obj_range=(200.0, 600.0), cue_range=(150.0, 400.0)
    )
    # The first object ball sits where the inner set-up's cue ball was; the cue ball behind it.
    first_pos = inner.cue
    g2 = aim.ghost(inner.obj, aim.pocket_target(table, inner.pocket), r)
    d = aim.unit((g2[0] - first_pos[0], g2[1] - first_pos[1]))
    g1 = (first_pos[0] - 2 * r * d[0], first_pos[1] - 2 * r * d[1])
    u = _rotate(d, rng.uniform(-10.0, 10.0))
    travel = rng.uniform(200.0, 500.0)
    cue = (g1[0] - u[0] * travel, g1[1] - u[1] * travel)
    if not aim.on_cloth(table, cue, r, 5.0):
        raise _Retry
    first, second = _object(rng), _object(rng)
    while second == first:
        second = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (first, first_pos), (second, inner.obj)])
    play.target = (first, second, inner.pocket)
    play.shoot(min(inner.speed * 1.6 + 400, 6000.0), aim.heading_deg(cue, g1))
    play.expect("legal", "3.18", "combination: first ball hit first, second ball pocketed")
    return play


def _scratch_claim(play: Play) -> bool:
    shot = _last(play)
    return BallId.CUE in shot.pocketed and shot.first_contact is not None


@scenario(
    "scratch",
    "shot",
    "a straight-in shot with follow: the cue ball follows into the pocket",
    120,
    _scratch_claim,
)
def _scratch(rng: random.Random, table: TableSpec) -> Play:
    setup = _cut_setup(
        table, rng, cut_range=(0.0, 0.5), obj_range=(150.0, 500.0), cue_range=(150.0, 450.0)
    )
    obj = _object(rng)
    play = Play(table, [(BallId.CUE, setup.cue), (obj, setup.obj)])
    play.shoot(min(setup.speed * 1.2, 5000.0), setup.heading, follow=rng.uniform(0.45, 0.55))
    play.expect("foul", "3.20", "cue ball pocketed")
    return play


def _miss_claim(play: Play) -> bool:
    return _last(play).first_contact is None


@scenario("miss", "shot", "the cue ball touches no ball", 60, _miss_claim)
def _miss(rng: random.Random, table: TableSpec) -> Play:
    cue = free_spot(table, rng, [])
    taken = [cue]
    used: list[BallId] = []
    others = _extras(table, rng, taken, [], used, rng.randint(1, 5))
    play = Play(table, [(BallId.CUE, cue), *others])
    play.shoot(rng.uniform(800.0, 3000.0), rng.uniform(0.0, 360.0))
    play.expect("foul", "3.18", "no object ball hit")
    return play


def _wrong_claim(play: Play) -> bool:
    shot = _last(play)
    fc = shot.first_contact
    lowest = min((b for b in shot.at_strike.balls if b.is_object_ball), key=lambda b: b.number)
    return fc is not None and fc.ball != lowest


@scenario(
    "wrong-ball-first",
    "shot",
    "9-ball: the cue ball hits a higher ball before the lowest",
    60,
    _wrong_claim,
)
def _wrong(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    count = rng.randint(3, 6)
    balls = [BallId.numbered(n) for n in sorted(rng.sample(range(1, 10), count))]
    cue = free_spot(table, rng, [])
    taken = [cue]
    layout = [(BallId.CUE, cue)]
    for b in balls:
        p = free_spot(table, rng, taken)
        taken.append(p)
        layout.append((b, p))
    target_ball, target = rng.choice(layout[2:])
    others = [p for b, p in layout[1:] if b != target_ball]
    if not aim.path_clear(cue, target, others, r):
        raise _Retry
    play = Play(table, layout)
    play.shoot(
        aim.speed_to_travel(math.dist(cue, target) + 600, 900.0), aim.heading_deg(cue, target)
    )
    play.expect("foul", "5.1", "lowest-numbered ball not hit first")
    return play


SPLIT_WITHIN_S = 0.002
"""The split-hit scenario's cue ball touches its two balls this close in time: a few times
closer than a 60 fps camera (or a referee's eye) can order them."""


def _split_claim(play: Play) -> bool:
    shot = _last(play)
    contacts = shot.cue_ball_contacts
    if len(contacts) < 2 or shot.first_contact is None:
        return False
    first, second = (c.other(BallId.CUE) for c in contacts[:2])
    lowest, other = play.target
    return (
        {first, second} == {lowest, other}
        and contacts[1].time - contacts[0].time <= SPLIT_WITHIN_S
        and BallId.CUE not in shot.pocketed
        and bool(_object_pocketed(shot) or shot.balls_to_cushion_after_first_contact)
    )


@scenario(
    "split-hit",
    "shot",
    "9-ball: the cue ball driven between the lowest ball and another hits both at once",
    40,
    _split_claim,
)
def _split(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    numbers = sorted(rng.sample(range(1, 10), rng.randint(2, 5)))
    lowest, other = BallId.numbered(numbers[0]), BallId.numbered(rng.choice(numbers[1:]))
    # The two side by side, a little apart: the cue ball cannot pass between them.
    middle = free_spot(table, rng, [], margin=150.0)
    side = _rotate((1.0, 0.0), rng.uniform(0.0, 360.0))
    half = r + rng.uniform(2.0, 15.0)
    swap = rng.random() < 0.5
    at_lowest = (middle[0] + side[0] * half, middle[1] + side[1] * half)
    at_other = (middle[0] - side[0] * half, middle[1] - side[1] * half)
    if swap:
        at_lowest, at_other = at_other, at_lowest
    # The cue ball comes in square to them, aimed within a millimetre of the middle.
    approach = _rotate(side, 90.0 if rng.random() < 0.5 else -90.0)
    travel = rng.uniform(250.0, 600.0)
    cue = (middle[0] - approach[0] * travel, middle[1] - approach[1] * travel)
    if not all(aim.on_cloth(table, p, r, 40.0) for p in (cue, at_lowest, at_other)):
        raise _Retry
    offset = rng.uniform(-1.0, 1.0)
    aim_at = (middle[0] + side[0] * offset, middle[1] + side[1] * offset)
    taken = [cue, at_lowest, at_other]
    layout = [(BallId.CUE, cue), (lowest, at_lowest), (other, at_other)]
    for n in numbers[1:]:
        ball = BallId.numbered(n)
        if ball != other:
            spot = free_spot(table, rng, taken, keep_clear=[(cue, middle)])
            taken.append(spot)
            layout.append((ball, spot))
    play = Play(table, layout)
    play.target = (lowest, other)
    play.shoot(rng.uniform(1500.0, 3500.0), aim.heading_deg(cue, aim_at))
    play.expect("legal", "2.10", "split hit too close to call: decided for the shooter")
    return play


def _no_cushion_claim(play: Play) -> bool:
    shot = _last(play)
    return (
        shot.first_contact is not None
        and not shot.balls_to_cushion_after_first_contact
        and not shot.pocketed
    )


@scenario(
    "no-cushion",
    "shot",
    "a soft hit: nothing pocketed and no ball reaches a cushion after contact",
    60,
    _no_cushion_claim,
)
def _no_cushion(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    obj = (rng.uniform(-600, 600), rng.uniform(-250, 250))
    d = _rotate((1.0, 0.0), rng.uniform(0, 360))
    cue = (obj[0] - d[0] * rng.uniform(150, 400), obj[1] - d[1] * rng.uniform(150, 400))
    if not aim.on_cloth(table, cue, r, 100.0) or math.dist(cue, obj) < 2 * r + 20:
        raise _Retry
    ball = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (ball, obj)])
    play.shoot(rng.uniform(350.0, 700.0), aim.heading_deg(cue, obj) + rng.uniform(-4, 4))
    play.expect("foul", "3.19", "no ball to a cushion after contact, nothing pocketed")
    return play


def _several_claim(play: Play) -> bool:
    return len([b for b in _last(play).pocketed if b.is_object_ball]) >= 2


@scenario(
    "several-pocketed",
    "shot",
    "a cut shot drops its ball and the cue ball goes on to knock a ball off a pocket lip",
    80,
    _several_claim,
)
def _several(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    setup = _cut_setup(table, rng, cut_range=(20.0, 50.0), obj_range=(200.0, 700.0))
    speed = min(setup.speed * 1.3, 5000.0)
    follow = rng.uniform(-0.2, 0.2)
    # Where does the cue ball go after potting the first ball? Ask the engine, then put the
    # second ball where the cue ball, on that path, cuts it into another pocket.
    probe = Play(table, [(BallId.CUE, setup.cue), (BallId.ONE, setup.obj)])
    probe.strike(speed, setup.heading, follow=follow)
    shot = probe.settle()
    contacts = shot.cue_ball_contacts
    if not contacts:
        raise _Retry
    cushions = shot.cushion_contacts(BallId.CUE)
    until = cushions[0].time if cushions else shot.end_time or probe.time
    cue_path = probe.result().trajectory(BallId.CUE)
    target = aim.pocket_target(table, setup.pocket)
    options = []
    for k in range(1, 12):
        t = contacts[0].time + (until - contacts[0].time) * k / 12
        q = cue_path.position(t)[:2]
        vx, vy, _ = cue_path.segment_at(t).velocity(t)
        if math.hypot(vx, vy) < 400 or math.dist(q, setup.obj) < 250:
            continue
        heading = aim.unit((vx, vy))
        for pocket in PocketId:
            t2 = aim.pocket_target(table, pocket)
            d2 = aim.unit((t2[0] - q[0], t2[1] - q[1]))
            lip = (q[0] + 2 * r * d2[0], q[1] + 2 * r * d2[1])
            cos2 = d2[0] * heading[0] + d2[1] * heading[1]
            if (
                pocket is not setup.pocket
                and cos2 > math.cos(math.radians(40))
                and aim.on_cloth(table, lip, r, 10.0)
                and math.dist(lip, t2) < 900
                and aim.path_clear(setup.obj, target, [lip], r)
                and aim.path_clear(setup.cue, setup.obj, [lip], r)
            ):
                options.append(lip)
    if not options:
        raise _Retry
    lip = rng.choice(options)
    first, second = _object(rng), _object(rng)
    while second == first:
        second = _object(rng)
    play = Play(table, [(BallId.CUE, setup.cue), (first, setup.obj), (second, lip)])
    play.shoot(speed, setup.heading, follow=follow)
    return play


def _rattle_claim(play: Play) -> bool:
    shot = _last(play)
    ball = play.target
    rebounds = select(shot.events, of_kind(EventKind.POCKET_REBOUND), involving(ball))
    return bool(rebounds) and ball not in shot.pocketed


@scenario(
    "rattle",
    "shot",
    "an object ball rattles in the jaws and comes back out (3.11)",
    150,
    _rattle_claim,
)
def _rattle(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    pocket = rng.choice([p for p in PocketId if p.is_corner])
    p = table.pocket(pocket)
    mx, my = p.mouth_centre
    lateral = rng.uniform(28.0, 38.0) * rng.choice((-1.0, 1.0))
    target = (mx - p.axis[1] * lateral, my + p.axis[0] * lateral)
    approach = _rotate(p.axis, rng.uniform(-20.0, 20.0))
    obj = (
        target[0] - approach[0] * rng.uniform(250, 600),
        target[1] - approach[1] * rng.uniform(250, 600),
    )
    cue = (
        obj[0] - approach[0] * rng.uniform(150, 400),
        obj[1] - approach[1] * rng.uniform(150, 400),
    )
    if not aim.on_cloth(table, obj, r, 20.0) or not aim.on_cloth(table, cue, r, 5.0):
        raise _Retry
    ball = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (ball, obj)])
    play.target = ball
    play.shoot(rng.uniform(2500.0, 5000.0), aim.heading_deg(cue, obj), follow=-0.2)
    play.expect("not-pocketed", "3.11", "the ball came back out of the pocket")
    return play


# Scripted situations ------------------------------------------------------------------------


def _launch_at_rail(rng: random.Random, table: TableSpec) -> tuple[Play, BallId, int, float]:
    """Cue ball drives an object ball straight at the left long cushion; stop at the contact."""

    x = rng.choice((-1.0, 1.0)) * rng.uniform(250.0, table.length / 2 - 350.0)
    obj = (x, table.width / 2 - rng.uniform(150.0, 250.0))
    cue = (x + rng.uniform(-5, 5), obj[1] - rng.uniform(250.0, 450.0))
    ball = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (ball, obj)])
    play.strike(rng.uniform(3000.0, 4500.0), aim.heading_deg(cue, obj))
    play.engine.run(stop_after=lambda e: e.kind is EventKind.BALL_BALL)
    if play.engine.events[-1].kind is not EventKind.BALL_BALL:
        raise _Retry
    return play, ball, play.index(ball), play.time


def _nose_crossing(play: Play, i: int, vy: float) -> tuple[float, CushionId]:
    x, y, _ = play.engine.state(i).position
    t = play.time + (play.table.width / 2 - y) / vy
    return t, play.table.nearest_cushion((x, play.table.width / 2))


@scenario(
    "jump-off-table-floor",
    "scripted",
    "an object ball is driven over the rail onto the floor (3.28)",
)
def _off_floor(rng: random.Random, table: TableSpec) -> Play:
    play, ball, i, _ = _launch_at_rail(rng, table)
    st = play.engine.state(i)
    vx, vy, _ = st.velocity
    cross, cushion = _nose_crossing(play, i, vy)
    duration = (table.width / 2 + RAIL_WIDTH_MM + 100.0 - st.position[1]) / vy
    play.engine.fly(i, (vx, vy, 1600.0), duration, then="gone", spin=st.spin)
    play.engine.record(ShotEvent(EventKind.LEFT_TABLE, cross, (ball,), cushion=cushion))
    play.settle()
    play.expect("foul", "3.28", "object ball off the table")
    return play


@scenario(
    "jump-off-table-rail",
    "scripted",
    "an object ball jumps the cushion and stays on the rail top (3.28)",
)
def _off_rail(rng: random.Random, table: TableSpec) -> Play:
    play, ball, i, _ = _launch_at_rail(rng, table)

    st = play.engine.state(i)
    vx, vy, _ = st.velocity
    cross, cushion = _nose_crossing(play, i, vy)
    land_y = table.width / 2 + rng.uniform(50.0, 90.0)
    duration = (land_y - st.position[1]) / vy
    vz = (RAIL_TOP_MM + GRAVITY_MM_S2 * duration**2 / 2) / duration
    play.engine.fly(i, (vx, vy, vz), duration, then="off-table", spin=st.spin)
    play.engine.record(ShotEvent(EventKind.LEFT_TABLE, cross, (ball,), cushion=cushion))
    play.settle()
    play.expect("foul", "3.28", "object ball resting on the rail")
    return play


@scenario(
    "jump-off-table-light",
    "scripted",
    "a ball flies up, touches the lamp and lands back on the cloth (3.28)",
)
def _off_light(rng: random.Random, table: TableSpec) -> Play:
    play, ball, i, _ = _launch_at_rail(rng, table)
    r = _radius(table)
    g = GRAVITY_MM_S2
    st = play.engine.state(i)
    vx, vy, _ = st.velocity
    vz = rng.uniform(4700.0, 5200.0)
    climb = LIGHT_HEIGHT_MM - r - r
    t_touch = (vz - math.sqrt(vz * vz - 2 * g * climb)) / g
    h = (vx * 0.05, -abs(vy) * 0.08)
    play.engine.fly(i, (h[0], h[1], vz), 10.0, spin=st.spin)
    play.engine.run(until=play.time + t_touch)
    touch = play.time
    z = play.engine.state(i).position[2]
    down = -0.3 * (vz - g * t_touch)
    fall = (down + math.sqrt(down * down + 2 * g * (z - r))) / g
    play.engine.fly(i, (h[0], h[1], -down), fall, then="cloth", spin=st.spin)
    play.engine.record(ShotEvent(EventKind.LEFT_TABLE, touch, (ball,)))
    play.settle()
    play.expect("foul", "3.28", "ball touched the light: off the table even though it came back")
    return play


def _jump_claim(play: Play) -> bool:
    shot = _last(play)
    target, _blocker = play.target
    fc = shot.first_contact
    return fc is not None and fc.ball == target and shot.jump is not None


@scenario(
    "jump-shot",
    "scripted",
    "the cue ball hops over a blocking ball to hit the object ball (3.26, 3.27)",
    40,
    _jump_claim,
)
def _jump(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    g = GRAVITY_MM_S2
    vz = rng.uniform(1300.0, 1600.0)
    flight = 2 * vz / g
    v_h = rng.uniform(1500.0, 2200.0)
    to_block = v_h * flight * rng.uniform(0.4, 0.6)
    to_target = v_h * flight + rng.uniform(150.0, 350.0)
    heading = rng.uniform(0, 360)
    d = _rotate((1.0, 0.0), heading)
    cue = free_spot(table, rng, [], margin=100.0)
    block = (cue[0] + d[0] * to_block, cue[1] + d[1] * to_block)
    target = (cue[0] + d[0] * to_target, cue[1] + d[1] * to_target)
    if not all(aim.on_cloth(table, p, r, 60.0) for p in (block, target)):
        raise _Retry
    over = [(to_block + k * r) / v_h for k in (-2, 0, 2)]
    if min(vz * s - g * s * s / 2 for s in over) < 2 * r + 3:
        raise _Retry
    blocker, ball = _object(rng), _object(rng)
    while blocker == ball:
        ball = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (blocker, block), (ball, target)])
    play.target = (ball, blocker)
    play.strike(v_h, heading, follow=-0.1)
    i = play.index(BallId.CUE)
    play.engine.fly(i, (d[0] * v_h, d[1] * v_h, vz), flight, then="cloth")
    peak = r + vz * vz / (2 * g)
    growth = (CAMERA_HEIGHT_MM - r) / (CAMERA_HEIGHT_MM - peak)
    play.settle(jump=JumpEvidence(True, growth, (blocker,)))
    play.expect("flag", "3.26", "jump shot: legal unless scooped")
    return play


def _frozen_pair(
    rng: random.Random, table: TableSpec, gap: float
) -> tuple[Play, BallId, Point, float]:
    r = _radius(table)
    setup = _cut_setup(
        table, rng, cut_range=(0.0, 10.0), obj_range=(300.0, 900.0), cue_range=(100.0, 100.0)
    )
    d = aim.unit((setup.obj[0] - setup.cue[0], setup.obj[1] - setup.cue[1]))
    cue = (setup.obj[0] - d[0] * (2 * r + gap), setup.obj[1] - d[1] * (2 * r + gap))
    if not aim.on_cloth(table, cue, r, 5.0):
        raise _Retry
    ball = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (ball, setup.obj)])
    return play, ball, setup.obj, aim.heading_deg(cue, setup.obj)


@scenario(
    "double-hit",
    "scripted",
    "cue ball nearly frozen to the object ball, pushed on through it (2.20, 3.23)",
)
def _double_hit(rng: random.Random, table: TableSpec) -> Play:
    gap = rng.uniform(0.2, 0.5)
    play, ball, obj, heading = _frozen_pair(rng, table, gap)
    speed = rng.uniform(1200.0, 2000.0)
    play.strike(speed, heading)
    i = play.index(BallId.CUE)
    play.engine.run(stop_after=lambda e: e.kind is EventKind.BALL_BALL)
    contact = play.time
    play.engine.run(until=contact + 0.002)
    d = _rotate((1.0, 0.0), heading)
    stick = speed * rng.uniform(0.55, 0.7)
    play.engine.drive(i, (d[0] * stick, d[1] * stick), rng.uniform(0.05, 0.08))
    shot = play.settle()
    travel = cue_travel_toward(play.result(), BallId.CUE, obj, contact, shot.end_time or play.time)
    evidence = DoubleHitEvidence(ball, gap, travel)
    play.shots[-1] = dataclasses.replace(shot, double_hit=evidence)
    play.expect("foul", "2.20", "cue ball moved on more than half a ball width after contact")
    return play


@scenario(
    "push-shot", "scripted", "the tip stays on the cue ball: a long push instead of a strike (3.24)"
)
def _push(rng: random.Random, table: TableSpec) -> Play:
    setup = _cut_setup(table, rng, cut_range=(0.0, 20.0))
    ball = _object(rng)
    play = Play(table, [(BallId.CUE, setup.cue), (ball, setup.obj)])
    play.strike(1.0, setup.heading)
    i = play.index(BallId.CUE)
    push_s = rng.uniform(0.05, 0.09)
    d = _rotate((1.0, 0.0), setup.heading)
    accel = min(setup.speed, 2500.0) / push_s
    play.engine.drive(i, (d[0], d[1]), push_s, acceleration=(d[0] * accel, d[1] * accel))
    play.settle(push=PushEvidence(push_s))
    play.expect("flag", "3.24", "push shot")
    return play


def _disturbed_claim(play: Play) -> bool:
    ball = play.target
    return ball in _last(play).disturbed


@scenario(
    "ball-disturbed",
    "scripted",
    "during a shot a hand touches an object ball, which moves with no contact (3.21)",
    40,
    _disturbed_claim,
)
def _disturbed(rng: random.Random, table: TableSpec) -> Play:
    setup = _cut_setup(table, rng)
    obj = _object(rng)
    target = aim.pocket_target(table, setup.pocket)
    taken = [setup.cue, setup.obj]
    used = [obj]
    extra = _extras(table, rng, taken, [(setup.cue, setup.obj), (setup.obj, target)], used, 1)
    play = Play(table, [(BallId.CUE, setup.cue), (obj, setup.obj), *extra])
    touched, _ = extra[0]
    play.target = touched
    play.strike(setup.speed, setup.heading)
    play.engine.run(until=play.time + rng.uniform(0.3, 0.8))
    k = play.index(touched)
    if play.engine.phase(k).moving:
        raise _Retry
    d = _rotate((1.0, 0.0), rng.uniform(0, 360))
    nudge = rng.uniform(80.0, 200.0)
    r = _radius(table)
    x, y, _ = play.engine.state(k).position
    play.show_hand((x, y), play.time - 0.4, play.time + 0.3)
    play.engine.set_state(k, BallState((x, y, r), (d[0] * nudge, d[1] * nudge, 0.0)))
    play.engine.record(ShotEvent(EventKind.BALL_DISTURBED, play.time, (touched,)))
    play.settle()
    play.expect("foul", "3.21", "object ball moved by a hand")
    return play


def _rolling_claim(play: Play) -> bool:
    return play.target in _last(play).moving_at_strike


@scenario(
    "shot-while-rolling",
    "scripted",
    "the player strikes while a ball is still rolling (3.14)",
    40,
    _rolling_claim,
)
def _while_rolling(rng: random.Random, table: TableSpec) -> Play:
    setup = _cut_setup(table, rng)
    obj = _object(rng)
    target = aim.pocket_target(table, setup.pocket)
    extra = _extras(
        table, rng, [setup.cue, setup.obj], [(setup.cue, setup.obj), (setup.obj, target)], [obj], 1
    )
    play = Play(table, [(BallId.CUE, setup.cue), (obj, setup.obj), *extra])
    rolling, where = extra[0]
    play.target = rolling
    k = play.index(rolling)
    r = _radius(table)
    h = math.radians(rng.uniform(0, 360))
    v = rng.uniform(200.0, 350.0)
    vx, vy = v * math.cos(h), v * math.sin(h)
    play.engine.set_state(
        k, BallState((where[0], where[1], r), (vx, vy, 0.0), (-vy / r, vx / r, 0.0))
    )
    play.wait(rng.uniform(0.5, 1.2))
    play.shoot(setup.speed, setup.heading)
    play.expect("foul", "3.14", "shot while a ball was moving")
    return play


def _hanging_claim(play: Play) -> bool:
    return play.target in _last(play).settled_into_pocket


@scenario(
    "hanging-ball-drops",
    "scripted",
    "a ball hanging on a pocket lip drops on its own 6 s after all stopped (second 3.21)",
    40,
    _hanging_claim,
)
def _hanging(rng: random.Random, table: TableSpec) -> Play:
    hang_pocket = rng.choice(list(PocketId))
    p = table.pocket(hang_pocket)
    depth = p.shelf * rng.uniform(0.2, 0.8)
    mx, my = p.mouth_centre
    lateral = rng.uniform(-3.0, 3.0)
    hang = (
        mx + p.axis[0] * depth - p.axis[1] * lateral,
        my + p.axis[1] * depth + p.axis[0] * lateral,
    )
    setup = _cut_setup(table, rng, pocket=rng.choice([q for q in PocketId if q is not hang_pocket]))
    if math.dist(setup.obj, hang) < 300 or math.dist(setup.cue, hang) < 300:
        raise _Retry
    obj, hanging = _object(rng), _object(rng)
    while hanging == obj:
        hanging = _object(rng)
    play = Play(table, [(BallId.CUE, setup.cue), (obj, setup.obj), (hanging, hang)])
    play.target = hanging
    shot = play.shoot(setup.speed, setup.heading)
    k = play.index(hanging)
    if play.engine.phase(k).moving or hanging in shot.pocketed or not play.engine.on_cloth(k):
        raise _Retry
    play.wait(rng.uniform(5.5, 6.5))
    cx, cy = p.centre
    play.engine.remove(k, where=(cx, cy, -_radius(table)))
    drop = ShotEvent(EventKind.SETTLED_INTO_POCKET, play.time, (hanging,), pocket=hang_pocket)
    play.engine.record(drop)
    play.amend_last_shot(drop)
    play.expect("restore", "3.31", "ball settled into the pocket after 5 s at rest: put it back")
    return play


def _placement_play(rng: random.Random, table: TableSpec, where: str) -> Play:
    r = _radius(table)
    hs = table.head_string_x
    if where == "kitchen":
        spot = (hs - rng.uniform(50.0, 300.0), rng.uniform(-400.0, 400.0))
    else:
        spot = (hs + rng.uniform(r + 5.0, 250.0), rng.uniform(-400.0, 400.0))
    obj_spot = free_spot(table, rng, [spot], margin=80.0)
    if obj_spot[0] < hs + 200:
        raise _Retry
    obj = _object(rng)
    layout = [(BallId.CUE, spot), (obj, obj_spot)]
    touched: tuple[BallId, ...] = ()
    if where == "touching":
        d = _rotate((1.0, 0.0), rng.uniform(0, 360))
        near = (obj_spot[0] + d[0] * (2 * r + 0.5), obj_spot[1] + d[1] * (2 * r + 0.5))
        spot = near
        layout = [(BallId.CUE, (hs - 200.0, 0.0)), (obj, obj_spot)]
        touched = (obj,)
    play = Play(table, layout, start_time=0.0)
    i = play.index(BallId.CUE)
    play.engine.remove(i)
    play.wait(1.0)
    play.place(BallId.CUE, spot, hand_s=0.8)
    if touched:
        # The hand nudges the object ball while letting the cue ball go.
        k = play.index(obj)
        d = aim.unit((obj_spot[0] - spot[0], obj_spot[1] - spot[1]))
        play.engine.set_state(
            k, BallState((obj_spot[0], obj_spot[1], r), (d[0] * 40.0, d[1] * 40.0, 0.0))
        )
        play.engine.record(ShotEvent(EventKind.BALL_DISTURBED, play.time, (obj,)))
    play.wait(1.0)
    cue_now = play.position(BallId.CUE)
    obj_now = play.position(obj)
    placement = Placement(cue_now, table.in_kitchen(cue_now), cue_now[0] - hs, touched)
    play.shoot(
        aim.speed_to_travel(math.dist(cue_now, obj_now) + 400.0, 800.0),
        aim.heading_deg(cue_now, obj_now),
        placement=placement,
    )
    return play


@scenario(
    "ball-in-hand-kitchen",
    "scripted",
    "cue ball in hand placed behind the head string, then shot (3.16)",
)
def _bih_kitchen(rng: random.Random, table: TableSpec) -> Play:
    play = _placement_play(rng, table, "kitchen")
    play.expect("legal", "3.16", "cue ball placed in the kitchen")
    return play


@scenario(
    "ball-in-hand-outside-kitchen",
    "scripted",
    "ball in hand behind the head string, but placed past it and shot (3.10)",
)
def _bih_outside(rng: random.Random, table: TableSpec) -> Play:
    play = _placement_play(rng, table, "outside")
    play.expect("foul", "3.10", "cue ball shot from outside the kitchen")
    return play


@scenario(
    "ball-in-hand-touching",
    "scripted",
    "placing the cue ball, the hand touches an object ball (3.22)",
)
def _bih_touching(rng: random.Random, table: TableSpec) -> Play:
    play = _placement_play(rng, table, "touching")
    play.expect("foul", "3.22", "object ball touched while placing the cue ball")
    return play


@scenario(
    "frozen-to-cushion",
    "scripted",
    "an object ball frozen to a cushion is shot at (3.38)",
    60,
    lambda p: any(f.cushion is not None and f.ball != BallId.CUE for f in _last(p).frozen),
)
def _frozen_cushion(rng: random.Random, table: TableSpec) -> Play:
    r = _radius(table)
    cushion = rng.choice(list(CushionId))
    seg = table.cushion(cushion)
    s = rng.uniform(0.25, 0.75)
    on_nose = (
        seg.start[0] + (seg.end[0] - seg.start[0]) * s,
        seg.start[1] + (seg.end[1] - seg.start[1]) * s,
    )
    obj = (on_nose[0] + seg.normal[0] * r, on_nose[1] + seg.normal[1] * r)
    d = _rotate(seg.normal, rng.uniform(-50.0, 50.0))
    cue = (obj[0] + d[0] * rng.uniform(300, 700), obj[1] + d[1] * rng.uniform(300, 700))
    if not aim.on_cloth(table, cue, r, 5.0):
        raise _Retry
    ball = _object(rng)
    play = Play(table, [(BallId.CUE, cue), (ball, obj)])
    play.shoot(rng.uniform(1000.0, 2500.0), aim.heading_deg(cue, obj))
    play.expect("warn", "2.16", "object ball frozen to a cushion")
    return play


@scenario(
    "frozen-cue-ball",
    "scripted",
    "the cue ball frozen to an object ball, shot through it (3.38)",
    40,
    lambda p: any(f.ball == BallId.CUE and f.other is not None for f in _last(p).frozen),
)
def _frozen_cue(rng: random.Random, table: TableSpec) -> Play:
    play, _, _, heading = _frozen_pair(rng, table, 0.0)
    play.shoot(rng.uniform(1000.0, 2500.0), heading + rng.uniform(-20.0, 20.0))
    return play


def _lag_speed(table: TableSpec, start: Point, heading: float, wanted_mm: float) -> float:
    """Cue ball speed that brings a lone lag ball back to ``wanted_mm`` from the head
    cushion without touching it (bisection on the engine: up to the pace that reaches the
    head cushion, more pace ends nearer it)."""
    slow, fast = 800.0, 4000.0
    for _ in range(18):
        speed = (slow + fast) / 2
        probe = Play(table, [(BallId.CUE, start)])
        probe.strike(speed, heading, follow=0.3)
        shot = probe.settle()
        x = probe.position(BallId.CUE)[0] if probe.engine.on_cloth(0) else -table.length
        back_to_head = any(e.cushion is CushionId.HEAD for e in shot.cushion_contacts(BallId.CUE))
        if x + table.length / 2 > wanted_mm and not back_to_head:
            slow = speed
        else:
            fast = speed
    return (slow + fast) / 2


def _lag_lane(play: Play, i: int, name: str, sign: float) -> LagLane:
    eng = play.engine
    table = play.table
    idx = [k for k, e in enumerate(eng.events) if eng.event_indices[k] == (i,)]
    cushions = [eng.events[k].cushion for k in idx if eng.events[k].kind is EventKind.BALL_CUSHION]
    pocketed = any(eng.events[k].kind is EventKind.POCKETED for k in idx)
    on = eng.on_cloth(i)
    x, y, _ = eng.state(i).position
    ys = [seg.p0[1] for seg in eng.tracks[i]] + [y]
    return LagLane(
        name,
        (x, y) if on else None,
        x + table.length / 2,
        CushionId.FOOT in cushions,
        any(c is not None and c.is_long for c in cushions),
        any(v * sign < 0 for v in ys),
        pocketed,
    )


@scenario(
    "lag",
    "scripted",
    "the lag for the break: two cue balls shot to the foot cushion and back (3.6)",
)
def _lag(rng: random.Random, table: TableSpec) -> Play:
    xs = [table.head_string_x - rng.uniform(20.0, 120.0) for _ in range(2)]
    left = (xs[0], rng.uniform(220.0, 320.0))
    right = (xs[1], -rng.uniform(220.0, 320.0))
    play = Play(table, [(BallId.CUE, left), (BallId.CUE, right)])
    eng = play.engine
    shots = []
    for start in (left, right):
        heading = rng.uniform(-0.4, 0.4)
        # Each player judges the pace to stop the ball near the head cushion.
        wanted = rng.uniform(40.0, 450.0)
        shots.append((heading, _lag_speed(table, start, heading, wanted)))
    for i, (heading, speed) in enumerate(shots):
        play.show_cue(i, 0.0, play.time - 1.0, play.time + 0.2)
        eng.strike(i, speed, heading, follow=0.3)
    eng.run()

    lanes = (_lag_lane(play, 0, "left", 1.0), _lag_lane(play, 1, "right", -1.0))
    ok = [
        lane
        for lane in lanes
        if lane.touched_foot_cushion
        and not (lane.touched_long_cushion or lane.crossed_long_string or lane.pocketed)
    ]
    winner = min(ok, key=lambda lane: lane.distance_to_head_cushion_mm).name if ok else None
    play.lag = LagTruth(lanes, winner)
    play.expect("lag-winner", "3.6", winner or "both lose: lag again", shot=-1)
    return play


@scenario(
    "rerack-14.1",
    "scripted",
    "14.1: fourteen balls re-racked by hand with the apex empty, then the next shot (6.7.3)",
)
def _rerack(rng: random.Random, table: TableSpec) -> Play:

    balls = list(OBJECT_BALLS)
    rng.shuffle(balls)
    fifteenth = balls.pop()
    slots = racked(table, RackShape.TRIANGLE, [BallId.CUE, *balls], rng)[1:]
    footprint_x = table.foot_spot[0] - 120.0
    spot = free_spot(table, rng, [p for _, p in slots])
    cue = free_spot(table, rng, [p for _, p in slots] + [spot])
    if spot[0] > footprint_x - 50 or cue[0] > footprint_x - 50:
        raise _Retry
    layout = [(BallId.CUE, cue), (fifteenth, spot), *slots]
    play = Play(table, layout)
    for b, _ in slots:
        play.engine.remove(play.index(b))
    play.wait(0.5)
    fx, fy = table.foot_spot
    for k, (b, p) in enumerate(slots):
        play.engine.place(play.index(b), p)
        play.wait(0.08 if k < len(slots) - 1 else 0.0)
    play.show_hand((fx + 120.0, fy + 60.0), 0.3, play.time + 0.3)
    play.show_hand((fx + 120.0, fy - 60.0), 0.3, play.time + 0.3)
    play.racks.append(
        RackTruth(play.time, RackShape.TRIANGLE, Layout.of(dict(slots)), apex_empty=True)
    )
    play.wait(1.5)
    play.shoot(aim.speed_to_travel(math.dist(cue, spot) + 500, 1000.0), aim.heading_deg(cue, spot))
    return play


# Whole racks --------------------------------------------------------------------------------


@scenario(
    "rack-9ball",
    "game",
    "a whole rack of 9-ball played by a simple shooter (multi-shot)",
    10,
    lambda p: len(p.shots) >= 3,
)
def _rack_9(rng: random.Random, table: TableSpec) -> Play:
    return play_nine_ball_rack(rng, table)


@scenario(
    "rack-8ball",
    "game",
    "a rack of 8-ball between two simple shooters: groups, fouls, ball in hand (multi-shot)",
    10,
    lambda p: len(p.shots) >= 3,
)
def _rack_8(rng: random.Random, table: TableSpec) -> Play:
    return play_eight_ball_rack(rng, table)


@scenario(
    "rack-14.1",
    "game",
    "14.1 continuous run by a simple shooter, with the 14-ball re-rack when one ball is left",
    20,
    lambda p: len(p.shots) >= 3,
)
def _rack_14(rng: random.Random, table: TableSpec) -> Play:
    return play_straight_pool(rng, table)
