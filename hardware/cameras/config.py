"""The `[camera]` section of the config file: which camera and how to run it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.codec import from_jsonable
from rules.errors import ConfigError


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """How to open and keep a live camera.

    Attributes:
        source: A device index (``0``), a device path (``/dev/video0``) or a stream URL
            (``rtsp://...``, ``http://...``).
        width: Requested frame width in pixels (``None``: the camera's default).
        height: Requested frame height in pixels (``None``: the camera's default).
        fps: Requested, and nominal, frames per second (``None``: what the camera reports).
        fourcc: Requested pixel format, four characters such as ``MJPG`` (``None``: default).
        reconnect_initial_s: First wait before reopening a camera that stopped delivering.
        reconnect_max_s: Longest wait between reopening attempts (the wait doubles up to it).
        stall_timeout_s: No frame for this long means the camera is offline and is reopened.
        failed_reads: Consecutive failed reads after which the camera is reopened.
    """

    source: int | str = 0
    width: int | None = None
    height: int | None = None
    fps: float | None = None
    fourcc: str | None = None
    reconnect_initial_s: float = 0.5
    reconnect_max_s: float = 10.0
    stall_timeout_s: float = 2.0
    failed_reads: int = 3

    def __post_init__(self) -> None:
        if isinstance(self.source, int) and self.source < 0:
            raise ValueError(f"source {self.source} is not a device index")
        if isinstance(self.source, str) and not self.source.strip():
            raise ValueError("source is empty")
        for name in ("width", "height"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        if self.fps is not None and self.fps <= 0:
            raise ValueError(f"fps must be positive, got {self.fps}")
        if self.fourcc is not None and len(self.fourcc) != 4:
            raise ValueError(f"fourcc must be four characters, got {self.fourcc!r}")
        if not 0 < self.reconnect_initial_s <= self.reconnect_max_s:
            raise ValueError(
                "need 0 < reconnect_initial_s <= reconnect_max_s, got "
                f"{self.reconnect_initial_s} and {self.reconnect_max_s}"
            )
        if self.stall_timeout_s <= 0:
            raise ValueError(f"stall_timeout_s must be positive, got {self.stall_timeout_s}")
        if self.failed_reads < 1:
            raise ValueError(f"failed_reads must be at least 1, got {self.failed_reads}")

    @property
    def is_stream(self) -> bool:
        """The source is a network stream (its reads and opens need timeouts)."""
        return isinstance(self.source, str) and "://" in self.source

    def backoff_s(self, attempt: int) -> float:
        """Wait before reopening attempt ``attempt`` (1 = the first after a loss)."""
        return min(self.reconnect_max_s, self.reconnect_initial_s * 2.0 ** max(0, attempt - 1))


def camera_config_from_data(data: Any, where: str = "[camera]") -> CameraConfig:
    """Build a `CameraConfig` from a parsed ``[camera]`` table, strictly.

    Raises:
        ConfigError: a key is unknown, a value has the wrong type or is out of range; the
            message names the key path.
    """
    return from_jsonable(CameraConfig, data, where=where, error=ConfigError)
