"""Find the table in one frame: segment the cloth, fit its edges, locate the cushion noses.

The cloth is the largest region of one colour around the image centre (green, blue, red or grey:
the colour is learned from the frame, not assumed). Its outline is fitted with four robust lines,
which pocket notches, balls on the rail and a player's arm do not bend (Huber fits on the
outline points near each side). The cushion noses sit a cushion's width inside that outline,
where the flat bed meets the sloping cushion face: each nose line is fitted through the
strongest brightness step found on many profiles across the cushion band.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from rules.errors import CalibrationError

log = logging.getLogger(__name__)

MIN_CLOTH_FRACTION = 0.08
"""A cloth region smaller than this share of the image is not a table."""
CUSHION_BAND = (0.015, 0.09)
"""Where to look for the nose inward from the cloth edge, as a share of the quad's short side.
WPA cushions are about 2 in wide on a 50 in table (4 %)."""


@dataclass(frozen=True, slots=True)
class TableFinding:
    """Where the table is in an image.

    Attributes:
        cloth_corners: Outer cloth outline (where cloth meets the rail), 4 x (x, y) pixels,
            clockwise from the corner nearest the image's top-left.
        nose_corners: Cushion-nose rectangle (the playing surface), same order.
        cloth_lab: The cloth's colour, CIE L*a*b* as OpenCV scales it (0-255 each).
        confidence: 0-1: how well the outline fits four lines and the noses were found.
    """

    cloth_corners: tuple[tuple[float, float], ...]
    nose_corners: tuple[tuple[float, float], ...]
    cloth_lab: tuple[float, float, float]
    confidence: float

    def cloth_mask(self, size: tuple[int, int]) -> np.ndarray:
        """The cloth quad filled, as a uint8 mask of (width, height) ``size``."""
        mask = np.zeros((size[1], size[0]), np.uint8)
        corners = np.round(np.asarray(self.cloth_corners) * 16).astype(np.int32)
        cv2.fillConvexPoly(mask, corners, 255, shift=4)
        return mask


def find_table(image: np.ndarray, where: str = "frame") -> TableFinding:
    """Find the cloth and the cushion noses in a BGR image.

    Args:
        image: H x W x 3 uint8 BGR.
        where: What the image is (a file name, a frame number), for error messages.

    Raises:
        CalibrationError: no table-like region, or its outline is not a convex quadrilateral.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise CalibrationError(f"{where}: expected an HxWx3 uint8 image, got {image.shape}")
    lab = cv2.cvtColor(cv2.GaussianBlur(image, (5, 5), 0), cv2.COLOR_BGR2LAB)
    cloth_lab = _cloth_colour(lab)
    region = _cloth_region(lab, cloth_lab, where)
    outline = _outline_points(region)
    _check_inside_frame(outline, image.shape, where)
    lines, inlier_share = _fit_sides(outline, where)
    linear = cv2.GaussianBlur(image, (3, 3), 0).astype(np.float32)
    likeness = _cloth_likeness(linear, region)
    lines = [_refine_edge(likeness, line, outline) for line in lines]
    cloth = _corners(lines, where)
    nose, nose_share = _find_noses(linear.sum(axis=2), cloth)
    confidence = float(np.clip(min(inlier_share, 0.5 + nose_share / 2), 0.0, 1.0))
    log.debug("%s: cloth %s, nose %s, confidence %.2f", where, cloth, nose, confidence)
    return TableFinding(_points(cloth), _points(nose), cloth_lab, confidence)


def _points(corners: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in corners)


def _cloth_colour(lab: np.ndarray) -> tuple[float, float, float]:
    """The commonest (a, b) chroma in the middle of the image, with its median lightness."""
    h, w = lab.shape[:2]
    centre = lab[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4].reshape(-1, 3)
    hist = cv2.calcHist([centre[:, 1:].reshape(-1, 1, 2)], [0, 1], None, [32, 32], [0, 256, 0, 256])
    a_bin, b_bin = np.unravel_index(int(np.argmax(hist)), hist.shape)
    near = (np.abs(centre[:, 1].astype(int) - (a_bin * 8 + 4)) <= 8) & (
        np.abs(centre[:, 2].astype(int) - (b_bin * 8 + 4)) <= 8
    )
    pixels = centre[near]
    return tuple(float(v) for v in np.median(pixels, axis=0))  # type: ignore[return-value]


