"""14.1 continuous (WPA rules 6.1-6.13), on top of the general rules (3.x).

A called-shot game to a number of points (6.1, `GameOptions.target_points`): a legally pocketed
called ball scores one point and so does every other ball pocketed on the same shot (6.5,
6.7.1); the shooter stays at the table until he misses or fouls. Any object ball may be hit
first. Balls pocketed without being credited (uncalled, on a safety, on a foul) and balls driven
off the table are spotted (6.7.4, 6.8, 6.9, 6.13, 3.32).

- The opening break (6.6): a called ball made, or the cue ball hits a ball and then a cushion
  with two object balls driven to cushions. Otherwise a break violation: -2 each time, and the
  incoming player accepts the table or has the breaker break again; violations do not count
  toward three fouls. A scratch on a legal break is an ordinary foul (-1, counted).
- Fouls (6.10, 6.11): -1; the incoming player takes the cue ball where it lies, or in hand
  behind the head string after a scratch, a cue ball off the table, a deliberate foul or a third
  foul. Deliberate fouls (6.7.5, entered by the operator) cost -16 and give the incoming player
  the choice of accepting the table or re-racking all 15 for the offender to break.
- Three consecutive fouls (6.12, in consecutive turns at the table): -1 and -15 more on the
  third, the count starts again, and the incoming player accepts the table or re-racks all 15
  for the offender to break. The warning after the second comes from rule 2.16.
- A ball within a ball's width of a cushion (6.7.2): two safeties in a row driving it into its
  nearest cushion, then it counts as frozen for that player (3.38); at once after a foul just
  before or after such a safety, or when he is on two fouls. Failing 3.38 then, on two fouls,
  is his third foul (-16 on it, -18 over the three) and all 15 are racked for him to break.
- The 14th ball (6.7.3, 6.7.6): play stops, the 14 are racked with the apex empty, and the 15th
  ball and the cue ball go where `rules.rerack.plan_rerack` says; the same player shoots on.

Two readings where the text is silent: a break violation with a scratch costs the -2 of the
violation only (3.30, one penalty), with the cue ball in hand behind the head string for a player
who accepts the table; and a deliberate foul that is also a third foul costs -16, not -31
(3.30: the most severe penalty), though it ends the foul count like any third foul.
"""

from __future__ import annotations

import dataclasses

from rules.balls import OBJECT_BALLS, BallId
from rules.errors import RecordError
from rules.games.base import (
    RackGame,
    apply_common,
    check_can_judge,
    check_choice,
    count_fouls,
    renumbered,
    second_foul_warning,
    spot_after,
)
from rules.general import ShotContext, frozen_ball, judge_general
from rules.inputs import CallShot, ShotInputs
from rules.rerack import BallGoes, kitchen_spot, plan_rerack
from rules.ruling import (
    Alert,
    AlertKind,
    BallInHand,
    Choice,
    Foul,
    FoulKind,
    Review,
    Ruling,
    ScoreChange,
    Spot,
    most_severe,
)
from rules.shot import Frozen, Layout, NearCushion, Shot
from rules.state import GameState, Phase, per_player
from rules.table import Point

NAME = "14.1"

BREAK_CUSHION_BALLS = 2
"""Rule 6.6: a break that makes no called ball drives at least two object balls to cushions."""

BREAK_VIOLATION_POINTS = 2
"""Rule 6.6: each break violation costs two points."""

FOUL_POINTS = 1
"""Rule 6.11: each foul costs one point."""

EXTRA_POINTS = 15
"""Rules 6.7.5 and 6.12: a deliberate foul, or a third foul in a row, costs 15 more."""

CUSHION_SAFETIES_ALLOWED = 2
"""Rule 6.7.2: safeties in a row into the nearest cushion on a ball near it, before it counts
as frozen."""

_RULES = {
    FoulKind.NO_CONTACT: "6.7.2",
    FoulKind.NO_CUSHION: "6.7.2",
    FoulKind.OBJECT_BALL_OFF_TABLE: "6.9",
}
_RANK = {
    FoulKind.DELIBERATE: 5,
    FoulKind.BAD_BREAK: 4,
    FoulKind.SCRATCH: 3,
    FoulKind.CUE_BALL_OFF_TABLE: 3,
}
"""Rule 3.30 in 14.1: the deliberate foul (-16), then the break violation (-2), then the fouls
that give ball in hand behind the head string, then the rest."""

