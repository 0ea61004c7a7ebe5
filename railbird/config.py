"""The one config loader: a TOML file, one frozen section class per stage, unknown keys refused.

Each stage owns its section class (`calibration.TableConfig` for ``[table]``, ...); this module
only gathers them. Loading is strict: an unknown section or key, a value of the wrong type or an
invalid combination is a `ConfigError` naming the file and the key path.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from calibration.config import TableConfig
from hardware.cameras.config import CameraConfig
from hardware.sensors.config import SensorsConfig
from rules.codec import from_jsonable
from rules.config import RefereeConfig
from rules.errors import ConfigError
from rules.match import MatchConfig
from rules.shot_clock import ShotClockConfig


@dataclass(frozen=True, slots=True)
class RailbirdConfig:
    """The whole configuration, one attribute per config-file section.

    Attributes:
        table: ``[table]``, the table watched.
        camera: ``[camera]``, the live camera (absent: none configured).
        sensors: ``[sensors]``, the pocket-sensor board (no port: vision only).
        referee: ``[referee]``, the game and its options.
        shot_clock: ``[shot_clock]``, limits and extensions (rules 1.11, 2.25).
        match: ``[match]``, the race, break order and time-outs.
    """

    table: TableConfig = field(default_factory=TableConfig)
    camera: CameraConfig | None = None
    sensors: SensorsConfig = field(default_factory=SensorsConfig)
    referee: RefereeConfig = field(default_factory=RefereeConfig)
    shot_clock: ShotClockConfig = field(default_factory=ShotClockConfig)
    match: MatchConfig = field(default_factory=MatchConfig)


def parse_config(text: str, source: str = "<config>") -> RailbirdConfig:
    """Parse TOML text into a `RailbirdConfig`.

    Raises:
        ConfigError: the text is not TOML, or a section or key is unknown or invalid.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from exc
    return from_jsonable(RailbirdConfig, data, where=source, error=ConfigError)


def load_config(path: str | Path) -> RailbirdConfig:
    """Read and parse a TOML config file.

    Raises:
        ConfigError: the file is missing or unreadable, or its content is invalid.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc}") from exc
    return parse_config(text, str(path))
