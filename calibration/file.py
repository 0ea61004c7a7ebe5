"""Calibration files: versioned JSON of the table, the camera and how they were found.

A calibration is data, not a setting: it is made by `railbird calibrate`, saved beside the
recordings it served, and refused when it does not fit (another format version, another image
size) rather than silently misused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from calibration.camera import CameraModel
from calibration.colour import ColourModel
from calibration.solve import IntrinsicsSource
from calibration.table import TableSpec
from rules.codec import from_jsonable, to_jsonable
from rules.errors import CalibrationError, RecordError
from rules.table import Point

CALIBRATION_VERSION = 1


@dataclass(frozen=True, slots=True)
class Calibration:
    """Everything railbird knows about one camera over one table.

    Attributes:
        version: File format version.
        table: The table's specification.
        camera: The camera: lens, distortion and pose against the table.
        intrinsics: Whether the lens was given (chessboard, known rig) or assumed.
        nose_corners_px: Cushion-nose corners seen in the image, clockwise from the top-left.
        reprojection_px: RMS reprojection error, pixels: of the cushion-nose edges when the pose
            was aligned on them, else of the four corners.
        reprojection_mm: The same on the table, millimetres.
        cloth_lab: The cloth's colour (OpenCV L*a*b*), the background for ball finding.
        confidence: 0-1, how clearly the table was found (1 for corners given by hand).
        created_utc: When it was made (ISO 8601), for people.
        made_from: What it was made from (a file, a camera, the virtual table).
        colour: The cloth and ball colours under this table's light, when learned.
    """

    version: int
    table: TableSpec
    camera: CameraModel
    intrinsics: IntrinsicsSource
    nose_corners_px: tuple[Point, ...]
    reprojection_px: float
    reprojection_mm: float
    cloth_lab: tuple[float, float, float] | None
    confidence: float
    created_utc: str
    made_from: str
    colour: ColourModel | None = None

    @property
    def image_size(self) -> tuple[int, int]:
        """(width, height) of the frames it is for."""
        return self.camera.image_size


def save(calibration: Calibration, path: str | Path) -> None:
    """Write a calibration file.

    Raises:
        CalibrationError: the file cannot be written.
    """
    path = Path(path)
    try:
        path.write_text(json.dumps(to_jsonable(calibration), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot write calibration: {exc}") from exc


def load(path: str | Path, image_size: tuple[int, int] | None = None) -> Calibration:
    """Read a calibration file, refusing one that does not fit.

    Args:
        path: The file.
        image_size: The frames it will be used on; a calibration for another size is refused.

    Raises:
        CalibrationError: missing, unreadable, of an unknown version, or for another image size.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{path}: calibration file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"{path}: unreadable calibration file: {exc}") from exc
    version = data.get("version") if isinstance(data, dict) else None
    if version != CALIBRATION_VERSION:
        raise CalibrationError(
            f"{path}: calibration format version {version!r}; this railbird reads "
            f"{CALIBRATION_VERSION}: recalibrate with `railbird calibrate`"
        )
    try:
        calibration = from_jsonable(Calibration, data, where=str(path))
    except RecordError as exc:
        raise CalibrationError(str(exc)) from exc
    if image_size is not None and tuple(image_size) != tuple(calibration.image_size):
        raise CalibrationError(
            f"{path}: made for {calibration.image_size[0]}x{calibration.image_size[1]} frames, "
            f"not {image_size[0]}x{image_size[1]}: recalibrate for this camera mode"
        )
    return calibration
