"""A live camera: device index, device path or stream URL, kept alive by a grabber thread.

The pure-ish core is `CameraLink`: one `step()` opens the capture when due, reads one frame,
stamps it on the session clock, numbers it (`FrameTiming`), and on failure releases the capture
and schedules a reopen with exponential backoff. Tests drive it step by step with a fake capture
and a `FakeClock`. `CameraSource` runs a link in a grabber thread that only moves each frame into
a one-frame "latest" slot: a slow consumer never builds a queue, it skips frames, and the skips
are counted. Reads from the slot time out, so a camera that stops never blocks the monitor.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import cv2
import numpy as np

from hardware.cameras.config import CameraConfig
from hardware.cameras.timing import FrameTiming
from hardware.clock import Clock
from hardware.frames import Frame, LatestFrame

log = logging.getLogger(__name__)

# A measured rate below this share of the nominal rate degrades the camera.
SLOW_RATE_SHARE = 0.8
# A reported rate outside this range is a driver's placeholder, not a frame rate.
PLAUSIBLE_FPS = (1.0, 1000.0)


class CameraStatus(StrEnum):
    """How a camera is doing, as the monitor shows it."""

    ONLINE = "online"
    """Delivering at its rate without drops."""
    DEGRADED = "degraded"
    """Delivering, but dropping frames or slower than its nominal rate."""
    OFFLINE = "offline"
    """Not delivering: not opened, lost and being reopened, or stalled."""


@dataclass(frozen=True, slots=True)
class CameraHealth:
    """One look at a camera's state, for the monitor and the logs.

    Attributes:
        status: Online, degraded or offline.
        reason: Why, in words an operator can act on.
        frames: Frames received since the source was made.
        dropped_by_camera: Frames the camera lost, from gaps in arrival times.
        dropped_by_consumer: Frames replaced in the latest-frame slot before anyone took them.
        reconnects: Times the camera was reopened after it was lost.
        measured_fps: Rolling median rate (``None`` until enough frames).
        nominal_fps: Configured or reported rate (``None`` if neither is known).
        last_frame_time: Session time of the latest frame (``None`` before the first).
    """

    status: CameraStatus
    reason: str
    frames: int
    dropped_by_camera: int
    dropped_by_consumer: int
    reconnects: int
    measured_fps: float | None
    nominal_fps: float | None
    last_frame_time: float | None


class Capture(Protocol):
    """The part of `cv2.VideoCapture` a camera source uses (a fake one in tests)."""

    def isOpened(self) -> bool:
        """The device or stream is open."""
        ...

    def read(self) -> tuple[bool, Any]:
        """Block until the next frame: (ok, BGR image or None)."""
        ...

    def get(self, prop_id: int) -> float:
        """A capture property (``cv2.CAP_PROP_*``)."""
        ...

    def release(self) -> None:
        """Close the device or stream."""
        ...


CaptureFactory = Callable[[CameraConfig], Capture]


def open_capture(config: CameraConfig) -> Capture:
    """Open ``config.source`` with OpenCV and apply the requested format (the default factory).

    The capture may come back not opened; the caller checks `isOpened`.
    """
    source: int | str = config.source
    if isinstance(source, str) and source.isdigit():
        source = int(source)
    params: list[int] = []
    if config.is_stream:
        # Without these a dead RTSP/HTTP stream blocks open() and read() for 30 s or more.
        timeout_ms = int(config.stall_timeout_s * 1000)
        params = [
            cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
            timeout_ms,
            cv2.CAP_PROP_READ_TIMEOUT_MSEC,
            timeout_ms,
        ]
    capture = cv2.VideoCapture(source, cv2.CAP_ANY, params)
    if capture.isOpened():
        if config.fourcc:
            capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*config.fourcc))
        if config.width:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, config.width)
        if config.height:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, config.height)
        if config.fps:
            capture.set(cv2.CAP_PROP_FPS, config.fps)
        # The latest frame matters, not a backlog of stale ones inside the driver.
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
    return capture


class CameraLink:
    """One camera's connection: open, read, number, detect loss, reopen with backoff.

    One thread steps it and closes it (the grabber); `health` may be called from any thread.

    Args:
        config: The camera to open and how to keep it.
        clock: The session clock frames are stamped on.
        capture_factory: Opens a capture for ``config`` (OpenCV by default; a fake in tests).
        on_status: Called with the new health whenever the status changes.
        degraded_window_s: Dropped frames this recent make the camera degraded.
    """

    def __init__(
        self,
        config: CameraConfig,
        clock: Clock,
        *,
        capture_factory: CaptureFactory = open_capture,
        on_status: Callable[[CameraHealth], None] | None = None,
        degraded_window_s: float = 5.0,
    ) -> None:
        self.config = config
        self._clock = clock
        self._factory = capture_factory
        self._on_status = on_status
        self._window_s = degraded_window_s
        self._lock = threading.RLock()
        self._capture: Capture | None = None
        self._timing = FrameTiming(config.fps)
        self._failures = 0
        self._attempt = 0
        self._retry_at = clock.now()
        self._opened_at = 0.0
        self._ever_opened = False
        self._reconnects = 0
        self._offline_reason = f"camera {config.source} not opened yet"
        self._status = CameraStatus.OFFLINE
        self._last_size: tuple[int, int] | None = None

    @property
    def connected(self) -> bool:
        """A capture is open."""
        return self._capture is not None

    @property
    def wait_s(self) -> float:
        """Seconds until the next `step` can do anything (a reopen is due); 0 when connected."""
        with self._lock:
            if self._capture is not None:
                return 0.0
            return max(0.0, self._retry_at - self._clock.now())

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the latest frame (or as opened), else the requested size, or 0s."""
        if self._last_size is not None:
            return self._last_size
        return (self.config.width or 0, self.config.height or 0)

    @property
    def fps(self) -> float:
        """Measured rate, else nominal, else 0."""
        return self._timing.measured_fps or self._timing.nominal_fps or 0.0

    def step(self) -> Frame | None:
        """Open the camera if a reopen is due, then read one frame.

        Returns:
            The frame, stamped on the session clock at arrival, or ``None`` when there was none
            (not connected yet, a failed read, the camera was lost).
        """
        if self._capture is None:
            if self._clock.now() < self._retry_at:
                self._refresh()
                return None
            if not self._open():
                return None
        capture = self._capture
        if capture is None:  # closed meanwhile
            return None
        ok, image, error = _read(capture)
        with self._lock:
            now = self._clock.now()
            frame = self._accept(now, image) if ok else None
            if frame is None:
                self._failures += 1
                reason = error or "the camera returned no frame"
                self._check_lost(now, reason)
        self._refresh()
        return frame

    def health(self) -> CameraHealth:
        """The camera's state now."""
        self._refresh()
        with self._lock:
            return self._health()

    def close(self) -> None:
        """Release the capture; idempotent."""
        with self._lock:
            capture, self._capture = self._capture, None
            self._offline_reason = "closed"
        if capture is not None:
            _release(capture)
        self._refresh()

    # -- the grabber's side ---------------------------------------------------------------

    def _open(self) -> bool:
        source = self.config.source
        try:
            capture = self._factory(self.config)
            opened = capture.isOpened()
        except Exception as exc:  # an OpenCV or driver error is a failed attempt, not a crash
            capture, opened = None, False
            error = f"cannot open camera {source}: {exc}"
        else:
            error = f"cannot open camera {source}"
        if not opened:
            if capture is not None:
                _release(capture)
            with self._lock:
                self._schedule_reopen(self._clock.now(), error)
            self._refresh()
            return False
        with self._lock:
            self._capture = capture
            self._failures = 0
            self._opened_at = self._clock.now()
            if self._ever_opened:
                self._reconnects += 1
                log.info("camera %s reopened (reconnect %d)", source, self._reconnects)
            self._ever_opened = True
            if self.config.fps is None:
                self._timing.nominal_fps = _plausible_fps(capture.get(cv2.CAP_PROP_FPS))
            width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
            height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
            if width > 0 and height > 0 and self._last_size is None:
                self._last_size = (width, height)  # what the driver agreed to, until a frame
        self._refresh()
        return True

    def _accept(self, now: float, image: Any) -> Frame | None:
        if isinstance(image, np.ndarray) and image.ndim == 2 and image.dtype == np.uint8:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        if not (
            isinstance(image, np.ndarray)
            and image.ndim == 3
            and image.shape[2] == 3
            and image.dtype == np.uint8
        ):
            return None
        index = self._timing.arrive(now, self._device_index())
        self._failures = 0
        self._attempt = 0
        self._last_size = (image.shape[1], image.shape[0])
        return Frame(index=index, time=now, image=image)

    def _device_index(self) -> int | None:
        # Backends that number frames report it here; webcams via V4L2 and most streams
        # report nothing useful (0 or -1), and then arrival times are the evidence.
        try:
            value = self._capture.get(cv2.CAP_PROP_POS_FRAMES) if self._capture else 0.0
        except Exception:  # a property a backend lacks is not a failure
            return None
        return int(value) if value and value > 0 else None

    def _check_lost(self, now: float, reason: str) -> None:
        last = self._timing.last_arrival
        since = now - (last if last is not None and last >= self._opened_at else self._opened_at)
        if self._failures >= self.config.failed_reads:
            self._lose(now, f"{reason} ({self._failures} reads in a row)")
        elif since > self.config.stall_timeout_s:
            self._lose(now, f"no frame for {since:.1f} s")

    def _lose(self, now: float, reason: str) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            _release(capture)
        self._timing.restart()
        self._schedule_reopen(now, reason)

    def _schedule_reopen(self, now: float, reason: str) -> None:
        self._attempt += 1
        delay = self.config.backoff_s(self._attempt)
        self._retry_at = now + delay
        self._offline_reason = f"{reason}; reopening in {delay:.3g} s (attempt {self._attempt})"
        log.warning("camera %s: %s", self.config.source, self._offline_reason)

    def _evaluate(self, now: float) -> tuple[CameraStatus, str]:
        if self._capture is None:
            return CameraStatus.OFFLINE, self._offline_reason
        last = self._timing.last_arrival
        if last is None or last < self._opened_at:
            waited = now - self._opened_at
            if waited > self.config.stall_timeout_s:
                return CameraStatus.OFFLINE, f"opened, but no frame for {waited:.1f} s"
            return CameraStatus.OFFLINE, "opened, waiting for the first frame"
        if now - last > self.config.stall_timeout_s:
            return CameraStatus.OFFLINE, f"no frame for {now - last:.1f} s"
        dropped = self._timing.dropped_since(now - self._window_s)
        if dropped:
            window = f"{self._window_s:g} s"
            return CameraStatus.DEGRADED, f"{dropped} frames dropped in the last {window}"
        measured, nominal = self._timing.measured_fps, self._timing.nominal_fps
        if measured and nominal and measured < SLOW_RATE_SHARE * nominal:
            return CameraStatus.DEGRADED, f"{measured:.1f} fps of a nominal {nominal:g}"
        return CameraStatus.ONLINE, f"delivering {measured or nominal or 0:.1f} fps"

    def _refresh(self) -> None:
        with self._lock:
            status, reason = self._evaluate(self._clock.now())
            changed = status is not self._status
            self._status, self._reason = status, reason
            health = self._health() if changed else None
        if health is not None:
            log.info("camera %s is %s: %s", self.config.source, health.status, health.reason)
            if self._on_status is not None:
                try:
                    self._on_status(health)
                except Exception:  # a listener's bug must not stop the camera
                    log.exception("camera %s: status listener failed", self.config.source)

    def _health(self) -> CameraHealth:
        return CameraHealth(
            status=self._status,
            reason=self._reason,
            frames=self._timing.frames,
            dropped_by_camera=self._timing.dropped,
            dropped_by_consumer=0,
            reconnects=self._reconnects,
            measured_fps=self._timing.measured_fps,
            nominal_fps=self._timing.nominal_fps,
            last_frame_time=self._timing.last_arrival,
        )


