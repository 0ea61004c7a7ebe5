"""The HTML match report and the shots CSV, from hand-made judged shots."""

from __future__ import annotations

import csv
from html.parser import HTMLParser
from pathlib import Path

import pytest

from railbird.review.export import CSV_COLUMNS, write_shots_csv
from railbird.review.model import VideoClock, VideoGap
from railbird.review.report import SEEK_LEAD_S, MatchReport, render_report, write_report
from railbird.review.stats import player_stats
from rules.errors import RecordError
from rules.shot import DoubleHitEvidence
from rules.table import PocketId
from tests.factories import ShotBuilder, break_shot, shot_at
from tests.railbird.review.matches import frame_times, reviewed

PLAYERS = ("Ann <b>&", "Bob")


class _Page(HTMLParser):
    """Rows of the report's tables, the seek links and every tag seen."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def rows(self, cls: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == "tr" and cls in (a.get("class") or "").split()]


def _report(tmp_path: Path, **kw) -> MatchReport:
    evidence = DoubleHitEvidence("1", gap_at_strike_mm=2.0, travel_after_contact_mm=40.0)
    shots = [
        break_shot(0, pocket=(("2", PocketId.FOOT_LEFT),)),
        shot_at("1", index=1, pocket=PocketId.SIDE_LEFT),
        # Nothing reaches a cushion (a foul, 5.9), and the contact is a possible double hit.
        ShotBuilder(index=2).strike(t=5.0).hit("3", t=5.2).build(end_time=6.0, double_hit=evidence),
    ]
    reviewed_shots = reviewed(tmp_path / "replay", shots)
    reviewed_shots = [
        s.__class__(**{**_fields(s), "shooter": PLAYERS[0] if s.shooter == "Ann" else "Bob"})
        for s in reviewed_shots
    ]
    defaults = dict(
        title="final <script>alert(1)</script>",
        game="9-ball",
        players=PLAYERS,
        result="the last rack is unfinished in the recording",
        racks=1,
        shots=reviewed_shots,
        stats=player_stats(reviewed_shots, PLAYERS),
        video="annotated.mp4",
        clock=VideoClock(frame_times(100), 10.0, 0, 100),
        diagrams={1: "diagrams/shot-001.png"},
    )
    defaults.update(kw)
    return MatchReport(**defaults)


def _fields(value) -> dict:
    return {name: getattr(value, name) for name in value.__slots__}


def test_every_shot_is_listed_with_its_call_rule_and_a_seek_link(tmp_path: Path) -> None:
    report = _report(tmp_path)
    page = _Page()
    page.feed(render_report(report))
    rows = page.rows("shot")
    assert [r["data-shot"] for r in rows] == ["1", "2", "3"]
    links = [a for t, a in page.tags if t == "a" and a.get("class") == "seek"]
    times = {a["data-shot"]: float(a["data-time"] or "nan") for a in links}
    expected = report.clock.video_time(5.0) - SEEK_LEAD_S
    assert times["3"] == pytest.approx(expected) and times["1"] == 0.0
    assert ("video", {"id": "match-video", "controls": None, "preload": "auto"}) in page.tags
    assert ("source", {"src": "annotated.mp4", "type": "video/mp4"}) in page.tags
    assert [r["class"] for r in rows] == ["shot ", "shot ", "shot foul flagged"]
    calls = [t for t in page.text if t.startswith(("legal", "foul"))]
    assert calls[-3:] == ["legal", "legal", "foul: no-cushion (rule 5.9)"]


def test_flagged_shots_come_first(tmp_path: Path) -> None:
    html = render_report(_report(tmp_path))
    assert html.index('id="flagged"') < html.index('id="stats"') < html.index('id="timeline"')
    page = _Page()
    page.feed(html[html.index('id="flagged"') : html.index('id="stats"')])
    assert page.text[page.text.index("Video") + 1 :][:3] == [
        "3",
        "double-hit",
        "foul: no-cushion (rule 5.9)",
    ]


def test_all_text_is_escaped(tmp_path: Path) -> None:
    html = render_report(_report(tmp_path))
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Ann <b>&" not in html and "Ann &lt;b&gt;&amp;" in html


def test_gaps_are_stated_and_no_video_means_no_links(tmp_path: Path) -> None:
    gap = VideoGap(20, 39, 2.0, 3.9)
    html = render_report(
        _report(tmp_path, gaps=[gap], problems=["serial.jsonl:3: torn"], video=None, clock=None)
    )
    assert "The recording is incomplete" in html and "no video for frames 20-39" in html
    assert "serial.jsonl:3: torn" in html
    assert 'class="seek"' not in html and "No annotated video was made" in html


def test_write_report_and_unwritable_folder(tmp_path: Path) -> None:
    report = _report(tmp_path)
    assert write_report(report, tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(RecordError, match="cannot write the report"):
        write_report(report, tmp_path / "nope" / "r.html")


def test_shots_csv(tmp_path: Path) -> None:
    report = _report(tmp_path)
    path = write_shots_csv(report.shots, report.clock, tmp_path / "shots.csv")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["shot"] for r in rows] == ["1", "2", "3"]
    assert rows[0]["pocketed"] == "2" and rows[0]["call"] == "legal"
    assert rows[2]["flags"] == "double-hit" and rows[2]["rule"] == "5.9"
    assert rows[2]["video_time"] == "5.000"
    with pytest.raises(RecordError, match="cannot write the shots CSV"):
        write_shots_csv(report.shots, None, tmp_path / "nope" / "shots.csv")


def test_a_split_hit_says_which_balls_in_the_flagged_list(tmp_path: Path) -> None:
    split = (
        ShotBuilder(index=1).strike(t=3.0).hit("1", t=3.2, uncertainty=0.01).hit("3", t=3.205)
    ).build(end_time=4.0)
    shots = reviewed(tmp_path, [break_shot(0, pocket=(("2", PocketId.FOOT_LEFT),)), split])
    html = render_report(_report(tmp_path, shots=shots, stats=player_stats(shots, PLAYERS)))
    flagged = html[html.index('id="flagged"') : html.index('id="stats"')]
    assert "split hit: the cue ball met the 1 and 3 too close together to separate" in flagged
    assert 'data-shot="2"' in flagged and 'data-shot="1"' not in flagged


def test_a_recording_without_shots_still_makes_a_report(tmp_path: Path) -> None:
    html = render_report(_report(tmp_path, shots=[], stats=player_stats([], PLAYERS)))
    page = _Page()
    page.feed(html)
    assert page.rows("shot") == [] and "No shot is flagged." in html
    assert "0 (0 fouls)" in html
