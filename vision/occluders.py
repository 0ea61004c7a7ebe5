"""Occluders and the foreign pixels no ball explains.

What the foreign mask holds beyond the balls' discs is either a streak (a ball blurred into a
capsule, `vision.streaks`) or, when it is big, something over the table that is neither cloth nor
ball: an arm, a cue, a bridge. Occluders are reported as polygons in table mm so the tracker knows
a ball may be hidden there rather than gone; a weakly supported ball on one (a knuckle, a cue's
tip) is dropped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numba import njit

from calibration.camera import CameraModel
from vision.detections import Polygon
from vision.found import FoundBall
from vision.regions import Rect, on
from vision.streaks import StreakReader
from vision.sums import pairwise_sum
from vision.table_view import SCALE, TableView

_OPEN = np.ones((3, 3), np.uint8)


@dataclass(frozen=True, slots=True, eq=False)
class Leftover:
    """One patch of foreign pixels no ball explains, as read in one frame.

    Attributes:
        rect: Its bounding rectangle on the working grid.
        streak: The ball blurred into it, when it is a streak.
        polygons: Its outline in table mm, when it is an occluder.
        mask: When it is an occluder, its pixels (uint8 0/1) within ``rect``.
    """

    rect: Rect
    streak: FoundBall | None = None
    polygons: tuple[Polygon, ...] = ()
    mask: np.ndarray | None = field(default=None, repr=False)


class LeftoverReader:
    """Sorts the unexplained foreign pixels into streaks and occluders.

    Args:
        view: The table as the camera sees it.
        camera: The calibrated camera (polygons -> table mm).
        streaks: The streak reader.
        occluder_min_balls: A region at least this many ball areas big is an occluder.
    """

    def __init__(
        self,
        view: TableView,
        camera: CameraModel,
        streaks: StreakReader,
        occluder_min_balls: float,
    ) -> None:
        self.view = view
        self.camera = camera
        self.streaks = streaks
        self.occluder_min_balls = occluder_min_balls
        self._radius_small = (view.radius / SCALE).astype(np.float32)

    def covering(self, weight: np.ndarray, balls: list[FoundBall]) -> list[FoundBall]:
        """The balls less the new ones with hardly any foreign pixels on their disc (unless
        very round: a ball in a pocket's jaws is off the cloth the weight is measured on)."""
        fresh = [i for i, b in enumerate(balls) if b.like is None]
        if not fresh:
            return balls
        centres = self.view.to_working(np.array([balls[i].centre_px for i in fresh]))
        radii = np.array([balls[i].radius_px for i in fresh]) / SCALE * 1.25
        cover = _disc_means(weight, centres, radii)
        bare = {i for i, c in zip(fresh, cover, strict=True) if c < 0.25 and balls[i].support < 0.8}
        return [b for i, b in enumerate(balls) if i not in bare]

    def read(
        self,
        foreign: np.ndarray,
        weight: np.ndarray,
        balls: list[FoundBall],
        region: Rect,
        covers: list[tuple[float, float, float]] | None = None,
    ) -> list[Leftover]:
        """The streaks (blurred balls) and occluders among the foreign pixels of one region of
        the working grid that no ball's disc explains.

        Args:
            foreign: The whole grid's foreign mask.
            weight: The whole grid's foreign weight.
            balls: Every ball of the frame (those near the region cover part of it).
            region: Where to look.
            covers: The balls' `covers`, when at hand (a frame read in several regions).
        """
        x0, y0, x1, y1 = region
        # The foreign pixels less the balls' discs (drawn over a copy).
        leftover = foreign[y0:y1, x0:x1].copy()
        for cx, cy, r in self.covers(balls) if covers is None else covers:
            if cx + r < x0 or cx - r >= x1 or cy + r < y0 or cy - r >= y1:
                continue
            centre = (round((cx - x0) * 16), round((cy - y0) * 16))
            cv2.circle(leftover, centre, round(r * 16), 0, -1, cv2.LINE_8, 4)
        if not cv2.countNonZero(leftover):
            return []  # every foreign pixel is a ball's
        leftover = cv2.morphologyEx(leftover, cv2.MORPH_OPEN, _OPEN)
        count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            leftover, 8, cv2.CV_32S, cv2.CCL_GRANA
        )
        h, w = self._radius_small.shape
        out: list[Leftover] = []
        for i in range(1, count):
            area = stats[i, cv2.CC_STAT_AREA]
            sx, sy, bw, bh = (int(stats[i, k]) for k in range(4))
            gx, gy = x0 + sx, y0 + sy
            r = float(self._radius_small[min(gy + bh // 2, h - 1), min(gx + bw // 2, w - 1)])
            ball_area = math.pi * r * r
            if area < 0.35 * ball_area:
                continue
            sub = (labels[sy : sy + bh, sx : sx + bw] == i).astype(np.float32)
            rect = (gx, gy, gx + bw, gy + bh)
            streak = self.streaks.streak(sub * weight[gy : gy + bh, gx : gx + bw], (gx, gy), r)
            if streak is not None:
                out.append(Leftover(rect, streak=streak))
            elif area >= self.occluder_min_balls * ball_area:
                polygons = tuple(self.polygons(sub, (gx, gy)))
                out.append(Leftover(rect, polygons=polygons, mask=(sub > 0).astype(np.uint8)))
        return out

    def covers(self, balls: list[FoundBall]) -> list[tuple[float, float, float]]:
        """The discs the balls cover on the working grid: x, y and a radius a quarter more
        than the ball's (for its shaded rim)."""
        half = (SCALE - 1) / 2
        return [
            (
                (float(b.centre_px[0]) - half) / SCALE,
                (float(b.centre_px[1]) - half) / SCALE,
                b.radius_px / SCALE * 1.25,
            )
            for b in balls
        ]

    def unoccluded(
        self, balls: list[FoundBall], leftovers: list[Leftover], shape: tuple[int, int]
    ) -> list[FoundBall]:
        """The balls less the weak ones on or beside an occluder (a hand's knuckles, a cue's
        tip); ``shape``: the working grid's (h, w)."""
        occluders = [lo for lo in leftovers if lo.mask is not None]
        if not occluders:
            return balls
        grid = np.zeros(shape, dtype=np.uint8)
        for lo in occluders:
            x0, y0, x1, y1 = lo.rect
            grid[y0:y1, x0:x1] |= lo.mask
        reach = math.ceil(float(self._radius_small.max()) * 1.3)
        near = cv2.dilate(grid, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
        return [
            b for b in balls if b.support >= 0.8 or not on(near, self.view.to_working(b.centre_px))
        ]

    def polygons(self, mask: np.ndarray, origin: tuple[int, int]) -> list[Polygon]:
        """The outlines of a working-grid mask patch as polygons in table mm (on the cloth)."""
        contours, _ = cv2.findContours(
            (mask > 0).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
        )
        out: list[Polygon] = []
        for contour in contours:
            approx = cv2.approxPolyDP(contour, 1.5, True).reshape(-1, 2).astype(np.float64)
            if len(approx) < 3:
                continue
            px = self.view.to_full(approx + np.array(origin))
            mm = self.camera.to_table(px, 0.0)
            out.append(tuple((float(x), float(y)) for x, y in mm))
        return out


def _disc_means(grid: np.ndarray, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Mean of a grid's values over each disc (its pixels within the radius of the centre,
    on the grid), 0 for a disc with none, (n,)."""
    span = math.ceil(2 * float(radii.max())) + 3 if len(radii) else 0
    return _disc_means_of(
        np.ascontiguousarray(grid, dtype=np.float32),
        np.ascontiguousarray(centres, dtype=np.float64).reshape(-1, 2),
        np.ascontiguousarray(radii, dtype=np.float64),
        span,
    )


@njit(cache=True, nogil=True)
def _disc_means_of(
    grid: np.ndarray, centres: np.ndarray, radii: np.ndarray, span: int
) -> np.ndarray:
    """`_disc_means` in one compiled loop: each disc's square of ``span`` pixels from the
    floor of its corner, the values summed in float64 in numpy's pairwise order (so the means
    are the array expressions' to the bit)."""
    h, w = grid.shape
    n = len(radii)
    out = np.zeros(n)
    values = np.empty(span * span)
    for i in range(n):
        cx, cy, r = centres[i, 0], centres[i, 1], radii[i]
        x0, y0 = math.floor(cx - r), math.floor(cy - r)
        count = 0
        for a in range(span):
            y = y0 + a
            dy2 = (y - cy) ** 2
            for b in range(span):
                x = x0 + b
                inside = dy2 + (x - cx) ** 2 <= r**2 and 0 <= y < h and 0 <= x < w
                v = grid[min(max(y, 0), h - 1), min(max(x, 0), w - 1)]
                values[a * span + b] = np.float64(v) if inside else 0.0
                count += inside
        if count > 0:
            out[i] = pairwise_sum(values, 0, span * span) / count
    return out


def warm() -> None:
    """Compile (or load) this module's loops on a tiny input (`vision.warm`)."""
    _disc_means(np.ones((8, 8), np.float32), np.array([[4.0, 4.0]]), np.array([2.0]))


def occluder_area_mm2(polygons: tuple[Polygon, ...]) -> float:
    """Total area of occluder polygons, mm^2 (for reports and tests)."""
    total = 0.0
    for poly in polygons:
        pts = np.array(poly)
        x, y = pts[:, 0], pts[:, 1]
        total += 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))
    return total
