"""How fast the virtual table's overhead camera renders, on one core.

Run: ``PYTHONPATH=. python bench/sim_render.py [--frames N]``. Renders 16 balls rolling and
spinning over a 9 ft table through a tilted camera with mild barrel distortion at 1280x720, and
prints the median (and 90th percentile) milliseconds per frame for: the clean composite, the
default camera (sensor noise + JPEG at quality 90), and 8-sub-frame motion blur on top (all
balls moving, and a typical 2 of 16 moving). Wall time and CPU time are both reported: on a
shared machine the CPU time is the steadier figure of the renderer's own cost. Also
times building the static background and measures the sprite outline error and how far a
rendered ball's colour blob centroid is from the projection of its centre. Writes
``bench/results/sim_render.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import time
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import MILD_BARREL, CameraModel
from calibration.table import TableSpec
from hardware.sim.render import RenderConfig, TableRenderer
from hardware.sim.snapshot import TableSnapshot
from hardware.sim.sprites import sprite_outline_error_px
from rules.balls import BALL_RADIUS_MM, BallId

TIMING = True
"""Run alone, in one process (`bench._harness`)."""
RESULTS = Path(__file__).resolve().parent / "results" / "sim_render.json"


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    return cv2.Rodrigues((axis * angle).reshape(3, 1))[0]


class _RollingBalls:
    """16 balls rolling in straight lines (no physics: just moving, spinning sprites)."""

    def __init__(self, table: TableSpec, seed: int = 1, moving: int = 16) -> None:
        rng = np.random.default_rng(seed)
        half = np.array((table.length / 2 - 100, table.width / 2 - 100))
        self.start = rng.uniform(-half, half, (16, 2))
        self.velocity = rng.uniform(-1500, 1500, (16, 2))
        self.velocity[moving:] = 0.0
        self.half = half
        self.balls = tuple(BallId)

    def at(self, t: float) -> TableSnapshot:
        xy = self.start + self.velocity * t
        # Bounce off the cushions by folding positions back into the table.
        period = 4 * self.half
        xy = np.abs((xy + self.half) % period - 2 * self.half) - self.half
        positions = np.column_stack((xy, np.full(16, BALL_RADIUS_MM)))
        rotations = []
        for v in self.velocity:
            speed = float(np.linalg.norm(v))
            if speed == 0:
                rotations.append(np.eye(3))
                continue
            axis = np.array((-v[1], v[0], 0.0)) / speed
            rotations.append(_rotation(axis, speed * t / BALL_RADIUS_MM))
        return TableSnapshot(t, self.balls, positions, np.array(rotations), np.ones(16, bool))


def _time_frames(
    renderer: TableRenderer, scene: _RollingBalls, frames: int
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds per frame (CPU time is steadier on a shared machine)."""
    fps = renderer.config.fps
    cfg = renderer.config
    times, cpu = [], []
    for i in range(frames):
        t = i / fps
        if cfg.blur_subframes > 1:
            offsets = np.linspace(-cfg.exposure_s / 2, cfg.exposure_s / 2, cfg.blur_subframes)
            subs = [scene.at(t + dt) for dt in offsets]
        else:
            subs = [scene.at(t)]
        start, start_cpu = time.perf_counter(), time.process_time()
        renderer.render(subs, frame_index=i)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return times, cpu


def _summary(timed: tuple[list[float], list[float]]) -> dict[str, float]:
    wall, cpu = (np.array(t) * 1e3 for t in timed)
    median = float(np.median(wall))
    median_cpu = float(np.median(cpu))
    return {
        "frames": len(wall),
        "median_ms": round(median, 2),
        "p90_ms": round(float(np.percentile(wall, 90)), 2),
        "fps_at_median": round(1000.0 / median, 1),
        "median_cpu_ms": round(median_cpu, 2),
        "fps_at_median_cpu": round(1000.0 / median_cpu, 1),
    }


def _centroid_errors(table: TableSpec, camera: CameraModel) -> np.ndarray:
    """Pixel distance between each rendered ball's colour blob centroid and the projection of
    its centre, for yellow balls on a grid over the whole table (one ball per frame)."""
    renderer = TableRenderer(table, camera, RenderConfig().clean)
    background = renderer.background.astype(np.float64) + 1.0
    chroma_bg = background / background.sum(axis=-1, keepdims=True)
    hx, hy = table.length / 2 - BALL_RADIUS_MM, table.width / 2 - BALL_RADIUS_MM
    errors = []
    for x in np.linspace(-hx, hx, 9):
        for y in np.linspace(-hy, hy, 5):
            centre = np.array([[x, y, BALL_RADIUS_MM]])
            snap = TableSnapshot(0.0, (BallId.ONE,), centre, np.eye(3)[None], np.ones(1, bool))
            frame = renderer.compose(snap).astype(np.float64) + 1.0
            chroma = frame / frame.sum(axis=-1, keepdims=True)
            mask = np.linalg.norm(chroma - chroma_bg, axis=-1) > 0.06
            mask &= np.linalg.norm(frame - background, axis=-1) > 30
            ys, xs = np.nonzero(mask)
            expected = camera.project(centre)[0]
            errors.append(np.linalg.norm((xs.mean(), ys.mean()) - expected))
    return np.array(errors)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    args = parser.parse_args()
    measure(args.frames, verbose=True)
    return 0