_TO_KITCHEN = frozenset({FoulKind.SCRATCH, FoulKind.CUE_BALL_OFF_TABLE, FoulKind.DELIBERATE})
"""Fouls after which the incoming player has the cue ball in hand in the kitchen (6.10, 6.11)."""


class StraightPool(RackGame):
    """14.1 continuous on one table (the table gives spotting and re-racking their geometry)."""

    name = NAME
    racked = OBJECT_BALLS

    def judge(self, state: GameState, shot: Shot, inputs: ShotInputs) -> Ruling:
        """The ruling on one 14.1 shot (6.5-6.13 over the general rules)."""
        check_can_judge(state, shot)
        is_break = state.phase is Phase.BREAK
        ctx = ShotContext(
            legal_first=(),
            ball_in_hand=state.ball_in_hand,
            require_contact=not is_break,
            require_cushion=not is_break,
            review_confidence=state.options.review_confidence,
            is_break=is_break,
        )
        found = judge_general(shot, ctx, self.table)
        notes = list(found.notes)
        warnings = list(found.warnings)
        fouls = list(renumbered(found.fouls, _RULES))
        if is_break:
            fouls.extend(break_violation(shot, inputs.call))
        else:
            fouls.extend(_near_cushion_foul(state, shot))
        fouls.extend(inputs.fouls)
        reviews = list(found.reviews)
        if inputs.override is not None and inputs.override.fouls is not None:
            fouls = list(inputs.override.fouls)
            reviews = []
            notes.append(f"referee's override: {inputs.override.reason}")
        pocketed = tuple(b for b in shot.pocketed if b.is_object_ball)
        off = tuple(b for b in shot.left_table if b.is_object_ball)
        foul = most_severe(tuple(fouls), _RANK)
        common = dict(
            shot_index=shot.index,
            shooter=state.shooter,
            fouls=tuple(fouls),
            foul=foul,
            pocketed=pocketed,
            off_table=off,
            restores=found.restores,
            safety=inputs.safety,
        )
        if foul is not None:
            in_hand = bool({f.kind for f in fouls} & _TO_KITCHEN) or is_third_foul(
                state, state.shooter
            )
            spots = spot_after(shot, pocketed + off, found.restores, in_hand, self.table)
            if pocketed or off:
                notes.append("6.13: balls pocketed or driven off the table on a foul are spotted")
            ruling = self._foul(state, tuple(fouls), foul, notes, warnings, reviews, common, spots)
            if ruling.ball_in_hand is BallInHand.KITCHEN:
                extra = self._kitchen_option(shot, spots)
                ruling = dataclasses.replace(ruling, notes=ruling.notes + extra)
            return ruling
        return self._legal(state, shot, inputs, notes, warnings, reviews, common)

    def _legal(
        self,
        state: GameState,
        shot: Shot,
        inputs: ShotInputs,
        notes: list[str],
        warnings: list[Alert],
        reviews: list[Review],
        common: dict,
    ) -> Ruling:
        shooter, opponent = state.shooter, state.opponent
        pocketed: tuple[BallId, ...] = common["pocketed"]
        is_break = state.phase is Phase.BREAK
        call = inputs.call
        if call is None and pocketed and not inputs.safety and not is_break:
            call = CallShot(pocketed[0], shot.pocket_of(pocketed[0]))  # type: ignore[arg-type]
            notes.append(f"6.1: no call entered: the {pocketed[0]} pocketed is taken as called")
        made = not inputs.safety and call is not None and shot.pocket_of(call.ball) == call.pocket
        if is_break:
            notes.append("6.6: legal break")
        cushion_ball = cushion_safety_on(shot) if not made else None
        if cushion_ball is not None:
            warnings.extend(_cushion_safety_alert(state, shooter, cushion_ball))
        if not made:
            if pocketed:
                why = "6.7.4: pocketed on a safety" if inputs.safety else "6.8: not the called ball"
                notes.append(f"{why}: spotted (3.32), no penalty")
            elif inputs.safety:
                notes.append("6.7.4: safety: the inning ends")
            spots = spot_after(shot, pocketed, common["restores"], False, self.table)
            return Ruling(
                **common,
                next_player=opponent,
                spots=spots,
                warnings=tuple(warnings),
                reviews=tuple(reviews),
                notes=tuple(notes),
                cushion_safety=cushion_ball,
            )
        points = len(pocketed)
        score = (ScoreChange(shooter, points, "6.5", f"{points} ball(s) legally pocketed"),)
        total = state.scores[shooter] + points
        if total >= state.options.target_points:
            notes.append(
                f"6.1: {state.players[shooter]} reaches {total} of {state.options.target_points}"
                " points and wins"
            )
            return Ruling(
                **common,
                next_player=shooter,
                credited=pocketed,
                score=score,
                game_over=True,
                winner=shooter,
                warnings=tuple(warnings),
                reviews=tuple(reviews),
                notes=tuple(notes),
            )
        left = tuple(b for b in state.on_table if b not in pocketed)
        spots: tuple[Spot, ...] = ()
        ball_in_hand = BallInHand.NONE
        if len(left) <= 1:
            spots, ball_in_hand, why = self._rerack(shot, left, pocketed, reviews)
            notes.append(why)
        return Ruling(
            **common,
            next_player=shooter,
            ball_in_hand=ball_in_hand,
            credited=pocketed,
            spots=spots,
            score=score,
            warnings=tuple(warnings),
            reviews=tuple(reviews),
            notes=tuple(notes),
        )

    def _rerack(
        self,
        shot: Shot,
        left: tuple[BallId, ...],
        pocketed: tuple[BallId, ...],
        reviews: list[Review],
    ) -> tuple[tuple[Spot, ...], BallInHand, str]:
        """Rules 6.7.3, 6.7.6: the 14 racked with the apex empty; the 15th and the cue ball
        where the table of 6.7.6 puts them."""
        layout: dict[BallId, Point] = {}
        cue = shot.at_rest.get(BallId.CUE)
        if cue is None:
            reviews.append(Review("6.7.6", "the cue ball was not seen at rest: place it by hand"))
            cue = self._far_corner()
        layout[BallId.CUE] = cue
        for ball in left:
            where = shot.at_rest.get(ball)
            if where is None:
                reviews.append(Review("6.7.3", f"the {ball} (the 15th ball) was not seen at rest"))
            else:
                layout[ball] = where
        fifteenth = left[0] if left else pocketed[-1]
        plan = plan_rerack(Layout.of(layout), self.table, fifteenth=fifteenth)
        spots = [Spot(b, p) for b, p in zip(plan.racked, plan.rack_slots, strict=True)]
        if plan.fifteenth_goes is not BallGoes.STAYS:
            spots.append(Spot(plan.fifteenth, plan.fifteenth_to))
        if plan.cue_goes in (BallGoes.HEAD_SPOT, BallGoes.CENTRE_SPOT) and plan.cue_to:
            spots.append(Spot(BallId.CUE, plan.cue_to))
        unseen = BallId.CUE not in shot.at_rest
        in_hand = BallInHand.KITCHEN if plan.cue_ball_in_hand or unseen else BallInHand.NONE
        why = (
            f"{plan.rule}: 14th ball pocketed: 14 balls re-racked with the apex empty; the 15th "
            f"ball ({plan.fifteenth}, {plan.fifteenth_lies}) {plan.fifteenth_goes}, the cue ball "
            f"({plan.cue_lies}) {plan.cue_goes}; the same player shoots on"
        )
        return tuple(spots), in_hand, why

    def _far_corner(self) -> Point:
        """A cue-ball stand-in out of every rack and spot (6.7.6 'elsewhere')."""
        d = self.table.ball_diameter
        return (-self.table.length / 2 + d, self.table.width / 2 - d)

    def _foul(
        self,
        state: GameState,
        fouls: tuple[Foul, ...],
        foul: Foul,
        notes: list[str],
        warnings: list[Alert],
        reviews: list[Review],
        common: dict,
        spots: tuple[Spot, ...],
    ) -> Ruling:
        player = state.shooter
        penalty = penalise(state, player, fouls, foul, notes, warnings)
        return Ruling(
            **common,
            next_player=1 - player,
            ball_in_hand=penalty.ball_in_hand,
            spots=spots,
            score=penalty.score,
            warnings=tuple(warnings),
            choices=penalty.choices,
            chooser=(1 - player) if penalty.choices else None,
            reviews=tuple(reviews),
            notes=tuple(notes),
        )

    def _kitchen_option(self, shot: Shot, spots: tuple[Spot, ...]) -> tuple[str, ...]:
        """Rule 6.7.7: cue ball in hand in the kitchen with every object ball in the kitchen:
        the ball nearest the head string is spotted on the foot spot if the shooter asks."""
        gone = set(shot.pocketed) | set(shot.left_table)
        layout = {b: p for b, p in shot.at_rest.positions if b not in gone and b.is_object_ball}
        layout.update({s.ball: s.position for s in spots})
        option = kitchen_spot(Layout.of(layout), self.table)
        if option is None:
            return ()
        balls = " or the ".join(option.candidates)
        return (
            f"6.7.7: every object ball is in the kitchen: on request the {balls} is spotted "
            "on the foot spot",
        )

    def advance(self, state: GameState, ruling: Ruling) -> GameState:
        """The state after a ruling: balls, turn, scores, fouls in a row (6.12), the cushion
        safeties of 6.7.2, phase."""
        player = ruling.shooter
        foul = ruling.foul
        if foul is not None and foul.kind is FoulKind.BAD_BREAK:
            after = state  # 6.6: break violations do not count toward three fouls
        elif foul is not None and is_third_foul(state, player):
            after = state.replace(  # 6.12: the third foul ends the count
                fouls_in_a_row=per_player(state.fouls_in_a_row, player, 0),
                warned=per_player(state.warned, player, False),
            )
        else:
            after = count_fouls(state, ruling, player)
        after = _track_cushion_safeties(after, state, ruling)
        after = apply_common(after, ruling)
        if after.over:
            return after
        return after.replace(phase=Phase.PLAY)

    def choose(self, state: GameState, choice: Choice) -> GameState:
        """The incoming player accepts the table, or has all 15 re-racked for the offender to
        break under the opening-break rules (6.6, 6.7.5, 6.12)."""
        chooser = check_choice(state, choice)
        if choice is Choice.ACCEPT_TABLE:
            return state.replace(
                choices=(),
                chooser=None,
                shooter=chooser,
                innings=state.innings + (chooser != state.shooter),
            )
        offender = 1 - chooser
        return state.replace(
            choices=(),
            chooser=None,
            phase=Phase.BREAK,
            on_table=OBJECT_BALLS,
            shooter=offender,
            breaker=offender,
            ball_in_hand=BallInHand.KITCHEN,
            cushion_safety_ball=(None, None),
            cushion_safeties=(0, 0),
            innings=state.innings + (offender != state.shooter),
        )

    def foul_between_shots(self, state: GameState, foul: Foul, player: int) -> Ruling:
        """A foul entered between shots (3.41, 6.7.5): the same penalties as on a shot."""
        if state.over:
            raise RecordError(f"a foul by player {player} after the {NAME} game is over")
        notes: list[str] = []
        warnings: list[Alert] = []
        penalty = penalise(state, player, (foul,), foul, notes, warnings)
        notes.append(f"foul between shots: {state.players[1 - player]} is at the table")
        return Ruling(
            None,
            player,
            (foul,),
            foul,
            1 - player,
            ball_in_hand=penalty.ball_in_hand,
            score=penalty.score,
            warnings=tuple(warnings),
            choices=penalty.choices,
            chooser=(1 - player) if penalty.choices else None,
            notes=tuple(notes),
        )


