"""8-ball (WPA rules 4.1-4.21), on top of the general rules (3.x).

Solids 1-7 against stripes 9-15; the player who clears his group and then legally pockets the 8
wins (4.1). The table is open after the break and until a player legally pockets a called ball
(4.9, 4.10). Obvious balls need no call; banks and combinations must be called, which the
operator enters (`rules.inputs.CallShot`, 4.2): without a call, a pocketed ball of one's own
group is taken as obvious. Balls pocketed on a foul stay down (4.2, 4.16). A foul gives ball in
hand anywhere, behind the head string only on the break (4.14). Every loss of 4.20 ends the
rack; three consecutive fouls do not (4.21).
"""

from __future__ import annotations

import dataclasses

from rules.balls import OBJECT_BALLS, BallGroup, BallId
from rules.errors import RecordError
from rules.games.base import (
    RackGame,
    apply_common,
    check_can_judge,
    check_choice,
    count_fouls,
    renumbered,
    spot_after,
)
from rules.general import ShotContext, judge_general
from rules.inputs import CallShot, ShotInputs
from rules.ruling import (
    BallInHand,
    Choice,
    Foul,
    FoulKind,
    Review,
    Ruling,
    most_severe,
)
from rules.shot import Shot
from rules.state import GameState, Phase

NAME = "8-ball"

BREAK_CUSHION_BALLS = 4
"""Rule 4.5: a break that pockets nothing must drive at least four numbered balls to cushions."""

EIGHT = BallId.EIGHT

_RULES = {
    FoulKind.WRONG_BALL_FIRST: "4.11",
    FoulKind.NO_CUSHION: "4.11",
    FoulKind.OBJECT_BALL_OFF_TABLE: "4.17",
}
_BREAK_RULES = {
    FoulKind.SCRATCH: "4.6",
    FoulKind.OBJECT_BALL_OFF_TABLE: "4.7",
}
_BREAK_SCRATCH = (FoulKind.SCRATCH, FoulKind.CUE_BALL_OFF_TABLE)


