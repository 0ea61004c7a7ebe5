"""A recorded virtual-table game and its review, shared by the review's tests (made once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.sim.render import RenderConfig
from hardware.sim.scenarios import run_scenario
from railbird.replay import ReplayOptions
from railbird.review.run import ReviewOptions, ReviewResult, review
from railbird.simulate import SimRecordingConfig, record_scenario

RENDER = RenderConfig(resolution=(960, 540))
SCENARIO = ("scratch", 1)
"""A straight-in shot whose cue ball follows the 10 into the pocket: short (1.9 s recorded),
and one the pipeline sees as the truth has it (both balls down, no cushion)."""
QUIET = ReviewOptions(ReplayOptions(players=("Ann", "Bob"), progress=False))


@pytest.fixture(scope="session")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    name, seed = SCENARIO
    folder = tmp_path_factory.mktemp("review-rec") / f"{name}-{seed}"
    return record_scenario(run_scenario(name, seed), folder, SimRecordingConfig(render=RENDER))


@pytest.fixture(scope="session")
def reviewed(recording: Path, tmp_path_factory: pytest.TempPathFactory) -> ReviewResult:
    return review(recording, tmp_path_factory.mktemp("review-out") / "review", QUIET)
