"""Motion blur: a ball rolling during the exposure leaves a streak, a capsule about a ball wide.

The streak's middle is the ball's centre at mid-exposure and its length, less one ball diameter,
the travel over the exposure (the detector turns it into a speed). A streak alone does not say
which way the ball went; the detector signs it from the previous frame.
"""

from __future__ import annotations

import logging
import math

import cv2
import numpy as np
from numba import njit

from calibration.camera import CameraModel
from rules.balls import BALL_RADIUS_MM
from vision.found import FoundBall
from vision.regions import Rect
from vision.table_view import SCALE, TableView

log = logging.getLogger(__name__)

_STREAK_GAIN = 1.08
"""The faint ends cut by the foreign threshold, scaled back (measured on the virtual table)."""


class StreakReader:
    """Reads streaks on the working grid.

    Args:
        view: The table as the camera sees it.
        camera: The calibrated camera (streak ends -> table mm).
        min_streak_mm: A streak shorter than this is a ball at rest.
    """

    def __init__(self, view: TableView, camera: CameraModel, min_streak_mm: float) -> None:
        self.view = view
        self.camera = camera
        self.min_streak_mm = min_streak_mm

    def streak(self, w: np.ndarray, origin: tuple[int, int], r: float) -> FoundBall | None:
        """A capsule about a ball wide in a patch of foreign weight: a ball blurred by its motion.

        Args:
            w: Foreign weight of one blob (zero outside it), a working-grid patch.
            origin: The patch's top-left corner on the working grid.
            r: Expected ball radius there, working pixels.

        Returns:
            The ball at mid-exposure (``blur_mm`` None when the travel is too short to tell), or
            None when the blob is not ball-shaped.
        """
        # The blob's weighted centre and spread, from its image moments (one pass in C).
        w = np.ascontiguousarray(w, dtype=np.float32)
        m = cv2.moments(w)
        total = m["m00"]
        if total <= 0:
            return None
        mx, my = m["m10"] / total, m["m01"] / total
        minor, major, axis = _principal(m["mu20"] / total, m["mu11"] / total, m["mu02"] / total)
        # A disc of radius r has variance r^2/4 along any axis; a capsule adds l^2/12 along it.
        if not 0.12 * r * r < minor < 0.5 * r * r:
            return None
        # The streak's extent along its axis is the travel plus one ball diameter.
        # Along it, the coverage falls off over the travel at each end; the faint ends are cut
        # by the foreign threshold, measured at a low level of it and scaled back.
        extent = _extent(w, mx, my, float(axis[0]), float(axis[1])) + 1.0
        length = max(extent - 2.0 * r, 0.0) * _STREAK_GAIN if major > minor * 1.15 else 0.0
        log.debug("streak extent %.2f r %.2f var %.2f %.2f", extent, r, major, minor)
        if length > 14 * r or total < 0.5 * math.pi * r * r * 0.6:
            return None
        centre_small = np.array((mx + origin[0], my + origin[1]))
        centre = self.view.to_full(centre_small)
        ends_px = np.array([centre + axis * length * SCALE / 2, centre - axis * length * SCALE / 2])
        ends = self.view.plane_xy(ends_px)
        travel = ends[0] - ends[1]
        expected = float(self.view.radius[int(centre_small[1]), int(centre_small[0])])
        if np.hypot(*travel) < self.min_streak_mm:
            travel = None
        return FoundBall(centre, expected, 0.6, 1.0, travel)

    def deblur(
        self, balls: list[FoundBall], rect: Rect, mask: np.ndarray, weight: np.ndarray
    ) -> list[FoundBall]:
        """Balls whose foreign blob, theirs alone, is drawn out into a streak, moved to the
        streak's middle with its travel.

        Args:
            balls: Balls fitted inside ``rect``.
            rect: The searched rectangle, working grid.
            mask: The whole grid's foreign mask.
            weight: The whole grid's foreign weight.
        """
        if not balls:
            return []
        x0, y0, x1, y1 = rect
        _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            mask[y0:y1, x0:x1], 8, cv2.CV_32S, cv2.CCL_GRANA
        )
        owners: dict[int, list[int]] = {}
        half = (SCALE - 1) / 2
        for i, b in enumerate(balls):
            # The component most of the ball's disc lies in (its centre may be a highlight).
            cx = (float(b.centre_px[0]) - half) / SCALE - x0
            cy = (float(b.centre_px[1]) - half) / SCALE - y0
            reach = max(int(0.6 * b.radius_px / SCALE), 1)
            ix, iy = round(cx), round(cy)
            patch = labels[max(iy - reach, 0) : iy + reach + 1, max(ix - reach, 0) : ix + reach + 1]
            counts = np.bincount(patch.ravel())
            if counts.size > 1:
                label = int(counts[1:].argmax()) + 1
                if counts[label] > 0:
                    owners.setdefault(label, []).append(i)
        out = list(balls)
        bed = self.view.bed
        for label, members in owners.items():
            if len(members) != 1:
                continue
            b = balls[members[0]]
            sx, sy, sw, sh = stats[label, :4].tolist()
            r = b.radius_px / SCALE
            if max(sw, sh) < 2 * r + 2.5:
                continue  # round: a ball at rest (or too slow to tell)
            bx0, by0 = max(x0 + sx - 1, 0), max(y0 + sy - 1, 0)
            if (bed[by0 : y0 + sy + sh + 1, bx0 : x0 + sx + sw + 1] == 0).any():
                continue  # cut by a cushion: its shape says nothing of motion
            blob = labels[sy : sy + sh, sx : sx + sw] == label
            w = blob * weight[y0 + sy : y0 + sy + sh, x0 + sx : x0 + sx + sw]
            streak = self.streak(w, (x0 + sx, y0 + sy), r)
            if streak is None or streak.blur_mm is None:
                continue
            half_travel_px = 0.5 * np.hypot(*streak.blur_mm) / (BALL_RADIUS_MM / b.radius_px)
            if np.hypot(*(streak.centre_px - b.centre_px)) > half_travel_px + 0.3 * b.radius_px:
                continue  # the outline fitted is not on this streak's axis: not one ball's blur
            out[members[0]] = FoundBall(
                centre_px=streak.centre_px,
                radius_px=b.radius_px,
                support=min(b.support, 0.9),
                residual=b.residual,
                blur_mm=streak.blur_mm,
                like=b.like,
            )
        return out


