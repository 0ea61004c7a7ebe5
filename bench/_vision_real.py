"""The ball detector on real labelled footage (``../shared/data/real``), when it is there.

Neither data set comes with a camera calibration, so each frame is calibrated the way a user
would: `calibrate_image` finds the table (9 ft, else 8 ft, else 7 ft). Frames it cannot calibrate
are counted and left out. Detections are projected back into the image and matched to the
labelled boxes (a box's centre within 0.6 box widths), so recall and identity are measured in
pixels.

- ``broadcast-8ball``: first and last frames of each clip (one calibration per clip, made on
  its first frame); recall, precision and the class accuracy (cue, 8, solid, stripe).
- ``roboflow-billiard-pool`` valid split: recall, precision, and identity accuracy for balls
  1-9 and the cue ball (the labels name only those).

Overlays of misses (and wrong names) can be written as PNGs for a person to look at.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import cv2
import numpy as np

from calibration.calibrate import calibrate_image
from calibration.file import Calibration
from calibration.table import TableSpec
from rules.balls import BALL_RADIUS_MM, BallId
from rules.errors import RailbirdError
from vision.detections import BALL_ORDER, Detections
from vision.detector import BallDetector

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
if not DATA.exists():
    DATA = Path("/work/shared/data/real")

_BROADCAST_CLASS = {1: "cue", 2: "eight", 3: "solid", 4: "stripe"}


def _calibrate(image: np.ndarray, where: str) -> Calibration | None:
    for size in ("9ft", "8ft", "7ft"):
        try:
            return calibrate_image(image, TableSpec.standard(size), made_from=where)
        except RailbirdError as exc:
            log.debug("%s: %s table: %s", where, size, exc)
    return None


def _pixels(cal: Calibration, d: Detections) -> np.ndarray:
    if len(d) == 0:
        return np.zeros((0, 2))
    pts = np.column_stack((d.positions, np.full(len(d), BALL_RADIUS_MM)))
    return cal.camera.project(pts)


def _group(ball: BallId) -> str:
    if ball is BallId.CUE:
        return "cue"
    if ball is BallId.EIGHT:
        return "eight"
    return "stripe" if ball.striped else "solid"


def _match(centres: np.ndarray, sizes: np.ndarray, found: np.ndarray) -> list[int]:
    """Per labelled box, the detection matched to it (-1 when none), one to one."""
    out = [-1] * len(centres)
    if len(found) == 0:
        return out
    dist = np.hypot(*(centres[:, None, :] - found[None]).transpose(2, 0, 1))
    taken: set[int] = set()
    for k in np.argsort(dist.min(axis=1)):
        order = [j for j in np.argsort(dist[k]) if j not in taken]
        if order and dist[k, order[0]] < 0.6 * sizes[k]:
            out[k] = int(order[0])
            taken.add(int(order[0]))
    return out


def _overlay(image, centres, sizes, matched, found, names, path: Path) -> None:
    out = image.copy()
    for (x, y), s, m, name in zip(centres, sizes, matched, names, strict=True):
        colour = (0, 0, 255) if m < 0 else (0, 200, 0) if name is None else (0, 200, 255)
        cv2.circle(out, (int(x), int(y)), int(s / 2) + 3, colour, 2)
    for x, y in found:
        cv2.drawMarker(out, (int(x), int(y)), (255, 0, 255), cv2.MARKER_CROSS, 8, 1)
    cv2.imwrite(str(path), out)


def broadcast(overlays: Path | None = None) -> dict[str, float]:
    """First and last frames of the broadcast clips."""
    root = DATA / "broadcast-8ball"
    boxes = found_boxes = detections = right = calibrated = clips = 0
    for clip in sorted(p for p in root.iterdir() if p.is_dir()):
        clips += 1
        first = cv2.imread(str(clip / "frames" / "frame_first.png"))
        cal = _calibrate(first, clip.name)
        if cal is None:
            continue
        calibrated += 1
        for which in ("first", "last"):
            image = cv2.imread(str(clip / "frames" / f"frame_{which}.png"))
            labels = np.loadtxt(clip / "bounding_boxes" / f"frame_{which}_bbox.txt", ndmin=2)
            d = BallDetector(cal).detect(image)
            found = _pixels(cal, d)
            centres = labels[:, :2] + labels[:, 2:4] / 2
            sizes = labels[:, 2:4].max(axis=1)
            matched = _match(centres, sizes, found)
            boxes += len(labels)
            detections += len(d)
            wrong = []
            for row, m in zip(labels, matched, strict=True):
                if m < 0:
                    wrong.append(None)
                    continue
                found_boxes += 1
                got = _group(BALL_ORDER[int(np.argmax(d.identity[m]))])
                ok = got == _BROADCAST_CLASS[int(row[4])]
                right += ok
                wrong.append(None if ok else got)
            if overlays is not None:
                path = overlays / f"broadcast-{clip.name}-{which}.png"
                _overlay(image, centres, sizes, matched, found, wrong, path)
    return {
        "clips": clips,
        "clips_calibrated": calibrated,
        "balls": boxes,
        "recall": round(found_boxes / max(boxes, 1), 4),
        "precision": round(found_boxes / max(detections, 1), 4),
        "class_accuracy": round(right / max(found_boxes, 1), 4),
    }


def roboflow(quick: bool, overlays: Path | None = None) -> dict[str, float]:
    """The valid split of the Roboflow set: balls 1-9 and the cue ball."""
    split = DATA / "roboflow-billiard-pool" / "valid"
    coco = json.loads((split / "_annotations.coco.json").read_text(encoding="utf-8"))
    names = {c["id"]: c["name"] for c in coco["categories"]}
    ball_of = {
        k: BallId.CUE if v == "white ball" else BallId(v.split()[1])
        for k, v in names.items()
        if v == "white ball" or v.startswith("ball ")
    }
    by_image: dict[int, list] = {}
    for a in coco["annotations"]:
        if a["category_id"] in ball_of:
            by_image.setdefault(a["image_id"], []).append(a)
    images = coco["images"][:: 3 if quick else 1]
    boxes = found_boxes = detections = right = calibrated = 0
    for info in images:
        image = cv2.imread(str(split / info["file_name"]))
        labels = by_image.get(info["id"], [])
        if image is None or not labels:
            continue
        cal = _calibrate(image, info["file_name"])
        if cal is None:
            continue
        calibrated += 1
        d = BallDetector(cal).detect(image)
        found = _pixels(cal, d)
        bb = np.array([a["bbox"] for a in labels], dtype=float)
        centres = bb[:, :2] + bb[:, 2:] / 2
        sizes = bb[:, 2:].max(axis=1)
        matched = _match(centres, sizes, found)
        boxes += len(labels)
        detections += len(d)
        wrong = []
        for a, m in zip(labels, matched, strict=True):
            if m < 0:
                wrong.append(None)
                continue
            found_boxes += 1
            got = BALL_ORDER[int(np.argmax(d.identity[m]))]
            ok = got == ball_of[a["category_id"]]
            right += ok
            wrong.append(None if ok else str(got))
        if overlays is not None and (None in wrong or any(wrong)):
            _overlay(image, centres, sizes, matched, found, wrong, overlays / info["file_name"])
    return {
        "images": len(images),
        "images_calibrated": calibrated,
        "balls": boxes,
        "recall": round(found_boxes / max(boxes, 1), 4),
        "precision_vs_labelled_balls": round(found_boxes / max(detections, 1), 4),
        "identity_accuracy": round(right / max(found_boxes, 1), 4),
    }


def run(quick: bool, overlays: Path | None = None) -> dict[str, object]:
    """Both data sets' figures, or ``available: False`` when the data is absent."""
    if not DATA.exists():
        return {"available": False}
    return {"broadcast": broadcast(overlays), "roboflow": roboflow(quick, overlays)}
