"""The recording format: round trip, crash safety, and clear errors on bad recordings."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from hardware.frames import Frame
from railbird.recording import FORMAT_VERSION, RecordingReader, RecordingWriter
from rules.errors import RecordError

SIZE = (320, 240)
ROOT = Path(__file__).resolve().parents[2]


def _frame(i: int, fps: float = 60.0) -> Frame:
    # Each frame's brightness encodes its index, so lossy video can still be matched up.
    image = np.full((SIZE[1], SIZE[0], 3), (i * 7) % 250, np.uint8)
    return Frame(i, 10.0 + i / fps, image)


def _write(root: Path, count: int, segment_s: float = 1.0) -> None:
    with RecordingWriter.create(
        root,
        SIZE,
        60.0,
        config_text='[table]\nsize = "9ft"\n',
        calibration_json="{}",
        segment_s=segment_s,
    ) as writer:
        for i in range(count):
            writer.write_frame(_frame(i))
        writer.write_serial(10.05, "/dev/ttyACM0", b"D,3,123*ab\n")
        writer.write_input(10.2, "CallShot", {"ball": "9", "pocket": "foot-left"})


def test_round_trip_across_segments(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 25, segment_s=10 / 60)
    reader = RecordingReader(tmp_path / "rec")
    frames = list(reader)
    assert [f.index for f in frames] == list(range(25))
    assert [f.time for f in frames] == [_frame(i).time for i in range(25)]
    for f in frames:
        assert abs(float(f.image.mean()) - (f.index * 7) % 250) < 4
    assert sorted(p.name for p in (tmp_path / "rec" / "video").iterdir()) == [
        "000000.mkv",
        "000001.mkv",
        "000002.mkv",
    ]
    assert reader.serial_chunks()[0].data == b"D,3,123*ab\n"
    assert reader.inputs()[0].value == {"ball": "9", "pocket": "foot-left"}
    assert reader.config_text().startswith("[table]") and reader.calibration_json() == "{}"
    assert reader.size == SIZE and reader.fps == 60.0 and reader.problems == []


def test_torn_last_line_is_dropped_and_said(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 3)
    frames_file = tmp_path / "rec" / "frames.jsonl"
    with frames_file.open("a") as f:
        f.write('{"index":3,"ti')
    reader = RecordingReader(tmp_path / "rec")
    assert len(reader.frame_times()) == 3
    assert any("torn last line" in p for p in reader.problems)


def test_corrupt_line_in_the_middle_names_file_and_line(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 3)
    frames_file = tmp_path / "rec" / "frames.jsonl"
    lines = frames_file.read_text().splitlines()
    lines[1] = "garbage"
    frames_file.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"frames\.jsonl:2: corrupt line"):
        RecordingReader(tmp_path / "rec").frame_times()


def test_video_shorter_than_its_frame_list_yields_what_exists(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 5)
    with (tmp_path / "rec" / "frames.jsonl").open("a") as f:
        f.write(json.dumps({"index": 5, "time": 11.0, "segment": 0, "position": 5}) + "\n")
    reader = RecordingReader(tmp_path / "rec")
    assert len(list(reader)) == 5
    assert any("video ends after 5 of 6 frames" in p for p in reader.problems)


def test_missing_video_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 5)
    (tmp_path / "rec" / "video" / "000000.mkv").unlink()
    reader = RecordingReader(tmp_path / "rec")
    assert list(reader) == [] and reader.problems


def test_a_missing_middle_segment_is_named_and_the_next_one_still_read(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 5, segment_s=2 / 60)  # segments of 2 frames: 0-1, 2-3, 4
    (tmp_path / "rec" / "video" / "000001.mkv").unlink()
    reader = RecordingReader(tmp_path / "rec")
    assert [f.index for f in reader] == [0, 1, 4]
    assert reader.problems == [f"{tmp_path}/rec/video/000001.mkv: missing: 2 frames have no video"]


def test_not_a_recording_and_unknown_version(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not a recording"):
        RecordingReader(tmp_path)
    _write(tmp_path / "rec", 1)
    meta = tmp_path / "rec" / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "format_version": 99}))
    with pytest.raises(
        RecordError, match=f"format version 99; this railbird reads {FORMAT_VERSION}"
    ):
        RecordingReader(tmp_path / "rec")


def test_refuses_to_overwrite_and_wrong_frame_size(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 1)
    with pytest.raises(RecordError, match="already holds a recording"):
        RecordingWriter.create(tmp_path / "rec", SIZE, 60.0)
    writer = RecordingWriter.create(tmp_path / "other", SIZE, 60.0)
    with pytest.raises(RecordError, match=r"is \(640, 480\), recording is \(320, 240\)"):
        writer.write_frame(Frame(0, 0.0, np.zeros((480, 640, 3), np.uint8)))
    writer.close()


def test_resume_continues_numbering_in_a_new_segment(tmp_path: Path) -> None:
    _write(tmp_path / "rec", 4)
    with RecordingWriter.resume(tmp_path / "rec") as writer:
        for i in range(4, 7):
            writer.write_frame(_frame(i))
    frames = list(RecordingReader(tmp_path / "rec"))
    assert [f.index for f in frames] == list(range(7))
    assert (tmp_path / "rec" / "video" / "000001.mkv").is_file()


@pytest.mark.slow
def test_kill_9_loses_at_most_about_a_second(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        import numpy as np
        from hardware.frames import Frame
        from railbird.recording import RecordingWriter
        w = RecordingWriter.create(sys.argv[1], {SIZE}, 60.0)
        i = 0
        while True:
            w.write_frame(Frame(i, i / 60, np.full(({SIZE[1]}, {SIZE[0]}, 3), i % 250, np.uint8)))
            i += 1
            if i % 30 == 0:
                print(i, flush=True)
            time.sleep(1 / 240)
        """
    )
    root = tmp_path / "rec"
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(root)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    written = 0
    deadline = time.monotonic() + 30
    while written < 300 and time.monotonic() < deadline:
        written = int(proc.stdout.readline() or written)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert written >= 300, "the writer did not get going"
    frames = list(RecordingReader(root))
    assert len(frames) >= written - 60
