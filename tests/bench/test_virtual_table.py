"""The bench's detections made from the virtual table's truth (`bench._virtual_table`)."""

from __future__ import annotations

import numpy as np

from bench._virtual_table import EXACT, noisy_detections
from bench.tracking import score_exact_shot
from hardware.sim.scenarios import run_scenario
from vision.detections import BALL_ORDER


def test_exact_detections_are_every_ball_in_view_where_it_truly_is() -> None:
    run = run_scenario("cut-shot", 1000)
    detections, truth = noisy_detections(run, 1000, EXACT)
    rows = [BALL_ORDER.index(b) for b in run.result.balls]
    table = run.truth.table
    for seen, true in zip(detections, truth, strict=True):
        x, y, z = true.positions.T
        inside = (abs(x) < table.length / 2) & (abs(y) < table.width / 2)
        on_cloth = true.on_table & (z >= 0) & inside
        for det in seen.positions:  # no ghost: each detection is a true ball, exactly
            assert np.hypot(*(true.positions[:, :2] - det).T).min() < 1e-9
        for i in np.flatnonzero(on_cloth):  # none missed, none named another ball
            off = np.hypot(*(seen.positions - true.positions[i, :2]).T)
            assert off.min() < 1e-9
            assert seen.identity[off.argmin(), rows[i]] >= 0.3
        # The sigma stays the detector's: the tracker weighs them as it weighs real ones.
        assert np.all(seen.sigma > 0.5)


def test_a_plain_shot_seen_exactly_has_every_contact_right() -> None:
    tally = score_exact_shot(("bank-shot", 1000))
    assert tally.shots_truth == 1 and tally.first_right == 1
    assert tally.cushion[0] > 0 and tally.cushion[1:] == [0, 0]
    assert tally.ball[0] > 0 and tally.ball[1:] == [0, 0]
