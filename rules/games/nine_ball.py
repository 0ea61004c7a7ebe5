"""9-ball (WPA rules 5.1-5.14), on top of the general rules (3.x).

The cue ball must first contact the lowest-numbered ball on the table (5.1, 5.8); any ball
legally pocketed keeps the shooter at the table; the rack is won by legally pocketing the 9
(5.14), on a combination or on the break too. The shot right after a legal break may be a
declared push-out (5.5, 5.6). Every foul gives the incoming player ball in hand anywhere (5.7);
the 9 pocketed or driven off the table on a foul or a push-out is spotted (5.6, 5.7, 5.11); other
balls stay down. Three consecutive fouls lose the rack, with the 2.16 warning after the second
(5.13).
"""

from __future__ import annotations

from rules.balls import NINE_BALL_SET, BallId
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
from rules.general import Findings, ShotContext, judge_general
from rules.inputs import ShotInputs
from rules.ruling import (
    BallInHand,
    Choice,
    Foul,
    FoulKind,
    Review,
    Ruling,
    Spot,
    most_severe,
)
from rules.shot import Shot
from rules.state import GameState, Phase

NAME = "9-ball"

BREAK_CUSHION_BALLS = 4
"""Rule 5.4: a break that pockets nothing must drive at least four numbered balls to cushions."""

_RULES = {
    FoulKind.WRONG_BALL_FIRST: "5.8",
    FoulKind.NO_CUSHION: "5.9",
    FoulKind.OBJECT_BALL_OFF_TABLE: "5.11",
}
_BREAK_RULES = {
    FoulKind.WRONG_BALL_FIRST: "5.4",
    FoulKind.SCRATCH: "5.4",
    FoulKind.CUE_BALL_OFF_TABLE: "5.4",
    FoulKind.OBJECT_BALL_OFF_TABLE: "5.4",
}


class NineBall(RackGame):
    """9-ball on one table (the table gives spotting its geometry, 3.32)."""

    name = NAME
    racked = NINE_BALL_SET

    def judge(self, state: GameState, shot: Shot, inputs: ShotInputs) -> Ruling:
        """The ruling on one 9-ball shot (5.4-5.14 over the general rules)."""
        check_can_judge(state, shot)
        is_break = state.phase is Phase.BREAK
        push_out = inputs.push_out and state.phase is Phase.AFTER_BREAK
        notes: list[str] = []
        if inputs.push_out and not push_out:
            notes.append(
                "5.6: a push-out is allowed only on the shot right after a legal break "
                "(not after a break scratch): judged as an ordinary shot"
            )
        lowest = state.lowest_ball
        ctx = ShotContext(
            legal_first=(lowest,) if lowest else (),
            ball_in_hand=state.ball_in_hand,
            require_contact=not push_out,
            require_cushion=not (push_out or is_break),
            review_confidence=state.options.review_confidence,
            is_break=is_break,
        )
        found = judge_general(shot, ctx, self.table)
        notes.extend(found.notes)
        fouls = list(renumbered(found.fouls, _BREAK_RULES if is_break else _RULES))
        if is_break:
            fouls.extend(_break_fouls(shot))
        fouls.extend(inputs.fouls)
        reviews = list(found.reviews)
        reviews.extend(_in_hand_frozen(state, shot))
        if inputs.override is not None and inputs.override.fouls is not None:
            fouls = list(inputs.override.fouls)
            reviews = []
            notes.append(f"referee's override: {inputs.override.reason}")
        if push_out:
            notes.append("5.6: push-out: first-contact and cushion rules (5.8, 5.9) do not apply")
        return self._rule(state, shot, tuple(fouls), found, reviews, notes, push_out)

    def _rule(
        self,
        state: GameState,
        shot: Shot,
        fouls: tuple[Foul, ...],
        found: Findings,
        reviews: list[Review],
        notes: list[str],
        push_out: bool,
    ) -> Ruling:
        shooter, opponent = state.shooter, state.opponent
        is_break = state.phase is Phase.BREAK
        pocketed = tuple(b for b in shot.pocketed if b.is_object_ball)
        off = tuple(b for b in shot.left_table if b.is_object_ball)
        warnings = list(found.warnings)
        fouls, loss = _three_fouls(state, shooter, fouls, notes)
        foul = most_severe(fouls)
        nine_down = BallId.NINE in pocketed or BallId.NINE in off
        wins = foul is None and not push_out and BallId.NINE in pocketed
        common = dict(
            shot_index=shot.index,
            shooter=shooter,
            fouls=fouls,
            foul=foul,
            pocketed=pocketed,
            off_table=off,
            reviews=tuple(reviews),
            push_out=push_out,
        )
        if loss or wins:
            winner = opponent if loss else shooter
            rule = "5.13" if loss else "5.14"
            why = "third consecutive foul" if loss else "the 9 is legally pocketed"
            notes.append(f"{rule}: {why}: {state.players[winner]} wins the rack")
            return Ruling(
                **common,
                next_player=winner,
                credited=() if loss else pocketed,
                game_over=True,
                winner=winner,
                notes=tuple(notes),
            )
        ball_in_hand = BallInHand.NONE
        spots: tuple[Spot, ...] = ()
        restores = found.restores
        if nine_down:
            spots = spot_after(shot, (BallId.NINE,), restores, foul is not None, self.table)
            notes.append(_nine_spot_note(foul, push_out, off))
        choices: tuple[Choice, ...] = ()
        chooser = None
        if foul is not None:
            next_player = opponent
            ball_in_hand = BallInHand.ANYWHERE
            notes.append(f"5.7: foul ({foul.rule}): {state.players[opponent]} has ball in hand")
            if _count_after(state, shooter) == 2:
                warnings.append(second_foul_warning(shooter, state.players[shooter]))
        elif push_out:
            next_player = opponent
            choices, chooser = (Choice.SHOOT, Choice.HAND_BACK), opponent
            notes.append("5.6: after the push-out the other player shoots or hands it back")
        elif pocketed:
            next_player = shooter
        else:
            next_player = opponent
        if is_break and foul is None:
            notes.append("5.4: legal break")
        credited = pocketed if foul is None and not push_out else ()
        return Ruling(
            **common,
            next_player=next_player,
            ball_in_hand=ball_in_hand,
            credited=credited,
            spots=spots,
            restores=restores,
            warnings=tuple(warnings),
            choices=choices,
            chooser=chooser,
            notes=tuple(notes),
        )

    def advance(self, state: GameState, ruling: Ruling) -> GameState:
        """The state after a ruling: balls, turn, ball in hand, fouls in a row, phase."""
        fouler = ruling.shooter
        after = count_fouls(state, ruling, fouler)
        after = apply_common(after, ruling)
        if after.over:
            return after
        if state.phase is Phase.BREAK:
            phase = Phase.AFTER_BREAK if ruling.foul is None else Phase.PLAY
        else:
            phase = Phase.PLAY
        return after.replace(phase=phase)

    def choose(self, state: GameState, choice: Choice) -> GameState:
        """After a push-out the incoming player shoots or hands the shot back (5.6)."""
        chooser = check_choice(state, choice)
        shooter = chooser if choice is Choice.SHOOT else 1 - chooser
        return state.replace(
            choices=(),
            chooser=None,
            shooter=shooter,
            innings=state.innings + (shooter != state.shooter),
        )

    def foul_between_shots(self, state: GameState, foul: Foul, player: int) -> Ruling:
        """A foul entered between shots (3.41; 5.13 counts it): the other player gets the table
        with ball in hand anywhere (5.7)."""
        if state.over:
            raise RecordError(f"a foul by player {player} after the {NAME} game is over")
        notes: list[str] = []
        fouls, loss = _three_fouls(state, player, (foul,), notes)
        applied = most_severe(fouls)
        other = 1 - player
        if loss:
            notes.append(f"5.13: third consecutive foul: {state.players[other]} wins the rack")
            return Ruling(
                None,
                player,
                fouls,
                applied,
                other,
                game_over=True,
                winner=other,
                notes=tuple(notes),
            )
        warnings = ()
        if _count_after(state, player) == 2:
            warnings = (second_foul_warning(player, state.players[player]),)
        notes.append(f"5.7: foul between shots: {state.players[other]} has ball in hand")
        return Ruling(
            None,
            player,
            fouls,
            applied,
            other,
            ball_in_hand=BallInHand.ANYWHERE,
            warnings=warnings,
            notes=tuple(notes),
        )


