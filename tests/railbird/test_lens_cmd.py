"""`railbird lens`: chessboard pictures in, a lens file `railbird calibrate --lens` reads."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from calibration.camera import CameraModel
from railbird.cli import main
from rules.codec import from_jsonable
from tests.calibration.test_intrinsics import LENS, POSES, _chessboard_view


def test_lens_from_chessboard_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for i, pose in enumerate(POSES):
        path = tmp_path / f"board{i}.png"
        cv2.imwrite(str(path), _chessboard_view(pose))
        paths.append(str(path))
    out = tmp_path / "lens.json"
    assert main(["lens", *paths, "--board", "9x6", "--square-mm", "30", "--out", str(out)]) == 0
    assert "RMS" in capsys.readouterr().out
    lens = from_jsonable(CameraModel, json.loads(out.read_text()))
    assert lens.fx == pytest.approx(LENS.fx, rel=0.02)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["lens", "nothing.png", "--out", "l.json"], "nothing.png: not an image"),
        (["lens", "x.png", "--board", "nine", "--out", "l.json"], "write it as COLSxROWS"),
    ],
)
def test_bad_lens_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err
