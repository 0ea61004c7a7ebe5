"""The `railbird` command line."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence

from calibration.table import STANDARD_TABLES, TableSpec
from hardware.cameras import check as camera_check
from hardware.sensors import ports as sensor_ports
from hardware.sensors import watch as sensor_watch
from railbird import __version__, calibrate_cmd, demo, lens_cmd, replay, simulate, watch
from railbird.config import RailbirdConfig, load_config
from railbird.referee_cmd import add_referee_command
from railbird.review import run as review
from rules.codec import to_jsonable
from rules.errors import RailbirdError

log = logging.getLogger("railbird")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return args.run(args)
    except RailbirdError as exc:
        print(f"railbird: error: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="railbird", description=__doc__)
    parser.add_argument("--version", action="version", version=f"railbird {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug detail")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    tables = commands.add_parser("tables", help="print the table specifications railbird knows")
    tables.add_argument("--json", action="store_true", help="print JSON instead of text")
    tables.add_argument("--config", help="show the table of this config file instead")
    tables.set_defaults(run=_run_tables)

    calibrate = commands.add_parser("calibrate", help="find the table and solve the camera")
    calibrate_cmd.add_arguments(calibrate)
    calibrate.set_defaults(run=lambda args: calibrate_cmd.run(args, sys.stdout))

    lens = commands.add_parser("lens", help="fit the lens from chessboard pictures")
    lens_cmd.add_arguments(lens)
    lens.set_defaults(run=lambda args: lens_cmd.run(args, sys.stdout))

    camera = commands.add_parser(
        "camera", help="watch a camera for a few seconds: size, rate, drops, status"
    )
    camera_check.add_arguments(camera)
    camera.set_defaults(run=camera_check.run_camera_check)

    add_referee_command(commands)

    replay_ = commands.add_parser(
        "replay", help="run a recording or a video through the pipeline: events and rulings"
    )
    replay.add_arguments(replay_)
    replay_.set_defaults(run=lambda args: replay.run(args, sys.stdout))

    review_ = commands.add_parser(
        "review", help="post-match review: annotated video, shot diagrams, an HTML report"
    )
    review.add_arguments(review_)
    review_.set_defaults(run=lambda args: review.run_review(args, sys.stdout))

    watch_ = commands.add_parser("watch", help="referee a real table live (camera + sensors)")
    watch.add_arguments(watch_)
    watch_.set_defaults(run=lambda args: watch.run(args, sys.stdout))

    demo_ = commands.add_parser("demo", help="the live loop on the virtual table, in real time")
    demo.add_arguments(demo_)
    demo_.set_defaults(run=lambda args: demo.run(args, sys.stdout))

    sim = commands.add_parser("sim", help="record a virtual-table scenario with its truth")
    simulate.add_arguments(sim)
    sim.set_defaults(run=lambda args: simulate.run(args, sys.stdout))

    ports = commands.add_parser("ports", help="list serial ports, likely sensor boards first")
    ports.set_defaults(run=sensor_ports.run_ports)

    sensors = commands.add_parser("sensors", help="watch the pocket sensors: drops and status")
    sensors.add_argument("port", help="pyserial URL: /dev/ttyACM0, COM3, spy:///dev/ttyACM0")
    sensors.add_argument("--seconds", type=float, help="stop after this long (default: Ctrl-C)")
    sensors.set_defaults(run=sensor_watch.run_sensors)

    config = commands.add_parser("config", help="check a config file and print it resolved")
    config.add_argument("file", help="TOML config file")
    config.set_defaults(run=_run_config)
    return parser


def _run_tables(args: argparse.Namespace) -> int:
    if args.config:
        specs = [load_config(args.config).table.spec()]
    else:
        specs = [TableSpec.standard(name) for name in STANDARD_TABLES]
    if args.json:
        print(json.dumps([_table_summary(s) for s in specs], indent=2))
    else:
        print("\n\n".join(_table_text(s) for s in specs))
    return 0


def _run_config(args: argparse.Namespace) -> int:
    config: RailbirdConfig = load_config(args.file)
    print(json.dumps(to_jsonable(config), indent=2))
    return 0


def _table_summary(spec: TableSpec) -> dict:
    return {
        "spec": to_jsonable(spec),
        "head_string_x": spec.head_string_x,
        "foot_spot": spec.foot_spot,
        "pockets": [
            {"id": p.id, "mouth_width": p.mouth_width, "jaws": p.jaws, "centre": p.centre}
            for p in spec.pockets
        ],
        "cushions": [{"id": c.id, "start": c.start, "end": c.end} for c in spec.cushions],
        "diamonds": spec.diamonds,
    }


def _table_text(spec: TableSpec) -> str:
    lines = [
        f"{spec.name}: playing surface {spec.length:.1f} x {spec.width:.1f} mm "
        f"({spec.length / 25.4:.1f} x {spec.width / 25.4:.1f} in)",
        f"  head string x = {spec.head_string_x:.1f} mm; foot spot "
        f"({spec.foot_spot[0]:.1f}, {spec.foot_spot[1]:.1f}) mm",
        f"  cushion nose height {spec.cushion_nose_height:.1f} mm; "
        f"balls {spec.ball_diameter:.2f} mm; {len(spec.diamonds)} diamonds",
    ]
    for p in spec.pockets:
        cx, cy = p.mouth_centre
        lines.append(
            f"  pocket {p.id:<10} mouth {p.mouth_width:6.1f} mm at ({cx:8.1f}, {cy:7.1f}), "
            f"shelf {p.shelf:4.1f} mm"
        )
    return "\n".join(lines)
