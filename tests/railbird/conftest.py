"""Whole racks watched live, made once per session: the monitor's end-to-end tests judge them and
the review's tests review what the monitor recorded."""

from __future__ import annotations

import pytest

from tests.railbird.racks import Rack, watch_rack


@pytest.fixture(scope="session")
def nine_ball(tmp_path_factory: pytest.TempPathFactory) -> Rack:
    """A 9-ball rack (seed 0) through `railbird watch`."""
    return watch_rack(tmp_path_factory.mktemp("nine"), "rack-9ball", 0, "9-ball")


@pytest.fixture(scope="session")
def eight_ball(tmp_path_factory: pytest.TempPathFactory) -> Rack:
    """An 8-ball rack (seed 1) through `railbird watch`, calls entered on the console."""
    return watch_rack(tmp_path_factory.mktemp("eight"), "rack-8ball", 1, "8-ball")
