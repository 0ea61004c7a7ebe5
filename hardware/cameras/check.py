"""``railbird camera``: open a camera for a few seconds and say how it does.

The logic of a CLI subcommand (the CLI itself wires it): it opens the source with the same
`CameraSource` the monitor uses, reads for a while, and prints the size, the measured rate,
dropped frames and the final status, so an installer can check a camera before a match.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TextIO

from hardware.cameras.config import CameraConfig
from hardware.cameras.live import CameraHealth, CameraSource, CaptureFactory, open_capture
from hardware.clock import Clock, MonotonicClock


@dataclass(frozen=True, slots=True)
class CameraCheck:
    """What a short look at a camera found.

    Attributes:
        frames_taken: Frames the check read from the source.
        size: (width, height) of the frames, (0, 0) if none came.
        health: The camera's health at the end.
    """

    frames_taken: int
    size: tuple[int, int]
    health: CameraHealth


def check_camera(
    config: CameraConfig,
    clock: Clock,
    seconds: float,
    *,
    capture_factory: CaptureFactory = open_capture,
) -> CameraCheck:
    """Read from a camera for ``seconds`` of session time; never blocks much longer."""
    taken = 0
    with CameraSource(config, clock, capture_factory=capture_factory) as source:
        end = clock.now() + seconds
        while (left := end - clock.now()) > 0:
            if source.read(timeout_s=min(left, 0.5)) is not None:
                taken += 1
        return CameraCheck(taken, source.size, source.health())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The subcommand's options."""
    parser.add_argument("source", help="device index (0), device path or rtsp:// / http:// URL")
    parser.add_argument("--seconds", type=float, default=5.0, help="how long to watch")
    parser.add_argument("--width", type=int)
    parser.add_argument("--height", type=int)
    parser.add_argument("--fps", type=float)
    parser.add_argument("--fourcc", help="pixel format to request, e.g. MJPG")


def run_camera_check(
    args: argparse.Namespace,
    *,
    out: TextIO | None = None,
    clock: Clock | None = None,
    capture_factory: CaptureFactory = open_capture,
) -> int:
    """Run the check from parsed arguments; 0 if frames came, 1 if not, 2 on bad options."""
    out = out if out is not None else sys.stdout
    source: int | str = int(args.source) if args.source.isdigit() else args.source
    try:
        config = CameraConfig(
            source=source, width=args.width, height=args.height, fps=args.fps, fourcc=args.fourcc
        )
    except ValueError as exc:
        print(f"camera {args.source}: {exc}", file=out)
        return 2
    clock = clock if clock is not None else MonotonicClock()
    result = check_camera(config, clock, args.seconds, capture_factory=capture_factory)
    health = result.health
    width, height = result.size
    measured = f"{health.measured_fps:.1f}" if health.measured_fps else "-"
    nominal = f"{health.nominal_fps:g}" if health.nominal_fps else "-"
    print(f"camera {args.source}: {health.status} ({health.reason})", file=out)
    print(f"  frames received {health.frames}, taken {result.frames_taken}", file=out)
    print(f"  size {width}x{height}, measured {measured} fps, nominal {nominal} fps", file=out)
    print(
        f"  dropped by camera {health.dropped_by_camera}, reconnects {health.reconnects}", file=out
    )
    return 0 if health.frames else 1