def _cloth_region(lab: np.ndarray, cloth_lab: tuple[float, ...], where: str) -> np.ndarray:
    """Mask of the connected cloth region, holes (balls, marks) filled.

    A coloured cloth is matched by hue angle in the a*b* plane with a loose chroma floor, since
    uneven light scales its chroma but keeps its hue; a grey cloth by closeness to grey.
    """
    h, w = lab.shape[:2]
    a = lab[:, :, 1].astype(np.float32) - 128
    b = lab[:, :, 2].astype(np.float32) - 128
    ca, cb = cloth_lab[1] - 128, cloth_lab[2] - 128
    cloth_chroma = float(np.hypot(ca, cb))
    if cloth_chroma > 15:
        chroma = np.hypot(a, b)
        cos_angle = (a * ca + b * cb) / (chroma * cloth_chroma + 1e-6)
        mask = (cos_angle > np.cos(np.radians(14))) & (chroma > 0.35 * cloth_chroma)
    else:
        lightness = np.abs(lab[:, :, 0].astype(np.float32) - cloth_lab[0])
        mask = (np.hypot(a - ca, b - cb) < 8) & (lightness < 65)  # cushion tops are darker
    mask = mask.astype(np.uint8) * 255
    k = max(3, int(min(h, w) * 0.01) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    if cloth_chroma <= 15:
        # Grey cloth is told by lightness, and the shadow under the cushion noses is too dark
        # to pass: it would cut the cushion tops off the bed. Close that thin gap first (the
        # wood or black rails beyond the cushions are far wider than the shadow).
        wide = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, wide)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if count < 2:
        raise CalibrationError(f"{where}: no cloth-coloured region: is there a table in view?")
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < MIN_CLOTH_FRACTION * h * w:
        raise CalibrationError(
            f"{where}: the largest cloth-coloured region covers only "
            f"{stats[largest, cv2.CC_STAT_AREA] / (h * w):.0%} of the image: no table found"
        )
    region = (labels == largest).astype(np.uint8) * 255
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED)
    return filled


def _check_inside_frame(outline: np.ndarray, shape: tuple[int, ...], where: str) -> None:
    """A table to calibrate must be wholly in view: its outline may graze the frame edge only."""
    h, w = shape[:2]
    x, y = outline[:, 0], outline[:, 1]
    on_border = (x <= 1) | (y <= 1) | (x >= w - 2) | (y >= h - 2)
    if on_border.mean() > 0.2:
        raise CalibrationError(
            f"{where}: the cloth-coloured region runs off the frame on "
            f"{on_border.mean():.0%} of its outline: no whole table in view"
        )


def _cloth_likeness(linear_bgr: np.ndarray, region: np.ndarray) -> np.ndarray:
    """A per-pixel score, high on cloth, low on what surrounds it, linear in the pixel values.

    Linear, so that a blurred or anti-aliased edge keeps its step at the true edge (a score made
    in L*a*b* would shift it by the transform's curvature).
    """
    ring_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15))
    ring = (cv2.dilate(region, ring_kernel) > 0) & (region == 0)
    inside = np.median(linear_bgr[region > 0], axis=0)
    outside = np.median(linear_bgr[ring], axis=0) if ring.any() else np.zeros(3, np.float32)
    direction = inside - outside
    norm = float(np.linalg.norm(direction))
    return linear_bgr @ (direction / norm if norm > 1e-6 else direction)


