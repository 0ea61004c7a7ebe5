from __future__ import annotations

import pytest

from rules.shot_clock import ClockPhase, ClockReading


def test_a_reading_cannot_show_more_than_its_limit_or_less_than_zero_rule_1_11() -> None:
    assert ClockReading(ClockPhase.RUNNING, 20.0, 35.0).remaining_s == 20.0
    for remaining, limit in ((-1.0, 35.0), (36.0, 35.0), (0.0, 0.0)):
        with pytest.raises(ValueError, match="cannot show"):
            ClockReading(ClockPhase.RUNNING, remaining, limit)
