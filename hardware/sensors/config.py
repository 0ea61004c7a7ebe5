"""The ``[sensors]`` section of the config file: where the pocket-sensor board is and how its
inputs are wired."""

from __future__ import annotations

from dataclasses import dataclass

from hardware.sensors.link import DEFAULT_POCKET_MAP, LinkConfig
from rules.table import PocketId


@dataclass(frozen=True, slots=True)
class SensorsConfig:
    """The pocket-sensor board.

    Attributes:
        port: A pyserial URL (``/dev/serial/by-id/usb-Arduino...``, ``/dev/ttyACM0``, ``COM3``,
            ``spy:///dev/ttyACM0`` to debug); empty = no sensors, vision only.
        baudrate: The board's line speed (the reference firmware: 115200).
        pocket_map: The pocket wired to each board input, input 0 first.
        min_latency_ms: Latency floor after a line's last byte (USB polling and driver).
        silence_s: No line for this long means the board is offline.
    """

    port: str = ""
    baudrate: int = 115200
    pocket_map: tuple[PocketId, ...] = DEFAULT_POCKET_MAP
    min_latency_ms: float = 1.0
    silence_s: float = 3.0

    def __post_init__(self) -> None:
        if self.baudrate <= 0:
            raise ValueError(f"baudrate must be positive, got {self.baudrate}")
        if not 1 <= len(self.pocket_map) <= 8:
            raise ValueError(f"pocket_map names 1 to 8 inputs, got {len(self.pocket_map)}")
        repeated = sorted({p for p in self.pocket_map if self.pocket_map.count(p) > 1})
        if repeated:
            raise ValueError(f"pocket_map wires {', '.join(repeated)} to more than one input")
        if self.min_latency_ms < 0 or self.silence_s <= 1.0:
            raise ValueError("min_latency_ms must be >= 0 and silence_s > 1 (heartbeats are 1 s)")

    @property
    def enabled(self) -> bool:
        """A board is configured."""
        return bool(self.port)

    def link_config(self) -> LinkConfig:
        """The reader's settings."""
        return LinkConfig(
            baudrate=self.baudrate,
            min_latency_s=self.min_latency_ms / 1000,
            pocket_map=self.pocket_map,
            silence_s=self.silence_s,
        )
