"""`railbird sim`: play a virtual-table scenario and record it as a real session would be.

The recording is the project's one format (`railbird.recording`): the video the overhead
camera would have shot (`hardware.sim.render`), its frame times, the bytes the pocket-sensor
board would have sent (`hardware.sim.sensors`), the config and the calibration; beside it, the
scenario's truth (`hardware.sim.runner.write_truth`) to measure the pipeline against.
"""

from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from calibration.calibrate import calibrate_corners
from calibration.camera import CameraModel
from calibration.file import Calibration
from calibration.solve import HeadSide, nose_corners_mm
from hardware.sim.camera_source import VirtualCamera
from hardware.sim.render import ClothColour, RenderConfig, TableRenderer
from hardware.sim.runner import add_arguments as add_scenario_arguments
from hardware.sim.runner import frame_times, scenario_listing, write_truth
from hardware.sim.scenarios import ScenarioRun, run_scenario
from hardware.sim.sensors import Chunk, Faults, SimulatedBoard, drops_from_events
from railbird.recording import RecordingWriter
from rules.codec import dumps

log = logging.getLogger(__name__)

SENSOR_PORT = "sim://pocket-sensors"
"""The port name the simulated board's bytes are recorded under."""


@dataclass(frozen=True, slots=True)
class SimRecordingConfig:
    """How a scenario is recorded.

    Attributes:
        render: The virtual camera's picture settings.
        camera_height_mm: Height of the overhead camera above the cloth.
        camera_tilt_deg: Its tilt along the table.
        sensors: Whether the pocket-sensor board is on.
        sensor_faults: What goes wrong on the sensor link.
    """

    render: RenderConfig = field(default_factory=RenderConfig)
    camera_height_mm: float = 2600.0
    camera_tilt_deg: float = 0.0
    sensors: bool = True
    sensor_faults: Faults = field(default_factory=Faults)


def record_scenario(run: ScenarioRun, out: Path, config: SimRecordingConfig) -> Path:
    """Record one scenario run into the folder ``out`` and put its truth beside the inputs.

    Raises:
        RecordError: the folder already holds a recording or cannot be written.
    """
    table = run.truth.table
    camera = CameraModel.overhead(
        table,
        image_size=config.render.resolution,
        height_mm=config.camera_height_mm,
        tilt_deg=config.camera_tilt_deg,
    )
    times = frame_times(run, config.render.fps)
    writer = RecordingWriter.create(
        out,
        config.render.resolution,
        config.render.fps,
        config_text=_config_text(run, config),
        calibration_json=dumps(_truth_calibration(camera, run), indent=2),
    )
    with writer:
        _write_serial(writer, run, config, times[-1])
        renderer = TableRenderer(table, camera, config.render)
        source = VirtualCamera(run.result.snapshot, renderer, start=times[0], end=times[-1])
        for frame in source:
            writer.write_frame(frame)
    write_truth(run, out, times)
    return out


def _truth_calibration(camera: CameraModel, run: ScenarioRun) -> Calibration:
    """The calibration of the virtual rig: exact, since the lens and pose are known."""
    table = run.truth.table
    corners = camera.project(nose_corners_mm(table, HeadSide.LEFT))
    return calibrate_corners(
        corners,
        camera.image_size,
        table,
        lens=camera,
        head=HeadSide.LEFT,
        made_from=f"virtual table, scenario {run.truth.scenario} seed {run.seed}",
    )


def _write_serial(
    writer: RecordingWriter, run: ScenarioRun, config: SimRecordingConfig, end: float
) -> None:
    if not config.sensors:
        return
    board = SimulatedBoard(
        drops_from_events(run.truth.events),
        end=end,
        start=run.truth.start_time - 1.0,
        faults=config.sensor_faults,
        seed=run.seed,
    )
    steps, _ = board.script()
    for step in steps:
        if isinstance(step, Chunk):
            writer.write_serial(step.time, SENSOR_PORT, step.data)


def _config_text(run: ScenarioRun, config: SimRecordingConfig) -> str:
    """The TOML the session would have run with (table, sensors, the scenario's game)."""
    port = SENSOR_PORT if config.sensors else ""
    return (
        f"# virtual table: scenario {run.truth.scenario}, seed {run.seed}\n"
        f'[table]\nsize = "{run.truth.table.name}"\n\n[sensors]\nport = "{port}"\n\n'
        f'[referee]\ngame = "{run.game}"\n'
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``sim`` subcommand's options: the scenario's, plus the recording's."""
    add_scenario_arguments(parser)
    parser.add_argument("--cloth", default="green", choices=[c.value for c in ClothColour])
    parser.add_argument("--no-sensors", action="store_true", help="record without pocket sensors")
    parser.add_argument("--blur", type=int, default=1, help="motion-blur sub-frames per frame")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``railbird sim --list`` or ``railbird sim SCENARIO --out DIR``."""
    if args.list or not args.scenario:
        print(scenario_listing(), file=out)
        return 0
    from calibration.table import TableSpec

    run_ = run_scenario(args.scenario, args.seed, TableSpec.standard(args.table))
    folder = Path(args.out or f"sim-{args.scenario}-{args.seed}")
    render = RenderConfig(
        fps=args.fps, cloth=ClothColour(args.cloth), blur_subframes=args.blur, seed=args.seed
    )
    record_scenario(run_, folder, SimRecordingConfig(render=render, sensors=not args.no_sensors))
    truth = run_.truth
    print(
        f"{truth.scenario} seed {truth.seed}: {len(truth.shots)} shot(s), {len(truth.events)} "
        f"events, {truth.end_time - truth.start_time:.2f} s recorded in {folder}",
        file=out,
    )
    return 0
