"""The referee and the vocabulary of the game: balls, pockets, cushions, shot events, Shot.

Pure Python: importing `rules` never imports numpy, cv2, filterpy or serial.
"""

from rules.balls import (
    BALL_DIAMETER_MM,
    BALL_RADIUS_MM,
    NINE_BALL_SET,
    OBJECT_BALLS,
    BallGroup,
    BallId,
)
from rules.errors import (
    CalibrationError,
    CameraError,
    ConfigError,
    HardwareError,
    RailbirdError,
    RecordError,
    SensorError,
)
from rules.events import EventKind, EvidenceSource, ShotEvent
from rules.shot import (
    DoubleHitEvidence,
    FirstContact,
    Frozen,
    JumpEvidence,
    Layout,
    NearCushion,
    Placement,
    PushEvidence,
    Shot,
)
from rules.table import CushionId, PocketId, Point, RackShape, TableGeometry

__all__ = [
    "BALL_DIAMETER_MM",
    "BALL_RADIUS_MM",
    "NINE_BALL_SET",
    "OBJECT_BALLS",
    "BallGroup",
    "BallId",
    "CalibrationError",
    "CameraError",
    "ConfigError",
    "CushionId",
    "DoubleHitEvidence",
    "EventKind",
    "EvidenceSource",
    "FirstContact",
    "Frozen",
    "HardwareError",
    "JumpEvidence",
    "Layout",
    "NearCushion",
    "Placement",
    "PocketId",
    "Point",
    "PushEvidence",
    "RackShape",
    "RailbirdError",
    "RecordError",
    "SensorError",
    "Shot",
    "ShotEvent",
    "TableGeometry",
]