@dataclasses.dataclass(frozen=True, slots=True)
class Penalty:
    """What a foul costs in 14.1 and what the incoming player gets.

    Attributes:
        score: The points taken off (6.6, 6.11, 6.7.5, 6.12).
        ball_in_hand: Where the incoming player has the cue ball (6.10, 6.11).
        choices: The incoming player's options (6.6, 6.7.5, 6.12); empty when none.
    """

    score: tuple[ScoreChange, ...]
    ball_in_hand: BallInHand
    choices: tuple[Choice, ...] = ()


_RERACK_CHOICE = (Choice.ACCEPT_TABLE, Choice.RERACK_OPPONENT_BREAKS)


def penalise(
    state: GameState,
    player: int,
    fouls: tuple[Foul, ...],
    foul: Foul,
    notes: list[str],
    warnings: list[Alert],
) -> Penalty:
    """The penalty of ``foul`` (the one applied, 3.30) by ``player`` from ``state``.

    ``notes`` and ``warnings`` receive the decisions and the 2.16 warning.
    """
    name = state.players[player]
    kinds = {f.kind for f in fouls}
    to_kitchen = bool(kinds & _TO_KITCHEN)
    if foul.kind is FoulKind.BAD_BREAK:
        notes.append(
            f"6.6: break violation: {name} loses {BREAK_VIOLATION_POINTS} points; the other "
            "player accepts the table or has him break again (no count toward three fouls)"
        )
        change = ScoreChange(player, -BREAK_VIOLATION_POINTS, "6.6", foul.reason)
        in_hand = BallInHand.KITCHEN if to_kitchen else BallInHand.NONE
        return Penalty((change,), in_hand, _RERACK_CHOICE)
    score = [ScoreChange(player, -FOUL_POINTS, "6.11", f"foul ({foul.rule}): {foul.reason}")]
    third = is_third_foul(state, player)
    if state.fouls_in_a_row[player] >= 2 and not state.warned[player]:
        notes.append("2.16: no warning after the second foul: this counts as an ordinary foul")
    choices: tuple[Choice, ...] = ()
    if foul.kind is FoulKind.DELIBERATE:
        score.append(ScoreChange(player, -EXTRA_POINTS, "6.7.5", "deliberate foul"))
        notes.append(f"6.7.5: deliberate foul: {name} loses 16 points in all")
        choices = _RERACK_CHOICE
    elif third:
        score.append(ScoreChange(player, -EXTRA_POINTS, "6.12", "third consecutive foul"))
        notes.append(f"6.12: third consecutive foul: {name} loses 15 points more")
        choices = _RERACK_CHOICE
        if foul.kind is FoulKind.FROZEN_BALL and foul.rule == "6.7.2":
            # 6.7.2's note: on two fouls, failing the frozen-ball rule on a ball near a cushion
            # is the third foul, and all 15 are racked for him to break: no choice.
            choices = (Choice.RERACK_OPPONENT_BREAKS,)
            notes.append(f"6.7.2: all 15 balls are racked and {name} breaks (6.6 applies)")
    if third:
        to_kitchen = True
        notes.append("6.12: the foul count starts again")
    elif _count_after(state, player) == 2:
        warnings.append(_second_foul_warning(player, name))
    if len(choices) > 1:
        notes.append(
            f"{state.players[1 - player]} accepts the table (cue ball in hand behind the head "
            f"string) or re-racks all 15 for {name} to break (6.6 applies)"
        )
    in_hand = BallInHand.KITCHEN if to_kitchen else BallInHand.NONE
    why = "in hand behind the head string (6.10)" if to_kitchen else "where it lies (6.11)"
    notes.append(f"6.11: foul: -1; {state.players[1 - player]} takes the cue ball {why}")
    return Penalty(tuple(score), in_hand, choices)


