"""Occluders and the foreign pixels no ball explains.

What the foreign mask holds beyond the balls' discs is either a streak (a ball blurred into a
capsule, `vision.streaks`) or, when it is big, something over the table that is neither cloth nor
ball: an arm, a cue, a bridge. Occluders are reported as polygons in table mm so the tracker knows
a ball may be hidden there rather than gone; a weakly supported ball on one (a knuckle, a cue's
tip) is dropped.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.camera import CameraModel
from vision.detections import Polygon
from vision.found import FoundBall
from vision.regions import on
from vision.streaks import StreakReader
from vision.table_view import SCALE, TableView


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

    def explain(
        self, foreign: np.ndarray, weight: np.ndarray, balls: list[FoundBall]
    ) -> tuple[list[FoundBall], np.ndarray]:
        """Drop new balls with hardly any foreign pixels; return the foreign pixels left over."""
        h, w = foreign.shape
        covered = np.zeros((h, w), dtype=np.uint8)
        kept = []
        for b in balls:
            c = self.view.to_working(b.centre_px)
            r = b.radius_px / SCALE * 1.25
            if b.like is None:  # a new ball: it must cover foreign pixels (or be very round)
                x0, y0 = max(int(c[0] - r), 0), max(int(c[1] - r), 0)
                x1, y1 = min(int(c[0] + r) + 2, w), min(int(c[1] + r) + 2, h)
                yy, xx = np.ogrid[y0:y1, x0:x1]
                disc = (xx - c[0]) ** 2 + (yy - c[1]) ** 2 <= r * r
                cover = float(weight[y0:y1, x0:x1][disc].mean()) if disc.any() else 0.0
                if cover < 0.25 and b.support < 0.8:
                    continue
            kept.append(b)
            centre = (round(float(c[0]) * 16), round(float(c[1]) * 16))
            cv2.circle(covered, centre, round(r * 16), 255, -1, cv2.LINE_8, 4)
        leftover = cv2.bitwise_and(foreign, cv2.bitwise_not(covered))
        leftover = cv2.morphologyEx(leftover, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        return kept, leftover

    def leftovers(
        self, leftover: np.ndarray, weight: np.ndarray, balls: list[FoundBall]
    ) -> tuple[list[FoundBall], list[FoundBall], tuple[Polygon, ...]]:
        """Streaks (blurred balls) and occluders among the foreign pixels no ball explains;
        and the balls, less the weak ones on an occluder (a hand's knuckles, a cue's tip)."""
        count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            leftover, 8, cv2.CV_32S, cv2.CCL_GRANA
        )
        streaks: list[FoundBall] = []
        polygons: list[Polygon] = []
        occluders = np.zeros(leftover.shape, dtype=np.uint8)
        h, w = leftover.shape
        for i in range(1, count):
            area = stats[i, cv2.CC_STAT_AREA]
            x0, y0, bw, bh = (stats[i, k] for k in range(4))
            cx, cy = x0 + bw // 2, y0 + bh // 2
            r = float(self._radius_small[min(cy, h - 1), min(cx, w - 1)])
            ball_area = math.pi * r * r
            if area < 0.35 * ball_area:
                continue
            sub = (labels[y0 : y0 + bh, x0 : x0 + bw] == i).astype(np.float32)
            streak = self.streaks.streak(sub * weight[y0 : y0 + bh, x0 : x0 + bw], (x0, y0), r)
            if streak is not None:
                streaks.append(streak)
            elif area >= self.occluder_min_balls * ball_area:
                polygons.extend(self.polygons(sub, (x0, y0)))
                occluders[y0 : y0 + bh, x0 : x0 + bw] |= (sub > 0).astype(np.uint8)
        if polygons:
            reach = math.ceil(float(self._radius_small.max()) * 1.3)
            near = cv2.dilate(occluders, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
            balls = [
                b
                for b in balls
                if b.support >= 0.8 or not on(near, self.view.to_working(b.centre_px))
            ]
        return balls, streaks, tuple(polygons)

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


def occluder_area_mm2(polygons: tuple[Polygon, ...]) -> float:
    """Total area of occluder polygons, mm^2 (for reports and tests)."""
    total = 0.0
    for poly in polygons:
        pts = np.array(poly)
        x, y = pts[:, 0], pts[:, 1]
        total += 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))
    return total
