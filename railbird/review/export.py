"""The shots as CSV, one row per shot, for spreadsheets and league software.

Events and rulings as JSON Lines are the replay's own outputs (``events.jsonl``,
``rulings.jsonl``), written by `railbird.replay` into the same folder; nothing here repeats them.
"""

from __future__ import annotations

import csv
from pathlib import Path

from railbird.review.model import ReviewShot, VideoClock
from rules.errors import RecordError

CSV_COLUMNS = (
    "shot",
    "rack",
    "shooter",
    "strike_time",
    "end_time",
    "video_time",
    "shot_time_s",
    "first_contact",
    "pocketed",
    "off_table",
    "cushion_contacts",
    "call",
    "foul",
    "rule",
    "flags",
    "reviews",
)


def shot_row(review: ReviewShot, clock: VideoClock | None) -> dict[str, str]:
    """One shot as CSV cells."""
    shot, ruling = review.shot, review.ruling
    first = shot.first_contact
    foul = ruling.foul if ruling is not None else None
    return {
        "shot": str(review.number),
        "rack": str(review.rack),
        "shooter": review.shooter,
        "strike_time": f"{shot.strike_time:.3f}",
        "end_time": "" if shot.end_time is None else f"{shot.end_time:.3f}",
        "video_time": "" if clock is None else f"{clock.video_time(shot.strike_time):.3f}",
        "shot_time_s": "" if review.shot_time_s is None else f"{review.shot_time_s:.1f}",
        "first_contact": "" if first is None else str(first.ball),
        "pocketed": " ".join(str(b) for b in shot.pocketed),
        "off_table": " ".join(str(b) for b in shot.left_table),
        "cushion_contacts": str(len(shot.cushion_contacts())),
        "call": review.call,
        "foul": "" if foul is None else str(foul.kind),
        "rule": review.rule,
        "flags": " ".join(str(f) for f in review.flags),
        "reviews": "; ".join(r.reason for r in ruling.reviews) if ruling is not None else "",
    }


def write_shots_csv(shots: list[ReviewShot], clock: VideoClock | None, path: Path) -> Path:
    """Write the shots CSV.

    Raises:
        RecordError: it cannot be written.
    """
    try:
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            for review in shots:
                writer.writerow(shot_row(review, clock))
    except OSError as exc:
        raise RecordError(f"{path}: cannot write the shots CSV: {exc}") from exc
    return path
