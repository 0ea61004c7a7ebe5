"""The virtual table as a camera: a `FrameSource` rendering any time-varying table."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator

import numpy as np

from hardware.clock import Clock
from hardware.frames import Frame
from hardware.sim.render import TableRenderer
from hardware.sim.snapshot import TableSnapshot

log = logging.getLogger(__name__)

SnapshotAt = Callable[[float], TableSnapshot]
"""The table at a session time: what the physics (or a scripted scenario) provides."""


class VirtualCamera:
    """Renders frames of the virtual table at the renderer's frame rate over a time span.

    Frame ``i`` is stamped ``start + i / fps`` on the session clock: the middle of its exposure.
    With motion blur on, the renderer averages ``blur_subframes`` instants spread over the
    exposure around that time (clamped to the span, so ``snapshot_at`` is never asked about a
    time outside it).

    Args:
        snapshot_at: The table at a session time.
        renderer: Draws a snapshot as the camera sees it.
        start: Session time of the first frame.
        end: No frame is later than this.
        clock: When given, each frame is released only once the clock reaches its time, as a
            live camera would deliver it (a `FakeClock` advances instead of waiting). Without a
            clock, frames come as fast as they render.

    Raises:
        ValueError: ``end`` is before ``start``.
    """

    def __init__(
        self,
        snapshot_at: SnapshotAt,
        renderer: TableRenderer,
        *,
        start: float,
        end: float,
        clock: Clock | None = None,
    ) -> None:
        if end < start:
            raise ValueError(f"virtual camera: span ends at {end} s, before its start {start} s")
        self._snapshot_at = snapshot_at
        self._renderer = renderer
        self._start = start
        self._end = end
        self._clock = clock
        self._closed = False
        self.frames_skipped = 0
        """Frames not rendered because the clock had passed their time (clocked cameras)."""

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames."""
        return self._renderer.config.resolution

    @property
    def fps(self) -> float:
        """Frames per second."""
        return self._renderer.config.fps

    def frame_times(self) -> np.ndarray:
        """Session times of every frame of the span."""
        count = math.floor((self._end - self._start) * self.fps + 1e-9) + 1
        return self._start + np.arange(count) / self.fps

    def exposure_times(self, time: float) -> list[float]:
        """The instants averaged into the frame stamped ``time``."""
        cfg = self._renderer.config
        if cfg.blur_subframes == 1:
            return [time]
        half = cfg.exposure_s / 2
        offsets = np.linspace(-half, half, cfg.blur_subframes)
        return [float(min(max(time + dt, self._start), self._end)) for dt in offsets]

    def __iter__(self) -> Iterator[Frame]:
        """Frames in order, until the span ends or the camera is closed."""
        interval = 1.0 / self.fps
        for index, time in enumerate(self.frame_times()):
            if self._closed:
                return
            t = float(time)
            if self._clock is not None:
                wait = t - self._clock.now()
                if wait > 0:
                    self._clock.sleep(wait)
                elif -wait >= interval - 1e-9:
                    # A live camera does not wait for a slow reader: the frame's moment passed.
                    self.frames_skipped += 1
                    continue
            snapshots = [self._snapshot_at(s) for s in self.exposure_times(t)]
            image = self._renderer.render(snapshots, frame_index=index)
            yield Frame(index, t, image)
        log.debug("virtual camera: span %.3f-%.3f s done", self._start, self._end)

    def close(self) -> None:
        """Stop delivering frames; idempotent."""
        self._closed = True
