from __future__ import annotations

from pathlib import Path

import pytest

from railbird.config import RailbirdConfig, load_config, parse_config
from rules.errors import ConfigError


def test_empty_config_gives_the_defaults() -> None:
    config = parse_config("")
    assert config == RailbirdConfig()
    assert config.table.spec().name == "9ft"


def test_custom_table(tmp_path: Path) -> None:
    path = tmp_path / "railbird.toml"
    path.write_text('[table]\nsize = "custom"\nlength_mm = 2800\nwidth_mm = 1400.0\n')
    spec = load_config(path).table.spec()
    assert (spec.length, spec.width) == (2800.0, 1400.0)


def test_the_lamp_over_the_table(tmp_path: Path) -> None:
    path = tmp_path / "railbird.toml"
    path.write_text("[table]\nlight_height_mm = 950\n")
    assert load_config(path).table.light_height_mm == 950.0
    assert parse_config("").table.light_height_mm is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tabel]\nsize = "9ft"\n', r"unknown key\(s\) tabel"),
        ('[table]\nsise = "9ft"\n', r"\.table: unknown key\(s\) sise"),
        ("[table]\nsize = 9\n", r"\.table\.size: expected str, got 9"),
        ('[table]\nsize = "10ft"\n', "size '10ft' is not one of 9ft, 8ft, 7ft, custom"),
        ('[table]\nsize = "custom"\nlength_mm = 2800\n', "needs both length_mm and width_mm"),
        ('[table]\nsize = "8ft"\nwidth_mm = 1000\n', "apply to size = 'custom'"),
        ("[table]\nlight_height_mm = 30\n", "light_height_mm 30.* not a lamp's height"),
        ("[table\n", "not valid TOML"),
    ],
)
def test_bad_config_says_what_and_where(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml")


def test_every_stage_section_loads_strictly(tmp_path: Path) -> None:
    path = tmp_path / "match.toml"
    path.write_text(
        "[camera]\nsource = 0\nwidth = 1280\nheight = 720\nfps = 60.0\n"
        '[referee]\ngame = "8-ball"\n[referee.options]\neight_on_break_wins = true\n'
        "[shot_clock]\nlimit_s = 25.0\n"
        '[match]\nrace_to = 9\nbreak_order = "alternate"\n'
    )
    config = load_config(path)
    assert config.camera is not None and config.camera.width == 1280
    assert config.referee.game == "8-ball" and config.referee.options.eight_on_break_wins
    assert config.shot_clock.limit_s == 25.0
    assert config.match.race_to == 9 and config.match.break_order == "alternate"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[referee]\ngame = "snooker"\n', "game 'snooker' is not one of 14\\.1, 8-ball, 9-ball"),
        ("[referee.options]\nbreaker = 2\n", r"\.referee\.options: the breaker is player 0 or 1"),
        ("[shot_clock]\nlimit = 30\n", r"\.shot_clock: unknown key\(s\) limit"),
        ('[match]\nbreak_order = "coin"\n', r"\.match\.break_order: 'coin' is not one of"),
        ("[camera]\nsource = 0\nzoom = 2\n", r"\.camera: unknown key\(s\) zoom"),
    ],
)
def test_bad_stage_sections_say_what_and_where(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_config(path)
