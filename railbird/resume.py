"""`railbird watch --resume DIR`: continue a match from its recording after a crash.

The recording keeps the live referee's log (`game.json` + `log.jsonl`: every shot record and
operator input it ruled on), so the game state is re-derived by folding that log: no vision is
run again over the old video. The session clock continues from the wall time elapsed since the
recording began (never earlier than the last thing recorded), and new video segments and lines
are appended to the same folder; nothing already recorded is rewritten.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from railbird.config import RailbirdConfig, parse_config
from railbird.recording import RecordingReader
from rules.errors import RecordError
from rules.log import GameLog

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where a recorded match stands, read from its recording.

    Attributes:
        root: The recording folder.
        log: The live referee's log (game, players, options, every entry).
        config_text: The config the match ran with (verbatim).
        config: That config, parsed.
        calibration_json: The calibration it ran with, None when none was recorded.
        last_time: Session time of the last thing recorded (frame, serial bytes, input, entry).
        session_time: Where the session clock continues.
        frames: Frames recorded so far.
    """

    root: Path
    log: GameLog
    config_text: str
    config: RailbirdConfig
    calibration_json: str | None
    last_time: float
    session_time: float
    frames: int


def resume_point(
    root: str | Path,
    now_utc: datetime | None = None,
    config_text: str | None = None,
    calibration_json: str | None = None,
    players: tuple[str, str] | None = None,
    follow_wall: bool = True,
) -> ResumePoint:
    """Read how far the match recorded in ``root`` got, checking it can go on.

    Args:
        root: The recording folder.
        now_utc: Wall-clock time now (the session clock continues from the time elapsed since
            the recording began); defaults to now.
        config_text: The config given on the command line, if any: it must be the recorded one.
        calibration_json: The calibration given, if any (as `rules.codec.dumps` writes it,
            indent 2): it must be the recorded one.
        players: The players given, if any: they must be the recorded game's.
        follow_wall: The session clock kept running while the monitor was down (a real table);
            False continues it right after the last thing recorded (a virtual table in
            lockstep, which waits for the monitor).

    Raises:
        RecordError: ``root`` is not a recording, holds no game log (the match was not watched
            live), its log cannot be played, or a given config, calibration or players differ
            from the recorded ones; the message says which.
    """
    root = Path(root)
    reader = RecordingReader(root)
    game_log = reader.game_log()
    if game_log is None:
        raise RecordError(
            f"{root}: no game log (game.json): only a recording made by `railbird watch` can be "
            "resumed"
        )
    recorded_text = reader.config_text()
    recorded = parse_config(recorded_text, str(root / "config.toml"))
    if config_text is not None and parse_config(config_text, "--config") != recorded:
        raise RecordError(
            f"{root}: the config given is not the one the match ran with ({root / 'config.toml'}); "
            "resume without --config to use the recorded one"
        )
    recorded_calibration = reader.calibration_json()
    if (
        calibration_json is not None
        and recorded_calibration is not None
        and calibration_json.strip() != recorded_calibration.strip()
    ):
        raise RecordError(
            f"{root}: the calibration given is not the one the match ran with "
            f"({root / 'calibration.json'}); resume without --calibration to use it"
        )
    if players is not None and tuple(players) != tuple(game_log.players):
        raise RecordError(
            f"{root}: the match is between {', '.join(game_log.players)}, not {', '.join(players)}"
        )
    frames = reader.frame_times()
    last = max(
        [t.time for t in frames]
        + [c.time for c in reader.serial_chunks()]
        + [i.time for i in reader.inputs()]
        + [e.time for e in game_log.entries],
        default=reader.meta.session_time_at_creation,
    )
    step = 1.0 / reader.meta.fps if reader.meta.fps > 0 else 0.0
    elapsed = _elapsed_s(reader.meta.created_utc, now_utc or datetime.now(UTC))
    session = last + step
    if elapsed is not None and follow_wall:
        session = max(session, reader.meta.session_time_at_creation + elapsed)
    for problem in reader.problems:
        log.warning("resume: %s", problem)
    return ResumePoint(
        root,
        game_log,
        recorded_text,
        recorded,
        recorded_calibration,
        last,
        session,
        len(frames),
    )


def _elapsed_s(created_utc: str, now_utc: datetime) -> float | None:
    """Seconds from ``created_utc`` (ISO 8601) to ``now_utc``; None when unknown."""
    if not created_utc:
        return None
    try:
        created = datetime.fromisoformat(created_utc)
    except ValueError:
        log.warning(
            "resume: created_utc %r is not a time; the clock goes on from the log", created_utc
        )
        return None
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    return max(0.0, (now_utc - created).total_seconds())