def _second_foul_warning(player: int, name: str) -> Alert:
    warning = second_foul_warning(player, name)
    return dataclasses.replace(
        warning, text=f"{name} is on two fouls: a third in a row costs 15 points more (6.12)"
    )


def is_third_foul(state: GameState, player: int) -> bool:
    """Rule 6.12 (with 2.16): ``player`` is on two fouls and was warned, so a foul now is the
    third in a row."""
    return state.fouls_in_a_row[player] >= 2 and state.warned[player]


def _count_after(state: GameState, player: int) -> int:
    """The player's fouls in a row after one more (2.16: unwarned, he is taken to be on one)."""
    prior = state.fouls_in_a_row[player]
    if prior >= 2 and not state.warned[player]:
        prior = 1
    return prior + 1


def break_violation(shot: Shot, call: CallShot | None) -> tuple[Foul, ...]:
    """Rule 6.6: the opening break makes the called ball, or the cue ball hits an object ball
    and then a cushion and at least two object balls reach cushions."""
    if call is not None and shot.pocket_of(call.ball) == call.pocket:
        return ()
    contacts = shot.cue_ball_contacts
    if not contacts:
        return (Foul.of(FoulKind.BAD_BREAK, "the cue ball touched no object ball", rule="6.6"),)
    after = shot.cushion_contacts(since=contacts[0])
    cue_to_cushion = any(e.ball is BallId.CUE for e in after)
    balls = {e.ball for e in after if e.ball.is_object_ball}
    if cue_to_cushion and len(balls) >= BREAK_CUSHION_BALLS:
        return ()
    missing = []
    if not cue_to_cushion:
        missing.append("the cue ball reached no cushion after the contact")
    if len(balls) < BREAK_CUSHION_BALLS:
        missing.append(
            f"only {len(balls)} object ball(s) reached a cushion "
            f"(at least {BREAK_CUSHION_BALLS} needed)"
        )
    reason = "no called ball made; " + " and ".join(missing)
    return (Foul.of(FoulKind.BAD_BREAK, reason, rule="6.6"),)