class EightBall(RackGame):
    """8-ball on one table (the table gives spotting its geometry for the 8, 4.8)."""

    name = NAME
    racked = OBJECT_BALLS

    # Judging ---------------------------------------------------------------------------------

    def judge(self, state: GameState, shot: Shot, inputs: ShotInputs) -> Ruling:
        """The ruling on one 8-ball shot (4.5-4.20 over the general rules)."""
        check_can_judge(state, shot)
        if state.phase is Phase.BREAK:
            return self._judge_break(state, shot, inputs)
        return self._judge_play(state, shot, inputs)

    def _judge_break(self, state: GameState, shot: Shot, inputs: ShotInputs) -> Ruling:
        """Rules 4.5-4.8: the opening break (not a called shot, 4.2)."""
        shooter, opponent = state.shooter, state.opponent
        ctx = ShotContext(
            ball_in_hand=state.ball_in_hand,
            require_cushion=False,
            review_confidence=state.options.review_confidence,
            is_break=True,
        )
        found = judge_general(shot, ctx, self.table)
        notes = list(found.notes)
        pocketed = _object_balls(shot.pocketed)
        off = _object_balls(shot.left_table)
        fouls = list(renumbered(found.fouls, _BREAK_RULES))
        legal_break = bool(pocketed) or _balls_to_cushions(shot) >= BREAK_CUSHION_BALLS
        if not legal_break:
            fouls.append(
                Foul.of(
                    FoulKind.BAD_BREAK,
                    f"nothing pocketed and only {_balls_to_cushions(shot)} numbered ball(s) "
                    f"reached a cushion (at least {BREAK_CUSHION_BALLS} needed)",
                    rule="4.5",
                )
            )
        fouls.extend(inputs.fouls)
        fouls, reviews = _override(fouls, list(found.reviews), inputs, notes)
        if EIGHT in off:
            return self._loss(state, shot, tuple(fouls), "4.20", "the 8 left the table", notes)
        foul = most_severe(tuple(fouls))
        scratched = foul is not None and any(f.kind in _BREAK_SCRATCH for f in fouls)
        base = dict(
            shot_index=shot.index,
            shooter=shooter,
            fouls=tuple(fouls),
            foul=foul,
            pocketed=pocketed,
            off_table=off,
            reviews=tuple(reviews),
            warnings=found.warnings,
            restores=found.restores,
        )
        if EIGHT in pocketed:
            if foul is None and state.options.eight_on_break_wins:
                notes.append(
                    f"4.8 (variant): the 8 on a legal break: {state.players[shooter]} wins"
                )
                return Ruling(
                    **base,
                    next_player=shooter,
                    credited=pocketed,
                    game_over=True,
                    winner=shooter,
                    notes=tuple(notes),
                )
            spots = spot_after(shot, (EIGHT,), found.restores, foul is not None, self.table)
            chooser = shooter if foul is None else opponent
            notes.append(
                "4.8: the 8 on the break: "
                + ("the breaker" if foul is None else "after the breaker's foul, the other player")
                + " re-racks or spots the 8 and plays on"
            )
            return Ruling(
                **base,
                next_player=chooser,
                ball_in_hand=BallInHand.NONE if foul is None else BallInHand.KITCHEN,
                spots=spots,
                choices=(Choice.SPOT_EIGHT, Choice.RERACK),
                chooser=chooser,
                notes=tuple(notes),
            )
        if foul is None:
            notes.append("4.5: legal break; the table is open (4.9)")
            return Ruling(
                **base,
                next_player=shooter if pocketed else opponent,
                notes=tuple(notes),
            )
        if not legal_break:
            notes.append(
                "4.5: illegal break: accept the table, re-rack and break, or have the breaker "
                "break again"
            )
            return Ruling(
                **base,
                next_player=opponent,
                ball_in_hand=BallInHand.KITCHEN if scratched else BallInHand.NONE,
                choices=(
                    Choice.ACCEPT_TABLE,
                    Choice.RERACK_AND_BREAK,
                    Choice.RERACK_OPPONENT_BREAKS,
                ),
                chooser=opponent,
                notes=tuple(notes),
            )
        if off and not scratched:
            notes.append(
                "4.7: a ball off the table on the break: accept the table or take the "
                "cue ball in hand behind the head string"
            )
            return Ruling(
                **base,
                next_player=opponent,
                choices=(Choice.ACCEPT_TABLE, Choice.BALL_IN_HAND_KITCHEN),
                chooser=opponent,
                notes=tuple(notes),
            )
        if scratched:
            notes.append("4.6: scratch on a legal break: balls stay down, the table is open")
        notes.append("4.14: foul on the break: cue ball in hand behind the head string")
        return Ruling(
            **base, next_player=opponent, ball_in_hand=BallInHand.KITCHEN, notes=tuple(notes)
        )

    def _judge_play(self, state: GameState, shot: Shot, inputs: ShotInputs) -> Ruling:
        """Rules 4.9-4.20: any shot after the break."""
        shooter, opponent = state.shooter, state.opponent
        group = state.groups[shooter] if state.groups else None
        own_left = _own_left(state, group)
        on_eight = (group is not None and not own_left) or state.on_table == (EIGHT,)
        if on_eight:
            legal_first: tuple[BallId, ...] = (EIGHT,)
        elif group is not None:
            legal_first = own_left
        else:
            legal_first = tuple(b for b in state.on_table if b is not EIGHT)
        ctx = ShotContext(
            legal_first=legal_first,
            ball_in_hand=state.ball_in_hand,
            review_confidence=state.options.review_confidence,
        )
        found = judge_general(shot, ctx, self.table)
        notes = list(found.notes)
        fouls = [_eight_first(f, group) for f in renumbered(found.fouls, _RULES)]
        fouls.extend(inputs.fouls)
        fouls, reviews = _override(fouls, list(found.reviews), inputs, notes)
        pocketed = _object_balls(shot.pocketed)
        off = _object_balls(shot.left_table)
        call = inputs.call
        foul = most_severe(tuple(fouls))

        loss = _loss_reason(shot, foul, on_eight, own_left, pocketed, off, call)
        if loss is not None:
            return self._loss(state, shot, tuple(fouls), "4.20", loss, notes, reviews)
        base = dict(
            shot_index=shot.index,
            shooter=shooter,
            fouls=tuple(fouls),
            foul=foul,
            pocketed=pocketed,
            off_table=off,
            reviews=tuple(reviews),
            warnings=found.warnings,
            restores=found.restores,
            safety=inputs.safety,
        )
        if on_eight and EIGHT in pocketed:
            if call is None:
                reviews.append(Review("4.2", "the 8 went in with no call recorded"))
            notes.append(f"4.1: the 8 is legally pocketed: {state.players[shooter]} wins")
            return Ruling(
                **{**base, "reviews": tuple(reviews)},
                next_player=shooter,
                credited=pocketed,
                game_over=True,
                winner=shooter,
                notes=tuple(notes),
            )
        if foul is not None:
            notes.append(f"4.14: foul ({foul.rule}): {state.players[opponent]} has ball in hand")
            if on_eight:
                notes.append("4.19: a foul while on the 8 does not lose unless the 8 goes down")
            return Ruling(
                **base,
                next_player=opponent,
                ball_in_hand=BallInHand.ANYWHERE,
                notes=tuple(notes),
            )
        if inputs.safety:
            notes.append("4.12: declared safety: pocketed balls stay down, the inning ends")
            return Ruling(**base, next_player=opponent, notes=tuple(notes))
        counted, groups, why = _counted(state, shot, group, pocketed, call, reviews)
        if why:
            notes.append(why)
        if groups:
            mine = groups[shooter]
            notes.append(f"4.10: {state.players[shooter]} takes the {mine}")
        return Ruling(
            **{**base, "reviews": tuple(reviews)},
            next_player=shooter if counted else opponent,
            credited=counted,
            groups=groups,
            notes=tuple(notes),
        )

    def _loss(
        self,
        state: GameState,
        shot: Shot,
        fouls: tuple[Foul, ...],
        rule: str,
        why: str,
        notes: list[str],
        reviews: list[Review] | None = None,
    ) -> Ruling:
        """A loss of game (4.20): the applied foul is the loss, the opponent wins."""
        loss = Foul.of(FoulKind.LOSS_OF_GAME, why, ball=EIGHT, rule=rule)
        winner = state.opponent
        notes.append(f"{rule}: {why}: {state.players[winner]} wins")
        all_fouls = (*fouls, loss)
        return Ruling(
            shot_index=shot.index,
            shooter=state.shooter,
            fouls=all_fouls,
            foul=most_severe(all_fouls),
            next_player=winner,
            pocketed=_object_balls(shot.pocketed),
            off_table=_object_balls(shot.left_table),
            game_over=True,
            winner=winner,
            reviews=tuple(reviews or ()),
            notes=tuple(notes),
        )

    # State -----------------------------------------------------------------------------------

    def advance(self, state: GameState, ruling: Ruling) -> GameState:
        """The state after a ruling: balls, turn, ball in hand, groups, phase (no three-foul
        loss in 8-ball, 4.21)."""
        after = apply_common(count_fouls(state, ruling, ruling.shooter), ruling)
        if ruling.groups:
            after = after.replace(groups=ruling.groups)
        if after.over:
            return after
        return after.replace(phase=Phase.PLAY)

    def choose(self, state: GameState, choice: Choice) -> GameState:
        """The incoming player's options after the break (4.5, 4.7, 4.8)."""
        chooser = check_choice(state, choice)
        rerack_breaker = {
            Choice.RERACK: chooser,
            Choice.RERACK_AND_BREAK: chooser,
            Choice.RERACK_OPPONENT_BREAKS: 1 - chooser,
        }
        if choice in rerack_breaker:
            options = dataclasses.replace(state.options, breaker=rerack_breaker[choice])
            return self.start(state.players, options)  # type: ignore[arg-type]
        ball_in_hand = state.ball_in_hand
        if choice is Choice.BALL_IN_HAND_KITCHEN:
            ball_in_hand = BallInHand.KITCHEN
        return state.replace(
            choices=(),
            chooser=None,
            shooter=chooser,
            ball_in_hand=ball_in_hand,
            innings=state.innings + (chooser != state.shooter),
        )

    def foul_between_shots(self, state: GameState, foul: Foul, player: int) -> Ruling:
        """A foul entered between shots (3.41): the other player gets ball in hand (4.14)."""
        if state.over:
            raise RecordError(f"a foul by player {player} after the {NAME} game is over")
        in_hand = BallInHand.KITCHEN if state.phase is Phase.BREAK else BallInHand.ANYWHERE
        return Ruling(
            None,
            player,
            (foul,),
            foul,
            1 - player,
            ball_in_hand=in_hand,
            notes=(f"4.14: foul between shots: {state.players[1 - player]} has ball in hand",),
        )


