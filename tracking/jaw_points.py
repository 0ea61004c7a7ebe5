"""Rebounds off a jaw's point, for the segmenter: where a pocket's jaw face meets its cushion's
nose the rubber turns a corner, and a ball that touches it there lies along neither face, so
the rebound test on the distance to a face (`tracking.cushion_contacts`) cannot see it (a slow
ball rolling into a side pocket's mouth onto the point, a ball pressed into the corner by the
one behind it). A point has no face to measure a distance to: a ball passing it by has its
distance to it fall and rise with no touch. The test is on the ball's velocity instead: the
lines through its centres before and after must turn, when the line in comes one radius from
the point, away from the point."""

from __future__ import annotations

import math

import numpy as np

from tracking.fits import fit_line
from tracking.geometry import closest_time, touch_roots

_ALONG_NORMAL = 0.8
"""The least share of the velocity's change along the line from the point to the centre: the
rubber pushes the ball straight away from the point (friction throws it a little)."""


def point_rebound(
    times: np.ndarray,
    pts: np.ndarray,
    sides: tuple[np.ndarray, np.ndarray],
    point: np.ndarray,
    reach: tuple[float, float],
    limits: tuple[float, float, float],
) -> tuple[float, float, np.ndarray] | None:
    """(time, uncertainty, where the centre was then) of a ball's rebound off a jaw's
    ``point``, from its centres ``pts`` at ``times`` on ``sides`` (the frames before the touch,
    those after; two or more each). ``reach``: one radius and the touch tolerance, mm;
    ``limits``: the centres' sigma (mm), the least change of velocity counted (mm/s) and how
    many sigmas of its noise it must be. None when the lines do not turn by that much, where
    the line in comes one radius from the point, away from it."""
    (ins, outs), (rad, tol), (sigma, least, sigmas) = sides, reach, limits
    if len(ins) < 2 or len(outs) < 2:
        return None
    v_in, at_in, sd_in = _line(times[ins], pts[ins], sigma, times[ins[-1]])
    v_out, at_out, sd_out = _line(times[outs], pts[outs], sigma, times[outs[0]])
    change = v_out - v_in
    size = float(np.hypot(*change))
    if size < max(least, sigmas * math.hypot(sd_in, sd_out)):
        return None
    t_last, t_first = float(times[ins[-1]]), float(times[outs[0]])
    rel = at_in - point
    roots = touch_roots(rel, v_in, rad)
    way = t_first - t_last
    tau = roots[0] if roots and roots[0] >= 0.0 else closest_time(rel, v_in, 0.0, way)
    t = t_last + tau
    if not t_last <= t <= t_first:
        return None
    centre = at_in + v_in * tau
    gap = float(np.hypot(*(centre - point)))
    if gap > rad + tol:
        return None
    normal = (centre - point) / max(gap, 1e-9)
    if float(change @ normal) < _ALONG_NORMAL * size:
        return None
    # Carried back to the touch, the way out starts there too.
    if float(np.hypot(*(at_out + v_out * (t - t_first) - point))) > rad + tol:
        return None
    return t, 0.5 * way, centre


def _line(t: np.ndarray, xy: np.ndarray, sigma: float, t_ref: float):
    """(velocity, centre at ``t_ref``, the velocity's sigma per axis) of a straight line
    through centres ``xy`` at ``t``."""
    vx, sd, t_mean, x_mean = fit_line(t, xy[:, 0], sigma)
    vy, _, _, y_mean = fit_line(t, xy[:, 1], sigma)
    velocity = np.array([vx, vy])
    return velocity, np.array([x_mean, y_mean]) + velocity * (t_ref - t_mean), sd
