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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tabel]\nsize = "9ft"\n', r"unknown key\(s\) tabel"),
        ('[table]\nsise = "9ft"\n', r"\.table: unknown key\(s\) sise"),
        ("[table]\nsize = 9\n", r"\.table\.size: expected str, got 9"),
        ('[table]\nsize = "10ft"\n', "size '10ft' is not one of 9ft, 8ft, 7ft, custom"),
        ('[table]\nsize = "custom"\nlength_mm = 2800\n', "needs both length_mm and width_mm"),
        ('[table]\nsize = "8ft"\nwidth_mm = 1000\n', "apply to size = 'custom'"),
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
