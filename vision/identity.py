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
from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy.optimize import linear_sum_assignment

from calibration.colour import WHITE_CHROMA, BallPixels, ColourModel
from rules.balls import BallId
from vision.sums import block_sum

_N = 16
_IDS = tuple(BallId)
_STRIPED = np.array([bool(b.striped) for b in _IDS])
_CUE = _IDS.index(BallId.CUE)
_EIGHT = _IDS.index(BallId.EIGHT)
_EPS = 1e-9
CLOTH_BAND = 8.0  # a-b distance from the neutral-to-cloth line still counted as cloth tinge
BAND_DARK_L = 60.0  # a rim pixel darker than this (and not cloth) is a dark band's shade
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
        clothlike = np.hypot(a, b) < CLOTH_BAND
    else:
        along = (a * ca + b * cb) / norm
        across = np.abs(b * ca - a * cb) / norm
        clothlike = (across < CLOTH_BAND) & (along > 0)
    coloured = np.hypot(a, b) >= WHITE_CHROMA
    dark = px[:, 0] < BAND_DARK_L
    return (coloured | dark) & ~clothlike


@dataclass(frozen=True, slots=True)
class PixelArrays:
    """`calibration.colour.BallPixels` of many balls as parallel arrays (one row per ball).

    Attributes:
        white_fraction: (n,) share of white pixels.
        dark_fraction: (n,) share of black pixels.
        colour_lab: (n, 3) mean Lab of the coloured pixels; NaN where there are none.
        colour_fraction: (n,) share of coloured pixels.
        white_lab: (n, 3) mean Lab of the white pixels; NaN where there are none.
    """

    white_fraction: np.ndarray
    dark_fraction: np.ndarray
    colour_lab: np.ndarray
    colour_fraction: np.ndarray
    white_lab: np.ndarray

    def __len__(self) -> int:
        return len(self.white_fraction)

    def part(self, rows: slice) -> PixelArrays:
        """The statistics of some of the balls."""
        return PixelArrays(
            self.white_fraction[rows],
            self.dark_fraction[rows],
            self.colour_lab[rows],
            self.colour_fraction[rows],
            self.white_lab[rows],
        )

    def row(self, i: int) -> BallPixels:
        """One ball's statistics as `BallPixels`."""
        return BallPixels(
            float(self.white_fraction[i]),
            float(self.dark_fraction[i]),
            _lab_or_none(self.colour_lab[i]),
            float(self.colour_fraction[i]),
            _lab_or_none(self.white_lab[i]),
        )

    @classmethod
    def of(cls, stats: BallPixels) -> PixelArrays:
        """One ball's `BallPixels` as arrays of one row."""
        none = (math.nan,) * 3
        return cls(
            np.array([stats.white_fraction]),
            np.array([stats.dark_fraction]),
            np.array([stats.colour_lab or none], dtype=np.float64),
            np.array([stats.colour_fraction]),
            np.array([stats.white_lab or none], dtype=np.float64),
        )


def _lab_or_none(lab: np.ndarray) -> tuple[float, float, float] | None:
    if np.isnan(lab[0]):
        return None
    return (float(lab[0]), float(lab[1]), float(lab[2]))


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
    rings = PixelArrays.of(ring) if ring is not None else None
    bands = np.array([math.nan if band is None else band])
    return likelihoods_of(PixelArrays.of(stats), model, rings, bands)[0]


def likelihoods_of(
    disc: PixelArrays,
    model: ColourModel,
    ring: PixelArrays | None = None,
    band: np.ndarray | None = None,
) -> np.ndarray:
    """Relative likelihood of each ball id, (n, 16), for many balls at once (see `likelihoods`).

    Args:
        disc: The balls' discs (their rims left out).
        model: The colour model.
        ring: The rings just inside the rims, or None.
        band: (n,) `band_fraction` of each ring, NaN where unknown; None: all unknown.
    """
    n = len(disc)
    band = np.full(n, math.nan) if band is None else np.asarray(band, dtype=np.float64)
    has_ring = ring is not None
    ring = ring if ring is not None else disc
    targets, spreads = _targets(model.balls)
    return _likelihood_rows(
        np.asarray(disc.white_fraction, dtype=np.float64),
        np.asarray(disc.dark_fraction, dtype=np.float64),
        np.asarray(disc.colour_fraction, dtype=np.float64),
        np.ascontiguousarray(disc.colour_lab, dtype=np.float64),
        np.asarray(ring.colour_fraction, dtype=np.float64),
        np.ascontiguousarray(ring.colour_lab, dtype=np.float64),
        has_ring,
        band,
        targets,
        spreads,
    )


_TARGETS: list = [None, None, None]
"""The last colours `_targets` was asked for, and its answer (a model's colours are read
every frame, and change only when the cloth or the lighting is learnt again)."""


