"""Calibration accuracy: rendered virtual-table frames (exact truth) and the real broadcast frames.

Run: ``PYTHONPATH=. python -m bench --only calibration`` (or ``python -m bench.calibration
[--quick]``).

- Virtual table: frames rendered at 1280x720 with sensor noise and JPEG 90 through cameras of
  several poses and lens distortions, on the four cloth colours, a few balls on the table (one
  frozen to a cushion, one in a jaw). Each is calibrated with the lens known (`calibrate_image`
  with ``lens``) and compared with the rendering camera: the cushion-nose corners' error in
  pixels, and ball centres on a 25 x 13 grid over the whole bed (the outer ones frozen to the
  cushions) mapped on the plane of ball centres, error in mm (max and median). The same without
  the lens (focal length estimated or assumed, no distortion model) is in the JSON beside it.
  Quick: four poses, one cloth each, lens known only; full: every cloth with every pose.
- Real frames (``../shared/data/real/broadcast-8ball``, when present, full run only): the found
  cloth quad's overlap (IoU) with the labelled playing-field mask, per clip's view; which
  frames calibrate as a 9 ft table (no lens given) and their confidence (the share of the noses
  agreeing with the pose, or the finder's own).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from bench._pool import parallel_map
from calibration.calibrate import calibrate_image
from calibration.camera import MILD_BARREL, CameraModel
from calibration.solve import HeadSide, nose_corners_mm
from calibration.table import TableSpec
from calibration.table_finder import find_table
from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from hardware.sim.snapshot import TableSnapshot
from rules.balls import BALL_RADIUS_MM, BallId
from rules.errors import RailbirdError

RESULTS = Path(__file__).resolve().parent / "results" / "calibration.json"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "broadcast-8ball"
if not DATA.exists():
    DATA = Path("/work/shared/data/real/broadcast-8ball")

TABLE = TableSpec.standard("9ft")
POSES = {
    "overhead": {},
    "tilt5-yaw1.5": {"tilt_deg": 5.0, "yaw_deg": 1.5},
    "side-4-barrel": {"side_tilt_deg": -4.0, "distortion": MILD_BARREL},
    "tilt-8-side3": {"tilt_deg": -8.0, "side_tilt_deg": 3.0},
    "tilt12-2.2m-strong-barrel": {
        "tilt_deg": 12.0,
        "yaw_deg": -2.0,
        "height_mm": 2200.0,
        "distortion": (-0.2, 0.06, 0.0, 0.0, 0.0),
    },
    "tilt3-decentred": {"tilt_deg": 3.0, "distortion": (0.05, 0.0, 0.001, -0.001, 0.0)},
}
CLOTHS = list(ClothColour)


def _balls() -> TableSnapshot:
    hx, hy = TABLE.length / 2, TABLE.width / 2
    places = {
        BallId.CUE: (-800.0, 100.0),
        BallId.ONE: (600.0, 0.0),
        BallId.NINE: (1100.0, -500.0),
        BallId.TWO: (300.0, hy - BALL_RADIUS_MM),
        BallId.THREE: (-hx + 60.0, hy - 60.0),
    }
    ids = tuple(places)
    positions = np.array([(x, y, BALL_RADIUS_MM) for x, y in places.values()])
    turns = np.repeat(np.eye(3)[None], len(ids), axis=0)
    return TableSnapshot(0.0, ids, positions, turns, np.ones(len(ids), bool), ())


def _grid() -> np.ndarray:
    hx, hy = TABLE.length / 2 - BALL_RADIUS_MM, TABLE.width / 2 - BALL_RADIUS_MM
    xs, ys = np.meshgrid(np.linspace(-hx, hx, 25), np.linspace(-hy, hy, 13))
    return np.column_stack([xs.ravel(), ys.ravel(), np.full(xs.size, BALL_RADIUS_MM)])


def _errors(camera: CameraModel, truth: CameraModel) -> dict[str, float]:
    corners = nose_corners_mm(TABLE, HeadSide.LEFT)
    corner_px = np.linalg.norm(camera.project(corners) - truth.project(corners), axis=1)
    centres = _grid()
    mapped = camera.to_table(truth.project(centres), BALL_RADIUS_MM)
    ball_mm = np.linalg.norm(mapped - centres[:, :2], axis=1)
    return {
        "corner_max_px": round(float(corner_px.max()), 3),
        "ball_plane_max_mm": round(float(ball_mm.max()), 3),
        "ball_plane_median_mm": round(float(np.median(ball_mm)), 3),
    }


def virtual_case(case: tuple[dict, ClothColour, bool]) -> tuple[dict, list[float]]:
    """One pose and cloth rendered and calibrated (lens known, and without when ``both``):
    the errors, and the CPU seconds each calibration with the lens took."""
    pose, cloth, both = case
    truth = CameraModel.overhead(TABLE, **pose)
    image = TableRenderer(TABLE, truth, RenderConfig(cloth=cloth)).render(_balls(), 0)
    result: dict = {}
    seconds: list[float] = []
    lenses = (("lens", truth), ("no_lens", None)) if both else (("lens", truth),)
    for label, lens in lenses:
        # CPU time: the cases run over the pool, where wall time is not this call's cost.
        start = time.process_time()
        try:
            cal = calibrate_image(image, TABLE, lens=lens, head=HeadSide.LEFT)
        except RailbirdError as exc:
            result[label] = {"error": str(exc)}
            continue
        if lens is not None:
            seconds.append(time.process_time() - start)
        result[label] = _errors(cal.camera, truth) | {"edge_rms_px": round(cal.reprojection_px, 3)}
    return result, seconds


def _virtual(quick: bool) -> dict:
    poses = list(POSES.items())[:4] if quick else list(POSES.items())
    keys: list[str] = []
    todo: list[tuple[dict, ClothColour, bool]] = []
    for k, (name, pose) in enumerate(poses):
        for cloth in [CLOTHS[k % len(CLOTHS)]] if quick else CLOTHS:
            keys.append(f"{name}.{cloth.value}")
            todo.append((pose, cloth, not quick))
    cases: dict[str, dict] = {}
    seconds: list[float] = []
    for key, done in zip(keys, parallel_map(virtual_case, todo), strict=True):
        cases[key], spent = done.value
        seconds += spent
    with_lens = [c["lens"] for c in cases.values() if "corner_max_px" in c["lens"]]
    return {
        "cases": cases,
        "failed_with_lens": len(cases) - len(with_lens),
        "corner_max_px": max(c["corner_max_px"] for c in with_lens),
        "corner_median_px": round(float(np.median([c["corner_max_px"] for c in with_lens])), 3),
        "ball_plane_max_mm": max(c["ball_plane_max_mm"] for c in with_lens),
        "ball_plane_median_mm": round(
            float(np.median([c["ball_plane_median_mm"] for c in with_lens])), 3
        ),
        "calibrate_median_cpu_s": round(float(np.median(seconds)), 3),
    }


def _real() -> dict:
    """IoU of the found cloth with the labelled playing field, per view (game); calibration."""
    by_game: dict[str, list[float]] = {}
    refused, not_calibrated, confidences = [], [], []
    for path in sorted(DATA.glob("*/frames/frame_*.png")):
        clip = path.parents[1].name
        image = cv2.imread(str(path))
        labels = cv2.imread(str(path.parents[1] / "masks" / path.name), cv2.IMREAD_UNCHANGED)
        if image is None or labels is None:
            continue
        try:
            found = find_table(image, str(path))
        except RailbirdError:
            refused.append(f"{clip}/{path.stem}")
            continue
        ours = found.cloth_mask((image.shape[1], image.shape[0])) > 0
        labelled = labels[:, :, 0] > 0
        iou = float((ours & labelled).sum() / (ours | labelled).sum())
        by_game.setdefault(clip.split("_")[0], []).append(iou)
        try:
            cal = calibrate_image(image, TABLE, made_from=str(path))
            confidences.append(cal.confidence)
        except RailbirdError:
            not_calibrated.append(f"{clip}/{path.stem}")
    figures: dict = {
        f"iou_{game}_median": round(float(np.median(v)), 3) for game, v in by_game.items()
    }
    figures |= {f"iou_{game}_min": round(float(min(v)), 3) for game, v in by_game.items()}
    figures["table_not_found"] = ", ".join(refused) or "none"
    figures["calibrated_frames"] = len(confidences)
    figures["not_calibrated"] = ", ".join(not_calibrated) or "none"
    if confidences:
        figures["confidence_median"] = round(float(np.median(confidences)), 3)
    return figures


def run(quick: bool) -> dict:
    """The harness entry point (`python -m bench`)."""
    result = {"virtual": _virtual(quick)}
    if not quick and DATA.is_dir():
        result["real"] = _real()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2))
    virtual = result["virtual"]
    figures = {k: v for k, v in virtual.items() if k != "cases"}
    for name, case in virtual["cases"].items():
        lens = case["lens"]
        if "corner_max_px" in lens:
            figures[f"{name}.corner_max_px"] = lens["corner_max_px"]
            figures[f"{name}.ball_plane_max_mm"] = lens["ball_plane_max_mm"]
        else:
            figures[f"{name}.error"] = lens["error"]
    if "real" in result:
        figures["real"] = result["real"]
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    for key, value in run(parser.parse_args().quick).items():
        print(f"{key}: {value}")
