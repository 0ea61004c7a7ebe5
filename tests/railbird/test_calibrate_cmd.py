"""`railbird calibrate`: from a frame on disk to a calibration file, an overlay and a check."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.file import load
from railbird.cli import main
from tests.calibration.synthetic import CLOTHS, draw_table

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "real" / "broadcast-8ball"
if not DATA.is_dir():  # a worktree under /work/wt sits one level deeper than /work/main
    DATA = Path("/work/shared/data/real/broadcast-8ball")


@pytest.fixture
def table_png(tmp_path: Path) -> Path:
    image, _, _ = draw_table(CLOTHS["blue"], np.random.default_rng(2), 0.0)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), image)
    return path


def test_calibrate_writes_file_and_overlay_then_checks(
    table_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "calib.json"
    assert main(["calibrate", str(table_png), "--table", "8ft", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "reprojection error" in printed and "lens default" in printed
    calibration = load(out, image_size=(1280, 720))
    assert calibration.table.name == "8ft"
    assert cv2.imread(str(tmp_path / "calib.overlay.png")).shape == (720, 1280, 3)

    assert main(["calibrate", "--check", str(out), str(table_png)]) == 0
    assert "unchanged" in capsys.readouterr().out
    shifted = tmp_path / "shifted.png"
    cv2.imwrite(str(shifted), np.roll(cv2.imread(str(table_png)), 5, axis=0))
    assert main(["calibrate", "--check", str(out), str(shifted)]) == 1
    assert "MOVED" in capsys.readouterr().out


def test_manual_corners(tmp_path: Path, table_png: Path) -> None:
    out = tmp_path / "calib.json"
    corners = "151.2,115.6 1128.8,115.6 1128.8,604.4 151.2,604.4"
    assert main(["calibrate", str(table_png), "--corners", corners, "--out", str(out)]) == 0
    assert load(out).made_from.endswith("frame 0") and load(out).confidence == 1.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["calibrate", "missing.png", "--out", "x.json"], "image file not found: missing.png"),
        (["calibrate", "TABLE", "--corners", "1,2 3", "--out", "x.json"], "write four x,y pairs"),
        (["calibrate", "TABLE"], "say where to write the calibration with --out"),
        (["calibrate", "TABLE", "--lens", "nolens.json", "--out", "x.json"], "lens file not found"),
    ],
)
def test_bad_input_is_a_clear_error(
    argv: list[str], message: str, table_png: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(table_png) if a == "TABLE" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/real is not present")
def test_calibrates_the_overhead_broadcast_clip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = DATA / "game1_clip1" / "game1_clip1.mp4"
    assert main(["calibrate", str(video), "--out", str(tmp_path / "c.json")]) == 0
    assert load(tmp_path / "c.json").reprojection_px < 1.0


@pytest.mark.parametrize(
    ("make", "extra", "message"),
    [
        (lambda p: p.write_bytes(b"\x89PNG garbage, not an image"), [], "frame.png"),
        (
            lambda p: cv2.imwrite(str(p), np.full((720, 1280, 3), 40, np.uint8)),
            [],
            "no whole table in view",
        ),
        (
            lambda p: cv2.imwrite(str(p), np.full((720, 1280, 3), 40, np.uint8)),
            ["--corners", "100,100 1100,600 1100,100 100,600"],
            "make no convex table",
        ),
    ],
    ids=["unreadable-file", "no-table", "corners-no-rectangle"],
)
def test_an_unusable_frame_or_corners_is_a_clear_error_not_a_traceback(
    make, extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = tmp_path / "frame.png"
    make(frame)
    out = tmp_path / "c.json"
    assert main(["calibrate", str(frame), "--out", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()
