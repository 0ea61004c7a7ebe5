"""The Detections container: shapes, ranges and read-only arrays checked on creation."""

from __future__ import annotations

import numpy as np
import pytest

from rules.balls import BallId
from rules.errors import RailbirdError
from vision.detections import BALL_ORDER, Detections, DetectionsError, one_hot


def _two() -> Detections:
    return Detections.of(
        3,
        0.05,
        [(0.0, 0.0), (100.0, -50.0)],
        identity=one_hot([BallId.CUE, BallId.NINE], 0.8),
        sigma=[1.5, 2.5],
    )


def test_of_broadcasts_scalars_and_defaults_to_unknown_identity() -> None:
    d = Detections.of(0, 0.0, [(1.0, 2.0)])
    assert len(d) == 1
    assert d.sigma.tolist() == [2.0]
    assert d.unknown.tolist() == [1.0]
    assert np.isnan(d.blur_velocity).all()


def test_identity_columns_follow_ball_order() -> None:
    d = _two()
    assert BALL_ORDER[0] is BallId.CUE
    assert d.identity_of(1) == {BallId.NINE: 0.8}
    assert d.unknown.tolist() == pytest.approx([0.2, 0.2])


def test_empty_frame_keeps_its_occluders() -> None:
    arm = ((0.0, 0.0), (100.0, 0.0), (100.0, 50.0))
    d = Detections.empty(7, 1.25, occluded=(arm,))
    assert len(d) == 0
    assert d.positions.shape == (0, 2)
    assert d.identity.shape == (0, 16)
    assert d.occluded == (arm,)


def test_arrays_are_read_only_copies() -> None:
    pos = np.array([[1.0, 2.0]])
    d = Detections.of(0, 0.0, pos)
    pos[0, 0] = 99.0
    assert d.positions[0, 0] == 1.0
    with pytest.raises(ValueError):
        d.positions[0, 0] = 5.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sigma": [1.0, 2.0, 3.0]}, "sigma has shape"),
        ({"sigma": 0.0}, "sigma[0]"),
        ({"confidence": 1.5}, "confidence[0]"),
        ({"identity": np.full((1, 16), 0.1)}, "sums to 1.6"),
        ({"identity": np.full((1, 16), (1.0 + 2e-6) / 16)}, "sums to 1.0000, above 1"),
        ({"identity": np.full((1, 16), np.nan)}, "identity row 0 is not finite"),
        ({"identity": np.eye(1, 16) * -0.1}, "identity[0, 0]"),
        ({"radius_px": -1.0}, "radius_px[0]"),
        ({"sigma": np.inf}, "sigma row 0 is not finite"),
        ({"blur_velocity": np.array([[np.inf, 1.0]])}, "blur_velocity row 0"),
        ({"identity": np.zeros((1, 15))}, "identity has shape"),
        ({"blur_velocity": np.array([[1.0, np.nan]])}, "blur_velocity row 0"),
        ({"occluded": (((0.0, 0.0), (1.0, 1.0)),)}, "occluded polygon 0"),
    ],
)
def test_bad_arrays_say_what_is_wrong(kwargs: dict, message: str) -> None:
    with pytest.raises(DetectionsError, match=message.replace("[", r"\[")):
        Detections.of(4, 0.1, [(0.0, 0.0)], **kwargs)


def test_values_on_the_limits_are_accepted() -> None:
    d = Detections.of(
        0,
        0.0,
        [(0.0, 0.0), (1.0, 1.0)],
        identity=np.vstack((np.full(16, 1 / 16), np.eye(1, 16)[0])),
        confidence=[0.0, 1.0],
        radius_px=0.0,
        blur_velocity=np.array([[np.nan, np.nan], [-3.0, 4.0]]),
    )
    assert len(d) == 2 and d.identity.sum(axis=1) == pytest.approx([1.0, 1.0])


def test_non_finite_position_names_its_row_and_is_a_railbird_error() -> None:
    with pytest.raises(RailbirdError, match="positions row 1 is not finite"):
        Detections.of(0, 0.0, [(0.0, 0.0), (np.nan, 1.0)])


def test_positions_must_be_pairs() -> None:
    with pytest.raises(DetectionsError, match="positions has shape"):
        Detections(
            0,
            0.0,
            np.zeros((2, 3)),
            np.ones(2),
            np.zeros((2, 16)),
            np.ones(2),
            np.full((2, 2), np.nan),
            np.ones(2),
        )


def test_restamped_is_the_same_frame_again_for_another_index_and_time() -> None:
    d = Detections.of(3, 0.05, [(0.0, 0.0)], occluded=(((0.0, 0.0), (10.0, 0.0), (0.0, 10.0)),))
    again = d.restamped(4, 0.0667)
    assert (again.frame, again.time) == (4, 0.0667) and (d.frame, d.time) == (3, 0.05)
    for name in ("positions", "sigma", "identity", "radius_px", "blur_velocity", "confidence"):
        assert getattr(again, name) is getattr(d, name)
        assert not getattr(again, name).flags.writeable
    assert again.occluded == d.occluded and len(again) == 1
    with pytest.raises(DetectionsError, match="not finite"):
        d.restamped(5, float("nan"))
