"""The match report: one HTML file a person opens in a browser, its diagrams beside it.

Players, result and racks; what the recording lost; the shots flagged for review first; each
player's statistics; then every shot with its call (and rule number for a foul), its diagram and
a link that seeks the annotated video to it. All text is escaped: player names and reasons come
from outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from railbird.review.annotate import SlowMotion
from railbird.review.encoder import MIME as VIDEO_MIME
from railbird.review.model import ReviewShot, VideoClock, VideoGap
from railbird.review.stats import PlayerStats
from rules.errors import RecordError

SEEK_LEAD_S = 1.0
"""A link starts the video this long before the strike, so the shooter's stroke is seen."""


@dataclass(frozen=True, slots=True)
class MatchReport:
    """Everything the report shows.

    Attributes:
        title: What was reviewed (the recording's name).
        game: The game played.
        players: The two players.
        result: The result in words.
        racks: Racks played (begun) in the reviewed part.
        shots: The reviewed shots.
        stats: Per-player statistics over the reviewed shots.
        gaps: Recorded frames the video lacked.
        problems: Everything else the recording lost.
        video: The annotated video's file name (beside the report), or None.
        clock: Maps shot times to video times, with the video.
        diagrams: Shot number to its diagram's file name.
        slow_motion: Slow-motion excerpts of flagged shots.
        shot_range: The part of the match reviewed, e.g. "shots 12-18"; "" for all of it.
    """

    title: str
    game: str
    players: tuple[str, ...]
    result: str
    racks: int
    shots: list[ReviewShot]
    stats: tuple[PlayerStats, ...]
    gaps: list[VideoGap] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    video: str | None = None
    clock: VideoClock | None = None
    diagrams: dict[int, str] = field(default_factory=dict)
    slow_motion: list[SlowMotion] = field(default_factory=list)
    shot_range: str = ""

    def seek_time(self, review: ReviewShot) -> float | None:
        """Where a link to ``review`` puts the annotated video, in seconds; None: no video."""
        if self.clock is None or self.video is None:
            return None
        return max(0.0, self.clock.video_time(review.shot.strike_time) - SEEK_LEAD_S)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; }
