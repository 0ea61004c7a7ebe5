"""The outline fit's work per pass (`vision.circles.fit_circles`) over every candidate, compiled.

Given every candidate's rays sampled outward (one `cv2.remap`, which OpenCV vectorises better
than a loop would), a pass finds the outline on each ray (the outermost strong radial colour
step, refined to a fraction of a sample), fits the circle or ellipse of known shape to those
points by robust least squares, and moves the centre. Written as numpy expressions that was
about a hundred small array operations per pass, each paying Python's and numpy's set-up for a
few thousand numbers: two thirds of a rolling frame's fit. Here it is one compiled loop
(numba) with the same arithmetic in the same precision (float32 steps, float64 fit), so the
fits agree with the expressions' to rounding.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from vision.sums import block_sum

MIN_RAYS = 8
"""A fit needs at least this many rays whose outline agrees with it."""

_RIDGE = 1e-9
_WIDE = (0.72, 1.32)
"""The first pass looks for the outline between these shares of the expected radius."""
_NARROW = (0.88, 1.1)
"""Later passes, the centre nearly found, look only here."""


@njit(cache=True, nogil=True)
def ray_weights(
    design: np.ndarray, expected: np.ndarray, radii: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each radial step's weight by its distance from the expected outline (a Gaussian, 12 %
    of the radius wide), and the first pass's and later passes' bands, all float32
    (n, angles, steps).

    Args:
        design: (n, angles, 3) float64 each ray's row (s, cos, sin): the outline's radius
            along the ray over its mean, and the ray's direction.
        expected: (n,) float64 expected mean radii.
        radii: (steps,) float64 the radius of each radial step.
    """
    n, angles, steps = design.shape[0], design.shape[1], len(radii)
    prior = np.empty((n, angles, steps), dtype=np.float32)
    wide = np.zeros((n, angles, steps), dtype=np.float32)
    narrow = np.zeros((n, angles, steps), dtype=np.float32)
    for i in range(n):
        for a in range(angles):
            ray_exp = design[i, a, 0] * expected[i]
            for k in range(steps):
                rel = radii[k] / ray_exp
                prior[i, a, k] = np.float32(math.exp(-0.5 * ((rel - 1.0) / 0.12) ** 2))
                if _WIDE[0] < rel < _WIDE[1]:
                    wide[i, a, k] = 1.0
                if _NARROW[0] < rel < _NARROW[1]:
                    narrow[i, a, k] = 1.0
    return prior, wide, narrow


