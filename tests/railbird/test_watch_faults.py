"""A sensor or camera fault degrades the monitor and is shown; it does not stop the match."""

from __future__ import annotations

import json

import pytest

from tests.railbird.watch_process import WatchProcess


def _after(lines: list[str], first: str, then: str) -> bool:
    """A line starting with ``then`` comes after one starting with ``first``."""
    starts = [i for i, line in enumerate(lines) if line.startswith(first)]
    return bool(starts) and any(line.startswith(then) for line in lines[starts[0] + 1 :])


@pytest.mark.slow
def test_sensor_cable_pulled_and_corrupt_frames_mid_shot_do_not_stop_the_match() -> None:
    # The pocket drop (0.97 s) happens with the cable out; the camera glitches later.
    watch = WatchProcess(
        "--virtual-table",
        "cut-shot",
        "--seed",
        "2",
        "--no-web",
        "--sensors-unplugged",
        "0.5:3.0",
        "--corrupt-frames",
        "2.0:2.4",
    )
    assert watch.finish() == 0, watch.tail()
    lines = watch.lines
    # Shown as it happens, and shown again when it is over.
    assert _after(lines, "status: sensors offline: vision only", "status: sensors ok"), watch.tail()
    assert _after(lines, "status: camera degraded: ", "status: camera ok"), watch.tail()
    degraded = next(line for line in lines if line.startswith("status: camera degraded: "))
    assert "calibration is for 1280x720" in degraded  # says what is wrong
    # Vision alone still sees the 13 go down, and the shot is ruled on.
    pocketed = [line.split() for line in lines if " pocketed " in line]
    assert [p[2] for p in pocketed] == ["13"], watch.tail()
    assert len(watch.rulings()) == 1 and " RULING shot 0: " in watch.rulings()[0]
    summary = json.loads("\n".join(lines[lines.index("{") :]))
    assert summary["frames_unusable"] == 13  # 2.0-2.4 s at 30 fps, each counted, none fatal
    assert summary["frames_dropped"] == 0
