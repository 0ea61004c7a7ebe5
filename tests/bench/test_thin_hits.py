"""The thin-hit sweep: one shot's tally, and the sweep's by offset and by speed."""

from __future__ import annotations

import pytest

from bench import _thin_hits
from bench._options import JOBS_ENV
from rules.balls import BALL_DIAMETER_MM


def test_a_thin_cut_is_found_and_a_clear_pass_by_is_no_contact_rule_3_18() -> None:
    assert _thin_hits.thin_hit((800.0, 55.0, 0)) == (1, 0, 0)
    assert _thin_hits.thin_hit((800.0, 61.15, 0)) == (0, 0, 0)


def test_the_sweep_counts_a_shot_right_only_with_its_touch_and_nothing_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Made-up tallies: at 350 mm/s every touch missed and every pass-by called a touch; at
    # 2500 mm/s every touch found twice (once falsely); the other speeds right.
    def tally(item: tuple[float, float, int]) -> tuple[int, int, int]:
        speed, offset, _ = item
        touch = offset < BALL_DIAMETER_MM
        if speed == 350.0:
            return (0, 0, 1) if touch else (0, 1, 0)
        if speed == 2500.0:
            return (1, 1, 0) if touch else (0, 0, 0)
        return (1, 0, 0) if touch else (0, 0, 0)

    monkeypatch.setenv(JOBS_ENV, "1")
    monkeypatch.setattr(_thin_hits, "thin_hit", tally)
    figures = _thin_hits.thin_hits(quick=True)
    n = figures["seeds"]
    assert n == _thin_hits.SEEDS_QUICK
    per_offset = 4 * n
    assert figures["right_by_offset"]["55mm"] == f"{2 * n}/{per_offset}"
    assert figures["right_by_offset"]["59.15mm"] == f"{3 * n}/{per_offset}"
    touching = sum(offset < BALL_DIAMETER_MM for offset in _thin_hits.OFFSETS) * n
    assert figures["touches_right_by_speed"] == {
        "350mm_s": f"0/{touching}",
        "800mm_s": f"{touching}/{touching}",
        "1500mm_s": f"{touching}/{touching}",
        "2500mm_s": f"0/{touching}",
    }