@njit(cache=True, nogil=True)
def outline_pass(
    polar: np.ndarray,
    prior: np.ndarray,
    band: np.ndarray,
    inside: np.ndarray,
    near: np.ndarray,
    first: bool,
    radii: np.ndarray,
    step_px: float,
    design: np.ndarray,
    expected: np.ndarray,
    centres: np.ndarray,
    prior_rays: float,
    ray: np.ndarray,
    maps: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """One pass of the fit for every candidate.

    Args:
        polar: (n * angles, samples, 3) uint8, each ray's samples outward (`cv2.remap`).
        prior: (n, angles, steps) float32 `ray_weights`' step weights (steps = samples - 2,
            the step at k compares samples k and k + 2).
        band: (n, angles, steps) float32, 1 where this pass looks for the outline.
        inside: (n, angles, steps) float32, 1 where an outline may lie; read only for the
            candidates ``near`` a cushion.
        near: (n,) bool, the candidates whose rays may leave where outlines may lie.
        first: The first pass (the strongest step in the wide band; later passes the
            outermost strong one in the narrow band).
        radii: (steps,) float64 the radius of each step.
        step_px: Sample spacing, pixels.
        design: (n, angles, 3) float64 each ray's row (s, cos, sin).
        expected: (n,) float64 expected mean radii.
        centres: (n, 2) float64 current centres.
        prior_rays: Rays' worth of weight the expected radius has in each fit.
        ray: (angles, samples, 2) float32 each ray's sample offsets from a centre.
        maps: (n * angles, samples, 2) float32, filled with the next pass's sample points
            (`ray_maps` of the new centres).

    Returns:
        New centres (n, 2), fitted radii (n,), each ray's distance from the fit (n, angles),
        the rays that agree with it (n, angles), and the largest centre move.
    """
    n, angles, steps = prior.shape
    threshold = np.float32(1.0) if first else np.float32(0.35)
    out_c = centres.copy()
    fit_r = np.empty(n)
    err = np.zeros((n, angles))
    good = np.zeros((n, angles), dtype=np.bool_)
    moved_max = 0.0
    raw = np.empty(steps, dtype=np.float32)
    energy = np.empty(steps, dtype=np.float32)
    r = np.empty(angles)
    e1s = np.empty(angles, dtype=np.float32)
    for i in range(n):
        for a in range(angles):
            row = polar[i * angles + a]
            peak = np.float32(0.0)
            for k in range(steps):
                d0 = np.float32(row[k + 2, 0]) - np.float32(row[k, 0])
                d1 = np.float32(row[k + 2, 1]) - np.float32(row[k, 1])
                d2 = np.float32(row[k + 2, 2]) - np.float32(row[k, 2])
                s = (d0 * d0 + d1 * d1 + d2 * d2) * prior[i, a, k]
                if near[i]:
                    s = s * inside[i, a, k]
                raw[k] = s
                e = s * band[i, a, k]
                energy[k] = e
                peak = max(peak, e)
            r[a], e1s[a] = _outline_radius(raw, energy, peak, threshold, radii, step_px)
        _gate(e1s, good[i])
        sol = np.zeros(3)
        for _ in range(2):
            sol = _weighted_fit(design[i], r, good[i], expected[i], prior_rays)
            _robust(design[i], r, sol, err[i], good[i])
        fit_r[i] = sol[0]
        moved_max = max(moved_max, math.hypot(sol[1], sol[2]))
        if good[i].sum() >= MIN_RAYS:
            out_c[i, 0] += sol[1]
            out_c[i, 1] += sol[2]
    ray_maps(out_c, ray, maps)
    return out_c, fit_r, err, good, moved_max


@njit(cache=True, nogil=True)
def ray_maps(centres: np.ndarray, ray: np.ndarray, maps: np.ndarray) -> None:
    """Every candidate's rays' sample points, (n * angles, samples, 2) float32 into ``maps``
    (the centre in float32 plus each offset, as `cv2.remap`'s map)."""
    angles, samples = ray.shape[0], ray.shape[1]
    for i in range(len(centres)):
        cx, cy = np.float32(centres[i, 0]), np.float32(centres[i, 1])
        for a in range(angles):
            for j in range(samples):
                maps[i * angles + a, j, 0] = cx + ray[a, j, 0]
                maps[i * angles + a, j, 1] = cy + ray[a, j, 1]


@njit(cache=True, nogil=True)
def ellipse_design(
    shape: np.ndarray, cos: np.ndarray, sin: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's rays' design rows (s, cos, sin) for outlines of known shape, where
    s(theta) is the ellipse's radius along the ray over its mean radius, (n, angles, 3), and
    the mean radii (n,).

    Args:
        shape: (n, 3) each outline's quadratic form (a, b, c) (`vision.circles.fit_circles`).
        cos: (angles,) the rays' directions' cosines.
        sin: (angles,) and sines.
    """
    n, angles = len(shape), len(cos)
    design = np.empty((n, angles, 3))
    means = np.empty(n)
    radius = np.empty(angles)
    for i in range(n):
        a, b, c = shape[i, 0], shape[i, 1], shape[i, 2]
        for k in range(angles):
            along = a * cos[k] ** 2 + 2 * b * cos[k] * sin[k] + c * sin[k] ** 2
            radius[k] = 1.0 / math.sqrt(max(along, 1e-12))
        means[i] = block_sum(radius, 0, len(radius)) / angles
        for k in range(angles):
            design[i, k, 0] = radius[k] / means[i]
            design[i, k, 1] = cos[k]
            design[i, k, 2] = sin[k]
    return design, means


@njit(cache=True, nogil=True)
def outline_inside(
    allowed: np.ndarray, scale: int, maps: np.ndarray, near: np.ndarray, inside: np.ndarray
) -> None:
    """Into ``inside`` (n, angles, steps) float32, for the candidates ``near`` an edge: 1
    where a radial step's sample (between the samples of ``maps``, (n * angles, steps + 2, 2)
    float32) lies where an outline may be (``allowed`` non-zero, at 1/``scale`` of the image's
    resolution), else 0. OpenCV's nearest-pixel remap (edge pixels repeated past the edge),
    from the same float32 points."""
    h, w = allowed.shape
    half, s = np.float32((scale - 1) / 2), np.float32(scale)
    angles, steps = inside.shape[1], inside.shape[2]
    for i in range(len(near)):
        if not near[i]:
            continue
        for a in range(angles):
            r = i * angles + a
            for k in range(steps):
                mx = (np.float32(0.5) * (maps[r, k, 0] + maps[r, k + 2, 0]) - half) / s
                my = (np.float32(0.5) * (maps[r, k, 1] + maps[r, k + 2, 1]) - half) / s
                x = min(max(int(np.rint(mx)), 0), w - 1)
                y = min(max(int(np.rint(my)), 0), h - 1)
                inside[i, a, k] = 1.0 if allowed[y, x] > 0 else 0.0


@njit(cache=True, nogil=True)
def near_edges(centres: np.ndarray, reach: float, clear: np.ndarray, scale: int) -> np.ndarray:
    """Which candidates' rays may meet a pixel where no outline may be: those whose centre's
    distance from such a pixel (``clear``, a distance transform at 1/``scale`` of the image's
    resolution, float32) is within ``reach`` (and a pixel of ``clear``)."""
    h, w = clear.shape
    out = np.empty(len(centres), dtype=np.bool_)
    half = (scale - 1) / 2
    limit = np.float32(reach + scale)
    for i in range(len(centres)):
        ix = min(max(int(np.rint((centres[i, 0] - half) / scale)), 0), w - 1)
        iy = min(max(int(np.rint((centres[i, 1] - half) / scale)), 0), h - 1)
        out[i] = clear[iy, ix] * np.float32(scale) <= limit
    return out


@njit(cache=True, nogil=True)
def _outline_radius(
    raw: np.ndarray,
    energy: np.ndarray,
    peak: np.float32,
    threshold: np.float32,
    radii: np.ndarray,
    step_px: float,
) -> tuple[float, np.float32]:
    """One ray's outline radius and its step's strength.

    The outline is the outermost strong step (a local maximum of the steps themselves, inner
    samples only, at least ``threshold`` of the band's strongest): a stripe's cap or a number
    disc can be stronger, but it is never outside. Where the band ends on a step still rising
    toward an outline beyond it, its last sample is no outline. Refined by a parabola through
    the step and its neighbours.
    """
    steps = len(raw)
    k = 1
    if peak > 0:
        floor = threshold * peak
        for j in range(steps - 2, 0, -1):
            if raw[j] >= raw[j - 1] and raw[j] >= raw[j + 1] and energy[j] >= floor:
                k = j
                break
    e0, e1, e2 = energy[k - 1], energy[k], energy[k + 1]
    denom = e0 - np.float32(2.0) * e1 + e2
    offset = np.float32(0.0)
    if denom < 0:
        offset = np.float32(0.5) * (e0 - e2) / denom
    offset = min(max(offset, np.float32(-1.0)), np.float32(1.0))
    return radii[k] + np.float64(offset * np.float32(step_px)), e1


@njit(cache=True, nogil=True)
def _gate(strength: np.ndarray, good: np.ndarray) -> None:
    """The rays whose outline step is more than a faint share of the typical one's."""
    ordered = strength.copy()
    _sort(ordered)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        median = ordered[mid]
    else:
        median = np.float32(0.5) * (ordered[mid - 1] + ordered[mid])
    gate = np.float32(0.15) * median
    for a in range(len(strength)):
        good[a] = strength[a] > gate and strength[a] > 0


@njit(cache=True, nogil=True)
def _robust(
    design: np.ndarray, r: np.ndarray, sol: np.ndarray, err: np.ndarray, good: np.ndarray
) -> None:
    """Each ray's distance from the fit (into ``err``), and the good rays less those far off
    (beyond 2.5 median distances, at least a pixel), unless too few would be left."""
    count = 0
    for a in range(len(r)):
        fitted = design[a, 0] * sol[0] + design[a, 1] * sol[1] + design[a, 2] * sol[2]
        err[a] = abs(fitted - r[a])
        count += good[a]
    limit = max(1.0, 2.5 * _masked_median(err, good, count))
    kept = 0
    for a in range(len(r)):
        kept += good[a] and err[a] < limit
    if kept >= MIN_RAYS:
        for a in range(len(r)):
            good[a] = good[a] and err[a] < limit


@njit(cache=True, nogil=True)
def _masked_median(values: np.ndarray, mask: np.ndarray, count: int) -> float:
    """The median of the masked values (0 for none)."""
    if count == 0:
        return 0.0
    picked = np.empty(count)
    j = 0
    for a in range(len(values)):
        if mask[a]:
            picked[j] = values[a]
            j += 1
    _sort(picked)
    return 0.5 * (picked[(count - 1) // 2] + picked[count // 2])


@njit(cache=True, nogil=True)
def _weighted_fit(
    design: np.ndarray, r: np.ndarray, good: np.ndarray, expected: float, prior_rays: float
) -> np.ndarray:
    """Least squares of r = R s + dx cos + dy sin over the good rays, R drawn toward the
    expected radius with the weight of ``prior_rays`` rays; (R, dx, dy)."""
    ata = np.zeros((3, 3))
    atb = np.zeros(3)
    for a in range(design.shape[0]):
        if good[a]:
            for p in range(3):
                atb[p] += r[a] * design[a, p]
                for q in range(3):
                    ata[p, q] += design[a, p] * design[a, q]
    for p in range(3):
        ata[p, p] += _RIDGE
    ata[0, 0] += prior_rays
    atb[0] += prior_rays * expected
    return _solve3(ata, atb)


@njit(cache=True, nogil=True)
def _solve3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with a x = b for a 3 x 3 system, by elimination with partial pivoting (as LAPACK's
    gesv; numba's own solve costs seconds of compiling for nothing a 3 x 3 needs)."""
    a = a.copy()
    b = b.copy()
    for col in range(3):
        pivot = col
        for row in range(col + 1, 3):
            if abs(a[row, col]) > abs(a[pivot, col]):
                pivot = row
        if pivot != col:
            for k in range(3):
                a[col, k], a[pivot, k] = a[pivot, k], a[col, k]
            b[col], b[pivot] = b[pivot], b[col]
        for row in range(col + 1, 3):
            f = a[row, col] / a[col, col]
            for k in range(col, 3):
                a[row, k] -= f * a[col, k]
            b[row] -= f * b[col]
    x = np.empty(3)
    for row in range(2, -1, -1):
        total = b[row]
        for k in range(row + 1, 3):
            total -= a[row, k] * x[k]
        x[row] = total / a[row, row]
    return x


@njit(cache=True, nogil=True)
def _sort(values: np.ndarray) -> None:
    """Sort a few dozen values in place (insertion sort: numba's own sort costs seconds of
    compiling)."""
    for i in range(1, len(values)):
        v = values[i]
        j = i - 1
        while j >= 0 and values[j] > v:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = v


@njit(cache=True, nogil=True)
def fit_quality(err: np.ndarray, good: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate: how many rays agree with its fit, the share of rays within 1.2 pixels
    of it, and the RMS distance of the agreeing rays (numpy's summation order)."""
    n, angles = err.shape
    count = np.zeros(n, np.int64)
    support = np.empty(n)
    residual = np.empty(n)
    squares = np.empty(angles)
    for i in range(n):
        close = 0
        for a in range(angles):
            count[i] += good[i, a]
            close += good[i, a] and err[i, a] < 1.2
            squares[a] = err[i, a] * err[i, a] if good[i, a] else 0.0
        support[i] = close / angles
        residual[i] = math.sqrt(block_sum(squares, 0, len(squares)) / max(count[i], 1))
    return count, support, residual