def _object_balls(balls: tuple[BallId, ...]) -> tuple[BallId, ...]:
    return tuple(b for b in balls if b.is_object_ball)


def _balls_to_cushions(shot: Shot) -> int:
    """Distinct numbered balls that touched a cushion during the shot (4.5)."""
    return len({e.ball for e in shot.cushion_contacts() if e.ball.is_object_ball})


def _own_left(state: GameState, group: BallGroup | None) -> tuple[BallId, ...]:
    if group is None:
        return ()
    return tuple(b for b in state.on_table if b.group is group)


def _eight_first(foul: Foul, group: BallGroup | None) -> Foul:
    """Hitting the 8 first when it is not the object ball: 4.9 on an open table, else 4.15."""
    if foul.kind is not FoulKind.WRONG_BALL_FIRST or foul.ball is not EIGHT:
        return foul
    rule = "4.9" if group is None else "4.15"
    return Foul(FoulKind.EIGHT_BALL_FIRST, rule, "the 8 was the first ball hit", EIGHT)


def _override(
    fouls: list[Foul], reviews: list[Review], inputs: ShotInputs, notes: list[str]
) -> tuple[list[Foul], list[Review]]:
    if inputs.override is None or inputs.override.fouls is None:
        return fouls, reviews
    notes.append(f"referee's override: {inputs.override.reason}")
    return list(inputs.override.fouls), []