def _break_fouls(shot: Shot) -> tuple[Foul, ...]:
    """Rule 5.4: the break pockets a numbered ball or drives four numbered balls to cushions."""
    if any(b.is_object_ball for b in shot.pocketed):
        return ()
    to_cushion = {e.ball for e in shot.cushion_contacts() if e.ball.is_object_ball}
    if len(to_cushion) >= BREAK_CUSHION_BALLS:
        return ()
    return (
        Foul.of(
            FoulKind.BAD_BREAK,
            f"nothing pocketed and only {len(to_cushion)} numbered ball(s) reached a cushion "
            f"(at least {BREAK_CUSHION_BALLS} needed)",
            rule="5.4",
        ),
    )


def _count_after(state: GameState, player: int) -> int:
    """The player's consecutive fouls after one more (2.16: unwarned, he is taken to be on one)."""
    prior = state.fouls_in_a_row[player]
    if prior >= 2 and not state.warned[player]:
        prior = 1
    return prior + 1


def _three_fouls(
    state: GameState, player: int, fouls: tuple[Foul, ...], notes: list[str]
) -> tuple[tuple[Foul, ...], bool]:
    """Rule 5.13: a third consecutive foul, after the 2.16 warning, loses the rack."""
    if not fouls:
        return fouls, False
    prior = state.fouls_in_a_row[player]
    if prior < 2:
        return fouls, False
    if not state.warned[player]:
        notes.append("2.16: no warning after the second foul: this counts as an ordinary foul")
        return fouls, False
    loss = Foul.of(FoulKind.LOSS_OF_GAME, "third consecutive foul, after the warning", rule="5.13")
    return (*fouls, loss), True


def _in_hand_frozen(state: GameState, shot: Shot) -> tuple[Review, ...]:
    """Rule 5.10: ball in hand may be placed anywhere, but not frozen to an object ball."""
    if state.ball_in_hand is not BallInHand.ANYWHERE or shot.placement is None:
        return ()
    frozen = [
        f.other
        for f in shot.frozen
        if f.ball is BallId.CUE and f.other is not None and f.other.is_object_ball
    ]
    if not frozen:
        return ()
    return (Review("5.10", f"the cue ball in hand was placed frozen to the {frozen[0]}"),)


def _nine_spot_note(foul: Foul | None, push_out: bool, off: tuple[BallId, ...]) -> str:
    if BallId.NINE in off:
        return "5.11: the 9 left the table: it is spotted (3.32)"
    if push_out:
        return "5.6: the 9 pocketed on a push-out is spotted (3.32)"
    return "5.7: the 9 pocketed on a foul is spotted (3.32)"
