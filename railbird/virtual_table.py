"""A virtual-table scenario as the monitor's devices: a camera and a pocket-sensor board.

The scenario is played by the physics engine; the virtual overhead camera renders it as frames
arrive on the session clock, and the simulated sensor board sends its pocket drops as bytes
through a pseudo-terminal to the real sensor reader. `railbird demo` and
`railbird watch --virtual-table` both use it, so the virtual table goes through the same code as
a real camera and a real board.
"""

from __future__ import annotations

import dataclasses
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.calibrate import calibrate_image
from calibration.camera import CameraModel
from calibration.file import Calibration
from calibration.table import TableSpec
from hardware.clock import Clock
from hardware.frames import Frame, FrameSource
from hardware.sim.camera_source import VirtualCamera
from hardware.sim.render import RenderConfig, TableRenderer
from hardware.sim.scenarios import LIGHT_HEIGHT_MM, ScenarioRun, run_scenario
from hardware.sim.sensors import (
    Faults,
    PtyPort,
    SimulatedBoard,
    drops_from_events,
    play_in_background,
)

TAIL_S = 1.0
"""The camera keeps filming this long after the scenario's last ball stops."""


class FrameClock:
    """A session clock that follows the monitor instead of the wall: lockstep.

    It reads the moment of the next frame: the time of the last frame the live loop finished
    (`frame_done`) plus one frame interval. A virtual camera on this clock releases each frame
    only when the loop has finished the one before, and the simulated sensor board sends its
    bytes when the session reaches their time, so the virtual table plays at the pace the
    monitor keeps, on any machine, with no frame dropped. `release` ends every wait, so that
    stopping is never blocked.

    Args:
        start: Session time of the first frame.
        fps: The camera's frame rate.
    """

    def __init__(self, start: float, fps: float) -> None:
        self._interval = 1.0 / fps
        self._now = start
        self._released = False
        self._changed = threading.Condition()

    def now(self) -> float:
        """The session time of the next frame."""
        with self._changed:
            return self._now

    def frame_done(self, time: float) -> None:
        """The live loop finished the frame of session time ``time``."""
        with self._changed:
            # A hair past the next frame's moment, so rounding never leaves the camera waiting.
            self._now = max(self._now, time + self._interval + 1e-6)
            self._changed.notify_all()

    def sleep(self, seconds: float) -> None:
        """Wait until the session is ``seconds`` later (or the clock is released)."""
        with self._changed:
            until = self._now + max(0.0, seconds)
            while self._now < until and not self._released:
                self._changed.wait(0.5)

    def release(self) -> None:
        """The run is over: nobody waits any more."""
        with self._changed:
            self._released = True
            self._changed.notify_all()


Span = tuple[float, float]
"""A stretch of session time, start and end, for a fault drill."""


@dataclass(frozen=True, slots=True)
class Drill:
    """Faults the virtual table's devices suffer, to show the monitor rides them out.

    Attributes:
        sensors_unplugged: The sensor board's cable is out during these spans.
        corrupt_frames: The camera delivers corrupt frames (half size, noise) during these.
    """

    sensors_unplugged: tuple[Span, ...] = ()
    corrupt_frames: tuple[Span, ...] = ()


class CorruptFrames:
    """A frame source whose frames within some spans come out corrupt: half the size and
    noise, as a camera that glitches into another mode or a broken decode gives them."""

    def __init__(self, source: FrameSource, spans: tuple[Span, ...], seed: int = 0) -> None:
        self._source = source
        self._spans = spans
        self._rng = np.random.default_rng(seed)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the good frames."""
        return self._source.size

    @property
    def fps(self) -> float:
        """Frames per second."""
        return self._source.fps

    def __iter__(self) -> Iterator[Frame]:
        for frame in self._source:
            if any(a <= frame.time <= b for a, b in self._spans):
                w, h = self.size
                noise = self._rng.integers(0, 256, (h // 2, w // 2, 3), dtype=np.uint8)
                frame = Frame(frame.index, frame.time, noise)
            yield frame

    def close(self) -> None:
        """Close the camera underneath."""
        self._source.close()


class VirtualTable:
    """One scenario run, ready to be filmed and sensed.

    Args:
        scenario: The scenario's name (`hardware.sim.scenarios.list_scenarios`).
        seed: Its seed (the same pair always plays the same).
        fps: The virtual camera's frame rate.
        clean: Render without sensor noise and JPEG compression (faster).
        drill: Device faults to inject.

    Raises:
        SimulationError: unknown scenario, or no variant of it played as it claims.
    """

    def __init__(
        self,
        scenario: str,
        seed: int = 0,
        fps: float = 30.0,
        clean: bool = False,
        drill: Drill | None = None,
    ) -> None:
        self.table = TableSpec.standard("9ft")
        self.seed = seed
        self.drill = drill or Drill()
        self.run: ScenarioRun = run_scenario(scenario, seed, self.table)
        self.render = RenderConfig(fps=fps, seed=seed)
        if clean:
            self.render = dataclasses.replace(self.render, noise_sigma=0.0, jpeg_quality=None)
        self.lens = CameraModel.overhead(self.table, image_size=self.render.resolution)
        self.renderer = TableRenderer(self.table, self.lens, self.render)
        self.start = self.run.truth.start_time
        self.end = self.run.truth.end_time + TAIL_S

    @property
    def light_height_mm(self) -> float:
        """The virtual table's lamp, above the cloth (a ball may fly up and touch it)."""
        return LIGHT_HEIGHT_MM

    @property
    def frame_size(self) -> tuple[int, int]:
        """(width, height) of the frames."""
        return self.render.resolution

    def calibrate(self) -> Calibration:
        """Calibrate the camera on the first frame, as an installer would."""
        first = self.renderer.render(self.run.result.snapshot(self.start), 0)
        return calibrate_image(
            first, self.table, lens=self.lens, made_from="virtual camera, frame 0"
        )

    def camera(self, clock: Clock) -> FrameSource:
        """The camera, delivering each frame when ``clock`` reaches its time (frames whose time
        has passed, as after a resume, are skipped)."""
        camera = VirtualCamera(
            self.run.result.snapshot, self.renderer, start=self.start, end=self.end, clock=clock
        )
        if self.drill.corrupt_frames:
            return CorruptFrames(camera, self.drill.corrupt_frames, self.seed)
        return camera

    @contextmanager
    def sensor_port(self, clock: Clock) -> Iterator[str]:
        """A pty with the simulated board playing on ``clock``; yields the port's path.

        Only what the board sends from now on is played: a resumed session does not hear the
        drops it missed while it was down.
        """
        board = SimulatedBoard(
            drops_from_events(self.run.truth.events),
            end=self.end,
            start=self.start - 1.0,
            faults=Faults(unplugged=self.drill.sensors_unplugged),
            seed=self.seed,
        )
        steps, _ = board.script()
        now = clock.now()
        steps = tuple(s for s in steps if s.time >= now)
        with tempfile.TemporaryDirectory() as tmp:
            port = PtyPort(Path(tmp) / "pocket-sensors")
            player, stop = play_in_background(steps, port, clock)
            try:
                yield port.path
            finally:
                stop.set()
                player.join(timeout=2.0)
                port.close()
