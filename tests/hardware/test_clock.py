from __future__ import annotations

import pytest

from hardware.clock import FakeClock, MonotonicClock


def test_fake_clock_moves_only_when_told() -> None:
    clock = FakeClock(10.0)
    assert clock.now() == 10.0
    clock.sleep(1.5)
    clock.advance(0.5)
    assert clock.now() == 12.0
    with pytest.raises(ValueError, match="cannot go back"):
        clock.advance(-1)


def test_monotonic_clock_starts_near_zero_and_never_goes_back() -> None:
    clock = MonotonicClock()
    a = clock.now()
    b = clock.now()
    assert 0.0 <= a <= b < 5.0
