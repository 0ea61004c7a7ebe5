"""The ball detector: one frame -> `Detections` in table millimetres with identities.

Per calibration (once): the working grid's table coordinates, the mask of where ball pixels can
be (inside the cushion noses and in the pockets' mouths), the expected ball radius at every place
and the empty cloth the colour model predicts (`vision.table_view`).

Per frame:
1. A half-resolution copy is compared with the predicted cloth: a pixel is foreign where its
   colour leaves the cloth's (after allowing for a brightness gain, so shadows and the light's
   fall-off stay cloth) or is far brighter or darker than any shade of cloth.
2. Edge pixels vote one expected radius away along their colour gradient; peaks are candidate
   centres (`vision.circles`). Only the changed part of the frame is searched when little
   changed (the previous frame's balls are kept where nothing moved).
3. Each candidate is fitted at full resolution to a sub-pixel centre and checked: enough of its
   outline must be there, at about the expected radius.
4. What the foreign mask holds that no ball explains is a motion-blur streak (a capsule about a
   ball wide: its middle is the mid-exposure centre, its length the travel) or an occluder
   (anything else big: an arm, a cue), reported as polygons in table mm.
5. Identity from colour (`vision.identity`), then the frame-wide assignment.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from calibration.colour import (
    ColourModel,
    ball_pixels,
    default_colour_model,
    disc_pixels,
    measure_cloth,
)
from calibration.file import Calibration
from rules.balls import BALL_RADIUS_MM
from rules.errors import RailbirdError
from rules.table import Point
from vision import circles, identity
from vision.detections import Detections, Polygon
from vision.table_view import SCALE, TableView

log = logging.getLogger(__name__)

_STREAK_GAIN = 1.08


class FrameError(RailbirdError, ValueError):
    """A frame the detector cannot use (wrong size, not a colour image)."""


class FrameLike(Protocol):
    """What the detector needs of a frame (`hardware.frames.Frame` fits)."""

    index: int
    time: float
    image: np.ndarray


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """Ball-finding settings.

    Attributes:
        edge_threshold: Colour-gradient magnitude (Sobel, summed over channels) of an edge pixel
            on the half-resolution image.
        vote_fraction: Share of a full outline's votes a candidate centre needs.
        min_support: Share of the outline a fitted ball must show (a ball half under a cue
            still shows about half).
        radius_tolerance: How far the fitted radius may stray from the expected one (fraction).
        chroma_threshold: Colour departure from the cloth (relative, after a brightness gain)
            that makes a pixel foreign.
        bright_gain: A pixel this much brighter than the cloth there is foreign.
        dark_gain: A pixel darker than this fraction of the cloth there is foreign (shadows
            stay above it).
        occluder_min_balls: A foreign region no ball explains, at least this many ball areas
            big, is an occluder.
        exposure_s: The camera's shutter time (motion blur length -> speed).
        min_streak_mm: A streak shorter than this is reported as a ball at rest.
        change_threshold: Sum over B, G, R of the change of a half-resolution pixel since the
            previous frame that makes it changed (above sensor noise and compression).
    """

    edge_threshold: float = 90.0
    vote_fraction: float = 0.1
    min_support: float = 0.45
    radius_tolerance: float = 0.22
    chroma_threshold: float = 0.11
    bright_gain: float = 1.3
    dark_gain: float = 0.38
    occluder_min_balls: float = 2.5
    exposure_s: float = 1 / 120
    min_streak_mm: float = 14.0
    change_threshold: float = 36.0


@dataclass(frozen=True, slots=True)
class _Ball:
    centre_px: np.ndarray
    radius_px: float
    support: float
    residual: float
    blur_mm: np.ndarray | None = None  # streak travel (dx, dy) over the exposure, table mm
    like: np.ndarray | None = None  # identity likelihoods (16,), kept while the ball rests


class BallDetector:
    """Finds the balls in frames from one calibrated camera.

    Args:
        calibration: The camera over the table.
        config: Settings; defaults when None.
        colours: The colour model; when None the calibration's, else the default model (with
            the calibration's cloth colour), its cloth shading then measured from the first
            frame.
    """

    def __init__(
        self,
        calibration: Calibration,
        config: DetectorConfig | None = None,
        colours: ColourModel | None = None,
    ) -> None:
        self.calibration = calibration
        self.config = config or DetectorConfig()
        self.colours = colours or calibration.colour or default_colour_model(calibration.cloth_lab)
        self.view = TableView(calibration.camera, calibration.table, self.colours)
        self._set_cloth(self.view.cloth)
        self._bed = (self.view.bed > 0).astype(np.float32)
        w, h = self.view.size
        self._vote_min = (
            self.config.vote_fraction * 2 * math.pi * self.view.radius / SCALE
        ).astype(np.float32)
        self._radius_small = (self.view.radius / SCALE).astype(np.float32)
        self._roi_edges = cv2.dilate(self.view.roi, np.ones((3, 3), np.uint8))
        self._previous: Detections | None = None
        self._last_small: np.ndarray | None = None
        self._balls: list[_Ball] = []
        self._mask = np.zeros((h, w), dtype=np.uint8)
        self._weight = np.zeros((h, w), dtype=np.float32)

    # The frame ---------------------------------------------------------------------------------

    def detect(
        self, frame: FrameLike | np.ndarray, index: int = 0, time: float = 0.0
    ) -> Detections:
        """The balls in one frame.

        Args:
            frame: A `Frame` (index, time, BGR image) or a bare BGR image.
            index: Frame index when ``frame`` is a bare image.
            time: Session seconds when ``frame`` is a bare image.

        Raises:
            FrameError: the frame is not an HxWx3 uint8 image of the calibration's size.
        """
        if isinstance(frame, np.ndarray):
            image = frame
        else:
            image, index, time = frame.image, frame.index, frame.time
        image = self._check(image, index)
        small = cv2.resize(image, self.view.size, interpolation=cv2.INTER_AREA)
        if self._cloth is None:
            self._learn_cloth(image, index)
            if self._cloth is None:
                return Detections.empty(index, time)
        rects = self._changed(small)
        if not rects and self._previous is not None:
            # Nothing moved: the balls, their names and the occluders are as they were.
            return self._restamp(self._previous, index, time)
        if not rects:
            rects = [(0, 0, *self.view.size)]
        for x0, y0, x1, y1 in rects:
            mask, weight = self._foreign(small[y0:y1, x0:x1], (x0, y0, x1, y1))
            self._mask[y0:y1, x0:x1] = mask
            self._weight[y0:y1, x0:x1] = weight
        self._last_small = small
        if self._no_cloth(self._mask):
            log.warning("frame %d: the table's cloth is not visible; no balls reported", index)
            self._balls = []
            self._previous = None
            return Detections.empty(index, time)
        kept = [
            b
            for b in self._balls
            if not any(_inside(self.view.to_working(b.centre_px), r) for r in rects)
        ]
        candidates = []
        for rect in rects:
            x0, y0, x1, y1 = rect
            for start, r in self._candidates(small[y0:y1, x0:x1], rect):
                if _inside(self.view.to_working(start), rect) and not any(
                    np.hypot(*(start - s)) < 1.2 * r for s, _ in candidates
                ):
                    candidates.append((start, r))
        found = self._circles(image, candidates)
        found = [
            b for b in found if any(_inside(self.view.to_working(b.centre_px), r) for r in rects)
        ]
        found = [
            b
            for rect in rects
            for b in self._deblur(
                [b for b in found if _inside(self.view.to_working(b.centre_px), rect)], rect
            )
        ]
        balls, leftover = self._explain(self._mask, self._weight, kept + found)
        balls, streaks, occluded = self._leftovers(leftover, self._weight, balls)
        balls = self._named(image, balls + streaks)
        self._balls = [b for b in balls if b.blur_mm is None]
        detections = self._detections(index, time, balls, occluded)
        self._previous = detections
        return detections

    def reset(self) -> None:
        """Forget the previous frame (the next frame is searched whole)."""
        self._last_small = None
        self._previous = None
        self._balls = []

    def _changed(self, small: np.ndarray) -> list[tuple[int, int, int, int]]:
        """Working-grid rectangles (x0, y0, x1, y1) around what changed since the last frame,
        one per separate change (three balls rolling apart give three small rectangles);
        empty when nothing did; the whole grid for the first frame."""
        if self._last_small is None:
            return [(0, 0, *self.view.size)]
        diff = cv2.transform(cv2.absdiff(small, self._last_small), np.ones((1, 3), np.float32))
        changed = cv2.compare(diff, self.config.change_threshold, cv2.CMP_GT)
        changed = cv2.bitwise_and(changed, self.view.roi)
        if cv2.countNonZero(changed) < 3:
            return []
        pad = math.ceil(2.5 * float(self._radius_small.max())) + 4
        contours, _ = cv2.findContours(changed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        gw, gh = self.view.size
        rects = []
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            rects.append(
                (max(x - pad, 0), max(y - pad, 0), min(x + w + pad, gw), min(y + h + pad, gh))
            )
        rects = _merge(rects)
        if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in rects) > 0.6 * gw * gh:
            return [(0, 0, gw, gh)]  # most of the table changed: one search is cheaper
        return rects

    @staticmethod
    def _restamp(previous: Detections, index: int, time: float) -> Detections:
        return Detections(
            index,
            time,
            previous.positions,
            previous.sigma,
            previous.identity,
            previous.radius_px,
            previous.blur_velocity,
            previous.confidence,
            previous.occluded,
        )

    def _check(self, image: np.ndarray, index: int) -> np.ndarray:
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3:
            shape = getattr(image, "shape", None)
            raise FrameError(f"frame {index}: want an HxWx3 BGR image, got shape {shape}")
        if image.dtype != np.uint8:
            raise FrameError(f"frame {index}: want uint8 pixels, got {image.dtype}")
        size = (image.shape[1], image.shape[0])
        if size != tuple(self.calibration.image_size):
            cw, ch = self.calibration.image_size
            raise FrameError(
                f"frame {index}: {size[0]}x{size[1]} pixels, but the calibration is for "
                f"{cw}x{ch}: recalibrate for this camera mode"
            )
        return image

    def _learn_cloth(self, image: np.ndarray, index: int) -> None:
        try:
            cal = self.calibration
            cloth_lab, shading = measure_cloth(image, cal.camera, cal.table)
        except RailbirdError as exc:
            log.warning("frame %d: cannot measure the cloth yet: %s", index, exc)
            return
        model = ColourModel(cloth_lab, (), self.colours.balls, self.colours.white_lab, "measured")
        self.colours = model.with_shading(shading)
        self._set_cloth(self.view.predict_cloth(self.colours))

    def _set_cloth(self, cloth: np.ndarray | None) -> None:
        self._cloth = cloth
        if cloth is not None:
            self._inv_bb = 1.0 / ((cloth * cloth).sum(axis=2) + 1.0)
            self._cloth_level = float(np.median(cloth[self.view.bed > 0].max(axis=1)))

    # Foreign pixels ----------------------------------------------------------------------------

    def _foreign(
        self, small: np.ndarray, rect: tuple[int, int, int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Mask (uint8) and soft weight (float32 0-1) of pixels that are not cloth."""
        cfg = self.config
        x0, y0, x1, y1 = rect
        cloth = self._cloth[y0:y1, x0:x1]
        inv_bb = self._inv_bb[y0:y1, x0:x1]
        img = small.astype(np.float32)
        ones = np.ones((1, 3), np.float32)
        # With g the best brightness gain fitting the pixel to the cloth, the colour departure
        # |img - g cloth|^2 / |cloth|^2 = |img|^2 / |cloth|^2 - g^2.
        gain = cv2.transform(img * cloth, ones) * inv_bb
        chroma = np.sqrt(np.maximum(cv2.transform(img * img, ones) * inv_bb - gain * gain, 0))
        weight = cv2.max(
            chroma * (1.0 / cfg.chroma_threshold),
            cv2.max(
                (gain - 1.0) * (1.0 / (cfg.bright_gain - 1.0)),
                (1.0 - gain) * (1.0 / (1.0 - cfg.dark_gain)),
            ),
        )
        # Foreign from a score of 1 (the thresholds); the soft weight starts a little below.
        weight = np.clip((weight - 0.6) * 2.5, 0.0, 1.0) * self._bed[y0:y1, x0:x1]
        mask = (weight >= 0.999).astype(np.uint8) * 255
        return mask, weight

    def _no_cloth(self, foreign: np.ndarray) -> bool:
        inside = np.count_nonzero(self.view.bed)
        return inside == 0 or np.count_nonzero(foreign) > 0.85 * inside

    # Balls -------------------------------------------------------------------------------------

    def _candidates(
        self, small: np.ndarray, rect: tuple[int, int, int, int]
    ) -> list[tuple[np.ndarray, float]]:
        """Candidate centres (full-resolution pixels) and expected radii within a rectangle."""
        cfg = self.config
        x0, y0, x1, y1 = rect
        ys, xs, cos, sin, _ = circles.edge_directions(
            small, self._roi_edges[y0:y1, x0:x1], cfg.edge_threshold
        )
        radius = self._radius_small[y0:y1, x0:x1]
        acc = circles.vote(small.shape[:2], ys, xs, cos, sin, radius)
        out: list[tuple[np.ndarray, float]] = []
        for px, py in circles.peaks(acc, self._vote_min[y0:y1, x0:x1], 5):
            x, y = int(px + x0), int(py + y0)
            if self.view.roi[y, x] == 0:
                continue
            start = self.view.to_full(np.array((px + x0, py + y0)))
            r = float(self.view.radius[y, x])
            if any(np.hypot(*(s - start)) < 1.2 * r for s, _ in out):
                continue
            out.append((start, r))
        return out

    def _circles(
        self, image: np.ndarray, candidates: list[tuple[np.ndarray, float]]
    ) -> list[_Ball]:
        """Fit all candidates at once and keep the ones that are balls."""
        cfg = self.config
        if not candidates:
            return []
        starts = [s for s, _ in candidates]
        expected = [r for _, r in candidates]
        found: list[_Ball] = []
        fits = circles.fit_circles(
            image, np.array(starts), np.array(expected), allowed=self.view.outline
        )
        for start, fit in zip(starts, fits, strict=True):
            r = fit.expected
            if fit.support < cfg.min_support:
                continue
            if abs(fit.radius / r - 1.0) > cfg.radius_tolerance:
                continue
            if np.hypot(*(fit.centre - start)) > 0.6 * r:
                continue
            if any(np.hypot(*(b.centre_px - fit.centre)) < 1.5 * b.radius_px for b in found):
                continue
            if not _on(self.view.bed, self.view.to_working(fit.centre)) and not self._lit(
                image, fit.centre, r
            ):
                continue  # the dark hole of a pocket, not a ball in its jaws
            found.append(_Ball(fit.centre, fit.radius, fit.support, fit.residual))
        return found

    def _lit(self, image: np.ndarray, centre: np.ndarray, radius: float) -> bool:
        """Whether a disc has the light of a ball (a highlight at least), not a pocket's dark."""
        r = max(int(radius * 0.7), 1)
        x, y = round(float(centre[0])), round(float(centre[1]))
        patch = image[max(y - r, 0) : y + r + 1, max(x - r, 0) : x + r + 1]
        if patch.size == 0:
            return False
        return float(np.percentile(patch.max(axis=2), 90)) > 0.6 * self._cloth_level

    def _deblur(self, balls: list[_Ball], rect: tuple[int, int, int, int]) -> list[_Ball]:
        """Balls whose foreign blob, theirs alone, is drawn out into a streak: the blob's middle
        is the centre at mid-exposure and its length the travel over the exposure."""
        x0, y0, x1, y1 = rect
        _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            np.ascontiguousarray(self._mask[y0:y1, x0:x1]), 8, cv2.CV_32S, cv2.CCL_GRANA
        )
        owners: dict[int, list[int]] = {}
        for i, b in enumerate(balls):
            # The component most of the ball's disc lies in (its centre may be a highlight).
            c = self.view.to_working(b.centre_px) - (x0, y0)
            reach = max(int(0.6 * b.radius_px / SCALE), 1)
            ix, iy = round(float(c[0])), round(float(c[1]))
            patch = labels[max(iy - reach, 0) : iy + reach + 1, max(ix - reach, 0) : ix + reach + 1]
            counts = np.bincount(patch.ravel())
            counts[0] = 0
            if counts.size > 1 and counts.max() > 0:
                owners.setdefault(int(np.argmax(counts)), []).append(i)
        out = list(balls)
        for label, members in owners.items():
            if len(members) != 1:
                continue
            b = balls[members[0]]
            sx, sy, sw, sh = (int(v) for v in stats[label, :4])
            r = b.radius_px / SCALE
            if max(sw, sh) < 2 * r + 2.5:
                continue  # round: a ball at rest (or too slow to tell)
            bx0, by0 = max(x0 + sx - 1, 0), max(y0 + sy - 1, 0)
            if (self.view.bed[by0 : y0 + sy + sh + 1, bx0 : x0 + sx + sw + 1] == 0).any():
                continue  # cut by a cushion: its shape says nothing of motion
            inside = labels[sy : sy + sh, sx : sx + sw] == label
            w = inside * self._weight[y0 + sy : y0 + sy + sh, x0 + sx : x0 + sx + sw]
            streak = self._streak(w, (x0 + sx, y0 + sy), r)
            if streak is None or streak.blur_mm is None:
                continue
            half_travel_px = 0.5 * np.hypot(*streak.blur_mm) / (BALL_RADIUS_MM / b.radius_px)
            if np.hypot(*(streak.centre_px - b.centre_px)) > half_travel_px + 0.3 * b.radius_px:
                continue  # the outline fitted is not on this streak's axis: not one ball's blur
            out[members[0]] = dataclasses.replace(
                b, centre_px=streak.centre_px, blur_mm=streak.blur_mm, support=min(b.support, 0.9)
            )
        return out

    def _explain(
        self, foreign: np.ndarray, weight: np.ndarray, balls: list[_Ball]
    ) -> tuple[list[_Ball], np.ndarray]:
        """Drop balls with hardly any foreign pixels; return the foreign pixels left over."""
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

    def _leftovers(
        self, leftover: np.ndarray, weight: np.ndarray, balls: list[_Ball]
    ) -> tuple[list[_Ball], list[_Ball], tuple[Polygon, ...]]:
        """Streaks (blurred balls) and occluders among the foreign pixels no ball explains;
        and the balls, less the weak ones on an occluder (a hand's knuckles, a cue's tip)."""
        cfg = self.config
        count, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            leftover, 8, cv2.CV_32S, cv2.CCL_GRANA
        )
        streaks: list[_Ball] = []
        polygons: list[Polygon] = []
        occluders = np.zeros(leftover.shape, dtype=np.uint8)
        for i in range(1, count):
            area = stats[i, cv2.CC_STAT_AREA]
            x0, y0, bw, bh = (stats[i, k] for k in range(4))
            cx, cy = x0 + bw // 2, y0 + bh // 2
            h, w = leftover.shape
            r = float(self._radius_small[min(cy, h - 1), min(cx, w - 1)])
            ball_area = math.pi * r * r
            if area < 0.35 * ball_area:
                continue
            sub = (labels[y0 : y0 + bh, x0 : x0 + bw] == i).astype(np.float32)
            streak = self._streak(sub * weight[y0 : y0 + bh, x0 : x0 + bw], (x0, y0), r)
            if streak is not None:
                streaks.append(streak)
            elif area >= cfg.occluder_min_balls * ball_area:
                polygons.extend(self._polygons(sub, (x0, y0)))
                occluders[y0 : y0 + bh, x0 : x0 + bw] |= (sub > 0).astype(np.uint8)
        if polygons:
            reach = math.ceil(float(self._radius_small.max()) * 1.3)
            near = cv2.dilate(occluders, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
            balls = [
                b
                for b in balls
                if b.support >= 0.8 or not _on(near, self.view.to_working(b.centre_px))
            ]
        return balls, streaks, tuple(polygons)

    def _streak(self, w: np.ndarray, origin: tuple[int, int], r: float) -> _Ball | None:
        """A capsule about a ball wide: a ball blurred by its motion over the exposure."""
        total = float(w.sum())
        if total <= 0:
            return None
        ys, xs = np.mgrid[0 : w.shape[0], 0 : w.shape[1]]
        mx, my = float((w * xs).sum() / total), float((w * ys).sum() / total)
        dx, dy = xs - mx, ys - my
        cov = (
            np.array(
                [
                    [(w * dx * dx).sum(), (w * dx * dy).sum()],
                    [(w * dx * dy).sum(), (w * dy * dy).sum()],
                ]
            )
            / total
        )
        evals, evecs = np.linalg.eigh(cov)
        minor, major = max(evals[0], 0.0), max(evals[1], 0.0)
        # A disc of radius r has variance r^2/4 along any axis; a capsule adds l^2/12 along it.
        if not 0.12 * r * r < minor < 0.5 * r * r:
            return None
        axis = evecs[:, 1]
        # The streak's extent along its axis is the travel plus one ball diameter.
        # Along it, the coverage falls off over the travel at each end; the faint ends are cut
        # by the foreign threshold, measured at a low level of it and scaled back.
        faint = w >= 0.05
        along = (dx[faint] * axis[0] + dy[faint] * axis[1]) if faint.any() else np.zeros(1)
        extent = float(along.max() - along.min()) + 1.0
        length = max(extent - 2.0 * r, 0.0) * _STREAK_GAIN if major > minor * 1.15 else 0.0
        log.debug("streak extent %.2f r %.2f var %.2f %.2f", extent, r, major, minor)
        if length > 14 * r or total < 0.5 * math.pi * r * r * 0.6:
            return None
        centre_small = np.array((mx + origin[0], my + origin[1]))
        centre = self.view.to_full(centre_small)
        ends_px = np.array([centre + axis * length * SCALE / 2, centre - axis * length * SCALE / 2])
        ends = self.calibration.camera.to_table(ends_px, BALL_RADIUS_MM)
        travel = ends[0] - ends[1]
        expected = float(self.view.radius[int(centre_small[1]), int(centre_small[0])])
        if np.hypot(*travel) < self.config.min_streak_mm:
            travel = None
        return _Ball(centre, expected, 0.6, 1.0, travel)

    def _polygons(self, mask: np.ndarray, origin: tuple[int, int]) -> list[Polygon]:
        contours, _ = cv2.findContours(
            (mask > 0).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
        )
        out: list[Polygon] = []
        for contour in contours:
            approx = cv2.approxPolyDP(contour, 1.5, True).reshape(-1, 2).astype(np.float64)
            if len(approx) < 3:
                continue
            px = self.view.to_full(approx + np.array(origin))
            mm = self.calibration.camera.to_table(px, 0.0)
            out.append(tuple((float(x), float(y)) for x, y in mm))
        return out

    # Output ------------------------------------------------------------------------------------

    def _named(self, image: np.ndarray, balls: list[_Ball]) -> list[_Ball]:
        """Balls with their colour evidence (measured once while a ball rests)."""
        out = []
        for b in balls:
            if b.like is None:
                disc, ring = _disc_lab(image, b.centre_px, b.radius_px)
                like = identity.likelihoods(ball_pixels(disc), self.colours, ball_pixels(ring))
                b = dataclasses.replace(b, like=like)
            out.append(b)
        return out

    def _detections(
        self,
        index: int,
        time: float,
        balls: list[_Ball],
        occluded: tuple[Polygon, ...],
    ) -> Detections:
        if not balls:
            return Detections.empty(index, time, occluded)
        camera = self.calibration.camera
        centres = np.array([b.centre_px for b in balls])
        positions = camera.to_table(centres, BALL_RADIUS_MM)
        mm_per_px = np.array([BALL_RADIUS_MM / b.radius_px for b in balls])
        residual = np.array([min(b.residual, 3.0) for b in balls])
        support = np.array([b.support for b in balls])
        spread = residual / np.sqrt(np.maximum(support * 48, 1))
        sigma = np.maximum(0.4, mm_per_px * (0.25 + spread))
        blur = np.full((len(balls), 2), np.nan)
        for i, b in enumerate(balls):
            if b.blur_mm is not None:
                blur[i] = self._signed(b.blur_mm, positions[i]) / self.config.exposure_s
                sigma[i] = max(sigma[i], float(np.hypot(*b.blur_mm)) / 6)
        confidence = np.clip(0.5 + 0.5 * (support - 0.4) / 0.5, 0.05, 0.999)
        like = np.array([b.like for b in balls])
        prob = identity.probabilities(like)
        prob[~np.isnan(blur[:, 0])] *= 0.6  # a streak's colours are mixed with the cloth's
        _, prob = identity.assign(prob, confidence)
        return Detections(
            frame=index,
            time=time,
            positions=positions,
            sigma=sigma,
            identity=prob,
            radius_px=np.array([b.radius_px for b in balls]),
            blur_velocity=blur,
            confidence=confidence,
            occluded=occluded,
        )

    def _signed(self, travel: np.ndarray, position: np.ndarray) -> np.ndarray:
        """A streak does not say which way the ball went; the previous frame usually does."""
        prev = self._previous
        if prev is None or len(prev) == 0:
            return travel
        d = prev.positions - position
        nearest = int(np.argmin(np.hypot(d[:, 0], d[:, 1])))
        came_from = prev.positions[nearest] - position
        return -travel if float(np.dot(came_from, travel)) > 0 else travel


def _merge(rects: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Overlapping rectangles merged into their bounding rectangles, until none overlap."""
    out = list(rects)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def _on(mask: np.ndarray, p: np.ndarray) -> bool:
    ix, iy = round(float(p[0])), round(float(p[1]))
    return 0 <= iy < mask.shape[0] and 0 <= ix < mask.shape[1] and bool(mask[iy, ix])


def _inside(p: np.ndarray, rect: tuple[int, int, int, int]) -> bool:
    return rect[0] <= p[0] < rect[2] and rect[1] <= p[1] < rect[3]


def _disc_lab(
    image: np.ndarray, centre: np.ndarray, radius: float
) -> tuple[np.ndarray, np.ndarray]:
    """A ball's Lab pixels: its disc (rim left out) and the ring just inside its rim."""
    h, w = image.shape[:2]
    r = math.ceil(radius) + 1
    x0, y0 = max(int(centre[0]) - r, 0), max(int(centre[1]) - r, 0)
    x1, y1 = min(int(centre[0]) + r + 1, w), min(int(centre[1]) + r + 1, h)
    patch = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB)
    c = centre - (x0, y0)
    return disc_pixels(patch, c, radius), disc_pixels(patch, c, radius, 0.97, 0.7)


def occluder_area_mm2(polygons: tuple[Polygon, ...]) -> float:
    """Total area of occluder polygons, mm^2 (for reports and tests)."""
    total = 0.0
    for poly in polygons:
        pts = np.array(poly)
        x, y = pts[:, 0], pts[:, 1]
        total += 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))
    return total


__all__ = ["BallDetector", "DetectorConfig", "FrameError", "Point", "occluder_area_mm2"]
