"""Which ball is which: colour and stripe evidence per ball, then one assignment for the frame.

Each detected ball's disc is split into white, black and coloured pixels (`calibration.colour`).
The colour of the coloured part is compared with each ball's colour in the model (a and b weigh
more than lightness, which the light changes most); the white share separates the cue ball
(all white), the stripes (a white cap or two) and the solids (a number disc at most). The
evidence becomes a probability per ball id.

Every ball exists once: `assign` solves the frame-wide assignment (Hungarian, over -log p), and a
row's probability for a ball another row surely is drops accordingly; what is left unexplained
stays "unknown" rather than being forced onto a name.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.colour import WHITE_CHROMA, BallPixels, ColourModel
from rules.balls import BallId

_N = 16
_IDS = tuple(BallId)
_STRIPED_FLAGS = tuple(bool(b.striped) for b in _IDS)  # plain bools: read per ball per id
_EPS = 1e-9
_CLOTH_BAND = 8.0  # a-b distance from the neutral-to-cloth line still counted as cloth tinge
_BAND_DARK_L = 60.0  # a rim pixel darker than this (and not cloth) is a dark band's shade
_BAND_MIN = 0.01  # the cue ball's rim shows none of a band (0.000 on the virtual table)
_BAND_SD = 0.01


def band_fraction(ring_lab: np.ndarray, cloth_lab: tuple[float, float, float]) -> float:
    """Share of a ball's rim ring that shows a stripe's band: coloured or black pixels that are
    not the cloth's colour.

    The cue ball's rim is white shading to grey, tinged with the cloth where the camera blends
    the two at the outline (a blend lies on the line from neutral to the cloth's colour in the
    a-b plane); a stripe seen cap-on shows its band only there, as a colour off that line or as
    a dark shade of it.

    Args:
        ring_lab: (n, 3) OpenCV Lab pixels of the ring just inside the ball's outline.
        cloth_lab: The cloth's Lab.
    """
    px = np.asarray(ring_lab, dtype=np.float32).reshape(-1, 3)
    if len(px) == 0:
        return 0.0
    return float(np.mean(band_evidence(px, cloth_lab)))


def band_evidence(ring_lab: np.ndarray, cloth_lab: tuple[float, float, float]) -> np.ndarray:
    """Per rim pixel, whether it shows a stripe's band (see `band_fraction`), (n,) bool."""
    px = np.asarray(ring_lab, dtype=np.float32).reshape(-1, 3)
    a, b = px[:, 1] - 128.0, px[:, 2] - 128.0
    ca, cb = cloth_lab[1] - 128.0, cloth_lab[2] - 128.0
    norm = math.hypot(ca, cb)
    if norm < 1.0:
        clothlike = np.hypot(a, b) < _CLOTH_BAND
    else:
        along = (a * ca + b * cb) / norm
        across = np.abs(b * ca - a * cb) / norm
        clothlike = (across < _CLOTH_BAND) & (along > 0)
    coloured = np.hypot(a, b) >= WHITE_CHROMA
    dark = px[:, 0] < _BAND_DARK_L
    return (coloured | dark) & ~clothlike


def likelihoods(
    stats: BallPixels,
    model: ColourModel,
    ring: BallPixels | None = None,
    band: float | None = None,
) -> np.ndarray:
    """Relative likelihood of each ball id (16,) given one ball's pixel statistics.

    Args:
        stats: The ball's disc (its rim left out).
        model: The colour model.
        ring: The ring just inside the rim: a stripe seen end-on from above is a white cap
            with its band only there, which tells it from the cue ball.
        band: `band_fraction` of that ring, when known: the cue ball shows none.
    """
    w = stats.white_fraction
    colour = stats.colour_lab
    out = [0.0] * _N
    # Pattern: the cue ball is white all over; a stripe shows a white cap or two; a solid
    # shows at most its number disc (and a highlight).
    p_cue = _gauss(1.0 - w, 0.0, 0.06)
    if ring is not None:
        if band is None:
            p_cue *= _gauss(ring.colour_fraction, 0.0, 0.1)
        if colour is None or stats.colour_fraction < 0.1:
            colour = ring.colour_lab or colour
    p_solid = _gauss(w, 0.06, 0.09) + 0.02
    p_stripe = _gauss(w, 0.55, 0.2) + 0.02
    banded = band is not None and band > _BAND_MIN
    if band is not None:
        p_cue *= _gauss(band, 0.0, _BAND_SD)
        if banded:
            # A stripe turned cap-up: all white but its band at the rim.
            p_stripe = max(p_stripe, 0.3)
    if stats.colour_fraction < 0.04 and stats.dark_fraction < 0.2 and not banded:
        p_solid = p_stripe = 0.02  # no colour at all: a cue ball (or a stripe face-on)
    for i, (ball, target) in enumerate(zip(_IDS, model.balls, strict=True)):
        if ball is BallId.CUE:
            out[i] = p_cue
            continue
        if ball is BallId.EIGHT:
            evidence = _black_evidence(stats, target.lab)
        elif colour is None:
            evidence = 0.02
        else:
            evidence = _colour_match(colour, target.lab, target.spread)
        out[i] = evidence * (p_stripe if _STRIPED_FLAGS[i] else p_solid)
    return np.array(out)


