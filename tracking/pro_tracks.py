"""Reader for real ball tracks from professional 9-ball matches, fed in as Detections.

The data set ("Billiards Sports Analytics", Zhang et al., arXiv 2407.19686; see
`../shared/data/README.md`, internal testing only) holds, per match, ``trajectory/round N/object
K/<ball>.xml``: one Kinovea "Track" export per ball per shot in Excel-2003 XML (rows x, y, t after a
``x y t`` header; t as ``m:ss.cc`` or ``h:mm:ss.cc`` of the broadcast video), and an
``attribute.xlsx`` per shot (game, player, view, cushion, intersection distance, stick top
position, angle).

What the data itself says about its frame (worked out from the tracks, not documented):

- x runs across the table (0 to about 100), y along it (0 to about 195); the origin is near a
  corner pocket. Cue balls bounce off the long cushions at x ~ 6.7 and ~ 93.4 and off the end
  cushions at y ~ 5-13 and ~ 188: the ball-centre box is about 87 x 180 units.
- The units are labelled cm but are not: 87 units must span a 9 ft table's 1213 mm ball-centre
  width, so one unit is about 14 mm (the Kinovea calibration rectangle was set to 100 x 200 on
  something wider than the cushion noses). Samples come every 0.03-0.04 s (29.97 Hz, times rounded
  to 0.01 s); only the balls of interest are tracked (the cue ball and the target ball, mostly).

`fit_frame` estimates the mapping per match from the cushion rebounds in its tracks (scale from
the well-measured long-cushion rebounds, centre from both ends), and `detections_of` turns one shot
into Detections on that frame: x_table along the table, y_table across it.
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.table import TableSpec
from rules.balls import BallId
from rules.errors import RecordError
from vision.detections import Detections, one_hot

log = logging.getLogger(__name__)

_SS = "{urn:schemas-microsoft-com:office:spreadsheet}"
_XLSX = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


class TrackFileError(RecordError):
    """A trajectory or attribute file cannot be read; the message names the file and row."""


@dataclass(frozen=True, slots=True, eq=False)
class BallTrack:
    """One ball's samples in one shot, in the data set's own units.

    Attributes:
        ball: Which ball.
        times: (n,) seconds of the broadcast video.
        xy: (n, 2) positions in data units (see the module docstring).
    """

    ball: BallId
    times: np.ndarray
    xy: np.ndarray


@dataclass(frozen=True, slots=True)
class ProShot:
    """One shot of a match: the tracks of its balls and its labels."""

    match: str
    round: int
    target: str
    tracks: tuple[BallTrack, ...]
    attributes: dict

    @property
    def cushions(self) -> int | None:
        """The labelled cushion count, if the shot has one."""
        value = self.attributes.get("cushion")
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return None


def _ball_of(path: Path) -> BallId:
    name = path.stem.lower()
    if name.startswith("cue"):
        return BallId.CUE
    digits = re.findall(r"\d+", name)
    if not digits:
        raise TrackFileError(f"{path}: cannot tell which ball the file name {path.name!r} means")
    return BallId.numbered(int(digits[-1]))


def _seconds(text: str, where: str) -> float:
    try:
        value = 0.0
        for part in text.strip().split(":"):
            value = value * 60 + float(part)
        return value
    except ValueError:
        raise TrackFileError(f"{where}: time {text!r} is not m:ss.cc") from None


def read_track(path: Path) -> BallTrack:
    """Read one Kinovea track export (Excel-2003 XML).

    Raises:
        TrackFileError: the file is missing, not XML, has no ``x y t`` header, or a bad row.
    """
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise TrackFileError(f"{path}: cannot read the track: {exc}") from None
    rows = [
        ["".join("".join(d.itertext()) for d in cell.iter(_SS + "Data")) for cell in row]
        for row in root.iter(_SS + "Row")
    ]
    header = next((i for i, r in enumerate(rows) if r[:3] == ["x", "y", "t"]), None)
    if header is None:
        raise TrackFileError(f"{path}: no 'x y t' header row: not a Kinovea track export")
    samples = []
    for i, r in enumerate(rows[header + 1 :], start=header + 2):
        if len(r) < 3 or not r[0]:
            continue
        where = f"{path} row {i}"
        try:
            x, y = float(r[0]), float(r[1])
        except ValueError:
            raise TrackFileError(f"{where}: position {r[:2]} is not two numbers") from None
        samples.append((_seconds(r[2], where), x, y))
    if not samples:
        raise TrackFileError(f"{path}: the track has no samples")
    a = np.array(samples)
    return BallTrack(_ball_of(path), a[:, 0], a[:, 1:])


def read_attributes(path: Path) -> dict:
    """The first sheet of an ``attribute.xlsx`` as {column A: column B}.

    Raises:
        TrackFileError: the file is missing or not an xlsx workbook.
    """
    try:
        with zipfile.ZipFile(path) as z:
            shared = []
            if "xl/sharedStrings.xml" in z.namelist():
                sroot = ET.fromstring(z.read("xl/sharedStrings.xml"))
                shared = [
                    "".join(t.text or "" for t in si.iter(_XLSX + "t"))
                    for si in sroot.iter(_XLSX + "si")
                ]
            sheet = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
    except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError) as exc:
        raise TrackFileError(f"{path}: cannot read the attributes: {exc}") from None
    out: dict = {}
    for row in sheet.iter(_XLSX + "row"):
        cells = {}
        for c in row.iter(_XLSX + "c"):
            v = c.find(_XLSX + "v")
            if v is None or v.text is None:
                continue
            text = shared[int(v.text)] if c.get("t") == "s" else v.text
            cells[re.sub(r"\d", "", c.get("r", ""))] = text
        if "A" in cells and "B" in cells:
            out[cells["A"].strip()] = cells["B"].strip()
    return out


def iter_shots(root: Path) -> Iterator[ProShot]:
    """Every shot under ``root`` (a match folder, or the folder of matches), in path order.

    Shots whose files cannot be read are logged and skipped; nothing else is lost.
    """
    for shot_dir in sorted({p.parent for p in Path(root).rglob("*.xml")}):
        try:
            tracks = tuple(read_track(p) for p in sorted(shot_dir.glob("*.xml")))
            attr_path = shot_dir / "attribute.xlsx"
            attributes = read_attributes(attr_path) if attr_path.exists() else {}
        except TrackFileError as exc:
            log.warning("skipping shot %s: %s", shot_dir, exc)
            continue
        match = shot_dir.parents[2].name  # <match>/trajectory/round N/object K
        round_no = int(re.findall(r"\d+", shot_dir.parent.name)[0])
        yield ProShot(match, round_no, shot_dir.name, tracks, attributes)


@dataclass(frozen=True, slots=True)
class DataFrame:
    """Mapping of data units onto the table frame (mm).

    table x = (y - y_centre) * scale_along, table y = (x - x_centre) * scale_across.
    """

    scale_across: float
    scale_along: float
    x_centre: float
    y_centre: float

    def to_table(self, xy: np.ndarray) -> np.ndarray:
        """(n, 2) data units -> (n, 2) table mm."""
        return np.column_stack(
            (
                (xy[:, 1] - self.y_centre) * self.scale_along,
                (xy[:, 0] - self.x_centre) * self.scale_across,
            )
        )


def _rebounds(values: np.ndarray, speed_min: float = 0.8) -> list[float]:
    out = []
    for i in range(2, len(values) - 2):
        before = (values[i] - values[i - 2]) / 2
        after = (values[i + 2] - values[i]) / 2
        turn = (values[i] - values[i - 1]) * (values[i + 1] - values[i]) <= 0
        if before * after < 0 and min(abs(before), abs(after)) > speed_min and turn:
            out.append(float(values[i]))
    return out


def fit_frame(shots: list[ProShot], table: TableSpec) -> DataFrame:
    """Estimate the data -> table mapping from where balls rebound off the cushions.

    Each edge is placed at the outer quartile of the rebounds near it; each axis gets its own
    scale from the ball-centre box of the table (cushion noses less one ball diameter).
    """
    xs: list[float] = []
    ys: list[float] = []
    for shot in shots:
        for track in shot.tracks:
            xs += _rebounds(track.xy[:, 0])
            ys += _rebounds(track.xy[:, 1])
    xa, ya = np.array(xs), np.array(ys)
    if len(xa) < 4 or len(ya) < 4:
        raise TrackFileError("too few cushion rebounds in these tracks to fit their frame")
    # The data's calibration rectangle is nominally 100 x 200: keep rebounds near each edge.
    # Rebounds off a ball happen inside the table, so the cushion is the outer part of each
    # cluster: the lower quartile at the low edge, the upper quartile at the high edge.
    x_lo, x_hi = _edge(xa[xa < 20], 25), _edge(xa[xa > 80], 75)
    y_lo, y_hi = _edge(ya[ya < 30], 25), _edge(ya[ya > 170], 75)
    scale_across = (table.width - table.ball_diameter) / (x_hi - x_lo)
    scale_along = (table.length - table.ball_diameter) / (y_hi - y_lo)
    log.info("track frame: %.2f mm/unit across, %.2f along", scale_across, scale_along)
    return DataFrame(scale_across, scale_along, 0.5 * (x_lo + x_hi), 0.5 * (y_lo + y_hi))


def _edge(values: np.ndarray, q: float) -> float:
    if len(values) < 2:
        raise TrackFileError("too few cushion rebounds at one edge to fit the track frame")
    return float(np.percentile(values, q))


def detections_of(
    shot: ProShot,
    frame: DataFrame,
    sigma_mm: float = 8.0,
    p_id: float = 0.95,
    lead_in: float = 0.5,
) -> list[Detections]:
    """One shot as Detections at the data's own sample times.

    Each ball's first sample is repeated ``lead_in`` seconds earlier so the tracker sees it at
    rest before the shot; balls whose tracks start later are held at their first sample until
    then (the data only tracks a ball while it matters), and after their last sample at the last.
    """
    times = np.unique(np.concatenate([t.times for t in shot.tracks]))
    start = times[0] - lead_in
    step = float(np.median(np.diff(times))) if len(times) > 1 else 1 / 30
    lead = np.arange(start, times[0] - step / 2, step)
    all_times = np.concatenate([lead, times])
    out = []
    balls = [t.ball for t in shot.tracks]
    for k, t in enumerate(all_times):
        pts = []
        for track in shot.tracks:
            i = int(np.clip(np.searchsorted(track.times, t + 1e-6) - 1, 0, len(track.times) - 1))
            pts.append(track.xy[i])
        table_pts = frame.to_table(np.array(pts))
        out.append(
            Detections.of(
                k, float(t - start), table_pts, sigma=sigma_mm, identity=one_hot(balls, p_id)
            )
        )
    return out