def _loss_reason(
    shot: Shot,
    foul: Foul | None,
    on_eight: bool,
    own_left: tuple[BallId, ...],
    pocketed: tuple[BallId, ...],
    off: tuple[BallId, ...],
    call: CallShot | None,
) -> str | None:
    """Rule 4.20: why this shot loses the game, or None."""
    if EIGHT in off:
        return "the 8 left the table"
    if EIGHT not in pocketed:
        return None
    if not on_eight:
        if own_left and set(own_left) <= set(pocketed):
            return "the 8 went in on the same shot as the last ball of the group"
        return "the 8 went in when it was not the legal object ball"
    if foul is not None:
        return f"foul ({foul.rule}) while pocketing the 8"
    if call is not None and (call.ball is not EIGHT or call.pocket != shot.pocket_of(EIGHT)):
        return f"the 8 went into the {shot.pocket_of(EIGHT)} pocket, not the called one"
    return None


def _counted(
    state: GameState,
    shot: Shot,
    group: BallGroup | None,
    pocketed: tuple[BallId, ...],
    call: CallShot | None,
    reviews: list[Review],
) -> tuple[tuple[BallId, ...], tuple[BallGroup, ...], str | None]:
    """Balls that keep the shooter at the table, the groups if this shot sets them (4.10), and
    a note on a call that was not made (4.16)."""
    shooter = state.shooter
    if call is not None:
        made = call.ball in pocketed and shot.pocket_of(call.ball) == call.pocket
        if not made:
            return (), (), f"4.16: the called {call.ball} did not go into the {call.pocket} pocket"
        if group is not None and call.ball.group is not group:
            return (), (), f"4.11: the called {call.ball} is not of the {group}"
        chosen = call.ball.group
        counted = tuple(b for b in pocketed if b.group is chosen)
    else:
        if group is not None:
            return tuple(b for b in pocketed if b.group is group), (), None
        if not pocketed:
            return (), (), None
        kinds = {b.group for b in pocketed}
        if len(kinds) > 1:
            reviews.append(
                Review("4.10", "balls of both groups went in with no call: group from the first")
            )
        chosen = pocketed[0].group
        counted = tuple(b for b in pocketed if b.group is chosen)
    if group is not None:
        return counted, (), None
    other = BallGroup.STRIPES if chosen is BallGroup.SOLIDS else BallGroup.SOLIDS
    groups = (chosen, other) if shooter == 0 else (other, chosen)
    return counted, groups, None
