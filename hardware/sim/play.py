"""A session on the virtual table: shots one after another, with their truth as `Shot` records.

`Play` wraps the physics `Engine` with what a scenario script needs: strike and let the balls
settle (recording the `Shot` with its evidence), wait, place balls by hand, show the player's
arm and cue over the table, and finish into a `SimResult` plus `ScenarioTruth`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calibration.table import TableSpec
from hardware.sim.motion import Phase, PhysicsParams
from hardware.sim.physics import Engine
from hardware.sim.result import SimResult, from_engine
from hardware.sim.snapshot import Occluder
from hardware.sim.truth import (
    TRUTH_VERSION,
    BallFrame,
    Expectation,
    FrameTruth,
    LagTruth,
    RackTruth,
    ScenarioTruth,
    point_in_polygon,
)
from rules.balls import BallId
from rules.events import ShotEvent
from rules.shot import (
    DoubleHitEvidence,
    Frozen,
    JumpEvidence,
    Layout,
    NearCushion,
    Placement,
    PushEvidence,
    Shot,
)
from rules.table import Point

FROZEN_GAP_MM = 0.1
"""Gaps at or under this count as frozen (touching) in the truth."""

CUE_LENGTH_MM = 1470.0
ARM_COLOUR = (70, 95, 140)
CUE_COLOUR = (60, 120, 170)


@dataclass
class _Pending:
    strike_time: float
    event_index: int
    at_strike: Layout
    moving: tuple[BallId, ...]
    frozen: tuple[Frozen, ...]
    near: tuple[NearCushion, ...]


class Play:
    """A scripted session on the virtual table.

    Args:
        table: The table.
        layout: Balls and their positions at ``start_time`` (labels may repeat in a lag).
        start_time: Session time of the first instant.
        params: Physical constants.
    """

    def __init__(
        self,
        table: TableSpec,
        layout: Sequence[tuple[BallId, Point]],
        start_time: float = 0.0,
        params: PhysicsParams | None = None,
    ) -> None:
        self.table = table
        self.engine = Engine(table, layout, params, start_time)
        self.start_time = start_time
        self.shots: list[Shot] = []
        self.occluders: list[tuple[float, float, Occluder]] = []
        self.expectations: list[Expectation] = []
        self.racks: list[RackTruth] = []
        self.lag: LagTruth | None = None
        self.target: object = None
        """What the scenario aims at (its claim checks it); free-form per scenario."""
        self._pending: _Pending | None = None

    @property
    def time(self) -> float:
        """The session time now."""
        return self.engine.time

    @property
    def radius(self) -> float:
        """Ball radius."""
        return self.engine.params.radius

    def index(self, ball: BallId) -> int:
        """Array index of a ball."""
        return self.engine.index(ball)

    def position(self, ball: BallId) -> Point:
        """Where a ball is now."""
        x, y, _ = self.engine.state(self.index(ball)).position
        return (x, y)

    def on_cloth(self) -> dict[BallId, Point]:
        """Balls on the cloth now and where."""
        return {
            b: self.position(b) for k, b in enumerate(self.engine.labels) if self.engine.on_cloth(k)
        }

    # Shots -------------------------------------------------------------------------------------

    def strike(
        self,
        speed: float,
        heading_deg: float,
        follow: float = 0.0,
        side: float = 0.0,
        ball: BallId = BallId.CUE,
        show_cue: bool = False,
    ) -> float:
        """Strike the cue ball now; returns the strike time. Follow with `settle`."""
        t = self.time
        self._pending = _Pending(
            t,
            len(self.engine.events),
            self._layout_now(),
            tuple(self.engine.labels[k] for k in self.engine.moving),
            *self._frozen_and_near(),
        )
        i = self.index(ball)
        if show_cue:
            self.show_cue(i, heading_deg, t - 1.2, t + 0.25)
        self.engine.strike(i, speed, heading_deg, follow, side)
        return t

    def settle(
        self,
        double_hit: DoubleHitEvidence | None = None,
        push: PushEvidence | None = None,
        jump: JumpEvidence | None = None,
        placement: Placement | None = None,
    ) -> Shot:
        """Run until every ball rests and record the shot with its evidence."""
        pending = self._pending
        if pending is None:
            raise RuntimeError("settle() without a strike()")
        self.engine.run()
        events = tuple(sorted(self.engine.events[pending.event_index :], key=lambda e: e.time))
        shot = Shot(
            index=len(self.shots),
            strike_time=pending.strike_time,
            end_time=self.time,
            at_strike=pending.at_strike,
            at_rest=self._layout_now(),
            events=events,
            moving_at_strike=pending.moving,
            frozen=pending.frozen,
            near_cushion=pending.near,
            double_hit=double_hit,
            push=push,
            jump=jump,
            placement=placement,
        )
        self.shots.append(shot)
        self._pending = None
        return shot

    def shoot(
        self,
        speed: float,
        heading_deg: float,
        follow: float = 0.0,
        side: float = 0.0,
        show_cue: bool = False,
        placement: Placement | None = None,
    ) -> Shot:
        """Strike the cue ball and let everything come to rest."""
        self.strike(speed, heading_deg, follow, side, show_cue=show_cue)
        return self.settle(placement=placement)

    def amend_last_shot(self, *events: ShotEvent) -> Shot:
        """Add events to the last shot (a ball settling into a pocket after it ended)."""
        last = self.shots[-1]
        merged = tuple(sorted((*last.events, *events), key=lambda e: e.time))
        self.shots[-1] = dataclasses.replace(last, events=merged)
        return self.shots[-1]

    # Between shots ------------------------------------------------------------------------------

    def wait(self, seconds: float) -> None:
        """Let time pass (moving balls go on moving)."""
        self.engine.run(until=self.time + seconds)

    def place(self, ball: BallId, xy: Point, hand_s: float = 1.0) -> None:
        """A hand puts ``ball`` at ``xy``: the hand hides the spot for ``hand_s`` before."""
        self.show_hand(xy, self.time - hand_s, self.time)
        self.engine.place(self.index(ball), xy)

    def expect(self, call: str, rule: str, detail: str = "", shot: int | None = None) -> None:
        """Record a ruling the scenario provokes (on the last shot by default)."""
        self.expectations.append(
            Expectation(len(self.shots) - 1 if shot is None else shot, call, rule, detail)
        )

    # Occluders ----------------------------------------------------------------------------------

    def show_cue(self, i: int, heading_deg: float, t0: float, t1: float) -> None:
        """The cue stick and the player's arm over the table behind ball ``i``."""
        x, y, _ = self.engine.state(i, t0).position
        h = math.radians(heading_deg)
        dx, dy = math.cos(h), math.sin(h)
        nx, ny = -dy, dx
        tip = (x - dx * (self.radius + 15), y - dy * (self.radius + 15))
        butt = (tip[0] - dx * CUE_LENGTH_MM, tip[1] - dy * CUE_LENGTH_MM)

        def quad(a: Point, b: Point, wa: float, wb: float) -> tuple[Point, ...]:
            return (
                (a[0] + nx * wa, a[1] + ny * wa),
                (b[0] + nx * wb, b[1] + ny * wb),
                (b[0] - nx * wb, b[1] - ny * wb),
                (a[0] - nx * wa, a[1] - ny * wa),
            )

        cue = Occluder(quad(tip, butt, 6.5, 15.0), 60.0, CUE_COLOUR)
        elbow = (tip[0] - dx * 700 + nx * 120, tip[1] - dy * 700 + ny * 120)
        hand = (tip[0] - dx * 1100, tip[1] - dy * 1100)
        arm = Occluder(quad(elbow, hand, 45.0, 40.0), 350.0, ARM_COLOUR)
        bridge = (tip[0] - dx * 200, tip[1] - dy * 200)
        bridge_hand = Occluder(_disc(bridge, 55.0), 40.0, ARM_COLOUR)
        for o in (cue, arm, bridge_hand):
            self.occluders.append((t0, t1, o))

    def show_hand(self, xy: Point, t0: float, t1: float) -> None:
        """A hand over ``xy`` (placing or touching a ball)."""
        self.occluders.append((t0, t1, Occluder(_disc(xy, 70.0), 120.0, ARM_COLOUR)))

    # Finishing ----------------------------------------------------------------------------------

    def result(self) -> SimResult:
        """The trajectories and events so far."""
        return from_engine(self.engine, self.start_time, self.occluders)

    def truth(self, scenario: str, seed: int, description: str) -> ScenarioTruth:
        """The ground truth of the session so far."""
        events = tuple(sorted(self.engine.events, key=lambda e: e.time))
        return ScenarioTruth(
            version=TRUTH_VERSION,
            scenario=scenario,
            seed=seed,
            description=description,
            table=self.table,
            start_time=self.start_time,
            end_time=self.time,
            balls=self.engine.labels,
            shots=tuple(self.shots),
            events=events,
            expectations=tuple(self.expectations),
            racks=tuple(self.racks),
            lag=self.lag,
        )

    # Helpers ------------------------------------------------------------------------------------

    def _layout_now(self) -> Layout:
        positions = {}
        for k, b in enumerate(self.engine.labels):
            phase = self.engine.phase(k)
            if (phase.on_cloth or phase is Phase.DRIVEN) and b not in positions:
                x, y, _ = self.engine.state(k).position
                positions[b] = (x, y)
        return Layout.of(positions)

    def _frozen_and_near(self) -> tuple[tuple[Frozen, ...], tuple[NearCushion, ...]]:
        layout = self._layout_now()
        r = self.radius
        frozen: list[Frozen] = []
        near: list[NearCushion] = []
        for ball, p in layout.positions:
            cushion = self.table.nearest_cushion(p)
            gap = self.table.distance_to_cushion(p, cushion) - r
            if gap <= FROZEN_GAP_MM:
                frozen.append(Frozen(ball, max(gap, 0.0), cushion=cushion))
            elif ball.is_object_ball and gap <= 2 * r:
                near.append(NearCushion(ball, cushion, gap))
        cue = layout.get(BallId.CUE)
        if cue is not None:
            for ball, p in layout.positions:
                gap = math.dist(cue, p) - 2 * r
                if ball.is_object_ball and gap <= FROZEN_GAP_MM:
                    frozen.append(Frozen(BallId.CUE, max(gap, 0.0), other=ball))
        return tuple(frozen), tuple(near)