def near_cushion(shot: Shot, ball: BallId) -> NearCushion | None:
    """Rule 6.7.2: ``ball`` within a ball's width of a cushion at the strike, not frozen."""
    if any(f.ball is ball and f.cushion is not None for f in shot.frozen):
        return None
    return next((n for n in shot.near_cushion if n.ball is ball), None)


def cushion_safety_on(shot: Shot) -> BallId | None:
    """Rule 6.7.2: the ball a safety was played on when the cue ball first hit a ball near a
    cushion and nothing but that ball, into that nearest cushion, touched a cushion after."""
    contact = shot.first_contact
    if contact is None or any(b.is_object_ball for b in shot.pocketed):
        return None
    near = near_cushion(shot, contact.ball)
    if near is None:
        return None
    after = shot.cushion_contacts(since=shot.cue_ball_contacts[0])
    if after and all(e.ball is contact.ball and e.cushion == near.cushion for e in after):
        return contact.ball
    return None


def must_treat_as_frozen(state: GameState, player: int, ball: BallId) -> bool:
    """Rule 6.7.2: the ball counts as frozen for ``player``: after two safeties in a row into
    its nearest cushion (or one with a foul just before or after it, kept as two), or at once
    when he is on two fouls."""
    if state.fouls_in_a_row[player] >= 2:
        return True
    return (
        state.cushion_safety_ball[player] is ball
        and state.cushion_safeties[player] >= CUSHION_SAFETIES_ALLOWED
    )


