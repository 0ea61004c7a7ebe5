"""Device-clock to session-clock mapping for the pocket-sensor board.

Every line carries the board's time in microseconds; the reader stamps it with the session time
at arrival. Arrival = event + link latency, and latency is never below some floor but often
above it (a busy host, USB polling, a line queued behind another). So the useful relation is the
lower envelope of (device time, arrival) points, not a least-squares line: the mapping is the
supporting line of their lower convex hull at the centroid of the window, i.e. the line under
every point that minimises the total latency above it (the linear-programming clock-skew
estimator of Moon, Skelly and Towsley, 1999). Its slope is the board's rate against the session
clock; a ceramic resonator runs up to ~0.5 % off, so the slope is fitted, not assumed.
A board reset restarts device time: call `reset`.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass

RESOLUTION_S = 200e-6
"""Timestamp granularity of the firmware's fast-poll loop (100-200 us in simavr)."""

OFFSET_ERROR_FACTOR = 3.0
"""Scales the jitter-over-count estimate of the envelope's offset error (see bench)."""


@dataclass(frozen=True, slots=True)
class ClockFit:
    """The current mapping: ``session = origin_s + rate * (t_us - origin_us) / 1e6``.

    Attributes:
        origin_us: Device time the line is anchored at.
        origin_s: Session time of ``origin_us`` at the lowest latency seen.
        rate: Session seconds per device second (1 + drift).
        fitted: True when the rate was estimated (enough span); else it is assumed to be 1.
        samples: Samples in the window.
        span_s: Device seconds from the oldest to the newest sample.
        centroid_s: Mean sample position, device seconds after ``origin_us``.
        offset_error_s: Expected distance of the envelope above the true latency floor.
    """

    origin_us: int
    origin_s: float
    rate: float
    fitted: bool
    samples: int
    span_s: float
    centroid_s: float
    offset_error_s: float

    @property
    def drift_ppm(self) -> float:
        """How fast the board's clock runs against the session clock, in parts per million."""
        return (self.rate - 1.0) * 1e6


def _lower_hull(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    hull: list[tuple[float, float]] = []
    for p in points:
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            # keep only left turns: (p2 - p1) x (p - p1) > 0
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return hull


class ClockSync:
    """Estimates the device-to-session mapping from (device time, arrival) samples.

    Args:
        window_s: Keep samples from this many seconds of device time (drift changes with
            temperature, so old samples go).
        min_span_s: Fit the rate only once the samples span this long; before, assume 1.
        max_rate_error: Clamp the fitted rate to 1 +- this (a board off by more is broken).
        max_samples: Bound on the samples kept.
    """

    def __init__(
        self,
        *,
        window_s: float = 120.0,
        min_span_s: float = 2.0,
        max_rate_error: float = 0.01,
        max_samples: int = 1024,
    ) -> None:
        self._window_us = int(window_s * 1e6)
        self._min_span_us = int(min_span_s * 1e6)
        self._max_rate_error = max_rate_error
        self._samples: deque[tuple[int, float]] = deque(maxlen=max_samples)
        self._fit: ClockFit | None = None

    def reset(self) -> None:
        """Forget everything (the board rebooted: its clock restarted)."""
        self._samples.clear()
        self._fit = None

    def add(self, t_us: int, arrival_s: float) -> None:
        """One line: its device time and its session arrival time (minus known delays)."""
        if self._samples and t_us < self._samples[-1][0]:
            # out of order within a boot cannot happen on one serial line; keep it sorted anyway
            items = sorted([*self._samples, (t_us, arrival_s)])
            self._samples.clear()
            self._samples.extend(items)
        else:
            self._samples.append((t_us, arrival_s))
        while self._samples and self._samples[-1][0] - self._samples[0][0] > self._window_us:
            self._samples.popleft()
        self._fit = None

    @property
    def samples(self) -> int:
        """How many samples the window holds."""
        return len(self._samples)

    def fit(self) -> ClockFit | None:
        """The current mapping, or None before the first sample."""
        if self._fit is None and self._samples:
            self._fit = self._compute()
        return self._fit

    def to_session(self, t_us: int) -> tuple[float, float]:
        """Map a device time to session time.

        Returns:
            (session time, uncertainty): the uncertainty is a half-width in seconds covering
            the envelope's own spread and the rate error over the distance extrapolated.

        Raises:
            ValueError: No sample yet.
        """
        fit = self.fit()
        if fit is None:
            raise ValueError("no device time seen yet: cannot map a device time")
        x = (t_us - fit.origin_us) * 1e-6
        time = fit.origin_s + fit.rate * x
        if fit.fitted:
            # the rate comes from two hull points about a quarter of the window apart, each
            # above the floor by about offset_error: its error grows away from the centroid
            rate_error = fit.offset_error_s / max(fit.span_s / 4, 1e-3)
            lever_s = abs(x - fit.centroid_s)
        else:
            rate_error = self._max_rate_error
            lever_s = fit.span_s + max(0.0, x - fit.span_s, -x)
        return time, RESOLUTION_S + fit.offset_error_s + rate_error * lever_s

    def _compute(self) -> ClockFit:
        origin_us = self._samples[0][0]
        points = [((t - origin_us) * 1e-6, a) for t, a in self._samples]
        span_us = self._samples[-1][0] - origin_us
        rate, fitted = 1.0, False
        if len(points) >= 2 and span_us >= self._min_span_us:
            rate, fitted = self._hull_rate(points), True
        intercept = min(a - rate * x for x, a in points)
        residuals = sorted(a - rate * x - intercept for x, a in points)
        return ClockFit(
            origin_us=origin_us,
            origin_s=intercept,
            rate=rate,
            fitted=fitted,
            samples=len(points),
            span_s=span_us * 1e-6,
            centroid_s=sum(x for x, _ in points) / len(points),
            offset_error_s=self._offset_error(residuals),
        )

    def _hull_rate(self, points: list[tuple[float, float]]) -> float:
        hull = _lower_hull(points)
        centroid = sum(x for x, _ in points) / len(points)
        xs = [x for x, _ in hull]
        i = min(max(bisect.bisect_right(xs, centroid), 1), len(hull) - 1)
        (x1, y1), (x2, y2) = hull[i - 1], hull[i]
        rate = (y2 - y1) / (x2 - x1) if x2 > x1 else 1.0
        low, high = 1.0 - self._max_rate_error, 1.0 + self._max_rate_error
        return min(max(rate, low), high)

    @staticmethod
    def _offset_error(residuals: list[float]) -> float:
        """How far the envelope may sit above the true latency floor.

        Latency above the floor is roughly exponential with scale sigma (median / ln 2, robust
        to a few very late lines); the lowest of n samples exceeds the floor by about sigma / n.
        The factor covers the rest (calibrated with bench/sensor_timing.py for ~90 % coverage).
        """
        if len(residuals) < 3:
            return 2e-3
        sigma = residuals[len(residuals) // 2] / math.log(2)
        return OFFSET_ERROR_FACTOR * sigma / len(residuals)
