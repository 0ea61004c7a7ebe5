"""The one recording format: raw inputs only, written while watching, safe against a crash.

A recording is a directory::

    meta.json          format version, software version, frame size and rate, video codec
    config.toml        the config the session ran with (verbatim)
    calibration.json   the calibration it ran with (verbatim), when there was one
    video/NNNNNN.mkv   video segments of one second (a kill loses at most the open segment)
    frames.jsonl       one line per frame: index, session time, segment, position in segment
    serial.jsonl       one line per chunk of bytes read from a serial port, with its arrival time
    inputs.jsonl       one line per operator input: time, kind, value
    game.json          the game refereed live: name, players, options (`rules.log.GameLog`)
    log.jsonl          the live referee's log, one entry per line (a shot or an operator input)

Events and rulings are never stored: replay derives them by running the same pipeline, so a
recording stays valid when the pipeline improves. The game log is the one derived record kept,
because it is what the live referee ruled on: `railbird watch --resume` folds it to continue
the match after a crash without running vision over the video again (replay ignores it).

Every line is flushed as it is written and the files are fsynced at least once per second of
session time, so a kill -9 loses at most about the last second. The reader tolerates a torn
last line, a missing video segment and a video shorter than its frame list, and says what it
lost in `problems`; resuming sets a torn last line aside in ``torn.txt`` before appending.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import cv2

from hardware.frames import Frame
from railbird import __version__
from rules.codec import from_jsonable, to_jsonable
from rules.errors import RecordError
from rules.log import Entry, GameLog

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
VIDEO_CODEC = "mp4v"
"""MPEG-4 part 2 in Matroska: encodable by every opencv-python build (no H.264 encoder ships)."""
FSYNC_INTERVAL_S = 1.0


@dataclass(frozen=True, slots=True)
class RecordingMeta:
    """What a reader needs to know before reading anything else.

    Attributes:
        format_version: Version of this format; readers refuse versions they do not know.
        software_version: railbird version that wrote it.
        created_utc: ISO 8601 wall-clock time the recording started (for people, not replay).
        frame_size: (width, height) of the video.
        fps: Nominal frame rate of the source.
        video_codec: FourCC of the video segments.
        segment_frames: Frames per video segment (one second's worth by default: the muxer
            buffers tens of kilobytes, so only closed segments are safe against a kill).
        session_time_at_creation: Session time when ``created_utc`` was read.
    """

    format_version: int
    software_version: str
    created_utc: str
    frame_size: tuple[int, int]
    fps: float
    video_codec: str = VIDEO_CODEC
    segment_frames: int = 60
    session_time_at_creation: float = 0.0


@dataclass(frozen=True, slots=True)
class FrameTime:
    """Where one frame is and when it arrived."""

    index: int
    time: float
    segment: int
    position: int


@dataclass(frozen=True, slots=True)
class SerialChunk:
    """Bytes read from a serial port, as they arrived (hex, so the file stays text)."""

    time: float
    port: str
    data_hex: str

    @property
    def data(self) -> bytes:
        """The raw bytes."""
        return bytes.fromhex(self.data_hex)


@dataclass(frozen=True, slots=True)
class InputEntry:
    """An operator input as recorded: its type name and its JSON value (decoded by the referee)."""

    time: float
    kind: str
    value: dict[str, Any] = field(default_factory=dict)


def _set_aside_torn_line(path: Path) -> None:
    """Move a file's torn last line (a crash cut it short) to ``torn.txt`` beside it, so that
    appended lines stay whole and the file stays readable; its bytes are kept there."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    cut = data.rfind(b"\n") + 1
    with (path.parent / "torn.txt").open("ab") as aside:
        aside.write(path.name.encode() + b": " + data[cut:] + b"\n")
        aside.flush()
        os.fsync(aside.fileno())
    with path.open("rb+") as f:
        f.truncate(cut)
        f.flush()
        os.fsync(f.fileno())
    log.warning("%s: torn last line set aside in torn.txt", path)