tr.foul td.call { color: #a00; font-weight: bold; }
tr.flagged { background: #fff6d5; }
.gap { background: #fde2e2; border: 1px solid #d88; padding: 0.5em 1em; margin: 1em 0; }
video { width: 100%; max-width: 960px; background: #000; display: block; }
img.diagram { width: 320px; }
.flag { background: #f0c040; border-radius: 3px; padding: 0 0.3em; margin-right: 0.2em; }
"""

_SCRIPT = """
document.querySelectorAll('a.seek').forEach(function (link) {
  link.addEventListener('click', function (event) {
    var video = document.getElementById('match-video');
    if (!video) { return; }
    event.preventDefault();
    video.currentTime = parseFloat(link.dataset.time);
    video.scrollIntoView({block: 'start'});
  });
});
"""


def render_report(report: MatchReport) -> str:
    """The report as one HTML document."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Match review: {escape(report.title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>Match review: {escape(report.title)}</h1>",
        _summary(report),
        _gaps(report),
        _video(report),
        _flagged(report),
        _stats(report),
        _timeline(report),
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


def write_report(report: MatchReport, path: Path) -> Path:
    """Write the report.

    Raises:
        RecordError: it cannot be written.
    """
    try:
        path.write_text(render_report(report), encoding="utf-8")
    except OSError as exc:
        raise RecordError(f"{path}: cannot write the report: {exc}") from exc
    return path


def _summary(report: MatchReport) -> str:
    fouls = sum(1 for s in report.shots if s.ruling is not None and s.ruling.foul is not None)
    rows = [
        ("Game", report.game),
        ("Players", " vs ".join(report.players)),
        ("Result", report.result),
        ("Racks", str(report.racks)),
        ("Shots", f"{len(report.shots)} ({fouls} fouls)"),
    ]
    if report.shot_range:
        rows.append(("Reviewed", report.shot_range))
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f'<table id="summary">{cells}</table>'


def _gaps(report: MatchReport) -> str:
    if not report.gaps and not report.problems:
        return ""
    items = [f"<li>{escape(g.describe())}</li>" for g in report.gaps]
    items += [f"<li>{escape(p)}</li>" for p in report.problems]
    return (
        '<div class="gap" id="gaps"><strong>The recording is incomplete.</strong> '
        "This report says what can be known from what remains.<ul>" + "".join(items) + "</ul></div>"
    )


def _video(report: MatchReport) -> str:
    if report.video is None:
        return "<p>No annotated video was made.</p>"
    slow = "".join(
        f'<li><a href="{escape(s.path.name)}">Shot {s.shot}: slow motion '
        f"(x{s.factor}) around the contact</a></li>"
        for s in report.slow_motion
    )
    slow_list = f"<p>Slow-motion evidence:</p><ul>{slow}</ul>" if slow else ""
    src = escape(report.video)
    return (
        '<h2>Annotated video</h2><video id="match-video" controls preload="auto">'
        f'<source src="{src}" type="{VIDEO_MIME}">'
        f'<p>This browser cannot play H.264 video: <a href="{src}">download it</a>.</p>'
        f"</video>{slow_list}"
    )


def _flagged(report: MatchReport) -> str:
    flagged = [s for s in report.shots if s.flags]
    if not flagged:
        return '<h2>Flagged for review</h2><p id="flagged">No shot is flagged.</p>'
    rows = "".join(
        f'<tr class="flagged"><td>{s.number}</td><td>{_flag_badges(s)}</td>'
        f"<td>{escape(s.call)}</td><td>{escape(_review_reasons(s))}</td>"
        f"<td>{_seek_link(report, s)}</td></tr>"
        for s in flagged
    )
    return (
        '<h2>Flagged for review</h2><table id="flagged"><tr><th>Shot</th><th>Flags</th>'
        f"<th>Call</th><th>Why</th><th>Video</th></tr>{rows}</table>"
    )


def _stats(report: MatchReport) -> str:
    head = "".join(f"<th>{escape(s.player)}</th>" for s in report.stats)

    def row(name: str, cells: list[str]) -> str:
        return f"<tr><th>{escape(name)}</th>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"

    def fouls(s: PlayerStats) -> str:
        if not s.fouls:
            return "none"
        return "<br>".join(f"{escape(kind)}: {n}" for kind, n in s.fouls)

    def seconds(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f} s"

    rows = [
        row("Shots", [str(s.shots) for s in report.stats]),
        row("Balls pocketed", [str(s.pocketed) for s in report.stats]),
        row("Balls credited", [str(s.credited) for s in report.stats]),
        row("Fouls", [f"{s.foul_count}<br>{fouls(s)}" for s in report.stats]),
        row("Longest run (balls)", [str(s.longest_run) for s in report.stats]),
        row("Breaks (ball pocketed)", [f"{s.breaks} ({s.breaks_pocketing})" for s in report.stats]),
        row("Average shot time", [seconds(s.average_shot_time_s) for s in report.stats]),
    ]
    return f'<h2>Players</h2><table id="stats"><tr><th></th>{head}</tr>{"".join(rows)}</table>'


def _timeline(report: MatchReport) -> str:
    head = (
        "<tr><th>Shot</th><th>Rack</th><th>Time</th><th>Shooter</th><th>Call</th><th>Rule</th>"
        "<th>First contact</th><th>Pocketed</th><th>Cushions</th><th>Flags</th><th>Video</th>"
        "<th>Diagram</th></tr>"
    )
    rows = []
    for s in report.shots:
        shot = s.shot
        first = shot.first_contact
        classes = " ".join(
            c for c, on in (("foul", s.rule != ""), ("flagged", bool(s.flags))) if on
        )
        diagram = report.diagrams.get(s.number)
        picture = (
            f'<a href="{escape(diagram)}"><img class="diagram" src="{escape(diagram)}" '
            f'alt="diagram of shot {s.number}"></a>'
            if diagram
            else ""
        )
        rows.append(
            f'<tr id="shot-{s.number}" class="shot {classes}" data-shot="{s.number}">'
            f"<td>{s.number}</td><td>{s.rack}</td><td>{shot.strike_time:.1f} s</td>"
            f'<td>{escape(s.shooter)}</td><td class="call">{escape(s.call)}</td>'
            f'<td class="rule">{escape(s.rule)}</td>'
            f"<td>{escape(str(first.ball) if first else 'none')}</td>"
            f"<td>{escape(', '.join(str(b) for b in shot.pocketed) or '-')}</td>"
            f"<td>{len(shot.cushion_contacts())}</td><td>{_flag_badges(s)}</td>"
            f"<td>{_seek_link(report, s)}</td><td>{picture}</td></tr>"
        )
    return f'<h2>Shots</h2><table id="timeline">{head}{"".join(rows)}</table>'


def _flag_badges(review: ReviewShot) -> str:
    return "".join(f'<span class="flag">{escape(str(f))}</span>' for f in review.flags)


def _review_reasons(review: ReviewShot) -> str:
    reasons = []
    first = review.shot.first_contact
    if first is not None and first.is_split:
        balls = " and ".join(str(b) for b in first.candidates)
        reasons.append(f"split hit: the cue ball met the {balls} too close together to separate")
    if review.ruling is None:
        reasons.append(review.refused or "not judged")
    else:
        reasons.extend(f"{r.reason} (rule {r.rule})" for r in review.ruling.reviews)
    return "; ".join(reasons)


def _seek_link(report: MatchReport, review: ReviewShot) -> str:
    t = report.seek_time(review)
    if t is None:
        return ""
    return (
        f'<a class="seek" href="#match-video" data-shot="{review.number}" '
        f'data-time="{t:.3f}">watch</a>'
    )