class CameraSource:
    """A live camera as a `FrameSource`: a grabber thread and a one-frame latest slot.

    The grabber starts at construction and keeps reopening a lost camera until `close`.
    Iterating yields the newest frame each time one arrives and ends only after `close`
    (from another thread); each wait is bounded by ``stall_timeout_s``, so a caller that
    prefers to poll uses `read` with its own timeout.

    Args:
        config: The camera to open and how to keep it.
        clock: The session clock frames are stamped on.
        capture_factory: Opens a capture for ``config`` (OpenCV by default; a fake in tests).
        on_status: Called (from the grabber thread) whenever the status changes.
    """

    def __init__(
        self,
        config: CameraConfig,
        clock: Clock,
        *,
        capture_factory: CaptureFactory = open_capture,
        on_status: Callable[[CameraHealth], None] | None = None,
    ) -> None:
        self.config = config
        self._clock = clock
        self._link = CameraLink(config, clock, capture_factory=capture_factory, on_status=on_status)
        self._slot = LatestFrame()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._grab, name=f"camera-{config.source}", daemon=True
        )
        self._thread.start()

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the latest frame, else the requested size, else (0, 0)."""
        return self._link.size

    @property
    def fps(self) -> float:
        """Measured frame rate, else nominal, else 0."""
        return self._link.fps

    def read(self, timeout_s: float) -> Frame | None:
        """The newest frame not yet taken, waiting at most ``timeout_s`` (``None``: none came)."""
        return self._slot.take(timeout_s)

    def __iter__(self) -> Iterator[Frame]:
        """Newest frames as they arrive, until `close`."""
        while not self._stop.is_set():
            frame = self._slot.take(self.config.stall_timeout_s)
            if frame is not None:
                yield frame

    def health(self) -> CameraHealth:
        """The camera's state now, with the frames this source's consumer skipped."""
        return dataclasses.replace(self._link.health(), dropped_by_consumer=self._slot.replaced)

    def close(self, join_timeout_s: float = 1.0) -> None:
        """Stop the grabber and release the camera; idempotent, waits at most ``join_timeout_s``."""
        self._stop.set()
        self._slot.close()
        if threading.current_thread() is not self._thread:
            self._thread.join(join_timeout_s)
        if self._thread.is_alive():
            # Stuck inside a driver's read(); it releases the capture itself when it returns.
            log.warning("camera %s: grabber still blocked in a read at close", self.config.source)

    def __enter__(self) -> CameraSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _grab(self) -> None:
        try:
            while not self._stop.is_set():
                frame = self._link.step()
                if frame is not None:
                    self._slot.put(frame)
                    continue
                self._pause(self._link.wait_s)
        except Exception:  # the monitor must learn of it through the status, not a dead thread
            log.exception("camera %s: grabber failed", self.config.source)
        finally:
            self._link.close()

    def _pause(self, seconds: float) -> None:
        # Short slices so close() is honoured promptly; a FakeClock advances instead.
        seconds = max(seconds, 0.001)
        end = self._clock.now() + seconds
        while not self._stop.is_set() and self._clock.now() < end:
            self._clock.sleep(min(0.05, end - self._clock.now()))


def _read(capture: Capture) -> tuple[bool, Any, str | None]:
    try:
        ok, image = capture.read()
    except Exception as exc:  # a driver error mid-stream is a failed read
        return False, None, f"read failed: {exc}"
    if ok and image is None:
        return False, None, "the camera returned an empty frame"
    return bool(ok), image, None


def _release(capture: Capture) -> None:
    try:
        capture.release()
    except Exception as exc:  # releasing a dead device may fail; it is gone either way
        log.debug("release failed: %s", exc)


def _plausible_fps(value: float) -> float | None:
    low, high = PLAUSIBLE_FPS
    return float(value) if low <= value <= high else None
