"""Operator inputs: everything the camera cannot know, as typed values that enter the game's log.

Each input is a frozen value with a ``kind`` tag (so a recorded log reads back unambiguously).
Three sorts:

- declarations, entered before a shot and applying to the next one: `CallShot` (3.4, 4.2, 6.1),
  `Safety` (4.12, 6.7.4), `PushOut` (5.6);
- answers and events between shots: `Decision` (the incoming player's option), `OperatorFoul`
  without a shot (a foul between shots, 3.41), `WarningGiven` (2.16), `Extension` (1.11),
  `TimeOut` (1.13), `Interference` (2.18, 3.35) without consequence for the rack, `Stalemate`
  (4.21), `RackReady` (the next rack of the match is racked);
- corrections of an earlier shot: `OperatorFoul` naming the shot (3.3, 3.13, 3.29, 3.40, 3.41,
  6.7.5), `Override` (a corrected verdict or a corrected Shot record, with a reason),
  `Interference` naming the shot, and `Undo` of any earlier log entry.

The game state is the fold of the log (`rules.log`), so a correction re-derives everything after
it; nothing is ever deleted from the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.balls import BallId
from rules.ruling import Choice, Foul, FoulKind
from rules.shot import Shot
from rules.table import PocketId


class InputKind(StrEnum):
    """The tag of each operator input."""

    CALL_SHOT = "call-shot"
    SAFETY = "safety"
    PUSH_OUT = "push-out"
    DECISION = "decision"
    OPERATOR_FOUL = "operator-foul"
    WARNING_GIVEN = "warning-given"
    INTERFERENCE = "interference"
    EXTENSION = "extension"
    TIME_OUT = "time-out"
    UNDO = "undo"
    OVERRIDE = "override"
    STALEMATE = "stalemate"
    RACK_READY = "rack-ready"


def _check_kind(value: object, expected: InputKind) -> None:
    if value.kind is not expected:  # type: ignore[attr-defined]
        raise ValueError(f"a {type(value).__name__} has kind {expected}, not {value.kind}")  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class CallShot:
    """The called ball and pocket for the next shot (3.4, 4.2, 6.1, 6.7.1).

    In 8-ball obvious balls need no call; banks and combinations must be called (4.2).
    """

    ball: BallId
    pocket: PocketId
    kind: InputKind = InputKind.CALL_SHOT

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.CALL_SHOT)
        if not self.ball.is_object_ball:
            raise ValueError("the called ball is an object ball")


@dataclass(frozen=True, slots=True)
class Safety:
    """The shooter declares a safety for the next shot (4.12, 6.7.4)."""

    kind: InputKind = InputKind.SAFETY

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.SAFETY)


@dataclass(frozen=True, slots=True)
class PushOut:
    """The shooter declares a push-out for the next shot (9-ball, 5.6)."""

    kind: InputKind = InputKind.PUSH_OUT

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.PUSH_OUT)


@dataclass(frozen=True, slots=True)
class Decision:
    """The answer of the player who has a choice (accept the table, hand back, re-rack...)."""

    choice: Choice
    kind: InputKind = InputKind.DECISION

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.DECISION)


@dataclass(frozen=True, slots=True)
class OperatorFoul:
    """A foul no camera sees, entered by the referee.

    Attributes:
        foul: What kind of foul (3.3 tip-only, 3.13 foot on floor, 3.29 intentional, 3.40 cue
            ball in hand, 3.41 interference, 6.7.5 deliberate, or any other the referee calls).
        player: Who fouled (index into the players).
        shot: The shot it happened on; None for a foul between shots.
        note: The referee's words.
    """

    foul: FoulKind
    player: int
    shot: int | None = None
    note: str = ""
    kind: InputKind = InputKind.OPERATOR_FOUL

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.OPERATOR_FOUL)
        if self.player not in (0, 1):
            raise ValueError(f"the player is 0 or 1, not {self.player}")

    def as_foul(self) -> Foul:
        """The foul as a ruling carries it, with its rule number."""
        reason = self.note or f"called by the referee ({self.foul})"
        return Foul.of(self.foul, reason)


@dataclass(frozen=True, slots=True)
class WarningGiven:
    """A human referee gave ``player`` the 2.16 warning of being on two fouls.

    Only needed when the monitor does not warn by itself (`GameOptions.auto_warn` False).
    """

    player: int
    kind: InputKind = InputKind.WARNING_GIVEN

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.WARNING_GIVEN)


class InterferenceOutcome(StrEnum):
    """What the referee decided after outside interference (2.18, 3.35)."""

    REPLAY_SHOT = "replay-shot"
    """It affected the shot: balls back where they were before it, and the shot is replayed."""
    RESTORE_AND_CONTINUE = "restore-and-continue"
    """It did not affect the shot: moved balls restored, the shot stands, play goes on."""
    REPLAY_RACK = "replay-rack"
    """The balls cannot be restored: the rack is replayed, the same player breaking."""


@dataclass(frozen=True, slots=True)
class Interference:
    """Outside interference (2.18, 3.35): a person or an outside event moved balls.

    Attributes:
        outcome: The referee's decision.
        shot: The shot it happened during; None between shots.
        note: What happened.
    """

    outcome: InterferenceOutcome
    shot: int | None = None
    note: str = ""
    kind: InputKind = InputKind.INTERFERENCE

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.INTERFERENCE)
        if self.outcome is InterferenceOutcome.REPLAY_SHOT and self.shot is None:
            raise ValueError("replaying a shot needs the shot's index")


@dataclass(frozen=True, slots=True)
class Extension:
    """``player`` takes the shot-clock extension for this rack (1.11)."""

    player: int
    kind: InputKind = InputKind.EXTENSION

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.EXTENSION)


@dataclass(frozen=True, slots=True)
class TimeOut:
    """``player`` takes a time-out (1.13); the match keeps the count."""

    player: int
    minutes: float = 5.0
    kind: InputKind = InputKind.TIME_OUT

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.TIME_OUT)


@dataclass(frozen=True, slots=True)
class Undo:
    """Cancel an earlier log entry (undoing an Undo restores what it cancelled).

    Attributes:
        target: The ``seq`` of the entry to cancel.
        reason: Why, for the record.
    """

    target: int
    reason: str
    kind: InputKind = InputKind.UNDO

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.UNDO)
        if not self.reason.strip():
            raise ValueError("an undo needs a reason for the record")


@dataclass(frozen=True, slots=True)
class Override:
    """The referee's correction of a shot's ruling, with a reason kept in the record.

    Attributes:
        shot: The index of the shot corrected.
        reason: Why.
        fouls: The fouls that stand instead of the ones found (empty: the shot was legal);
            None keeps the fouls found and only corrects the record.
        record: A corrected Shot record (wrong ball identity, a missed pocket...); None keeps it.
    """

    shot: int
    reason: str
    fouls: tuple[Foul, ...] | None = None
    record: Shot | None = None
    kind: InputKind = InputKind.OVERRIDE

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.OVERRIDE)
        if not self.reason.strip():
            raise ValueError("an override needs a reason for the record")
        if self.record is not None and self.record.index != self.shot:
            raise ValueError(f"the corrected record is shot {self.record.index}, not {self.shot}")


@dataclass(frozen=True, slots=True)
class Stalemate:
    """The referee (or both players) rules the rack a stalemate (8-ball, 4.21): it is re-racked
    and the same player breaks again."""

    note: str = ""
    kind: InputKind = InputKind.STALEMATE

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.STALEMATE)


@dataclass(frozen=True, slots=True)
class RackReady:
    """The referee confirms the next rack of the match is racked (3.7, 3.36): the game that
    ended is closed and a new one begins, broken by the player the match's break order names.

    It is the referee's word rather than the next strike because racking moves every ball by
    hand (tracking may take that for a shot), and the referee checks the rack before the
    break anyway (4.3, 5.2, 6.4).
    """

    note: str = ""
    kind: InputKind = InputKind.RACK_READY

    def __post_init__(self) -> None:
        _check_kind(self, InputKind.RACK_READY)


OperatorInput = (
    CallShot
    | Safety
    | PushOut
    | Decision
    | OperatorFoul
    | WarningGiven
    | Interference
    | Extension
    | TimeOut
    | Undo
    | Override
    | Stalemate
    | RackReady
)
"""Any operator input."""


@dataclass(frozen=True, slots=True)
class ShotInputs:
    """What the operator said about one shot, gathered from the log for the game's judge.

    Attributes:
        call: The called ball and pocket, if any.
        safety: A safety was declared.
        push_out: A push-out was declared.
        fouls: Fouls entered by the referee on this shot.
        override: The referee's correction of the ruling, if any.
    """

    call: CallShot | None = None
    safety: bool = False
    push_out: bool = False
    fouls: tuple[Foul, ...] = ()
    override: Override | None = None
