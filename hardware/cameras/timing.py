"""Frame arrival times -> frame indices, dropped frames and a measured frame rate (pure).

Where a camera numbers its frames (a device sequence number), a jump in that number is the
count of frames lost. Most cameras behind OpenCV do not, and then the gap in arrival times
tells: a gap of more than 1.5 nominal intervals counts as ``round(gap / interval) - 1`` frames
lost. Either way the next frame's index skips them, so an index gap downstream means the same
thing whatever dropped the frame.
"""

from __future__ import annotations

import statistics
from collections import deque

# A gap this many intervals long is a drop, not jitter: USB cameras deliver in bursts of up to
# half an interval late, and a whole missed frame makes a gap of two.
DROP_GAP_INTERVALS = 1.5
# Intervals needed before a measured rate stands in for an unknown nominal rate.
MIN_INTERVALS_FOR_RATE = 5


class FrameTiming:
    """Numbers frames, counts the ones a camera dropped and measures its rate.

    Args:
        nominal_fps: The rate the camera should deliver (``None``: use the measured rate).
        window: How many recent inter-arrival intervals the measured rate is the median of.
    """

    def __init__(self, nominal_fps: float | None = None, window: int = 60) -> None:
        if nominal_fps is not None and nominal_fps <= 0:
            raise ValueError(f"nominal fps must be positive, got {nominal_fps}")
        self.nominal_fps = nominal_fps
        self._intervals: deque[float] = deque(maxlen=window)
        self._drops: deque[tuple[float, int]] = deque(maxlen=1024)
        self._last_arrival: float | None = None
        self._last_device_index: int | None = None
        self._next_index = 0
        self.frames = 0
        self.dropped = 0

    def arrive(self, t: float, device_index: int | None = None) -> int:
        """Record a frame that arrived at session time ``t``; return its index.

        Args:
            t: Session time of arrival.
            device_index: The camera's own sequence number for the frame, if it has one; when
                it advances by one from the last frame, a late arrival is not a drop.
        """
        missed = 0
        by_device = self._device_gap(device_index)
        if self._last_arrival is not None:
            gap = t - self._last_arrival
            interval = self.interval_s
            if by_device is not None:
                missed = by_device
            elif interval is not None and gap > DROP_GAP_INTERVALS * interval:
                missed = max(0, round(gap / interval) - 1)
            if missed == 0:
                # A drop's gap would drag the measured rate down: keep only clean intervals.
                self._intervals.append(gap)
        if missed:
            self.dropped += missed
            self._drops.append((t, missed))
        index = self._next_index + missed
        self._next_index = index + 1
        self._last_arrival = t
        self.frames += 1
        return index

    def restart(self) -> None:
        """The stream was reopened: the next frame's gap says nothing about drops."""
        self._last_arrival = None
        self._last_device_index = None

    def _device_gap(self, device_index: int | None) -> int | None:
        """Frames lost by the device's numbering, or ``None`` when it does not tell."""
        last, self._last_device_index = self._last_device_index, device_index
        if device_index is None or last is None or device_index <= last:
            return None  # no numbering, the first frame, or a counter that went back (a reset)
        return device_index - last - 1

    @property
    def last_arrival(self) -> float | None:
        """Session time of the latest frame, if any."""
        return self._last_arrival

    @property
    def interval_s(self) -> float | None:
        """Expected seconds between frames: nominal if known, else measured."""
        fps = self.nominal_fps or self.measured_fps
        return 1.0 / fps if fps else None

    @property
    def measured_fps(self) -> float | None:
        """Rolling median rate over the recent clean intervals (``None`` until enough)."""
        if len(self._intervals) < MIN_INTERVALS_FOR_RATE:
            return None
        median = statistics.median(self._intervals)
        return 1.0 / median if median > 0 else None

    def dropped_since(self, t: float) -> int:
        """Frames dropped by frames that arrived after session time ``t``."""
        return sum(n for at, n in self._drops if at > t)