def warm() -> None:
    """Compile (or load) this module's loops on a tiny input (`vision.warm`)."""
    _extent(np.ones((2, 2), np.float32), 0.5, 0.5, 1.0, 0.0)


@njit(cache=True, nogil=True)
def _extent(w: np.ndarray, mx: float, my: float, ax: float, ay: float) -> float:
    """The spread along the axis (ax, ay) through (mx, my) of a patch's pixels of weight at
    least 0.05 (0 for none): the largest offset along it less the smallest."""
    lo, hi = math.inf, -math.inf
    level = np.float32(0.05)
    for y in range(w.shape[0]):
        for x in range(w.shape[1]):
            if w[y, x] >= level:
                along = (x - mx) * ax + (y - my) * ay
                lo, hi = min(lo, along), max(hi, along)
    return hi - lo if hi >= lo else 0.0


def _principal(xx: float, xy: float, yy: float) -> tuple[float, float, np.ndarray]:
    """The spread of a blob along its minor and major axes (the eigenvalues of its covariance,
    floored at 0) and the major axis, a unit vector (closed form for 2x2)."""
    mean = 0.5 * (xx + yy)
    half = math.hypot(0.5 * (xx - yy), xy)
    minor, major = max(mean - half, 0.0), max(mean + half, 0.0)
    if half == 0.0:
        return minor, major, np.array((1.0, 0.0))  # round: any axis
    # (xy, major - xx) and (major - yy, xy) are both along the major axis; the longer is the
    # better conditioned.
    a = (xy, mean + half - xx)
    b = (mean + half - yy, xy)
    v = a if math.hypot(*a) >= math.hypot(*b) else b
    norm = math.hypot(*v)
    return minor, major, np.array((v[0] / norm, v[1] / norm))


def signed(travel: np.ndarray, position: np.ndarray, previous: np.ndarray | None) -> np.ndarray:
    """A streak's travel pointed the way the ball went: away from the nearest ball of the
    previous frame (``previous``: (n, 2) table mm, or None)."""
    if previous is None or len(previous) == 0:
        return travel
    d = previous - position
    nearest = int(np.argmin(np.hypot(d[:, 0], d[:, 1])))
    came_from = previous[nearest] - position
    return -travel if float(np.dot(came_from, travel)) > 0 else travel
