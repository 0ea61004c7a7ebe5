"""Synthetic test clips for benchmarks, made once and cached in ``bench/results/cache/``.

A clip is an overhead view of a table: textured cloth, rails, sixteen shaded balls rolling and
bouncing, at 60 fps. It is written with the best codec this OpenCV build can encode (H.264 if
available, else MPEG-4 Part 2), so decode figures say which codec they measure.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

CACHE = Path(__file__).resolve().parent / "results" / "cache"
# Preferred first: H.264 is what cameras and recordings use; mp4v is the portable fallback.
CODECS = (("avc1", ".mp4"), ("H264", ".mp4"), ("mp4v", ".mp4"), ("MJPG", ".avi"))


@dataclass(frozen=True, slots=True)
class Clip:
    """A cached clip and how it was made."""

    path: Path
    codec: str
    width: int
    height: int
    fps: float
    frames: int


@cache
def best_codec(directory: Path = CACHE) -> tuple[str, str]:
    """The first (fourcc, extension) this OpenCV build can both write and read back."""
    directory.mkdir(parents=True, exist_ok=True)
    for fourcc, ext in CODECS:
        probe = directory / f"probe-{fourcc}{ext}"
        try:
            writer = cv2.VideoWriter(str(probe), cv2.VideoWriter_fourcc(*fourcc), 60, (64, 48))
            if not writer.isOpened():
                continue
            for _ in range(3):
                writer.write(np.zeros((48, 64, 3), np.uint8))
            writer.release()
            capture = cv2.VideoCapture(str(probe))
            ok, _ = capture.read()
            capture.release()
            if ok:
                return fourcc, ext
        except cv2.error as exc:
            log.debug("codec %s unusable: %s", fourcc, exc)
        finally:
            probe.unlink(missing_ok=True)
    raise RuntimeError("this OpenCV build can encode none of " + ", ".join(c for c, _ in CODECS))


def table_clip(
    width: int, height: int, frames: int, fps: float = 60.0, directory: Path = CACHE
) -> Clip:
    """The cached clip of this size and length, made now if missing."""
    fourcc, ext = best_codec(directory)
    path = directory / f"table-{width}x{height}-{frames}f-{fps:g}fps-{fourcc}{ext}"
    if not _complete(path, frames):
        log.info("writing %s", path.name)
        tmp = path.with_name(f"tmp-{path.name}")
        writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*fourcc), fps, (width, height))
        for image in _table_frames(width, height, frames, fps):
            writer.write(image)
        writer.release()
        tmp.replace(path)  # a half-written clip never sits under the final name
    return Clip(path, fourcc, width, height, fps, frames)


def _complete(path: Path, frames: int) -> bool:
    if not path.is_file():
        return False
    capture = cv2.VideoCapture(str(path))
    count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    capture.release()
    return count == frames


def _table_frames(width: int, height: int, frames: int, fps: float):
    rng = np.random.default_rng(2024)
    cloth = np.empty((height, width, 3), np.uint8)
    cloth[:] = (60, 120, 20)  # BGR baize
    noise = rng.integers(-6, 7, (height, width, 1), dtype=np.int16)
    cloth = np.clip(cloth.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    rail = max(8, height // 18)
    cv2.rectangle(cloth, (0, 0), (width - 1, height - 1), (30, 60, 110), rail * 2)
    radius = max(4, height // 45)
    low = np.array([rail + radius, rail + radius], float)
    high = np.array([width - rail - radius, height - rail - radius], float)
    pos = rng.uniform(low, high, (16, 2))
    vel = rng.uniform(-1.0, 1.0, (16, 2)) * height * 0.6  # pixels per second
    colours = rng.integers(30, 256, (16, 3))
    colours[0] = (235, 235, 235)  # the cue ball
    for _ in range(frames):
        image = cloth.copy()
        for (x, y), colour in zip(pos, colours, strict=True):
            centre = (int(x), int(y))
            cv2.circle(image, centre, radius, tuple(int(c) for c in colour), -1, cv2.LINE_AA)
            shine = (centre[0] - radius // 3, centre[1] - radius // 3)
            cv2.circle(image, shine, max(1, radius // 4), (255, 255, 255), -1, cv2.LINE_AA)
        yield image
        pos += vel / fps
        vel *= 0.995  # rolling resistance
        for axis in (0, 1):
            out = (pos[:, axis] < low[axis]) | (pos[:, axis] > high[axis])
            vel[out, axis] *= -1
            pos[:, axis] = np.clip(pos[:, axis], low[axis], high[axis])
