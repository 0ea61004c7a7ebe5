"""Model-based edge alignment: the camera pose that lays the cushion noses on the image's edges.

Four corners are four points; a corner is where two fitted lines meet, so every error of the
line fits lands in it, and a pose solved on four points carries all of it. Here the pose is
refined on the whole length of the six cushion noses instead: hundreds of points along the noses
(at their true height, between the pocket jaws) are projected through the camera, lens distortion
included, so the raw frame is used as it is and curved noses stay curved; across each projected
nose a short intensity profile is searched for the sub-pixel edge; the pose is then the one that
minimises the robust (soft-L1) sum of the distances from the projected noses to those edges,
solved again from the new projections a few times. Balls on a cushion, a hand on the rail and
the pocket cuts only cost their own few points.

Which edge is the nose: seen from above, the flat cushion top ends at the nose and the cushion's
undercut face (in shadow) or the bed begins; a little further in, the shadow ends in a second
step of the opposite sign. The step taken is the outermost strong one of the side's dominant
sign within a window around the prediction (8 px wide at first, then narrower), located where
the profile crosses the middle of the levels just either side of it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.camera import CameraModel
from calibration.table import TableSpec

log = logging.getLogger(__name__)

SAMPLE_SPACING_MM = 10.0
"""Distance between the nose points profiled."""
JAW_MARGIN_MM = 30.0
"""Nose length left out at each jaw, where the cushion turns into the pocket."""
PROFILE_STEP_PX = 0.25
EDGE_REACH_PX = 1.25
"""Levels either side of a step are taken this far from its steepest place: beyond a sharp
edge's ramp, short of the undercut shadow's far edge (2-3 px in from the nose)."""
SEARCH_PX = (8.0, 4.0, 2.0, 1.5)
"""Half-width of the edge search around the projected nose, per round."""
LOSS_SCALE_PX = 0.5
"""Residuals beyond this count linearly (soft L1), so outliers pull little."""
K1_PRIOR_PX = 10.0
"""Scale of the prior on radial distortion: its shift of the image corner, pixels."""
MIN_POINTS_SHARE = 0.4
"""An alignment that found the edge on fewer of its profiles than this is not trusted."""


@dataclass(frozen=True, slots=True)
class Alignment:
    """A camera pose refined on the cushion-nose edges.

    Attributes:
        camera: The refined camera.
        edge_rms_px: RMS distance of the edge points (inliers) from the projected noses.
        points_used: Edge points within 1.5 px of the projected noses at the end.
        points_total: Profiles searched.
    """

    camera: CameraModel
    edge_rms_px: float
    points_used: int
    points_total: int

    @property
    def share(self) -> float:
        """Share of the profiles whose edge agrees with the refined noses."""
        return self.points_used / self.points_total if self.points_total else 0.0


def nose_points(table: TableSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points along the six cushion noses at nose height, with each point's unit direction
    along its nose and unit inward normal (toward the bed), all (n, 3) table millimetres."""
    points, along, inward = [], [], []
    z = table.cushion_nose_height
    for cushion in table.cushions:
        start, end = np.array(cushion.start), np.array(cushion.end)
        length = float(np.hypot(*(end - start)))
        direction = (end - start) / length
        usable = length - 2 * JAW_MARGIN_MM
        count = max(2, int(usable // SAMPLE_SPACING_MM) + 1)
        ts = JAW_MARGIN_MM + np.linspace(0.0, usable, count)
        xy = start + ts[:, None] * direction
        points.append(np.column_stack([xy, np.full(count, z)]))
        along.append(np.tile([*direction, 0.0], (count, 1)))
        inward.append(np.tile([*cushion.normal, 0.0], (count, 1)))
    return np.concatenate(points), np.concatenate(along), np.concatenate(inward)


def align_to_noses(
    image: np.ndarray,
    table: TableSpec,
    camera: CameraModel,
    refine_focal: bool = False,
    refine_k1: bool = False,
) -> Alignment:
    """Refine ``camera``'s pose (and focal length) so the noses fall on the image's edges.

    Args:
        image: The raw frame (H x W x 3 uint8 BGR), as ``camera`` sees it (lens distortion in).
        table: The table.
        camera: A pose good to a few pixels (from the corners).
        refine_focal: Also refine one focal length (square pixels): for lenses estimated from the
            table's perspective, not for given or default ones.
        refine_k1: Also refine the radial distortion k1, which bends the noses: for a lens
            that was not calibrated.

    Returns:
        The refined camera with its fit; the input camera with a share of 0 when no edge is
        found at all.
    """
    intensity = cv2.GaussianBlur(image, (3, 3), 0).astype(np.float32).sum(axis=2)
    points, along, inward = nose_points(table)
    sides = _side_index(table)
    current = camera
    offsets, keep = np.zeros(len(points)), np.zeros(len(points), bool)
    for search in SEARCH_PX:
        seen, normals, keep = _find_edges(intensity, current, points, along, inward, sides, search)
        if keep.sum() < 12:
            log.debug("nose alignment: only %d edge points found", int(keep.sum()))
            return Alignment(camera, float("inf"), 0, len(points))
        current = _fit(current, points[keep], seen[keep], normals[keep], refine_focal, refine_k1)
    seen, normals, keep = _find_edges(
        intensity, current, points, along, inward, sides, SEARCH_PX[-1]
    )
    offsets = np.einsum("ij,ij->i", current.project(points) - seen, normals)
    good = keep & (np.abs(offsets) < 1.5)
    rms = float(np.sqrt(np.mean(offsets[good] ** 2))) if good.any() else float("inf")
    return Alignment(current, rms, int(good.sum()), len(points))


def _side_index(table: TableSpec) -> np.ndarray:
    """Which cushion each nose point belongs to (0-5), in `nose_points` order."""
    index = []
    for k, cushion in enumerate(table.cushions):
        length = float(np.hypot(*np.subtract(cushion.end, cushion.start)))
        count = max(2, int((length - 2 * JAW_MARGIN_MM) // SAMPLE_SPACING_MM) + 1)
        index.extend([k] * count)
    return np.array(index)


def _find_edges(intensity, camera, points, along, inward, sides, search_px):
    """Where each nose point's edge is seen: (n, 2) image points, (n, 2) unit image normals
    (inward), and which points found one."""
    here = camera.project(points)
    tangent = camera.project(points + along * 5.0) - camera.project(points - along * 5.0)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
    towards = camera.project(points + inward * 5.0) - here
    normal *= np.sign(np.einsum("ij,ij->i", normal, towards))[:, None]
    h, w = intensity.shape
    reach = EDGE_REACH_PX
    margin = search_px + reach + 2
    inside = (
        (here[:, 0] > margin)
        & (here[:, 0] < w - 1 - margin)
        & (here[:, 1] > margin)
        & (here[:, 1] < h - 1 - margin)
    )
    offsets = np.arange(-search_px - reach, search_px + reach + 1e-9, PROFILE_STEP_PX)
    xs = (here[:, 0:1] + offsets[None, :] * normal[:, 0:1]).astype(np.float32)
    ys = (here[:, 1:2] + offsets[None, :] * normal[:, 1:2]).astype(np.float32)
    profiles = cv2.remap(intensity, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    r = round(reach / PROFILE_STEP_PX)
    # The step across each sample: the level ``reach`` further in minus the level ``reach`` out.
    step = profiles[:, 2 * r :] - profiles[:, : -2 * r]
    centres = offsets[r:-r]
    found = np.full(len(points), np.nan)
    strength = np.zeros(len(points))
    for side in np.unique(sides):
        rows = np.flatnonzero((sides == side) & inside)
        if len(rows) == 0:
            continue
        # the side's polarity: the sign of the outermost strong step, by majority
        outermost = _outermost_peaks(np.abs(step[rows]), centres)
        picked = step[rows, np.maximum(outermost, 0)]
        sign = 1.0 if np.sum(np.sign(picked) * (outermost >= 0)) >= 0 else -1.0
        k = _outermost_peaks(sign * step[rows], centres)
        has = k >= 0
        rows, k = rows[has], k[has]
        found[rows] = _crossings(profiles[rows], offsets, k + r, r)
        strength[rows] = sign * step[rows, k]
    ok = np.isfinite(found) & (np.abs(np.nan_to_num(found)) <= search_px)
    floor = max(6.0, 0.3 * float(np.median(strength[ok]))) if ok.any() else np.inf
    ok &= strength > floor
    seen = here + np.nan_to_num(found)[:, None] * normal
    return seen, normal, ok


def _outermost_peaks(values: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Per row, the index of the outermost local maximum among those reaching half the row's
    largest value; -1 where there is none."""
    top = values.max(axis=1, keepdims=True)
    middle = values[:, 1:-1]
    peak = (middle >= values[:, :-2]) & (middle > values[:, 2:]) & (middle >= 0.5 * top)
    peak &= top > 0
    distance = np.where(peak, centres[1:-1][None, :] - centres[0], np.inf)
    best = np.argmin(distance, axis=1)
    return np.where(np.isfinite(distance[np.arange(len(values)), best]), best + 1, -1)


def _crossings(profiles: np.ndarray, offsets: np.ndarray, k: np.ndarray, r: int) -> np.ndarray:
    """Per row, the sub-pixel offset where the profile crosses the middle of its levels ``r``
    samples either side of sample ``k`` (unbiased for any symmetric blur of a step)."""
    rows = np.arange(len(profiles))
    window = profiles[rows[:, None], k[:, None] + np.arange(-r, r + 1)[None, :]]
    segment = window - ((window[:, 0] + window[:, -1]) / 2)[:, None]
    signs = np.signbit(segment)
    change = signs[:, :-1] != signs[:, 1:]
    distance = np.where(change, np.abs(np.arange(2 * r) - r + 0.5)[None, :], np.inf)
    i = np.argmin(distance, axis=1)
    a, b = segment[rows, i], segment[rows, i + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(change[rows, i], a / (a - b), r - i)
    return offsets[k - r + i] + (offsets[1] - offsets[0]) * fraction


def _fit(camera, points, seen, normals, refine_focal: bool, refine_k1: bool) -> CameraModel:
    """The pose (and focal length, radial distortion k1) minimising the soft-L1 distances from
    projected nose points to the edges seen, measured along each point's image normal."""
    extra = ([np.log(camera.fx)] if refine_focal else []) + (
        [camera.distortion[0]] if refine_k1 else []
    )
    start = np.concatenate([camera.rvec, camera.tvec, extra])

    def posed(params: np.ndarray) -> CameraModel:
        cam = camera.with_pose(params[:3], params[3:6])
        if not (refine_focal or refine_k1):
            return cam
        rest = list(params[6:])
        fx = float(np.exp(rest.pop(0))) if refine_focal else cam.fx
        distortion = (rest.pop(0), *cam.distortion[1:]) if refine_k1 else cam.distortion
        fy = fx * camera.fy / camera.fx
        return CameraModel(cam.image_size, fx, fy, cam.cx, cam.cy, distortion, cam.rvec, cam.tvec)

    # A weak prior holds k1 near 0 where the noses say little of it (a long lens): it costs a
    # pixel per K1_PRIOR_PX the distortion moves the image's corner.
    half_diagonal = float(np.hypot(*camera.image_size)) / 2

    def residuals(params: np.ndarray) -> np.ndarray:
        cam = posed(params)
        edges = np.einsum("ij,ij->i", cam.project(points) - seen, normals)
        if not refine_k1:
            return edges
        corner_shift = cam.distortion[0] * half_diagonal**3 / cam.fx**2
        return np.append(edges, corner_shift / K1_PRIOR_PX)

    scale = np.array([1e-3] * 3 + [1.0] * 3 + [1e-3] * len(extra))
    result = least_squares(
        residuals, start, loss="soft_l1", f_scale=LOSS_SCALE_PX, x_scale=scale, method="trf"
    )
    return posed(result.x)
