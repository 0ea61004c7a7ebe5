"""Ground truth of a virtual-table scenario, as values the one codec (`rules.codec`) writes.

A scenario's truth is what a perfect referee would know: every event with its exact time, each
shot as the `rules.shot.Shot` record tracking should produce (with the evidence fields the
scenario defines), the rulings the scenario is built to provoke, and, per frame, where each ball
is and whether anything hides it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from calibration.table import TableSpec
from rules.balls import BallId
from rules.events import ShotEvent
from rules.shot import Layout, Shot
from rules.table import Point, RackShape

TRUTH_VERSION = 1


@dataclass(frozen=True, slots=True)
class Expectation:
    """A ruling a correct referee makes in this scenario.

    Attributes:
        shot: Index of the shot it is about (in `ScenarioTruth.shots`), -1 for none.
        call: Short name of the call: ``foul``, ``legal``, ``flag``, ``not-pocketed``,
            ``restore``, ``lag-winner``, ``warn``.
        rule: The WPA rule number (numbering of shared/rules/wpa-rules-1999-ru.txt).
        detail: What it is about, in a few words.
    """

    shot: int
    call: str
    rule: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class RackTruth:
    """Balls racked by hand at one time (a break rack, the 14.1 re-rack of 14).

    Attributes:
        time: When the rack was finished (the balls at rest in it).
        shape: Triangle or diamond.
        layout: Where the racked balls are.
        apex_empty: True for the 14.1 re-rack, apex slot left free (rule 6.7.3).
    """

    time: float
    shape: RackShape
    layout: Layout
    apex_empty: bool = False


@dataclass(frozen=True, slots=True)
class LagLane:
    """One player's ball in the lag for the break (rule 3.6).

    Attributes:
        name: ``left`` (+y half) or ``right``.
        final_position: Where the ball came to rest (None if pocketed or off the table).
        distance_to_head_cushion_mm: Centre to head cushion nose at rest.
        touched_foot_cushion: It reached the foot cushion.
        touched_long_cushion: It touched a long (side) cushion: loses the lag.
        crossed_long_string: It crossed into the other player's half: loses the lag.
        pocketed: It went into a pocket: loses the lag.
    """

    name: str
    final_position: Point | None
    distance_to_head_cushion_mm: float
    touched_foot_cushion: bool
    touched_long_cushion: bool
    crossed_long_string: bool
    pocketed: bool


@dataclass(frozen=True, slots=True)
class LagTruth:
    """The lag: two cue balls shot at once; the winner chooses who breaks (rules 3.6, 3.7).

    The two balls are both labelled ``cue`` in snapshots (they look the same); events naming
    ``cue`` in a lag scenario are ambiguous, so each lane's facts are given here.
    """

    lanes: tuple[LagLane, LagLane]
    winner: str | None
    """Name of the winning lane; None when both lose (re-lag)."""


@dataclass(frozen=True, slots=True)
class ScenarioTruth:
    """Everything true about one scenario run.

    Attributes:
        version: Format version of this record.
        scenario: Scenario name.
        seed: Seed it was generated with.
        description: What happens, in a sentence.
        table: The table played on.
        start_time: Session time the scenario starts.
        end_time: Session time the last ball stopped (or the last scripted action).
        balls: Ball labels in snapshot order (``cue`` twice in a lag).
        shots: Each shot as the referee should see it.
        events: Every event of the scenario in time order, shots and between shots.
        expectations: The rulings the scenario is built to provoke.
        racks: Racks set up by hand during the scenario.
        lag: The lag's facts, in a lag scenario.
    """

    version: int
    scenario: str
    seed: int
    description: str
    table: TableSpec
    start_time: float
    end_time: float
    balls: tuple[BallId, ...]
    shots: tuple[Shot, ...]
    events: tuple[ShotEvent, ...]
    expectations: tuple[Expectation, ...] = ()
    racks: tuple[RackTruth, ...] = ()
    lag: LagTruth | None = None


@dataclass(frozen=True, slots=True)
class BallFrame:
    """One ball in one frame.

    Attributes:
        position: Centre (x, y, z) in table mm, z above the cloth.
        on_table: False when pocketed or off the table.
        occluded: True when an occluder (arm, cue, hand) covers the centre seen from above.
    """

    position: tuple[float, float, float]
    on_table: bool
    occluded: bool

    @property
    def visible(self) -> bool:
        """On the table and not hidden."""
        return self.on_table and not self.occluded


@dataclass(frozen=True, slots=True)
class FrameTruth:
    """Every ball at one frame time, in `ScenarioTruth.balls` order."""

    time: float
    balls: tuple[BallFrame, ...]


def point_in_polygon(p: Point, polygon: Sequence[Point]) -> bool:
    """Even-odd rule test of ``p`` against a simple polygon."""
    x, y = p
    inside = False
    n = len(polygon)
    for k in range(n):
        (x1, y1), (x2, y2) = polygon[k], polygon[(k + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside
