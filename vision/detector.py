"""The ball detector: one frame -> `Detections` in table millimetres with identities.

Per calibration (once): the working grid's table coordinates, the mask of where ball pixels can
be (inside the cushion noses and in the pockets' mouths), the expected ball radius at every place
and the empty cloth the colour model predicts (`vision.table_view`).

Per frame:
1. A half-resolution copy is compared with the predicted cloth (`vision.foreign`): a pixel is
   foreign where its colour leaves the cloth's (after allowing for a brightness gain, so shadows
   and the light's fall-off stay cloth) or is far brighter or darker than any shade of cloth.
2. Edge pixels vote one expected radius away along their colour gradient; peaks are candidate
   centres (`vision.circles`). Only the changed part of the frame is searched when little
   changed (the previous frame's balls are kept where nothing moved, `vision.regions`).
3. Each candidate is fitted at full resolution to a sub-pixel centre and checked: enough of its
   outline must be there, at about the expected radius.
4. What the foreign mask holds that no ball explains is a motion-blur streak (a capsule about a
   ball wide: its middle is the mid-exposure centre, its length the travel) or an occluder
   (anything else big: an arm, a cue), reported as polygons in table mm (`vision.streaks`,
   `vision.occluders`).
5. Identity from colour (`vision.identity`), then the frame-wide assignment.

The loops over pixels and over balls (the change mask, the foreign test, the edge votes and
their peaks, the outline fit, the colour tallies and likelihoods, small geometry) are compiled
with numba, each the same arithmetic as the array expressions it replaced: a rolling frame was
a couple of thousand small numpy steps, each costing more to set up than its arithmetic. They
are made ready when the first detector is built (`vision.warm`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from calibration.colour import ColourModel, default_colour_model, measure_cloth
from calibration.file import Calibration
from rules.balls import BALL_RADIUS_MM, BallId
from rules.errors import RailbirdError
from rules.table import Point
from vision import circles, identity
from vision.apart import apart
from vision.detections import BALL_ORDER, Detections, Polygon
from vision.discs import disc_arrays
from vision.foreign import ClothContrast
from vision.found import FoundBall
from vision.occluders import Leftover, LeftoverReader, occluder_area_mm2
from vision.regions import Rect, changed_pixels, changed_rects, inside, merge, on, overlaps
from vision.streaks import StreakReader, signed
from vision.table_view import SCALE, TableView
from vision.votes import edge_votes
from vision.warm import warm_up

log = logging.getLogger(__name__)

LOST_LOOK_FRAMES = 300
"""How many frames (5 s at 60 fps) the place where a ball went unseen is searched again."""

_EXPOSURES_PER_FRAME = 4
"""How far a rolling ball may go on between frames, in its streak's lengths (a 1/120 s
shutter at 30 fps): a ball of the last frame read as a streak is accounted for by any ball now
within that reach."""


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


class BallDetector:
    """Finds the balls in frames from one calibrated camera.

    Args:
        calibration: The camera over the table.
        config: Settings; defaults when None.
        colours: The colour model; when None the calibration's, else the default model (with
            the calibration's cloth colour), its cloth shading then measured from the first
            frame.
        balls: The balls the game is played with (`rules.referee.Referee.balls`); no other id
            is ever given. None: all sixteen.
    """

    def __init__(
        self,
        calibration: Calibration,
        config: DetectorConfig | None = None,
        colours: ColourModel | None = None,
        balls: Collection[BallId] | None = None,
    ) -> None:
        warm_up()
        self.calibration = calibration
        # A ball the game does not use is never named: in a 9-ball rack the 12 (purple stripe)
        # would otherwise steal the 4 turned cap-down.
        in_play = set(BALL_ORDER if balls is None else balls)
        self._absent = np.array([ball not in in_play for ball in BALL_ORDER])
        self.config = config or DetectorConfig()
        self.colours = colours or calibration.colour or default_colour_model(calibration.cloth_lab)
        self.view = TableView(calibration.camera, calibration.table, self.colours)
        self._set_cloth(self.view.cloth)
        cal = calibration
        self._streaks = StreakReader(self.view, cal.camera, self.config.min_streak_mm)
        self._leftover = LeftoverReader(
            self.view, cal.camera, self._streaks, self.config.occluder_min_balls
        )
        w, h = self.view.size
        self._vote_min = (
            self.config.vote_fraction * 2 * math.pi * self.view.radius / SCALE
        ).astype(np.float32)
        self._radius_small = (self.view.radius / SCALE).astype(np.float32)
        self._roi_edges = cv2.dilate(self.view.roi, np.ones((3, 3), np.uint8))
        self._radius_max = float(self._radius_small.max())
        self._pad = math.ceil(1.5 * self._radius_max) + 4
        self._pocket_rects = self._pockets()
        centre = calibration.camera.project(np.array([[0.0, 0.0, BALL_RADIUS_MM]]))
        self._centre_radius = float(circles.mean_radii(self.view.silhouettes(centre))[0])
        self._previous: Detections | None = None
        self._last_small: np.ndarray | None = None
        self._balls: list[FoundBall] = []
        """The last frame's balls at rest (carried over where their place did not change)."""
        self._streaks_seen: list[FoundBall] = []
        """The last frame's balls read as streaks: never carried over, their places are searched
        again in the next frame whatever changed there."""
        self._lost: list[tuple[np.ndarray, float, int]] = []
        """Where balls went unseen: full-resolution centre, radius, and the frame count then."""
        self._frames = 0
        self._leftovers: list[Leftover] = []
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
        if self._contrast is None:
            self._learn_cloth(image, index)
            if self._contrast is None:
                return Detections.empty(index, time)
        changed = None
        if self._last_small is None:
            rects = [(0, 0, *self.view.size)]
        else:
            changed = changed_pixels(
                small, self._last_small, self.view.roi, self.config.change_threshold
            )
            rects = changed_rects(changed, self._radius_max)
            if rects != [(0, 0, *self.view.size)]:
                rects = merge(rects + self._recheck_rects())
        if not rects and self._previous is not None:
            # Nothing moved: the balls, their names and the occluders are as they were.
            return self._previous.restamped(index, time)
        whole = not rects or rects == [(0, 0, *self.view.size)]
        self._last_small = small
        if whole:
            # The whole table: a quarter-resolution look says where anything but cloth is,
            # and only there (and in the pockets' mouths) is the working grid searched.
            rects = self._occupied(small)
            self._mask[:] = 0
            self._weight[:] = 0
        if rects is None:
            log.warning("frame %d: the table's cloth is not visible; no balls reported", index)
            self._balls = []
            self._streaks_seen = []
            self._leftovers = []
            self._previous = None
            return Detections.empty(index, time)
        for rect in rects:
            self._contrast.foreign_into(small, rect, self._mask, self._weight)
        kept = [] if whole else self._unchanged(rects, changed)
        roi = self._roi_edges
        if whole:
            # One pass over the grid, edges only inside the rectangles: cheaper than many.
            roi = np.zeros_like(roi)
            for x0, y0, x1, y1 in rects:
                roi[y0:y1, x0:x1] = self._roi_edges[y0:y1, x0:x1]
            rects = [(0, 0, *self.view.size)]
        candidates = []
        taken = _Apart()
        for rect in rects:
            for start, r in self._candidates(small, rect, roi):
                if inside(_working(start), rect) and not taken.near(start, 1.2 * r):
                    candidates.append((start, r))
                    taken.add(start)
        on_kept = _discs([(k.centre_px, k.radius_px) for k in kept])
        candidates = [(s, r) for s, r in candidates if not _near(s, on_kept)]
        found = self._circles(image, candidates)
        # Each ball in the (separate) rectangle it was found in, none outside them all.
        where = _rect_of([b.centre_px for b in found], rects)
        placed = [
            (b, k)
            for b, k in zip(found, where, strict=True)
            if k >= 0 and not _near(b.centre_px, on_kept)
        ]
        found = [
            b
            for k, rect in enumerate(rects)
            for b in self._streaks.deblur(
                [b for b, at in placed if at == k],
                rect,
                self._mask,
                self._weight,
            )
        ]
        balls = self._leftover.covering(self._weight, kept + found)
        left = self._leftovers_now(balls, rects, whole)
        balls = self._leftover.unoccluded(balls, left, self._mask.shape)
        streaks = [lo.streak for lo in left if lo.streak is not None]
        occluded = tuple(p for lo in left for p in lo.polygons)
        self._leftovers = left
        balls = self._named(image, balls + streaks)
        self._remember_lost(balls)
        self._balls = [b for b in balls if b.blur_mm is None]
        self._streaks_seen = [b for b in balls if b.blur_mm is not None]
        detections = self._detections(index, time, balls, occluded)
        self._previous = detections
        return detections

    def _unchanged(self, rects: list[Rect], changed: np.ndarray) -> list[FoundBall]:
        """The previous frame's balls whose place did not change: outside every searched
        rectangle, or inside one but with no changed pixel on or around their disc (a ball
        resting beside one that rolled past)."""
        out = []
        for b in self._balls:
            c = _working(b.centre_px)
            if any(r[0] <= c[0] < r[2] and r[1] <= c[1] < r[3] for r in rects):
                reach = 1.3 * b.radius_px / SCALE
                x0, y0 = max(int(c[0] - reach), 0), max(int(c[1] - reach), 0)
                if cv2.countNonZero(
                    changed[y0 : int(c[1] + reach) + 2, x0 : int(c[0] + reach) + 2]
                ):
                    continue
            out.append(b)
        return out

    def _remember_lost(self, balls: list[FoundBall]) -> None:
        """Note where a ball of the last frame has gone unseen: a ball can melt into the cloth
        for a frame (a green ball number-down on green cloth) and come back too slowly for any
        frame to change much there, so only looking where the frame changed would never find it
        again. Those places are searched again for `LOST_LOOK_FRAMES` frames.

        A ball the last frame read as a streak counts too (it was never among the balls carried
        over): a ball creeping to rest can be read as blurred, then change too little for its
        place to be searched again."""
        self._frames += 1
        now = [(b.centre_px, 1.5 * b.radius_px) for b in balls]
        frames = self._frames
        lost = [(c, r, since) for c, r, since in self._lost if frames - since <= LOST_LOOK_FRAMES]
        # Places found again (a ball now near): all against all, in one step.
        lost = [
            entry
            for entry, found in zip(lost, _near_any([c for c, _, _ in lost], now), strict=True)
            if not found
        ]
        before = self._balls + self._streaks_seen
        if not before:
            self._lost = lost
            return
        # Each ball of the last frame against every ball now (it may have gone on by a few
        # streaks' lengths).
        went_on = [_travel_px(b) * _EXPOSURES_PER_FRAME for b in before]
        seen = _near_any([b.centre_px for b in before], now, went_on)
        for b, found in zip(before, seen, strict=True):
            if not found and not _near(b.centre_px, _discs([(c, r) for c, r, _ in lost])):
                lost.append((b.centre_px, b.radius_px, self._frames))
        self._lost = lost

    def _recheck_rects(self) -> list[Rect]:
        """Working-grid rectangles searched whatever changed there: around where balls went
        unseen, and around the last frame's streaks (a whole streak, however long)."""
        gw, gh = self.view.size
        places = [(centre, self._pad) for centre, _, _ in self._lost]
        places += [
            (b.centre_px, self._pad + math.ceil(_travel_px(b) / 2 / SCALE))
            for b in self._streaks_seen
        ]
        out = []
        for centre, pad in places:
            x, y = _working(centre)
            out.append(
                (
                    max(int(x) - pad, 0),
                    max(int(y) - pad, 0),
                    min(int(x) + pad, gw),
                    min(int(y) + pad, gh),
                )
            )
        return out

    def _leftovers_now(
        self, balls: list[FoundBall], rects: list[Rect], whole: bool
    ) -> list[Leftover]:
        """This frame's streaks and occluders: read again inside the searched rectangles (each
        grown over any previous one reaching into it, so none is read in part); elsewhere
        nothing changed and the previous frame's stand."""
        if whole:
            return self._leftover.read(self._mask, self._weight, balls, (0, 0, *self.view.size))
        regions, standing = merge(rects), list(self._leftovers)
        while True:
            reaching = [lo for lo in standing if any(overlaps(lo.rect, r) for r in regions)]
            if not reaching:
                break
            standing = [lo for lo in standing if lo not in reaching]
            regions = merge(regions + [lo.rect for lo in reaching])
        covers = self._leftover.covers(balls)
        for region in regions:
            standing += self._leftover.read(self._mask, self._weight, balls, region, covers)
        return standing

    def _occupied(self, small: np.ndarray) -> list[Rect] | None:
        """Working-grid rectangles around everything that is not cloth, found on a quarter-
        resolution copy, and around the pockets' mouths; None when no cloth is seen."""
        quarter = cv2.resize(small, self._coarse_size, interpolation=cv2.INTER_AREA)
        contrast = self._coarse_contrast
        mask, weight = contrast.foreign(quarter, (0, 0, *self._coarse_size))
        if contrast.no_cloth(mask):
            return None
        occupied = cv2.compare(weight, 0.25, cv2.CMP_GT)
        _, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
            occupied, 8, cv2.CV_32S, cv2.CCL_GRANA
        )
        gw, gh = self.view.size
        pad = self._pad
        rects = list(self._pocket_rects)
        for x, y, w, h, area in stats[1:]:
            if area < 2:
                continue  # a lone noisy pixel: a ball is a dozen at this scale
            x0, y0, x1, y1 = 2 * x, 2 * y, 2 * (x + w), 2 * (y + h)
            rects.append((max(x0 - pad, 0), max(y0 - pad, 0), min(x1 + pad, gw), min(y1 + pad, gh)))
        return merge(rects)

    def reset(self) -> None:
        """Forget the previous frame (the next frame is searched whole)."""
        self._last_small = None
        self._previous = None
        self._balls = []
        self._streaks_seen = []
        self._lost = []
        self._leftovers = []

    def _pockets(self) -> list[Rect]:
        """Working-grid rectangles around the pockets' mouths, where a ball may sit off the
        cloth (so foreign to no cloth model) in the jaws."""
        xy = self.view.table_xy
        gw, gh = self.view.size
        out = []
        for pocket in self.calibration.table.pockets:
            cx, cy = pocket.mouth_centre
            reach = pocket.mouth_width / 2 + 3 * BALL_RADIUS_MM
            ys, xs = np.nonzero(np.hypot(xy[..., 0] - cx, xy[..., 1] - cy) <= reach)
            if len(xs):
                x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
                out.append((max(x0 - 2, 0), max(y0 - 2, 0), min(x1 + 2, gw), min(y1 + 2, gh)))
        return out

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
        cfg = self.config
        self._contrast = self._coarse_contrast = None
        if cloth is None:
            return
        thresholds = (cfg.chroma_threshold, cfg.bright_gain, cfg.dark_gain)
        self._contrast = ClothContrast(cloth, self.view.bed, *thresholds)
        w, h = self.view.size
        self._coarse_size = (w // 2, h // 2)
        coarse_cloth = cv2.resize(cloth, self._coarse_size, interpolation=cv2.INTER_AREA)
        coarse_bed = cv2.resize(self.view.bed, self._coarse_size, interpolation=cv2.INTER_AREA)
        coarse_bed = cv2.compare(coarse_bed, 254, cv2.CMP_GE)
        self._coarse_contrast = ClothContrast(coarse_cloth, coarse_bed, *thresholds)

    # Balls -------------------------------------------------------------------------------------

    def _candidates(
        self, small: np.ndarray, rect: Rect, roi: np.ndarray
    ) -> list[tuple[np.ndarray, float]]:
        """Candidate centres (full-resolution pixels) and expected radii within a rectangle of
        the working grid (``small``), from the edges within ``roi`` (the whole grid's mask)."""
        x0, y0, x1, y1 = rect
        acc = edge_votes(small, roi, self._radius_small, x0, y0, x1, y1, self.config.edge_threshold)
        out: list[tuple[np.ndarray, float]] = []
        taken = _Apart()
        table, radius, half = self.view.roi, self.view.radius, (SCALE - 1) / 2
        for px, py in circles.peaks(acc, self._vote_min[y0:y1, x0:x1], 5).tolist():
            x, y = int(px + x0), int(py + y0)
            if table[y, x] == 0:
                continue
            start = np.array(((px + x0) * SCALE + half, (py + y0) * SCALE + half))
            r = float(radius[y, x])
            if taken.near(start, 1.2 * r):
                continue
            out.append((start, r))
            taken.add(start)
        return out

    def _circles(
        self, image: np.ndarray, candidates: list[tuple[np.ndarray, float]]
    ) -> list[FoundBall]:
        """Fit all candidates at once and keep the ones that are balls."""
        cfg = self.config
        if not candidates:
            return []
        starts = [s for s, _ in candidates]
        expected = [r for _, r in candidates]
        found: list[FoundBall] = []
        taken: list[tuple[float, float, float]] = []  # each ball kept, how near is too near
        fits = circles.fit_circles(
            image,
            np.array(starts),
            np.array(expected),
            allowed=self.view.outline,
            clear=self.view.outline_clear,
            shape=self.view.silhouettes(np.array(starts)),
        )
        for start, fit in zip(starts, fits, strict=True):
            r = fit.expected
            if fit.support < cfg.min_support:
                continue
            if abs(fit.radius / r - 1.0) > cfg.radius_tolerance:
                continue
            if np.hypot(*(fit.centre - start)) > 0.6 * r:
                continue
            if _near(fit.centre, taken):
                continue
            if not on(self.view.bed, self.view.to_working(fit.centre)) and not self._lit(
                image, fit.centre, r
            ):
                continue  # the dark hole of a pocket, not a ball in its jaws
            found.append(FoundBall(fit.centre, fit.radius, fit.support, fit.residual))
            taken.append((float(fit.centre[0]), float(fit.centre[1]), 1.5 * fit.radius))
        return found

    def _as_at_centre(self, centres: np.ndarray, radius: np.ndarray) -> np.ndarray:
        """Fitted radii (balls at full-resolution ``centres``) as the camera would show those
        balls at the table's centre: off its axis the camera sees a ball past its equator,
        bigger by up to a few per cent at the table's ends, which would pass for a ball lifted
        off the cloth."""
        return radius * self._centre_radius / circles.mean_radii(self.view.silhouettes(centres))

    def _lit(self, image: np.ndarray, centre: np.ndarray, radius: float) -> bool:
        """Whether a disc has the light of a ball (a highlight at least), not a pocket's dark."""
        r = max(int(radius * 0.7), 1)
        x, y = round(float(centre[0])), round(float(centre[1]))
        patch = image[max(y - r, 0) : y + r + 1, max(x - r, 0) : x + r + 1]
        if patch.size == 0:
            return False
        return float(np.percentile(patch.max(axis=2), 90)) > 0.6 * self._contrast.level

    # Output ------------------------------------------------------------------------------------

    def _named(self, image: np.ndarray, balls: list[FoundBall]) -> list[FoundBall]:
        """Balls with their colour evidence (measured once while a ball rests)."""
        fresh = [i for i, b in enumerate(balls) if b.like is None]
        if not fresh:
            return balls
        disc, ring, band = disc_arrays(
            image,
            np.array([balls[i].centre_px for i in fresh]),
            np.array([balls[i].radius_px for i in fresh]),
            self.colours.cloth_lab,
        )
        like = identity.likelihoods_of(disc, self.colours, ring, band)
        out = list(balls)
        for row, i in enumerate(fresh):
            b = balls[i]
            out[i] = FoundBall(
                centre_px=b.centre_px,
                radius_px=b.radius_px,
                support=b.support,
                residual=b.residual,
                blur_mm=b.blur_mm,
                like=like[row],
            )
        return out

    def _detections(
        self,
        index: int,
        time: float,
        balls: list[FoundBall],
        occluded: tuple[Polygon, ...],
    ) -> Detections:
        if not balls:
            return Detections.empty(index, time, occluded)
        centres = np.array([b.centre_px for b in balls])
        streaks = [i for i, b in enumerate(balls) if b.blur_mm is not None]
        at_rest = np.ones(len(balls), dtype=bool)
        at_rest[streaks] = False
        positions = apart(self.view.ball_xy(centres), at_rest)
        radius = np.array([b.radius_px for b in balls])
        residual = np.minimum(np.array([b.residual for b in balls]), 3.0)
        support = np.array([b.support for b in balls])
        spread = residual / np.sqrt(np.maximum(support * 48, 1))
        sigma = np.maximum(0.4, BALL_RADIUS_MM / radius * (0.25 + spread))
        blur = np.full((len(balls), 2), np.nan)
        previous = self._previous.positions if self._previous is not None else None
        for i in streaks:
            blur_mm = balls[i].blur_mm
            travel = signed(blur_mm, positions[i], previous)
            blur[i] = travel / self.config.exposure_s
            sigma[i] = max(sigma[i], float(np.hypot(*blur_mm)) / 6)
        confidence = np.minimum(np.maximum(0.5 + 0.5 * (support - 0.4) / 0.5, 0.05), 0.999)
        like = np.array([b.like for b in balls]).reshape(-1, len(BALL_ORDER))
        like[:, self._absent] = 0.0
        prob = identity.probabilities(like)
        prob[streaks] *= 0.6  # a streak's colours are mixed with the cloth's
        _, prob = identity.assign(prob, confidence)
        return Detections(
            frame=index,
            time=time,
            positions=positions,
            sigma=sigma,
            identity=prob,
            radius_px=self._as_at_centre(centres, radius),
            blur_velocity=blur,
            confidence=confidence,
            occluded=occluded,
        )


def _travel_px(ball: FoundBall) -> float:
    """A streak's travel over the exposure in full-resolution pixels (0 for a ball at rest)."""
    if ball.blur_mm is None:
        return 0.0
    return (
        math.hypot(float(ball.blur_mm[0]), float(ball.blur_mm[1])) * ball.radius_px / BALL_RADIUS_MM
    )


def _rect_of(pixels: list[np.ndarray], rects: list[Rect]) -> list[int]:
    """For each full-resolution point, the index of the first rectangle (working grid) it lies
    in, -1 for none."""
    out = []
    for p in pixels:
        x, y = _working(p)
        out.append(
            next((k for k, r in enumerate(rects) if r[0] <= x < r[2] and r[1] <= y < r[3]), -1)
        )
    return out


def _working(p: np.ndarray) -> tuple[float, float]:
    """`TableView.to_working` of one full-resolution point, as plain floats (cheap per point)."""
    half = (SCALE - 1) / 2
    return (float(p[0]) - half) / SCALE, (float(p[1]) - half) / SCALE


class _Apart:
    """Points kept so far, asked whether a new one comes near any (greedy spacing). Plain
    floats: a frame keeps a few dozen at most, where numpy's set-up would cost more than the
    arithmetic."""

    def __init__(self) -> None:
        self._xy: list[tuple[float, float]] = []

    def near(self, p: np.ndarray, distance: float) -> bool:
        x, y, limit = float(p[0]), float(p[1]), distance * distance
        return any((a - x) ** 2 + (b - y) ** 2 < limit for a, b in self._xy)

    def add(self, p: np.ndarray) -> None:
        self._xy.append((float(p[0]), float(p[1])))


def _near_any(
    points: list[np.ndarray],
    discs: list[tuple[np.ndarray, float]],
    more: list[float] | None = None,
) -> list[bool]:
    """`_near` of many points at once (each point's distances grown by its ``more``)."""
    if not points or not discs:
        return [False] * len(points)
    centres = np.array([c for c, _ in discs], dtype=np.float64).reshape(-1, 2)
    reach = np.array([d for _, d in discs], dtype=np.float64)[None, :]
    if more is not None:
        reach = reach + np.array(more, dtype=np.float64)[:, None]
    gap = np.array(points, dtype=np.float64).reshape(-1, 2)[:, None, :] - centres[None, :, :]
    return (np.hypot(gap[..., 0], gap[..., 1]) < reach).any(axis=1).tolist()


def _discs(discs: list[tuple[np.ndarray, float]]) -> list[tuple[float, float, float]]:
    """Centres and distances as plain floats, for `_near` (cheap per point)."""
    return [(float(c[0]), float(c[1]), float(d)) for c, d in discs]


def _near(p: np.ndarray, discs: list[tuple[float, float, float]]) -> bool:
    """Whether a point lies closer than the distance given with any of the centres (x, y,
    distance: `_discs`)."""
    x, y = float(p[0]), float(p[1])
    return any(math.hypot(x - cx, y - cy) < d for cx, cy, d in discs)


__all__ = ["BallDetector", "DetectorConfig", "FrameError", "Point", "occluder_area_mm2"]
