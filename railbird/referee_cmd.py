"""`railbird referee LOG.json`: replay a recorded game log and print every ruling.

The lead wires it into `railbird.cli` with `add_referee_command(commands)`; the logic lives here
so it is tested on its own.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from calibration.table import STANDARD_TABLES, TableSpec
from rules.codec import loads, to_jsonable
from rules.errors import ConfigError, RecordError
from rules.log import GameLog, Timeline, replay
from rules.ruling import BallInHand, Ruling

POINTS_GAME = "14.1"
"""The game scored in points (6.1): its score is printed."""


def add_referee_command(commands: argparse._SubParsersAction) -> None:
    """Add the ``referee`` subcommand to the CLI's subparsers."""
    parser = commands.add_parser("referee", help="replay a game log and print every ruling")
    parser.add_argument("log", help="game log JSON (a rules.log.GameLog)")
    parser.add_argument(
        "--table", default="9ft", help=f"table size: {', '.join(STANDARD_TABLES)} (default 9ft)"
    )
    parser.add_argument("--json", action="store_true", help="print the timeline as JSON")
    parser.set_defaults(run=run_referee)


def run_referee(args: argparse.Namespace) -> int:
    """Replay ``args.log`` on a ``args.table`` table and print the rulings; returns 0.

    Raises:
        RecordError: the file is missing, unreadable, not JSON, or not a playable game log.
        ConfigError: the table size is unknown.
    """
    path = Path(args.log)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read the game log ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"{path}: not a text game log ({exc.reason} at byte {exc.start})"
        ) from exc
    log = loads(GameLog, text, where=str(path))
    try:
        table = TableSpec.standard(args.table)
    except ValueError as exc:
        raise ConfigError(str(exc)) from exc
    try:
        timeline = replay(log, table)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from exc
    if args.json:
        print(json.dumps(to_jsonable(timeline), indent=2, ensure_ascii=False))
    else:
        print(timeline_text(log, timeline))
    return 0


def timeline_text(log: GameLog, timeline: Timeline) -> str:
    """The rulings of a game, one line each, then where the game stands."""
    players = log.players
    lines = [f"{log.game}: {players[0]} v {players[1]}"]
    lines += [ruling_text(r, players) for r in timeline.rulings]
    lines += [f"  note: {n}" for n in timeline.notes]
    state = timeline.state
    if log.game == POINTS_GAME:
        lines.append(f"score: {players[0]} {state.scores[0]}, {players[1]} {state.scores[1]}")
    if state.over:
        winner = "no winner" if state.winner is None else f"{players[state.winner]} wins"
        lines.append(f"game over: {winner}")
    else:
        lines.append(f"{players[state.shooter]} to shoot, ball in hand: {state.ball_in_hand}")
    return "\n".join(lines)


def ruling_text(ruling: Ruling, players: tuple[str, ...]) -> str:
    """One ruling as one line a referee would say."""
    what = f"shot {ruling.shot_index}" if ruling.shot_index is not None else "between shots"
    parts = [f"{what} ({players[ruling.shooter]}):"]
    if ruling.foul is None:
        parts.append("push-out" if ruling.push_out else "legal")
    else:
        parts.append(f"FOUL {ruling.foul.rule} {ruling.foul.reason}")
    if ruling.pocketed:
        parts.append(f"down {', '.join(ruling.pocketed)}")
    nxt = f"-> {players[ruling.next_player]}"
    if ruling.ball_in_hand is not BallInHand.NONE:
        nxt += f", ball in hand {ruling.ball_in_hand}"
    parts.append(nxt)
    for change in ruling.score:
        parts.append(f"{players[change.player]} {change.points:+d} ({change.rule})")
    for spot in ruling.spots:
        parts.append(f"spot {spot.ball} at ({spot.position[0]:.0f}, {spot.position[1]:.0f}) mm")
    for warning in ruling.warnings:
        parts.append(f"warn {warning.rule}: {warning.text}")
    if ruling.choices and ruling.chooser is not None:
        parts.append(f"{players[ruling.chooser]} chooses: {' / '.join(ruling.choices)}")
    for review in ruling.reviews:
        parts.append(f"REVIEW {review.rule}: {review.reason}")
    if ruling.game_over:
        winner = "no winner" if ruling.winner is None else f"{players[ruling.winner]} wins"
        parts.append(f"GAME OVER, {winner}")
    return " ".join(parts)
