"""Identity: colour evidence per ball, and the frame-wide assignment (each ball exists once)."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.colour import BallPixels, default_colour_model
from rules.balls import BallId
from vision import identity
from vision.detections import BALL_ORDER

MODEL = default_colour_model()


def pixels(white: float, colour_of: BallId | None, dark: float = 0.0) -> BallPixels:
    lab = MODEL.colour_of(colour_of).lab if colour_of is not None else None
    return BallPixels(white, dark, lab, 1.0 - white - dark, MODEL.white_lab if white else None)


@pytest.mark.parametrize(
    "stats, want",
    [
        (pixels(1.0, None), BallId.CUE),
        (pixels(0.05, BallId.ONE), BallId.ONE),
        (pixels(0.6, BallId.ONE), BallId.NINE),  # yellow band and white caps: the 9
        (pixels(0.08, BallId.SEVEN), BallId.SEVEN),
        (pixels(0.05, None, dark=0.9), BallId.EIGHT),
        (pixels(0.55, BallId.FOUR), BallId.TWELVE),
    ],
)
def test_colour_and_white_share_name_the_ball(stats: BallPixels, want: BallId) -> None:
    like = identity.likelihoods(stats, MODEL)
    assert BALL_ORDER[int(np.argmax(like))] is want


def test_probabilities_leave_room_for_unknown() -> None:
    like = np.zeros((2, 16))
    like[0, 3] = 1.0
    like[1, :] = 1e-6  # nothing fits: mostly unknown
    prob = identity.probabilities(like)
    assert prob[0, 3] == pytest.approx(0.97)
    assert prob[1].sum() < 0.01


def test_each_ball_is_assigned_once_and_a_rival_loses_it() -> None:
    prob = np.zeros((2, 16))
    prob[0, 1] = 0.95  # surely the 1
    prob[1, 1], prob[1, 5] = 0.5, 0.45  # the 1 or the 5 (yellow or orange in dim light)
    assigned, revised = identity.assign(prob, np.array([0.99, 0.99]))
    assert list(assigned) == [1, 5]
    assert revised[1, 5] > revised[1, 1]
    assert revised[1].sum() == pytest.approx(prob[1].sum())


def test_an_unnamed_row_is_not_forced_onto_a_ball() -> None:
    prob = np.zeros((2, 16))
    prob[0, 0] = 0.97
    prob[1, 0] = 0.02  # a faint cue-ball likeness, mostly unknown
    assigned, _ = identity.assign(prob, np.ones(2))
    assert assigned[0] == 0 and assigned[1] == -1


def test_no_rows_no_assignment() -> None:
    assigned, revised = identity.assign(np.zeros((0, 16)), np.zeros(0))
    assert assigned.shape == (0,) and revised.shape == (0, 16)


RED_CLOTH_LAB = (78.0, 174.0, 151.0)


def rim(n_white: int, extra: list[tuple[float, float, float]]) -> np.ndarray:
    """A rim ring's Lab pixels: white shading, plus the given others."""
    white = [(200.0 - i % 80, 128.0, 128.0) for i in range(n_white)]
    return np.array(white + extra, dtype=np.float32)


def test_a_cue_balls_rim_tinged_by_the_cloth_shows_no_band() -> None:
    # The camera blends the rim with the red cloth: pixels on the neutral-to-cloth line.
    tinged = [(150.0, 128 + 0.5 * 46, 128 + 0.5 * 23)] * 20
    assert identity.band_fraction(rim(80, tinged), RED_CLOTH_LAB) == 0.0


def test_a_stripe_seen_cap_up_shows_its_band_at_the_rim() -> None:
    blue_band = [(60.0, 145.0, 90.0)] * 10
    assert identity.band_fraction(rim(90, blue_band), RED_CLOTH_LAB) == pytest.approx(0.1)


