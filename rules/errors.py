"""The one error hierarchy of railbird.

It lives in `rules`, the floor every other package stands on, so that a vision or hardware error
and a config error share one base class without any package importing a heavier one. Fouls are
never exceptions: they are data in a ruling.
"""

from __future__ import annotations


class RailbirdError(Exception):
    """Base of every error railbird raises on purpose.

    Each message says what went wrong and where (file, key, port, frame), so an operator can act
    on it without a traceback.
    """


class ConfigError(RailbirdError):
    """A configuration file or value is missing, malformed, or names an unknown key."""


class RecordError(RailbirdError):
    """A stored record (JSON of a shot, event or other value) does not match its type."""


class CalibrationError(RailbirdError):
    """The table or camera could not be calibrated, or a calibration file is unusable."""


class HardwareError(RailbirdError):
    """A device at the edge (camera, sensor board, display) failed or sent garbage."""


class CameraError(HardwareError):
    """A frame source could not be opened or stopped delivering frames."""


class SensorError(HardwareError):
    """The pocket-sensor link is down or its bytes cannot be understood."""
