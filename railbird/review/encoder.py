"""The review's video writer: raw BGR frames piped to ffmpeg, H.264 in MP4.

OpenCV's writer gives no say over the encoder's speed (its VP8 ran at 3-5 frames/s at 960x540,
so an hour's match took half a day to review) and its wheels have no H.264. The static ffmpeg
that the ``imageio-ffmpeg`` package ships encodes H.264 with libx264 at a fast preset: what
every browser plays (Debian's chromium included), many times faster, and with no need to soften
the picture first. The MP4's index goes at the front (``+faststart``) so a browser can seek
before it has the whole file, and a keyframe every second keeps those seeks quick.
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path
from types import TracebackType
from typing import IO

import numpy as np

from rules.errors import RecordError

log = logging.getLogger(__name__)

SUFFIX = ".mp4"
MIME = "video/mp4"
PRESET = "veryfast"
X264_PARAMS = "me=dia:subme=1"
"""The cheapest motion search on top of the preset: a third less CPU for 0.1 dB and 10% more
bytes on recorded play (veryfast keeps its macroblock tree, which the cloth's steady texture
needs: without it, superfast's files are three times larger)."""
CRF = 20
"""x264's constant quality: 20 keeps the sensor's texture and the thin overlays crisp."""
STDERR_TAIL = 2000
"""How much of ffmpeg's own complaint a RecordError quotes, in characters."""
FINISH_S = 60.0
"""How long closing waits for ffmpeg to flush the last frames and write the index."""
ABORT_S = 5.0


def ffmpeg_exe() -> str:
    """The ffmpeg binary: the one ``imageio-ffmpeg`` ships (or the one ``IMAGEIO_FFMPEG_EXE``
    names).

    Raises:
        RecordError: there is none.
    """
    try:
        import imageio_ffmpeg
    except ImportError as exc:
        raise RecordError("the annotated video needs ffmpeg: pip install imageio-ffmpeg") from exc
    try:
        return imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError as exc:
        raise RecordError(f"no ffmpeg for the annotated video: {exc}") from exc


class VideoFile:
    """An H.264 MP4 written frame by frame through an ffmpeg process.

    Every frame written is one frame of the file, at ``fps``: the count and rate are the
    caller's. Use it as a context manager, or call `close` (finish, raising if ffmpeg failed)
    or `abort` (stop, never raising); either way no ffmpeg process outlives it.

    Args:
        path: The file to write (an MP4 whatever its name).
        fps: Frames per second.
        size: (width, height) of the frames. An odd side is padded by a pixel (H.264's
            4:2:0 colour needs even sides).

    Raises:
        RecordError: (on creation) ffmpeg cannot be found or started.
    """

    def __init__(self, path: Path, fps: float, size: tuple[int, int]) -> None:
        if not fps > 0:
            raise RecordError(f"{path}: a video needs a frame rate above 0, not {fps}")
        width, height = size
        if width < 1 or height < 1:
            raise RecordError(f"{path}: a video needs frames of at least 1x1, not {width}x{height}")
        self.path = path
        self.fps = fps
        self.size = (width, height)
        self.frames = 0
        self._shape = (height, width, 3)
        self._tail = ""
        command = _command(ffmpeg_exe(), path, fps, self.size)
        # ffmpeg's complaints go to a file: a pipe nobody reads until the end could fill and block.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed when reaped
        log.debug("video: %s", " ".join(command))
        try:
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self._stderr
            )
        except OSError as exc:
            self._stderr.close()
            raise RecordError(f"{path}: cannot start ffmpeg ({command[0]}): {exc}") from exc

    @property
    def finished(self) -> bool:
        """The ffmpeg process has ended and been reaped."""
        return self._process.returncode is not None

    def write(self, image: np.ndarray) -> None:
        """Append one frame (BGR, uint8, the video's size).

        Raises:
            RecordError: the frame has another size, or ffmpeg has stopped (its complaint
                quoted); the process is then ended.
        """
        if image.shape != self._shape or image.dtype != np.uint8:
            self.abort()
            raise RecordError(
                f"{self.path}: frame {self.frames} is {_describe(image)}, the video takes "
                f"{self.size[0]}x{self.size[1]} BGR uint8"
            )
        stdin = self._process.stdin
        if stdin is None or stdin.closed:
            raise RecordError(f"{self.path}: the video is already closed")
        try:
            stdin.write(np.ascontiguousarray(image).data)
        except (BrokenPipeError, ValueError) as exc:
            self.abort()
            raise self._failure(f"ffmpeg stopped at frame {self.frames}") from exc
        self.frames += 1

    def close(self) -> None:
        """Finish the file: ffmpeg flushes the last frames and writes the index.

        Raises:
            RecordError: ffmpeg failed (its complaint quoted) or did not finish in time.
        """
        if self.finished:
            return
        try:
            self._end_input()
            self._process.wait(timeout=FINISH_S)
        except subprocess.TimeoutExpired:
            self.abort()
            raise self._failure(f"ffmpeg did not finish within {FINISH_S:.0f} s") from None
        self._reaped()
        code = self._process.returncode
        if code != 0:
            raise self._failure(f"ffmpeg failed (exit status {code})")
        log.debug("video: %s, %d frames", self.path, self.frames)

    def abort(self) -> None:
        """Stop writing: give ffmpeg a moment to finish what it has, else kill it. Never raises."""
        if self.finished:
            return
        try:
            self._end_input()
            self._process.wait(timeout=ABORT_S)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()
        self._reaped()

    def __enter__(self) -> VideoFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def _end_input(self) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.closed:
            # A broken pipe: ffmpeg already stopped, and its exit status and stderr say why.
            with contextlib.suppress(BrokenPipeError):
                stdin.close()

    def _reaped(self) -> None:
        """Keep the end of what ffmpeg said, and let its file go."""
        if self._stderr.closed:
            return
        self._stderr.seek(0)
        self._tail = self._stderr.read().decode("utf-8", "replace").strip()[-STDERR_TAIL:]
        self._stderr.close()

    def _failure(self, what: str) -> RecordError:
        return RecordError(f"{self.path}: {what}" + (f": {self._tail}" if self._tail else ""))


def _command(exe: str, path: Path, fps: float, size: tuple[int, int]) -> list[str]:
    rate = Fraction(fps).limit_denominator(1_000_000)
    gop = max(1, round(fps))
    return [
        exe,
        "-hide_banner",
        "-nostats",
        "-loglevel",
        "error",
        "-y",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "bgr24",
        "-s",
        f"{size[0]}x{size[1]}",
        "-framerate",
        f"{rate.numerator}/{rate.denominator}",
        "-i",
        "pipe:0",
        "-an",
        "-vf",
        "pad=ceil(iw/2)*2:ceil(ih/2)*2",
        "-c:v",
        "libx264",
        "-preset",
        PRESET,
        "-x264-params",
        X264_PARAMS,
        "-crf",
        str(CRF),
        "-g",
        str(gop),
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
        "-f",
        "mp4",
        str(path),
    ]


def _describe(image: np.ndarray) -> str:
    if image.ndim == 3:
        return f"{image.shape[1]}x{image.shape[0]}x{image.shape[2]} {image.dtype}"
    return f"shape {image.shape} {image.dtype}"