def test_a_stripe_cap_up_is_not_the_cue_ball() -> None:
    # Nearly all white in the middle; its blue band only in the rim ring.
    disc = BallPixels(0.95, 0.03, None, 0.02, MODEL.white_lab)
    ring = BallPixels(0.7, 0.15, MODEL.colour_of(BallId.TEN).lab, 0.15, MODEL.white_lab)
    like = identity.likelihoods(disc, MODEL, ring, band=0.13)
    assert BALL_ORDER[int(np.argmax(like))] is BallId.TEN
    cue = identity.likelihoods(BallPixels(1.0, 0.0, None, 0.0, MODEL.white_lab), MODEL, ring, 0.0)
    assert BALL_ORDER[int(np.argmax(cue))] is BallId.CUE


def test_many_balls_at_once_are_judged_as_each_alone() -> None:
    rng = np.random.default_rng(8)
    discs, rings, bands = [], [], []
    for k in range(40):
        white, dark = float(rng.uniform(0, 1)), float(rng.uniform(0, 0.3))
        colour = MODEL.balls[int(rng.integers(16))].lab if k % 5 else None
        discs.append(BallPixels(white, dark, colour, max(1 - white - dark, 0), None))
        ring_colour = MODEL.balls[int(rng.integers(16))].lab if k % 3 else None
        rings.append(BallPixels(white, dark, ring_colour, float(rng.uniform(0, 0.4)), None))
        bands.append(float(rng.uniform(0, 0.05)) if k % 4 else np.nan)

    def arrays(stats: list[BallPixels]) -> identity.PixelArrays:
        rows = [identity.PixelArrays.of(s) for s in stats]
        return identity.PixelArrays(
            *(np.concatenate([getattr(r, f) for r in rows]) for f in identity.PixelArrays.__slots__)
        )

    together = identity.likelihoods_of(arrays(discs), MODEL, arrays(rings), np.array(bands))
    for i, (d, g, b) in enumerate(zip(discs, rings, bands, strict=True)):
        alone = identity.likelihoods(d, MODEL, g, None if np.isnan(b) else b)
        np.testing.assert_allclose(together[i], alone, rtol=1e-12, atol=0)
    assert together.shape == (40, 16) and (together >= 0).all()


def _probabilities_as_arrays(like: np.ndarray, known: float = 0.97) -> np.ndarray:
    """`identity.probabilities` as the array expressions it was first written as."""
    total = like.sum(axis=1, keepdims=True)
    fit = np.clip(like.max(axis=1, keepdims=True) / 0.05, 0.0, 1.0)
    return np.where(total > 0, like / np.maximum(total, 1e-9), 0.0) * known * fit


def _revised_as_arrays(prob: np.ndarray, assigned: np.ndarray, confidence: np.ndarray):
    """`identity.assign`'s revision of the rows as the array expressions it was first
    written as."""
    n = len(prob)
    mine = assigned >= 0
    taken = np.zeros(16)
    owner = np.full(16, -1)
    taken[assigned[mine]] = prob[mine, assigned[mine]] * confidence[mine]
    owner[assigned[mine]] = np.flatnonzero(mine)
    others = (owner[None, :] >= 0) & (owner[None, :] != np.arange(n)[:, None])
    revised = prob * (1.0 - np.where(others, taken[None, :], 0.0))
    keep = prob.sum(axis=1, keepdims=True)
    scale = np.where(revised.sum(axis=1, keepdims=True) > 0, keep, 0.0)
    revised = revised / np.maximum(revised.sum(axis=1, keepdims=True), 1e-9) * scale
    return np.clip(revised, 0.0, 1.0)


def test_compiled_probabilities_and_assignment_give_the_array_expressions_bits() -> None:
    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(1, 24))
        like = rng.uniform(0, 1, (n, 16)) ** rng.uniform(1, 12)
        like[rng.uniform(size=(n, 16)) < 0.3] = 0.0
        like[0] *= 0.0 if trial % 5 == 0 else 1e-3 if trial % 7 == 0 else 1.0
        prob = identity.probabilities(like)
        np.testing.assert_array_equal(prob, _probabilities_as_arrays(like))
        confidence = rng.uniform(0.05, 0.999, n)
        assigned, revised = identity.assign(prob, confidence)
        assert len(set(assigned[assigned >= 0].tolist())) == int((assigned >= 0).sum())
        np.testing.assert_array_equal(revised, _revised_as_arrays(prob, assigned, confidence))
