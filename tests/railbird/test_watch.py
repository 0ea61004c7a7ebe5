"""`railbird watch`: the live loop from a config's camera, recorded, stopped on time."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from calibration.calibrate import calibrate_corners
from calibration.camera import CameraModel
from calibration.file import save
from calibration.solve import HeadSide, nose_corners_mm
from calibration.table import TableSpec
from hardware.sim.render import RenderConfig, TableRenderer
from railbird.cli import main
from railbird.recording import RecordingReader
from rules.balls import BallId
from tests.hardware.sim.snapshots import snapshot

T9 = TableSpec.standard("9ft")
SIZE = (640, 360)


@pytest.mark.slow
def test_watch_a_camera_from_the_config_and_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    camera = CameraModel.overhead(T9, image_size=SIZE)
    renderer = TableRenderer(T9, camera, RenderConfig(resolution=SIZE, fps=30.0))
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, SIZE)
    for i in range(60):
        writer.write(renderer.render(snapshot({BallId.CUE: (-600 + 5 * i, 0.0)}), i))
    writer.release()
    calibration = tmp_path / "calib.json"
    corners = camera.project(nose_corners_mm(T9, HeadSide.LEFT))
    save(calibrate_corners(corners, SIZE, T9, lens=camera), calibration)
    config = tmp_path / "match.toml"
    config.write_text(f'[camera]\nsource = "{video}"\nfps = 30.0\n')
    argv = [
        "watch",
        "--config",
        str(config),
        "--calibration",
        str(calibration),
        "--record",
        str(tmp_path / "rec"),
        "--seconds",
        "3",
        "--port",
        "0",
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "vision only" in printed and "frames_processed" in printed
    assert "scoreboard: http://127.0.0.1:" in printed and "console token:" in printed
    assert len(RecordingReader(tmp_path / "rec").frame_times()) > 0


def test_watch_needs_a_camera_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "match.toml"
    config.write_text('[table]\nsize = "9ft"\n')
    argv = ["watch", "--config", str(config), "--calibration", str(tmp_path / "c.json")]
    assert main(argv) == 2
    assert "a [camera] section is needed" in capsys.readouterr().err


def test_resume_of_a_folder_that_is_not_a_recording_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["watch", "--resume", str(tmp_path), "--no-web"]) == 2
    assert "not a recording (no meta.json)" in capsys.readouterr().err


def test_resume_with_another_config_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from railbird.recording import RecordingWriter
    from rules.referee import Referee

    with RecordingWriter.create(tmp_path / "rec", SIZE, 30.0, '[referee]\ngame = "9-ball"\n') as w:
        w.write_game(Referee.new("9-ball", ("A", "B"), T9).log)
    other = tmp_path / "other.toml"
    other.write_text('[referee]\ngame = "8-ball"\n')
    argv = ["watch", "--resume", str(tmp_path / "rec"), "--config", str(other), "--no-web"]
    assert main(argv) == 2
    assert "the config given is not the one the match ran with" in capsys.readouterr().err


def test_record_and_resume_together_and_no_config_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["watch", "--resume", str(tmp_path), "--record", str(tmp_path / "new")]
    assert main(argv) == 2
    assert "keeps recording into its folder" in capsys.readouterr().err
    assert main(["watch", "--no-web"]) == 2
    assert "--config is needed" in capsys.readouterr().err


def test_the_printed_match_line_says_who_breaks_next_and_when_the_match_is_over() -> None:
    from railbird.watch import match_line
    from rules.inputs import RackReady
    from rules.match import MatchConfig
    from rules.referee import Referee
    from rules.table import PocketId
    from tests.factories import break_shot

    assert match_line(Referee.new("9-ball", ("Ann", "Bob"), T9)) == ""
    referee = Referee.new("9-ball", ("Ann", "Bob"), T9, match=MatchConfig(race_to=2))
    assert match_line(referee).endswith("race to 2 racks; rack 1, Ann broke")
    referee.record(break_shot(index=0, pocket=(("9", PocketId.FOOT_LEFT),)), 1.0)
    assert "Ann 1 - 0 Bob" in match_line(referee)
    assert match_line(referee).endswith("rack over: Ann breaks next, on the console's rack ready")
    referee.record(RackReady(), 2.0)
    referee.record(break_shot(index=1, pocket=(("9", PocketId.FOOT_LEFT),)), 3.0)
    assert match_line(referee).endswith("match over: Ann wins")