def _edge_offsets(
    image: np.ndarray,
    points: np.ndarray,
    normal: np.ndarray,
    offsets: np.ndarray,
    first_of: float | None = None,
    reach_px: float = 3.0,
):
    """For each point, the sub-pixel offset along ``normal`` of a step in ``image``, and the
    step's size: the strongest step, or with ``first_of`` the first (smallest offset) whose
    gradient reaches that share of the strongest.

    The step is located where the profile crosses the midpoint of the levels ``reach_px`` either
    side of the steepest place: unbiased for any symmetric blur, unlike a gradient-peak fit,
    which wanders on the flat-topped gradient of a sharp, interpolated edge.
    """
    xs = (points[:, 0:1] + offsets[None, :] * normal[0]).astype(np.float32)
    ys = (points[:, 1:2] + offsets[None, :] * normal[1]).astype(np.float32)
    profiles = cv2.remap(image.astype(np.float32), xs, ys, cv2.INTER_LINEAR)
    step = offsets[1] - offsets[0]
    reach = max(1, round(float(reach_px / step)))
    grad = np.abs(np.gradient(profiles, axis=1))
    inner = grad[:, reach:-reach]
    if first_of is None:
        peak = np.argmax(inner, axis=1)
    else:
        strong = inner >= first_of * inner.max(axis=1, keepdims=True)
        first = np.argmax(strong, axis=1)
        # climb from the first strong sample to the top of its own peak
        peak = first.copy()
        for row in range(len(peak)):
            while (
                peak[row] + 1 < inner.shape[1] and inner[row, peak[row] + 1] > inner[row, peak[row]]
            ):
                peak[row] += 1
    k = np.clip(peak + reach, reach, len(offsets) - reach - 1)
    rows = np.arange(len(points))
    before, after = profiles[rows, k - reach], profiles[rows, k + reach]
    middle = (before + after) / 2
    result = offsets[k].astype(np.float64)
    for row in rows:
        segment = profiles[row, k[row] - reach : k[row] + reach + 1] - middle[row]
        signs = np.signbit(segment)
        crossings = np.nonzero(signs[:-1] != signs[1:])[0]
        if len(crossings):
            i = crossings[np.argmin(np.abs(crossings - reach))]
            a, b = segment[i], segment[i + 1]
            result[row] = offsets[k[row] - reach + i] + step * a / (a - b)
    return result, np.abs(after - before)


