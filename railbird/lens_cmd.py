"""`railbird lens`: the camera's lens from chessboard (or ChArUco) pictures, for --lens."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

import cv2

from calibration.intrinsics import calibrate_intrinsics, calibrate_intrinsics_charuco
from rules.codec import to_jsonable
from rules.errors import CalibrationError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's options."""
    parser.add_argument("images", nargs="+", type=Path, help="pictures of the board (10-20)")
    parser.add_argument(
        "--board",
        default="9x6",
        help="inner corners, e.g. 9x6 (chessboard) or squares, e.g. 7x5 (ChArUco)",
    )
    parser.add_argument("--square-mm", type=float, default=25.0, help="side of one square")
    parser.add_argument(
        "--charuco-marker-mm", type=float, help="a ChArUco board: side of its markers"
    )
    parser.add_argument("--out", type=Path, required=True, help="lens file to write (JSON)")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Fit the lens and write it; 0 on success."""
    pattern = _pattern(args.board)
    images = [_read(path) for path in args.images]
    if args.charuco_marker_mm:
        camera, error = calibrate_intrinsics_charuco(
            images, squares=pattern, square_mm=args.square_mm, marker_mm=args.charuco_marker_mm
        )
    else:
        camera, error = calibrate_intrinsics(images, pattern=pattern, square_mm=args.square_mm)
    try:
        args.out.write_text(json.dumps(to_jsonable(camera), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{args.out}: cannot write the lens: {exc}") from exc
    print(
        f"wrote {args.out}: fx {camera.fx:.1f} px, fy {camera.fy:.1f} px, distortion "
        f"{', '.join(f'{d:.3f}' for d in camera.distortion)}; RMS {error:.3f} px",
        file=out,
    )
    return 0


def _pattern(text: str) -> tuple[int, int]:
    try:
        cols, rows = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CalibrationError(f"--board {text!r}: write it as COLSxROWS, e.g. 9x6") from None
    return cols, rows


def _read(path: Path):
    image = cv2.imread(str(path))
    if image is None:
        raise CalibrationError(f"{path}: not an image (missing or unreadable)")
    return image
