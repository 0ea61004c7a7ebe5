from __future__ import annotations

import tomllib

import pytest

from hardware.sensors.config import SensorsConfig
from rules.codec import from_jsonable
from rules.errors import ConfigError
from rules.table import PocketId


def _parse(text: str) -> SensorsConfig:
    return from_jsonable(SensorsConfig, tomllib.loads(text), where="[sensors]", error=ConfigError)


def test_defaults_mean_no_board() -> None:
    config = _parse("")
    assert not config.enabled
    assert config.link_config().pocket_map[0] is PocketId.HEAD_LEFT


def test_a_rewired_table() -> None:
    config = _parse(
        'port = "/dev/ttyACM0"\n'
        'pocket_map = ["foot-right", "foot-left", "side-right", "side-left", "head-right",'
        ' "head-left"]\nmin_latency_ms = 2.5\n'
    )
    assert config.enabled
    link = config.link_config()
    assert link.pocket_map[0] is PocketId.FOOT_RIGHT and link.min_latency_s == 0.0025


def test_unknown_key_and_bad_wiring_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="baud"):
        _parse('port = "/dev/ttyACM0"\nbaud = 9600\n')
    with pytest.raises(ConfigError, match="head-left to more than one input"):
        _parse('pocket_map = ["head-left", "head-left"]\n')
    with pytest.raises(ConfigError, match="corner"):
        _parse('pocket_map = ["corner"]\n')