def _targets(balls: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The balls' colours (16, 3) Lab and spreads (16,) as arrays."""
    if _TARGETS[0] is not balls:
        targets = np.array([c.lab for c in balls], dtype=np.float64)
        spreads = np.array([c.spread for c in balls], dtype=np.float64)
        _TARGETS[:] = [balls, targets, spreads]
    return _TARGETS[1], _TARGETS[2]


@njit(cache=True, nogil=True)
def _likelihood_rows(
    white: np.ndarray,
    dark: np.ndarray,
    coloured: np.ndarray,
    colour_lab: np.ndarray,
    ring_coloured: np.ndarray,
    ring_lab: np.ndarray,
    has_ring: bool,
    band: np.ndarray,
    targets: np.ndarray,
    spreads: np.ndarray,
) -> np.ndarray:
    """`likelihoods_of`, ball by ball in one compiled loop: the same tests and the same
    float64 arithmetic as the array expressions it replaced (identical results)."""
    n = len(white)
    out = np.empty((n, _N))
    for i in range(n):
        w = white[i]
        known_band = not math.isnan(band[i])
        colour = colour_lab[i]
        # Pattern: the cue ball is white all over; a stripe shows a white cap or two; a
        # solid shows at most its number disc (and a highlight).
        p_cue = _gauss1(1.0 - w, 0.0, 0.06)
        if has_ring:
            if not known_band:
                p_cue = p_cue * _gauss1(ring_coloured[i], 0.0, 0.1)
            # Too little colour on the disc (a stripe seen cap-on): the ring's colour, if any.
            if (math.isnan(colour[0]) or coloured[i] < 0.1) and not math.isnan(ring_lab[i, 0]):
                colour = ring_lab[i]
        p_solid = _gauss1(w, 0.06, 0.09) + 0.02
        p_stripe = _gauss1(w, 0.55, 0.2) + 0.02
        b = band[i] if known_band else 0.0
        banded = known_band and b > _BAND_MIN
        if known_band:
            p_cue = p_cue * _gauss1(b, 0.0, _BAND_SD)
        # A stripe turned cap-up: all white but its band at the rim.
        if banded:
            p_stripe = max(p_stripe, 0.3)
        # No colour at all: a cue ball (or a stripe face-on).
        if coloured[i] < 0.04 and dark[i] < 0.2 and not banded:
            p_solid = 0.02
            p_stripe = 0.02
        for j in range(_N):
            if math.isnan(colour[0]):
                evidence = 0.02
            else:
                evidence = _colour_match1(colour, targets[j], spreads[j])
            if j == _EIGHT:
                evidence = _black_evidence1(dark[i], coloured[i], colour_lab[i], targets[j])
            out[i, j] = evidence * (p_stripe if _STRIPED[j] else p_solid)
        out[i, _CUE] = p_cue
    return out


@njit(cache=True, nogil=True)
def _gauss1(x: float, mu: float, sd: float) -> float:
    z = (x - mu) / sd
    return math.exp(-0.5 * (z * z))


@njit(cache=True, nogil=True)
def _black_evidence1(dark: float, coloured: float, lab: np.ndarray, black: np.ndarray) -> float:
    """`_black_evidence` of one ball."""
    # A dark, nearly neutral coloured part is the 8 in a dim corner.
    if not math.isnan(lab[0]) and coloured > dark:
        chroma = math.hypot(lab[1] - 128, lab[2] - 128)
        return _gauss1(chroma, 0.0, 14.0) * _gauss1(lab[0], black[0], 30.0)
    return 0.05 + 0.95 * min(dark / 0.5, 1.0)


@njit(cache=True, nogil=True)
def _colour_match1(colour: np.ndarray, target: np.ndarray, spread: float) -> float:
    """`_colour_match` of one colour and one ball."""
    ca, cb = colour[1] - 128.0, colour[2] - 128.0
    ta, tb = target[1] - 128.0, target[2] - 128.0
    chroma, target_chroma = math.hypot(ca, cb), math.hypot(ta, tb)
    dl = (colour[0] - target[0]) / (3.0 * spread)
    if chroma < 8.0 or target_chroma < 8.0:
        grey = (chroma - target_chroma) / spread
        off = grey * grey
    else:
        dh = math.degrees(math.atan2(cb, ca) - math.atan2(tb, ta))
        dh = _remainder(dh + 180.0, 360.0) - 180.0
        hue_sd = 5.0 + 60.0 / max(chroma, 1.0)
        dc = math.log(chroma / target_chroma) / 0.6
        q = dh / hue_sd
        off = q * q + dc * dc
    return math.exp(-0.5 * (dl * dl + off))


@njit(cache=True, nogil=True)
def _remainder(a: float, b: float) -> float:
    """numpy's remainder (the sign of the divisor), for b > 0."""
    mod = np.fmod(a, b)
    if mod != 0.0:
        if (b < 0) != (mod < 0):
            mod += b
    else:
        mod = math.copysign(0.0, b)
    return mod


def _black_evidence(stats: PixelArrays, black_lab: np.ndarray) -> np.ndarray:
    dark = stats.dark_fraction
    c = stats.colour_lab
    # A dark, nearly neutral coloured part is the 8 in a dim corner.
    tinted = ~np.isnan(c[:, 0]) & (stats.colour_fraction > dark)
    chroma = np.hypot(c[:, 1] - 128, c[:, 2] - 128)
    dim = _gauss(chroma, 0.0, 14.0) * _gauss(c[:, 0], black_lab[0], 30.0)
    return np.where(tinted, dim, 0.05 + 0.95 * np.minimum(dark / 0.5, 1.0))


def _colour_match(colour: np.ndarray, target: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """How well measured colours (n, 3) fit the balls' (16, 3), in hue, lightness and chroma,
    (n, 16) (NaN where a colour is NaN).

    Hue is the steadiest under the light, and in the thin band of a stripe seen edge-on, where
    the camera's chroma subsampling mixes the band with white and cloth, chroma shrinks while
    hue stays; lightness separates balls of one hue (red and maroon).
    """
    ca, cb = colour[:, 1:2] - 128.0, colour[:, 2:3] - 128.0
    ta, tb = target[None, :, 1] - 128.0, target[None, :, 2] - 128.0
    chroma, target_chroma = np.hypot(ca, cb), np.hypot(ta, tb)
    dl = (colour[:, 0:1] - target[None, :, 0]) / (3.0 * spread[None, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        grey = (chroma - target_chroma) / spread[None, :]
        dh = np.degrees(np.arctan2(cb, ca) - np.arctan2(tb, ta))
        dh = (dh + 180.0) % 360.0 - 180.0
        hue_sd = 5.0 + 60.0 / np.maximum(chroma, 1.0)  # hue is vaguer for a weakly coloured patch
        dc = np.log(chroma / target_chroma) / 0.6
        hued = (dh / hue_sd) ** 2 + dc * dc
    neutral = (chroma < 8.0) | (target_chroma < 8.0)
    return np.exp(-0.5 * (dl * dl + np.where(neutral, grey * grey, hued)))


def _gauss(x: np.ndarray, mu: float, sd: float) -> np.ndarray:
    return np.exp(-0.5 * ((x - mu) / sd) ** 2)


def probabilities(like: np.ndarray, known: float = 0.97) -> np.ndarray:
    """Rows of likelihoods -> probabilities that sum to ``known`` (the rest is unknown).

    A row whose best likelihood is tiny (nothing fits) keeps more of its mass unknown.
    """
    return _probabilities(np.ascontiguousarray(like, dtype=np.float64).reshape(-1, _N), known)


@njit(cache=True, nogil=True)
def _probabilities(like: np.ndarray, known: float) -> np.ndarray:
    """`probabilities` row by row, the same arithmetic as its array expressions (row sums in
    numpy's pairwise order)."""
    out = np.empty_like(like)
    for r in range(len(like)):
        total = block_sum(like[r], 0, _N)
        best = -math.inf
        for j in range(_N):
            v = like[r, j]
            if math.isnan(v):
                best = v
                break
            best = max(best, v)
        fit = best / 0.05
        if not math.isnan(fit):
            fit = min(max(fit, 0.0), 1.0)
        for j in range(_N):
            share = like[r, j] / max(total, _EPS) if total > 0 else 0.0
            out[r, j] = share * known * fit
    return out


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
    # One "unknown" column per row so extra or unnamed rows need not steal a ball.
    cost = np.full((n, _N + n), 1e6)
    np.negative(np.log(np.maximum(prob, 1e-12)), out=cost[:, :_N])
    unknown = np.minimum(np.maximum(1.0 - prob.sum(axis=1), 1e-6), 1.0)
    cost[np.arange(n), _N + np.arange(n)] = -np.log(unknown) + 2.0
    rows, cols = linear_sum_assignment(cost)
    assigned = np.full(n, -1, dtype=np.int64)
    named = cols < _N
    assigned[rows[named]] = cols[named]
    return assigned, _revised(
        np.ascontiguousarray(prob, dtype=np.float64),
        assigned,
        np.ascontiguousarray(confidence, dtype=np.float64),
    )


@njit(cache=True, nogil=True)
def _revised(prob: np.ndarray, assigned: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """`assign`'s revision of the rows, step for step as the array expressions it replaced
    (row sums in numpy's pairwise order, so the same numbers)."""
    n = len(prob)
    # The belief that row r is ball j: discount by how sure the row assigned j is of it.
    taken = np.zeros(_N)
    owner = np.full(_N, -1)
    for r in range(n):
        j = assigned[r]
        if j >= 0:
            taken[j] = prob[r, j] * confidence[r]
            owner[j] = r
    out = np.empty((n, _N))
    for r in range(n):
        for j in range(_N):
            gone = taken[j] if owner[j] >= 0 and owner[j] != r else 0.0
            out[r, j] = prob[r, j] * (1.0 - gone)
        keep = block_sum(prob[r], 0, _N)
        total = block_sum(out[r], 0, _N)
        scale = keep if total > 0 else 0.0
        # A revised row may not grow surer of its assigned ball than the evidence and the
        # rivals' removal allow; cap the row sum at what the colour evidence gave.
        for j in range(_N):
            out[r, j] = min(max(out[r, j] / max(total, _EPS) * scale, 0.0), 1.0)
    return out
