"""Pocket signals: the pocket sensors' word that a ball dropped, on the session clock.

It lives in `rules`, the floor both wings share: `hardware` produces it from serial lines and
`tracking` fuses it with vision, and neither may import the other.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.table import PocketId


@dataclass(frozen=True, slots=True)
class PocketSignal:
    """A ball dropped through a pocket's sensor.

    Attributes:
        pocket: Which pocket.
        time: Session time of the drop (device time mapped onto the session clock).
        uncertainty: Half-width in seconds of the interval the drop surely lies in.
        sequence: The sensor board's sequence number of the line, for gap detection.
    """

    pocket: PocketId
    time: float
    uncertainty: float = 0.002
    sequence: int = 0

    def __post_init__(self) -> None:
        if self.uncertainty < 0:
            raise ValueError(f"a pocket signal's uncertainty must be >= 0, got {self.uncertainty}")
