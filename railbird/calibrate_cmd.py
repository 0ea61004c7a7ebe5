"""`railbird calibrate`: make a calibration from a frame, or check one for drift."""

from __future__ import annotations

import argparse
import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

import cv2

from calibration.calibrate import calibrate_corners, calibrate_image, check_drift
from calibration.camera import CameraModel
from calibration.file import Calibration, load, save
from calibration.overlay import draw_overlay
from calibration.solve import HeadSide
from calibration.table import STANDARD_TABLES, TableSpec
from railbird.sources import first_frame, open_source
from rules.codec import from_jsonable
from rules.errors import CalibrationError, RecordError

log = logging.getLogger(__name__)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's options."""
    parser.add_argument("source", help="image, video, recording folder or camera (0, rtsp://...)")
    parser.add_argument("--table", default="9ft", choices=STANDARD_TABLES, help="table size")
    parser.add_argument("--out", type=Path, help="calibration file to write (JSON)")
    parser.add_argument("--overlay", type=Path, help="overlay PNG (default: beside --out)")
    parser.add_argument("--frame", type=int, default=0, help="which frame of the source to use")
    parser.add_argument("--lens", type=Path, help="known lens (CameraModel JSON)")
    parser.add_argument(
        "--head",
        choices=[h.value for h in HeadSide],
        help="image side the head cushion is on (default: found; left or top)",
    )
    parser.add_argument(
        "--corners",
        help="manual fallback: 'x,y x,y x,y x,y' cushion-nose corners, clockwise from the top-left",
    )
    parser.add_argument(
        "--check",
        type=Path,
        metavar="CALIBRATION",
        help="say whether the camera or table moved since this calibration",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the subcommand; 0 when calibrated (or unmoved), 1 when --check finds movement.

    Raises:
        RailbirdError: the source, lens or corners are unusable (the CLI prints it).
    """
    frame = first_frame(open_source(args.source), args.source, skip=args.frame)
    if args.check:
        return _check(args, frame.image, out)
    if args.out is None:
        raise CalibrationError("calibrate: say where to write the calibration with --out FILE")
    table = TableSpec.standard(args.table)
    lens = _load_lens(args.lens) if args.lens else None
    head = HeadSide(args.head) if args.head else None
    made_from = f"{args.source} frame {args.frame}"
    created = datetime.now(UTC).isoformat(timespec="seconds")
    if args.corners:
        calibration = calibrate_corners(
            _parse_corners(args.corners), frame.size, table, lens, head, made_from, created
        )
    else:
        calibration = calibrate_image(frame.image, table, lens, head, made_from, created)
    save(calibration, args.out)
    overlay = args.overlay or args.out.with_suffix(".overlay.png")
    cv2.imwrite(str(overlay), draw_overlay(frame.image, calibration))
    _report(calibration, args.out, overlay, out)
    return 0


def _check(args: argparse.Namespace, image, out: TextIO) -> int:
    calibration = load(args.check)
    report = check_drift(calibration, image, where=args.source)
    verdict = "MOVED: recalibrate" if report.moved else "unchanged"
    shifts = ", ".join(f"{s:.2f}" for s in report.corner_shifts_px)
    print(
        f"{args.check}: {verdict} (corner shifts {shifts} px; tolerance {report.tolerance_px} px)",
        file=out,
    )
    return 1 if report.moved else 0


def _report(calibration: Calibration, path: Path, overlay: Path, out: TextIO) -> None:
    cam = calibration.camera
    print(f"wrote {path} and {overlay}", file=out)
    print(
        f"  table {calibration.table.name}, frames {cam.image_size[0]}x{cam.image_size[1]}, "
        f"found with confidence {calibration.confidence:.2f}",
        file=out,
    )
    print(
        f"  reprojection error {calibration.reprojection_px:.2f} px = "
        f"{calibration.reprojection_mm:.2f} mm at the table centre",
        file=out,
    )
    print(
        f"  camera {cam.height_mm:.0f} mm above the cloth; lens {calibration.intrinsics}", file=out
    )
    if calibration.intrinsics == "default":
        print(
            "  the lens was assumed: give --lens for millimetre accuracy near the rails", file=out
        )


def _load_lens(path: Path) -> CameraModel:
    try:
        return from_jsonable(
            CameraModel, json.loads(path.read_text(encoding="utf-8")), where=str(path)
        )
    except FileNotFoundError:
        raise CalibrationError(f"{path}: lens file not found") from None
    except (OSError, json.JSONDecodeError, RecordError) as exc:
        raise CalibrationError(f"{path}: unusable lens file: {exc}") from exc


def _parse_corners(text: str) -> list[tuple[float, float]]:
    try:
        corners = [tuple(float(v) for v in pair.split(",")) for pair in text.split()]
    except ValueError:
        raise CalibrationError(f"--corners {text!r}: write four x,y pairs") from None
    if len(corners) != 4 or any(len(c) != 2 for c in corners):
        raise CalibrationError(f"--corners {text!r}: write four x,y pairs")
    return corners  # type: ignore[return-value]