def _disc(c: Point, radius: float, sides: int = 12) -> tuple[Point, ...]:
    return tuple(
        (
            c[0] + radius * math.cos(2 * math.pi * k / sides),
            c[1] + radius * math.sin(2 * math.pi * k / sides),
        )
        for k in range(sides)
    )


def frame_truth(result: SimResult, times: Sequence[float]) -> tuple[FrameTruth, ...]:
    """Each ball's position, presence and occlusion at each frame time (truth per frame)."""
    frames = []
    for t in times:
        snap = result.snapshot(t)
        balls = []
        for k in range(len(snap.balls)):
            x, y, z = (float(v) for v in snap.positions[k])
            hidden = any(
                point_in_polygon((x, y), o.polygon) and o.height_mm > z for o in snap.occluders
            )
            balls.append(BallFrame((x, y, z), bool(snap.on_table[k]), hidden))
        frames.append(FrameTruth(float(t), tuple(balls)))
    return tuple(frames)


def cue_travel_toward(
    result: SimResult, ball: BallId, target: Point, since: float, until: float
) -> float:
    """How far ``ball`` moved on toward ``target``'s direction after ``since`` (mm, >= 0).

    The double-hit measure of rule 2.20: cue ball progress toward the object ball's original
    position after the contact.
    """
    traj = result.trajectory(ball)
    x0, y0, _ = traj.position(since)
    ux, uy = target[0] - x0, target[1] - y0
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    best = 0.0
    for t in np.linspace(since, until, 400):
        x, y, _ = traj.position(float(t))
        best = max(best, (x - x0) * ux + (y - y0) * uy)
    return best
