"""The compiled loops are ready when the first detector is built: following frames (balls
resting, rolling, blurred) compiles or loads nothing more."""

from __future__ import annotations

from rules.balls import BallId
from tests.vision import scenes
from tests.vision.test_detector import CALIBRATION, CAMERA
from vision import (
    apart,
    detections,
    discs,
    foreign,
    identity,
    occluders,
    outline,
    regions,
    streaks,
    table_view,
    votes,
)
from vision.detector import BallDetector

_MODULES = (outline, votes, foreign, regions, discs, identity, occluders, table_view)
_MODULES += (apart, detections, streaks)


def _signatures() -> dict[str, int]:
    """How many compiled versions each loop has."""
    return {
        f"{m.__name__}.{name}": len(f.signatures)
        for m in _MODULES
        for name, f in vars(m).items()
        if hasattr(f, "signatures")
    }


def test_following_frames_compile_nothing_after_the_detector_is_built() -> None:
    balls = {
        BallId.CUE: (-700.0, -200.0),
        BallId.ONE: (0.0, 300.0),
        BallId.TWO: (500.0, -350.0),
        BallId.NINE: (900.0, 200.0),
        BallId.TEN: (-300.0, 400.0),
    }
    renderer = scenes.renderer(CAMERA, blur_subframes=4)
    detector = BallDetector(CALIBRATION)
    ready = _signatures()
    # The loops the detector calls (those called only from other loops are compiled in them).
    entry = ("outline_pass", "edge_votes", "local_maxima", "_foreign", "_changed", "_tally")
    entry += ("_likelihood_rows", "_merge", "_bilinear", "_disc_means_of")
    entry += ("_revised", "_probabilities", "_pixel_stats", "_maybe_overlapping", "_in_range")
    entry += ("outline_inside", "_extent")
    named = {k.rsplit(".", 1)[1]: k for k in ready}
    assert set(entry) <= set(named), set(entry) - set(named)  # every entry loop is found
    assert all(ready[named[name]] for name in entry)
    still = {b: (0.0, 0.0) for b in balls}
    for i in range(4):
        now = dict(balls)
        now[BallId.CUE] = (-700.0 + 40.0 * i, -200.0)  # rolling at 2.4 m/s, 60 frames a second
        moving = scenes.Moving(now, still | {BallId.CUE: (2400.0 if i else 0.0, 0.0)})
        image = renderer.render(moving.exposure(renderer.config), frame_index=i)
        assert len(detector.detect(image, i, i / 60)) == len(balls)
    assert _signatures() == ready
