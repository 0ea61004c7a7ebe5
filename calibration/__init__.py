"""The table and the camera: table specs, camera pose, image <-> table mapping, colour model."""

from calibration.balls import BALL_SET, BallLook, look_of
from calibration.config import TableConfig
from calibration.table import STANDARD_TABLES, CushionSegment, Pocket, RackShape, TableSpec

__all__ = [
    "BALL_SET",
    "STANDARD_TABLES",
    "BallLook",
    "CushionSegment",
    "Pocket",
    "RackShape",
    "TableConfig",
    "TableSpec",
    "look_of",
]