def _black_evidence(stats: BallPixels, black_lab: tuple[float, float, float]) -> float:
    dark = stats.dark_fraction
    if stats.colour_lab is not None and stats.colour_fraction > dark:
        c = stats.colour_lab
        # A dark, nearly neutral coloured part is the 8 in a dim corner.
        chroma = math.hypot(c[1] - 128, c[2] - 128)
        return _gauss(chroma, 0.0, 14.0) * _gauss(c[0], black_lab[0], 30.0)
    return 0.05 + 0.95 * min(dark / 0.5, 1.0)


def _colour_match(colour: tuple[float, ...], target: tuple[float, ...], spread: float) -> float:
    """How well a measured colour fits a ball's, in hue, lightness and chroma.

    Hue is the steadiest under the light, and in the thin band of a stripe seen edge-on, where
    the camera's chroma subsampling mixes the band with white and cloth, chroma shrinks while
    hue stays; lightness separates balls of one hue (red and maroon).
    """
    ca, cb = colour[1] - 128.0, colour[2] - 128.0
    ta, tb = target[1] - 128.0, target[2] - 128.0
    chroma, target_chroma = math.hypot(ca, cb), math.hypot(ta, tb)
    dl = (colour[0] - target[0]) / (3.0 * spread)
    if chroma < 8.0 or target_chroma < 8.0:
        dc = (chroma - target_chroma) / spread
        return math.exp(-0.5 * (dl * dl + dc * dc))
    dh = math.degrees(math.atan2(cb, ca) - math.atan2(tb, ta))
    dh = (dh + 180.0) % 360.0 - 180.0
    hue_sd = 5.0 + 60.0 / max(chroma, 1.0)  # hue is vaguer for a weakly coloured patch
    dc = math.log(chroma / target_chroma) / 0.6
    return math.exp(-0.5 * ((dh / hue_sd) ** 2 + dl * dl + dc * dc))


def _gauss(x: float, mu: float, sd: float) -> float:
    return math.exp(-0.5 * ((x - mu) / sd) ** 2)


def probabilities(like: np.ndarray, known: float = 0.97) -> np.ndarray:
    """Rows of likelihoods -> probabilities that sum to ``known`` (the rest is unknown).

    A row whose best likelihood is tiny (nothing fits) keeps more of its mass unknown.
    """
    like = np.asarray(like, dtype=np.float64).reshape(-1, _N)
    total = like.sum(axis=1, keepdims=True)
    fit = np.clip(like.max(axis=1, keepdims=True) / 0.05, 0.0, 1.0)
    return np.where(total > 0, like / np.maximum(total, _EPS), 0.0) * known * fit


def assign(prob: np.ndarray, confidence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The frame-wide assignment: each ball id to at most one row.

    Args:
        prob: (n, 16) identity probabilities per row.
        confidence: (n,) probability that each row is a ball at all.

    Returns:
        The assigned id column per row (-1: none) and the rows' probabilities revised by the
        assignment: a ball surely taken by another row is unlikely for this one.
    """
    n = len(prob)
    if n == 0:
        return np.zeros(0, dtype=np.int64), prob
    unknown = np.clip(1.0 - prob.sum(axis=1), 1e-6, 1.0)
    cost = -np.log(np.maximum(prob, 1e-12))
    # One "unknown" column per row so extra or unnamed rows need not steal a ball.
    dummy = np.full((n, n), 1e6)
    np.fill_diagonal(dummy, -np.log(unknown) + 2.0)
    rows, cols = linear_sum_assignment(np.hstack((cost, dummy)))
    assigned = np.full(n, -1, dtype=np.int64)
    for r, c in zip(rows, cols, strict=True):
        if c < _N:
            assigned[r] = c
    # The belief that row r is ball j: discount by how sure the row assigned j is of it.
    taken = np.zeros(_N)
    owner = np.full(_N, -1)
    for r in range(n):
        j = assigned[r]
        if j >= 0:
            taken[j] = prob[r, j] * confidence[r]
            owner[j] = r
    revised = prob.copy()
    for r in range(n):
        others = np.where((owner >= 0) & (owner != r), taken, 0.0)
        revised[r] *= 1.0 - others
    keep = prob.sum(axis=1, keepdims=True)
    scale = np.where(revised.sum(axis=1, keepdims=True) > 0, keep, 0.0)
    revised = revised / np.maximum(revised.sum(axis=1, keepdims=True), _EPS) * scale
    # A revised row may not grow surer of its assigned ball than the evidence and the rivals'
    # removal allow; cap the row sum at what the colour evidence gave.
    return assigned, np.clip(revised, 0.0, 1.0)
