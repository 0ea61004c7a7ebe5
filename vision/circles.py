"""Ball outlines of a known size: candidate centres by gradient voting, then a sub-pixel fit.

Every ball is a circle of a radius the camera model predicts at that place, so each edge pixel
votes for the two points one radius away along its gradient (Hough with the radius known,
`vision.votes`). Balls frozen together keep most of their outline (their shaded rims meet in a
dark crease), so a full rack gives fifteen clean peaks where a blob or a distance transform
would see one lump.

Each candidate is then fitted at full resolution: the image is unrolled around it in polar
coordinates (one `cv2.remap` for all candidates), the outline is the strongest radial colour
step near the expected radius on each ray, and ``r(theta) = R + dx cos(theta) + dy sin(theta)``
is solved by robust least squares for the centre offset and the radius (every candidate in one
compiled loop a pass, `vision.outline`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.outline import (
    MIN_RAYS,
    ellipse_design,
    fit_quality,
    near_edges,
    outline_inside,
    outline_pass,
    ray_maps,
    ray_weights,
)
from vision.votes import local_maxima

_ANGLES = 48
_STEP_PX = 0.5
_COS = np.cos(np.arange(_ANGLES) * (2 * math.pi / _ANGLES))
_SIN = np.sin(np.arange(_ANGLES) * (2 * math.pi / _ANGLES))
_DESIGN = np.column_stack((np.ones(_ANGLES), _COS, _SIN))
"""Each ray's row of r(theta) = R + dx cos(theta) + dy sin(theta)."""
RADIUS_PRIOR_RAYS = 12.0
"""How many rays' worth of weight the camera model's expected radius has in each fit. The
model knows a ball's size there to a few per cent (fitted radii: median 0.998 of it, 98 % within
5 %), while a free radius lets the outline taken on one side (a contact shadow past a dark ball,
a crease into a frozen neighbour) widen the circle and move its centre that way."""


@dataclass(frozen=True, slots=True)
class CircleFit:
    """One fitted ball outline, full-resolution pixels.

    Attributes:
        centre: (x, y) of the outline's centre.
        radius: Fitted radius.
        expected: The radius the camera model predicts there.
        support: Share of rays whose outline point agrees with the fit (0-1).
        residual: RMS distance of the agreeing outline points from the circle.
    """

    centre: np.ndarray
    radius: float
    expected: float
    support: float
    residual: float


def peaks(acc: np.ndarray, minimum: np.ndarray, spacing: int) -> np.ndarray:
    """Local maxima of a vote map above a per-pixel minimum, (n, 2) as (x, y), strongest first."""
    smooth = cv2.GaussianBlur(acc, (3, 3), 0.8)
    ys, xs, values = local_maxima(smooth, np.ascontiguousarray(minimum, np.float32), spacing)
    order = np.argsort(-values)
    out = np.empty((len(order), 2))
    out[:, 0] = xs[order]
    out[:, 1] = ys[order]
    return out


