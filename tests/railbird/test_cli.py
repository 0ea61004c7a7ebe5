from __future__ import annotations

import json
from pathlib import Path

import pytest

from railbird.cli import main


def test_tables_prints_every_standard_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tables"]) == 0
    out = capsys.readouterr().out
    assert "9ft: playing surface 2540.0 x 1270.0 mm" in out
    assert "8ft:" in out and "7ft:" in out
    assert out.count("pocket ") == 18


def test_tables_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tables", "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert [t["spec"]["name"] for t in tables] == ["9ft", "8ft", "7ft"]
    assert len(tables[0]["pockets"]) == 6 and len(tables[0]["diamonds"]) == 18


def test_a_bad_config_is_a_clear_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("[table]\ncolour = 'green'\n")
    assert main(["tables", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "railbird: error:" in err and "unknown key(s) colour" in err
    assert "Traceback" not in err


def test_config_command_prints_the_resolved_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ok.toml"
    path.write_text('[table]\nsize = "7ft"\n')
    assert main(["config", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["table"]["size"] == "7ft"