def _segment_path(root: Path, segment: int) -> Path:
    return root / "video" / f"{segment:06d}.mkv"


class _JsonLines:
    """An append-only JSON Lines file, flushed per line and fsynced on a session-time cadence."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] = path.open("a", encoding="utf-8")
        self._synced_at: float | None = None

    def append(self, value: Any, time: float) -> None:
        self._file.write(json.dumps(to_jsonable(value), separators=(",", ":")) + "\n")
        self._file.flush()
        if self._synced_at is None or time - self._synced_at >= FSYNC_INTERVAL_S:
            os.fsync(self._file.fileno())
            self._synced_at = time

    def close(self) -> None:
        if not self._file.closed:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()


class RecordingWriter:
    """Writes a recording while the monitor watches.

    Create one with `RecordingWriter.create` for a new recording, or `RecordingWriter.resume` to
    append to an existing one (after a crash). Call `close` at the end; a crash without it loses
    at most about the last second.
    """

    def __init__(self, root: Path, meta: RecordingMeta, next_index: int) -> None:
        self.root = root
        self.meta = meta
        self._next_index = next_index
        self._frames = _JsonLines(root / "frames.jsonl")
        self._serial = _JsonLines(root / "serial.jsonl")
        self._inputs = _JsonLines(root / "inputs.jsonl")
        self._log = _JsonLines(root / "log.jsonl")
        self._game: GameLog | None = None
        self._entries_written = 0
        self._video: cv2.VideoWriter | None = None
        self._segment = -1
        self._position = 0

    @classmethod
    def create(
        cls,
        root: str | Path,
        frame_size: tuple[int, int],
        fps: float,
        config_text: str = "",
        calibration_json: str | None = None,
        created_utc: str = "",
        segment_s: float = 1.0,
        session_time: float = 0.0,
    ) -> RecordingWriter:
        """Start a new recording in ``root`` (created; must not already hold one).

        Raises:
            RecordError: ``root`` already holds a recording or cannot be written.
        """
        root = Path(root)
        if (root / "meta.json").exists():
            raise RecordError(f"{root}: already holds a recording; resume it or pick a new folder")
        meta = RecordingMeta(
            FORMAT_VERSION,
            __version__,
            created_utc,
            frame_size,
            fps,
            segment_frames=max(1, round(fps * segment_s)),
            session_time_at_creation=session_time,
        )
        try:
            (root / "video").mkdir(parents=True, exist_ok=True)
            (root / "config.toml").write_text(config_text, encoding="utf-8")
            if calibration_json is not None:
                (root / "calibration.json").write_text(calibration_json, encoding="utf-8")
            (root / "meta.json").write_text(json.dumps(to_jsonable(meta), indent=2) + "\n")
        except OSError as exc:
            raise RecordError(f"{root}: cannot create a recording: {exc}") from exc
        return cls(root, meta, next_index=0)

    @classmethod
    def resume(cls, root: str | Path) -> RecordingWriter:
        """Append to an existing recording, continuing its frame numbers in a new segment.

        A torn last line (the crash cut it short) is set aside in ``torn.txt`` first, so the
        next line stays whole; nothing whole that was written is changed.

        Raises:
            RecordError: ``root`` is not a readable recording.
        """
        reader = RecordingReader(root)
        times = reader.frame_times()
        root = Path(root)
        for name in ("frames.jsonl", "serial.jsonl", "inputs.jsonl", "log.jsonl"):
            _set_aside_torn_line(root / name)
        writer = cls(root, reader.meta, next_index=times[-1].index + 1 if times else 0)
        writer._game = reader.game()
        writer._entries_written = len(reader.log_entries())
        segments = [int(p.stem) for p in (root / "video").glob("*.mkv") if p.stem.isdigit()]
        writer._segment = max([t.segment for t in times] + segments, default=-1)
        writer._position = writer.meta.segment_frames  # never append to a torn segment
        return writer

    def write_frame(self, frame: Frame) -> None:
        """Append one frame (its image to the video, its time to frames.jsonl).

        Raises:
            RecordError: the frame's size is not the recording's, or the video cannot be written.
        """
        if frame.size != tuple(self.meta.frame_size):
            raise RecordError(
                f"{self.root}: frame {frame.index} is {frame.size}, recording is "
                f"{tuple(self.meta.frame_size)}"
            )
        if self._video is None or self._position >= self.meta.segment_frames:
            self._open_segment()
        assert self._video is not None
        self._video.write(frame.image)
        entry = FrameTime(self._next_index, frame.time, self._segment, self._position)
        self._frames.append(entry, frame.time)
        self._next_index += 1
        self._position += 1

    def write_serial(self, time: float, port: str, data: bytes) -> None:
        """Append bytes read from a serial port."""
        self._serial.append(SerialChunk(time, port, data.hex()), time)

    def write_input(self, time: float, kind: str, value: dict[str, Any]) -> None:
        """Append an operator input (its JSON value, as made by `rules.codec.to_jsonable`)."""
        self._inputs.append(InputEntry(time, kind, value), time)

    def write_game(self, log: GameLog) -> None:
        """Keep the live referee's log: the game (once) and every entry not written yet.

        Call it after each entry the referee accepts; a resumed recording checks the game is
        the one it holds.

        Raises:
            RecordError: the recording holds another game, or ``log`` has fewer entries than
                were already written (it is not the same log).
        """
        game = GameLog(log.game, log.players, log.options, match=log.match)
        if self._game is None:
            path = self.root / "game.json"
            try:
                path.write_text(json.dumps(to_jsonable(game), indent=2) + "\n", encoding="utf-8")
            except OSError as exc:
                raise RecordError(f"{path}: cannot write: {exc}") from exc
            self._game = game
        elif self._game != game:
            held, given = self._game, game
            raise RecordError(
                f"{self.root}: holds a game of {held.game} between {', '.join(held.players)}, "
                f"not {given.game} between {', '.join(given.players)}"
            )
        if len(log.entries) < self._entries_written:
            raise RecordError(
                f"{self.root}: log.jsonl holds {self._entries_written} entries, the referee's "
                f"log only {len(log.entries)}"
            )
        for entry in log.entries[self._entries_written :]:
            self._log.append(entry, entry.time)
            self._entries_written += 1

    def close(self) -> None:
        """Finish the video segment and sync every file; idempotent."""
        if self._video is not None:
            self._video.release()
            self._video = None
        for lines in (self._frames, self._serial, self._inputs, self._log):
            lines.close()

    def _open_segment(self) -> None:
        if self._video is not None:
            self._video.release()
        self._segment += 1
        self._position = 0
        path = _segment_path(self.root, self._segment)
        fourcc = cv2.VideoWriter_fourcc(*self.meta.video_codec)
        self._video = cv2.VideoWriter(str(path), fourcc, self.meta.fps, tuple(self.meta.frame_size))
        if not self._video.isOpened():
            raise RecordError(f"{path}: cannot open a {self.meta.video_codec} video for writing")

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RecordingReader:
    """Reads a recording back; also a `FrameSource` for replay.

    Raises:
        RecordError: (on creation) the folder or its meta.json is missing, unreadable, or of a
            format version this railbird does not know.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.problems: list[str] = []
        meta_path = self.root / "meta.json"
        if not meta_path.is_file():
            raise RecordError(f"{self.root}: not a recording (no meta.json)")
        try:
            data = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise RecordError(f"{meta_path}: unreadable: {exc}") from exc
        version = data.get("format_version") if isinstance(data, dict) else None
        if version != FORMAT_VERSION:
            raise RecordError(
                f"{meta_path}: format version {version!r}; this railbird reads {FORMAT_VERSION}"
            )
        self.meta = from_jsonable(RecordingMeta, data, where=str(meta_path))

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames."""
        return tuple(self.meta.frame_size)  # type: ignore[return-value]

    @property
    def fps(self) -> float:
        """Nominal frame rate."""
        return self.meta.fps

    def config_text(self) -> str:
        """The config the session ran with."""
        return self._text("config.toml") or ""

    def calibration_json(self) -> str | None:
        """The calibration the session ran with, if any."""
        return self._text("calibration.json")

    def frame_times(self) -> list[FrameTime]:
        """Every recorded frame time."""
        return self._read_lines("frames.jsonl", FrameTime)

    def serial_chunks(self) -> list[SerialChunk]:
        """Every recorded chunk of serial bytes."""
        return self._read_lines("serial.jsonl", SerialChunk)

    def inputs(self) -> list[InputEntry]:
        """Every recorded operator input."""
        return self._read_lines("inputs.jsonl", InputEntry)

    def game(self) -> GameLog | None:
        """The game refereed live (without its entries), None when none was recorded.

        Raises:
            RecordError: game.json is unreadable or not a game.
        """
        path = self.root / "game.json"
        text = self._text("game.json")
        if text is None:
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"{path}: not JSON: {exc}") from exc
        return from_jsonable(GameLog, data, where=str(path))

    def log_entries(self) -> list[Entry]:
        """The live referee's log entries, in order."""
        return self._read_lines("log.jsonl", Entry)

    def game_log(self) -> GameLog | None:
        """The live referee's whole log (game and entries), None when none was recorded.

        Raises:
            RecordError: a file is unreadable, or the entries are not numbered 0, 1, 2...
        """
        game = self.game()
        if game is None:
            return None
        entries = tuple(self.log_entries())
        try:
            return GameLog(game.game, game.players, game.options, entries, game.match)
        except ValueError as exc:
            raise RecordError(f"{self.root / 'log.jsonl'}: {exc}") from exc

    def __iter__(self) -> Iterator[Frame]:
        """Frames with their recorded times; stops (and says so) where the video runs out."""
        by_segment: dict[int, list[FrameTime]] = {}
        for t in self.frame_times():
            by_segment.setdefault(t.segment, []).append(t)
        for segment in sorted(by_segment):
            yield from self._segment_frames(segment, by_segment[segment])

    def close(self) -> None:
        """Nothing stays open between reads; present for the FrameSource protocol."""

    def _segment_frames(self, segment: int, times: list[FrameTime]) -> Iterator[Frame]:
        path = _segment_path(self.root, segment)
        if not path.is_file():
            self._lost(f"{path}: missing: {len(times)} frames have no video")
            return
        capture = cv2.VideoCapture(str(path))
        try:
            for position, t in enumerate(sorted(times, key=lambda t: t.position)):
                ok, image = capture.read()
                if not ok:
                    self._lost(f"{path}: video ends after {position} of {len(times)} frames")
                    return
                yield Frame(t.index, t.time, image)
        finally:
            capture.release()

    def _text(self, name: str) -> str | None:
        path = self.root / name
        try:
            return path.read_text(encoding="utf-8") if path.is_file() else None
        except (OSError, UnicodeDecodeError) as exc:
            raise RecordError(f"{path}: unreadable: {exc}") from exc

    def _read_lines(self, name: str, tp: type) -> list:
        path = self.root / name
        if not path.is_file():
            return []
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        torn_tail = lines[-1] != ""  # a crash can cut the last line short
        values = []
        for number, line in enumerate(lines[:-1] if not torn_tail else lines, start=1):
            if not line:
                continue
            try:
                values.append(from_jsonable(tp, json.loads(line), where=f"{path}:{number}"))
            except (json.JSONDecodeError, RecordError) as exc:
                if torn_tail and number == len(lines):
                    self._lost(f"{path}:{number}: torn last line dropped")
                else:
                    raise RecordError(f"{path}:{number}: corrupt line: {exc}") from exc
        return values

    def _lost(self, problem: str) -> None:
        log.warning("%s", problem)
        self.problems.append(problem)