def _refine_edge(likeness: np.ndarray, line: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """Move a fitted outline line onto the sub-pixel cloth edge, fitted robustly again."""
    normal = line[:2]
    near = outline[np.abs(outline @ normal + line[2]) < 2.0]
    if len(near) < 10:
        return line
    foot = near - np.outer(near @ normal + line[2], normal)
    offsets = np.arange(-4.0, 4.01, 0.25)
    shift, strength = _edge_offsets(likeness, foot, normal, offsets)
    keep = strength > 0.25 * np.median(strength)
    edge = foot[keep] + np.outer(shift[keep], normal)
    if len(edge) < 10:
        return line
    vx, vy, x0, y0 = cv2.fitLine(edge.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([vy, -vx, vx * y0 - vy * x0], dtype=np.float64)


def _outline_points(region: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return max(contours, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)


def _fit_sides(outline: np.ndarray, where: str) -> tuple[list[np.ndarray], float]:
    """Four robust lines (a, b, c with a x + b y + c = 0, |(a, b)| = 1) along the outline."""
    hull = cv2.convexHull(outline.astype(np.float32))
    perimeter = cv2.arcLength(hull, True)
    quad = None
    for eps in np.linspace(0.01, 0.1, 19):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            break
    if quad is None:
        raise CalibrationError(f"{where}: the cloth outline is not a four-sided table")
    band = 0.03 * perimeter / 4
    # Pocket notches and an arm reaching in lie inside the hull: fit only points on it.
    on_hull = np.abs([cv2.pointPolygonTest(hull, (float(x), float(y)), True) for x, y in outline])
    hull_outline = outline[on_hull < max(2.0, 0.004 * perimeter)]
    lines, inliers = [], 0
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        near = _points_near_segment(hull_outline, p, q, band)
        if len(near) < 10:  # an edge mostly hidden or bitten into: use what the outline has
            near = _points_near_segment(outline, p, q, band)
        if len(near) < 10:
            raise CalibrationError(f"{where}: too little of the table edge {i} is visible")
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        line = np.array([vy, -vx, vx * y0 - vy * x0], dtype=np.float64)
        residual = np.abs(near @ line[:2] + line[2])
        inliers += int(np.sum(residual < 2.0))
        lines.append(line)
    return lines, inliers / len(hull_outline)


def _points_near_segment(points: np.ndarray, p: np.ndarray, q: np.ndarray, band: float):
    """Outline points within ``band`` of the segment p-q, away from its ends (corner pockets)."""
    d = q - p
    length = float(np.hypot(*d))
    t = (points - p) @ d / length**2
    normal = np.array([-d[1], d[0]]) / length
    dist = np.abs((points - p) @ normal)
    return points[(t > 0.06) & (t < 0.94) & (dist < band)]


def _intersect(l1: np.ndarray, l2: np.ndarray) -> np.ndarray:
    point = np.cross(l1, l2)
    return point[:2] / point[2]


def _corners(lines: list[np.ndarray], where: str) -> np.ndarray:
    """Intersections of consecutive lines, ordered clockwise from the top-left-most corner."""
    corners = np.array([_intersect(lines[i - 1], lines[i]) for i in range(4)])
    if not np.all(np.isfinite(corners)) or not cv2.isContourConvex(corners.astype(np.float32)):
        raise CalibrationError(f"{where}: the table edges do not make a convex quadrilateral")
    centre = corners.mean(axis=0)
    angles = np.arctan2(corners[:, 1] - centre[1], corners[:, 0] - centre[0])
    corners = corners[np.argsort(angles)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(corners.sum(axis=1)))
    return np.roll(corners, -start, axis=0)


def _find_noses(lightness: np.ndarray, cloth: np.ndarray) -> tuple[np.ndarray, float]:
    """The cushion-nose quad inside the cloth quad, and the share of profiles that found it."""
    short_side = min(np.hypot(*(cloth[i] - cloth[(i + 1) % 4])) for i in range(4))
    lo, hi = (short_side * f for f in CUSHION_BAND)
    centre = cloth.mean(axis=0)
    lines, found = [], 0
    for i in range(4):
        p, q = cloth[i], cloth[(i + 1) % 4]
        line, hits = _nose_line(lightness, p, q, centre, lo, hi)
        lines.append(line)
        found += hits
    nose = np.array([_intersect(lines[i - 1], lines[i]) for i in range(4)])
    return nose, found / (4 * _PROFILES)


_PROFILES = 60


def _nose_line(intensity, p, q, centre, lo, hi) -> tuple[np.ndarray, int]:
    """Fit the nose parallel to the cloth edge p-q through the brightness steps across the
    cushion band, from ``lo`` to ``hi`` pixels inward of the edge."""
    d = (q - p) / np.hypot(*(q - p))
    inward = np.array([-d[1], d[0]])
    if (centre - p) @ inward < 0:
        inward = -inward
    bases = p + np.linspace(0.12, 0.88, _PROFILES)[:, None] * (q - p)
    # The nose is the first step in from the cloth edge: a lamp's shadow under the nose
    # makes a second, often stronger, step a few pixels further in.
    depth, strength = _edge_offsets(
        intensity, bases, inward, np.arange(lo, hi, 0.25), first_of=0.35, reach_px=3.0
    )
    clear = strength > max(6.0, 0.3 * float(np.median(strength)))
    if clear.sum() < _PROFILES // 4:
        nominal = p + (lo + hi) / 2 * inward  # no clear nose edge: assume a nominal cushion
        return np.array([inward[0], inward[1], -(inward @ nominal)]), int(clear.sum())
    pts = (bases[clear] + depth[clear, None] * inward).astype(np.float32)
    vx, vy, x0, y0 = cv2.fitLine(pts, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([vy, -vx, vx * y0 - vy * x0], dtype=np.float64), int(clear.sum())
