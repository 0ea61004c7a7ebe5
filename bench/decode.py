"""Decode-only throughput: the ceiling every later stage's frame rate is measured against.

Frames per second of `cv2.VideoCapture.read` (decode plus conversion to BGR, what the pipeline
gets) on a synthetic 60 fps table clip at 1280x720 and 1920x1080, with OpenCV and the decoder
limited to one thread and to two; the median of several runs. The clip's codec is in the
figures: this OpenCV build may lack an H.264 encoder, in which case the clip is MPEG-4 Part 2,
which decodes faster than typical H.264.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

import cv2

from bench._clips import Clip, table_clip

TIMING = True
"""Run alone, in one process (`bench._harness`)."""
SIZES = ((1280, 720), (1920, 1080))
THREADS = (1, 2)
REAL_CLIP = (
    Path(__file__).resolve().parents[2]
    / "shared/data/real/broadcast-8ball/game1_clip1/game1_clip1.mp4"
)


def decode_fps(path: Path, threads: int) -> tuple[float, int]:
    """One full read of ``path``: (frames per second, frames decoded)."""
    previous = cv2.getNumThreads()
    cv2.setNumThreads(threads)
    try:
        capture = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG, [cv2.CAP_PROP_N_THREADS, threads])
        if not capture.isOpened():
            raise RuntimeError(f"cannot open {path}")
        count = 0
        started = time.perf_counter()
        while capture.read()[0]:
            count += 1
        elapsed = time.perf_counter() - started
        capture.release()
    finally:
        cv2.setNumThreads(previous)
    if count == 0:
        raise RuntimeError(f"{path}: no frame decoded")
    return count / elapsed, count


def median_fps(path: Path, threads: int, runs: int) -> float:
    """Median decode rate over ``runs`` full reads."""
    return statistics.median(decode_fps(path, threads)[0] for _ in range(runs))


def run(quick: bool) -> dict[str, Any]:
    """Decode-only frames per second per size and thread count."""
    frames = 120 if quick else 600
    runs = 3 if quick else 5
    figures: dict[str, Any] = {"runs": runs, "clip_frames": frames}
    clip: Clip | None = None
    for width, height in SIZES:
        clip = table_clip(width, height, frames)
        for threads in THREADS:
            fps = median_fps(clip.path, threads, runs)
            figures[f"fps_{width}x{height}_{threads}thread{'s' if threads > 1 else ''}"] = fps
    assert clip is not None
    figures["codec"] = clip.codec
    if REAL_CLIP.is_file():
        real_fps = median_fps(REAL_CLIP, 1, runs)
        figures["fps_real_broadcast_1024x576_mp4v_1thread"] = real_fps
    return figures