def _near_cushion_foul(state: GameState, shot: Shot) -> tuple[Foul, ...]:
    """Rule 6.7.2 (3.38): a near-cushion ball that counts as frozen was hit first and nothing
    reached a new cushion."""
    contact = shot.first_contact
    if contact is None:
        return ()
    near = near_cushion(shot, contact.ball)
    if near is None or not must_treat_as_frozen(state, state.shooter, contact.ball):
        return ()
    as_frozen = Frozen(contact.ball, near.gap_mm, cushion=near.cushion)
    found = frozen_ball(dataclasses.replace(shot, frozen=(*shot.frozen, as_frozen)))
    if found is None:
        return ()
    reason = (
        f"the {contact.ball}, {near.gap_mm:.0f} mm off the {near.cushion} cushion, counts as "
        f"frozen after two safeties into it (3.38): {found.reason}"
    )
    return (Foul.of(FoulKind.FROZEN_BALL, reason, ball=contact.ball, rule="6.7.2"),)


def _cushion_safety_alert(state: GameState, player: int, ball: BallId) -> tuple[Alert, ...]:
    """Rule 6.7.2: announce that ``ball`` will count as frozen for ``player``."""
    same = state.cushion_safety_ball[player] is ball
    count = (state.cushion_safeties[player] if same else 0) + 1
    if count < CUSHION_SAFETIES_ALLOWED and state.fouls_in_a_row[player] == 0:
        return ()
    text = (
        f"the {ball} counts as frozen to its cushion for {state.players[player]} on his next "
        "turn (two safeties into the nearest cushion)"
    )
    return (Alert(AlertKind.FROZEN_BALL, "6.7.2", text, player=player, ball=ball),)


def _track_cushion_safeties(after: GameState, before: GameState, ruling: Ruling) -> GameState:
    """Rule 6.7.2's count: a safety into the nearest cushion on the same ball adds one (two at
    once after a foul just before it); a foul just after one makes it two; any other shot by
    the player ends it."""
    player = ruling.shooter
    ball = before.cushion_safety_ball[player]
    count = before.cushion_safeties[player]
    if ruling.foul is not None:
        if count:
            count = CUSHION_SAFETIES_ALLOWED
    elif ruling.cushion_safety is not None:
        count = count + 1 if ball is ruling.cushion_safety else 1
        if before.fouls_in_a_row[player]:
            count = CUSHION_SAFETIES_ALLOWED
        ball = ruling.cushion_safety
    else:
        ball, count = None, 0
    return after.replace(
        cushion_safety_ball=per_player(after.cushion_safety_ball, player, ball),
        cushion_safeties=per_player(after.cushion_safeties, player, count),
    )