def fit_circles(
    image: np.ndarray,
    centres: np.ndarray,
    expected: np.ndarray,
    iterations: int = 2,
    allowed: np.ndarray | None = None,
    scale: int = 1,
    clear: np.ndarray | None = None,
    shape: np.ndarray | None = None,
) -> list[CircleFit]:
    """Fit ball outlines near ``centres`` in a full-resolution image, all at once.

    The outline is a circle of the expected radius or, given its ``shape``, the ellipse the
    camera sees there (a ball away from below the camera is seen past its equator, its outline
    stretched toward and away from the image's centre): only the centre and the size (drawn
    toward the expected) are fitted, the shape is known. A circle fitted to the arc of such an
    ellipse that shows (the rest lost in a contact shadow, a crease or a cushion) is pulled
    toward that arc's side.

    Args:
        image: BGR image (uint8).
        centres: (n, 2) starting centres (x, y), within a few pixels.
        expected: (n,) expected radii, pixels.
        iterations: Re-centrings of the polar unrolling after the first, wide search.
        allowed: Where an outline may be (a mask, non-zero inside, at 1/``scale`` of the
            image's resolution): a ball frozen to a cushion must not take the cushion's edge.
        scale: Image pixels per ``allowed`` pixel.
        clear: ``allowed``'s distance transform (`cv2.distanceTransform`), when at hand: a
            candidate that far inside needs no outline test (most balls, away from cushions).
        shape: (n, 3) each outline's ellipse as a quadratic form (a, b, c): offsets (x, y) on
            it have a x^2 + 2 b x y + c y^2 = 1 (`vision.table_view.TableView.silhouette`).
            Its mean radius then takes the place of ``expected``. None: circles.
    """
    c = np.asarray(centres, dtype=np.float64).reshape(-1, 2).copy()
    exp = np.asarray(expected, dtype=np.float64).reshape(-1)
    n = len(c)
    if n == 0:
        return []
    cos, sin = _COS, _SIN
    if shape is None:
        design = np.ascontiguousarray(np.broadcast_to(_DESIGN, (n, _ANGLES, 3)))
    else:
        form = np.ascontiguousarray(shape, dtype=np.float64).reshape(-1, 3)
        design, exp = ellipse_design(form, _COS, _SIN)
    # Each ray's expected outline radius, (n, angles).
    ray_exp = design[:, :, 0] * exp[:, None]
    max_r = 1.4 * float(ray_exp.max())
    bins = max(math.ceil(max_r / _STEP_PX), 8)
    step_px = max_r / bins
    # Only the band where an outline may be (0.72-1.32 of the expected radius, and two steps
    # either side) is sampled: a radial step at sample k compares samples k - 1 and k + 1.
    k_lo = max(math.floor(0.72 * float(ray_exp.min()) / step_px) - 2, 1)
    k_hi = min(math.ceil(1.32 * float(ray_exp.max()) / step_px) + 3, bins - 1)
    radii = np.arange(k_lo, k_hi) * step_px
    rho = np.arange(k_lo - 1, k_hi + 1) * step_px
    # Each ray's sample offsets (x, y).
    ray = np.empty((_ANGLES, len(rho), 2), np.float32)
    ray[:, :, 0] = cos[:, None] * rho[None, :]
    ray[:, :, 1] = sin[:, None] * rho[None, :]
    # A fit that moves its centre further than 0.6 of a radius is not taken.
    reach = float(rho[-1]) + 0.6 * float(exp.max()) + 1.0
    near_edge = _near_edge(c, reach, allowed, scale, clear)
    if near_edge is None:
        near_edge = np.zeros(n, dtype=bool)
    prior, wide, narrow = ray_weights(design, exp, radii)
    inside = np.ones_like(prior)
    fit_r = exp.copy()
    err = np.zeros((n, _ANGLES))
    good = np.zeros((n, _ANGLES), dtype=bool)
    maps = np.empty((n * _ANGLES, len(rho), 2), np.float32)
    ray_maps(c, ray, maps)
    for it in range(iterations + 1):
        # All candidates' rays in one remap: (n * angles) rows of samples along each ray.
        polar = cv2.remap(image, maps, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        if near_edge.any():
            # Only the candidates near a cushion: the rest lie wholly where outlines may be.
            outline_inside(allowed, scale, maps, near_edge, inside)
        # The outline on each ray and the robust fit (`vision.outline`), and the next pass's
        # sample points.
        c, fit_r, err, good, moved = outline_pass(
            polar.reshape(n * _ANGLES, len(rho), 3),
            prior,
            wide if it == 0 else narrow,
            inside,
            near_edge,
            it == 0,
            radii,
            step_px,
            design,
            exp,
            c,
            RADIUS_PRIOR_RAYS,
            ray,
            maps,
        )
        if it > 0 and moved < 0.05:
            break
    count, support, residual = fit_quality(err, good)
    fits = []
    for i in range(n):
        if count[i] < MIN_RAYS:
            fits.append(CircleFit(c[i], float(exp[i]), float(exp[i]), 0.0, math.inf))
        else:
            fits.append(
                CircleFit(
                    c[i], float(fit_r[i]), float(exp[i]), float(support[i]), float(residual[i])
                )
            )
    return fits


def _near_edge(
    centres: np.ndarray,
    reach: float,
    allowed: np.ndarray | None,
    scale: int,
    clear: np.ndarray | None,
) -> np.ndarray | None:
    """Which candidates' rays may meet a pixel where no outline may be (all, without
    ``clear``); None when there is no ``allowed`` mask. The centres move a little between
    iterations: ``reach`` includes a margin for that."""
    if allowed is None:
        return None
    if clear is None:
        return np.ones(len(centres), dtype=bool)
    return near_edges(centres, reach, np.ascontiguousarray(clear, dtype=np.float32), scale)


def mean_radii(shape: np.ndarray) -> np.ndarray:
    """(n,) the mean radius of each outline ellipse ``shape`` (n, 3) (see `fit_circles`): the
    size `fit_circles` reports for a ball of that outline."""
    form = np.ascontiguousarray(np.asarray(shape, dtype=np.float64).reshape(-1, 3))
    return ellipse_design(form, _COS, _SIN)[1]


def fit_circle(image: np.ndarray, centre: np.ndarray, expected: float) -> CircleFit:
    """Fit one ball outline near ``centre`` (see `fit_circles`)."""
    return fit_circles(image, np.asarray(centre).reshape(1, 2), np.array([expected]))[0]
