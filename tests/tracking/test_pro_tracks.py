"""The reader of the real pro 9-ball tracks, and those tracks fed through the pipeline."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from calibration.table import TableSpec
from rules.balls import BallId
from rules.errors import RailbirdError
from tracking.pro_tracks import (
    TrackFileError,
    detections_of,
    fit_frame,
    iter_shots,
    read_attributes,
    read_track,
)

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "real" / "pro-9ball-trajectories"
if not DATA.exists():
    DATA = Path("/work/shared/data/real/pro-9ball-trajectories")
TABLE = TableSpec.standard("9ft")

_TRACK = """<?xml version="1.0"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"
 xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
 <Worksheet ss:Name="t"><Table>
  <Row><Cell><Data ss:Type="String">Track</Data></Cell></Row>
  <Row><Cell><Data ss:Type="String">x</Data></Cell><Cell><Data ss:Type="String">y</Data></Cell>
   <Cell><Data ss:Type="String">t</Data></Cell></Row>
  {rows}
 </Table></Worksheet></Workbook>"""


def _row(*cells: str) -> str:
    inner = "".join(f'<Cell><Data ss:Type="String">{c}</Data></Cell>' for c in cells)
    return f"<Row>{inner}</Row>"


def test_reads_a_kinovea_track_with_hour_and_minute_times(tmp_path: Path) -> None:
    path = tmp_path / "object 7.xml"
    rows = _row("10.5", "20.25", "3:12.76") + _row("11", "21", "1:03:12.79")
    path.write_text(_TRACK.format(rows=rows), encoding="utf-8")
    track = read_track(path)
    assert track.ball is BallId.SEVEN
    assert track.xy.tolist() == [[10.5, 20.25], [11.0, 21.0]]
    assert track.times.tolist() == pytest.approx([192.76, 3792.79])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not xml at all", "cannot read the track"),
        (
            _TRACK.replace('<Cell><Data ss:Type="String">x</Data></Cell>', "").format(rows=""),
            "no 'x y t' header",
        ),
        (_TRACK.format(rows=_row("1", "2", "soon")), "row 3: time 'soon'"),
        (_TRACK.format(rows=_row("a", "2", "0:01.00")), "row 3: position"),
        (_TRACK.format(rows=""), "no samples"),
    ],
)
def test_a_bad_track_file_says_what_and_where(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "cue ball.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TrackFileError, match=message) as info:
        read_track(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, RailbirdError)


def test_reads_attributes_from_an_xlsx(tmp_path: Path) -> None:
    path = tmp_path / "attribute.xlsx"
    ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    strings = (
        f'<sst xmlns="{ns}"><si><t>cushion</t></si><si><t>view</t></si><si><t>V</t></si></sst>'
    )
    sheet = (
        f'<worksheet xmlns="{ns}"><sheetData>'
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>3</v></c></row>'
        '<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2" t="s"><v>2</v></c></row>'
        "</sheetData></worksheet>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("xl/sharedStrings.xml", strings)
        z.writestr("xl/worksheets/sheet1.xml", sheet)
    assert read_attributes(path) == {"cushion": "3", "view": "V"}


def test_garbage_bytes_as_attributes_are_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "attribute.xlsx"
    path.write_bytes(b"\x00\x01garbage")
    with pytest.raises(TrackFileError, match=r"attribute\.xlsx: cannot read"):
        read_attributes(path)


needs_data = pytest.mark.skipif(not DATA.exists(), reason="real pro-9ball data absent")


@needs_data
def test_the_real_tracks_fit_a_9ft_table_at_about_14_mm_per_unit() -> None:
    match = sorted(DATA.iterdir())[0]
    shots = list(iter_shots(match))
    assert len(shots) > 50
    frame = fit_frame(shots, TABLE)
    assert 12.5 < frame.scale_across < 15.5
    assert 12.5 < frame.scale_along < 15.5
    assert abs(frame.x_centre - 50) < 5 and abs(frame.y_centre - 97.5) < 8
    detections = detections_of(shots[0], frame)
    pts = np.concatenate([d.positions for d in detections])
    assert np.all(np.abs(pts[:, 0]) < TABLE.length / 2 + 150)
    assert np.all(np.abs(pts[:, 1]) < TABLE.width / 2 + 150)