def run(quick: bool) -> dict:
    """The harness entry point (`python -m bench`): render cost per frame, one thread."""
    result = measure(40 if quick else 200, verbose=False)
    return {
        "cases": result["cases"],
        "sprite_outline_error_max_px": result["sprite_outline_error_max_px"],
        "ball_blob_centroid_error_px": result["ball_blob_centroid_error_px"],
    }


def measure(frames: int, verbose: bool) -> dict:
    """Time the renderer over ``frames`` frames per case; print when ``verbose``."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        return _measure(frames, verbose)
    finally:
        cv2.setNumThreads(threads)


def _measure(frames: int, verbose: bool) -> dict:
    table = TableSpec.standard("9ft")
    camera = CameraModel.overhead(table, tilt_deg=2.0, yaw_deg=0.8, distortion=MILD_BARREL)
    scene = _RollingBalls(table)

    start = time.perf_counter()
    default = TableRenderer(table, camera, RenderConfig())
    first_build = time.perf_counter() - start
    other = CameraModel.overhead(table, tilt_deg=-3.0, distortion=MILD_BARREL)
    start = time.perf_counter()
    TableRenderer(table, other, RenderConfig())
    camera_build = time.perf_counter() - start

    clean = TableRenderer(table, camera, RenderConfig().clean)
    blur = TableRenderer(table, camera, dataclasses.replace(RenderConfig(), blur_subframes=8))
    cases = {
        "clean (no noise, no JPEG, no blur)": _summary(_time_frames(clean, scene, frames)),
        "default (noise 2, JPEG 90, no blur)": _summary(_time_frames(default, scene, frames)),
        "blur 8 sub-frames, 16 balls moving (+ noise, JPEG)": _summary(
            _time_frames(blur, scene, max(20, frames // 4))
        ),
        "blur 8 sub-frames, 2 balls moving (+ noise, JPEG)": _summary(
            _time_frames(blur, _RollingBalls(table, moving=2), max(20, frames // 4))
        ),
    }
    hx, hy = table.length / 2 - BALL_RADIUS_MM, table.width / 2 - BALL_RADIUS_MM
    grid = [(x, y) for x in np.linspace(-hx, hx, 9) for y in np.linspace(-hy, hy, 5)]
    spots = [(x, y, BALL_RADIUS_MM) for x, y in grid]
    outline = max(sprite_outline_error_px(camera, np.array(p)) for p in spots)

    centroid = _centroid_errors(table, camera)

    result = {
        "benchmark": "sim_render",
        "resolution": list(camera.image_size),
        "balls": 16,
        "threads": 1,
        "machine": platform.processor() or platform.machine(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cases": cases,
        "first_renderer_build_s": round(first_build, 3),
        "another_camera_build_s": round(camera_build, 3),
        "sprite_outline_error_max_px": round(outline, 4),
        "ball_blob_centroid_error_px": {
            "balls": len(centroid),
            "median": round(float(np.median(centroid)), 3),
            "max": round(float(centroid.max()), 3),
        },
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if not verbose:
        return result
    for name, figures in cases.items():
        wall, cpu = figures["median_ms"], figures["median_cpu_ms"]
        print(
            f"{name:50s} wall median {wall:6.2f} ms (p90 {figures['p90_ms']:6.2f})"
            f" -> {figures['fps_at_median']:5.1f} fps; CPU median {cpu:6.2f} ms"
            f" -> {figures['fps_at_median_cpu']:5.1f} fps"
        )
    print(f"first renderer (textures + background): {first_build:.2f} s")
    print(f"another camera (background only):        {camera_build:.2f} s")
    print(f"sprite outline vs exact silhouette: max {outline:.3f} px")
    print(
        f"ball colour-blob centroid vs projected centre ({len(centroid)} spots, rails included):"
        f" median {np.median(centroid):.3f} px, max {centroid.max():.3f} px"
    )
    print(f"wrote {RESULTS}")
    return result


if __name__ == "__main__":
    raise SystemExit(main())
