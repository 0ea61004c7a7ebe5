"""Shot diagrams: the table from above with each ball's path, numbered contacts and the call.

`build_diagram` turns one reviewed shot and the tracked paths into a `DiagramModel` (what is
drawn, as data a test can check against the truth); `draw_diagram` paints it with OpenCV in
table millimetres, head at the left, foot at the right, the left long cushion (+y) on top.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.balls import look_of
from calibration.table import TableSpec
from railbird.review.model import ReviewShot
from railbird.review.tracks import BallPaths
from rules.balls import BallId
from rules.errors import RecordError
from rules.events import EventKind
from rules.shot import Layout
from rules.table import CushionId, PocketId, Point

SCALE_PX_PER_MM = 0.4
RAIL_PX = 44
HEADER_PX = 40
FOOTER_PX = 56
MAX_TAGS = 30
"""More contacts than this (a break) and only the cue ball's and the cushions' are tagged."""
LEAP_MM = 250.0
"""Further than a ball at the tracker's top speed (12 m/s) rolls in a 60 fps frame."""
MOVED_MM = 5.0
"""A ball that ends further than this from where it started has a path worth drawing."""

_BACKGROUND = 32
_CLOTH = (96, 128, 16)
_RAIL = (30, 62, 104)
_NOSE = (60, 170, 60)
_POCKET = (20, 20, 20)
_TEXT = (255, 255, 255)
_CUSHION_MARK = (0, 165, 255)
_BALL_MARK = (255, 255, 255)
_LOST = (60, 60, 230)


@dataclass(frozen=True, slots=True)
class ContactMark:
    """A numbered contact in the diagram.

    Attributes:
        order: Its number, from 1, in time order (ball and cushion contacts share one count).
        kind: `EventKind.BALL_BALL` or `EventKind.BALL_CUSHION`.
        balls: The balls touching.
        cushion: The cushion, for a cushion contact.
        position: Where it is drawn: the first ball's tracked centre at that moment (mm).
        time: Session time.
    """

    order: int
    kind: EventKind
    balls: tuple[BallId, ...]
    cushion: CushionId | None
    position: Point
    time: float


@dataclass(frozen=True, slots=True)
class DiagramModel:
    """Everything one shot diagram shows.

    Attributes:
        number: The shot number (from 1).
        title: Shot number, shooter and rack.
        call: The call with its rule number.
        paths: Each moving ball's tracked centres from strike to rest.
        start: Positions at the strike.
        end: Positions at rest.
        contacts: Ball-ball and ball-cushion contacts, numbered in order.
        pocketed: Balls that stayed in a pocket, with the pocket.
        off_table: Balls that left the table.
    """

    number: int
    title: str
    call: str
    paths: tuple[tuple[BallId, tuple[Point, ...]], ...]
    start: Layout
    end: Layout
    contacts: tuple[ContactMark, ...]
    pocketed: tuple[tuple[BallId, PocketId], ...]
    off_table: tuple[BallId, ...]

    @property
    def cushion_contacts(self) -> tuple[ContactMark, ...]:
        """The cushion contacts drawn."""
        return tuple(c for c in self.contacts if c.kind is EventKind.BALL_CUSHION)

    @property
    def tagged(self) -> frozenset[int]:
        """The contacts drawn with their number: all of them, unless a break's rack crowds
        the picture; then the cue ball's contacts and the cushion contacts (others are dots)."""
        if len(self.contacts) <= MAX_TAGS:
            return frozenset(c.order for c in self.contacts)
        return frozenset(
            c.order
            for c in self.contacts
            if c.kind is EventKind.BALL_CUSHION or BallId.CUE in c.balls
        )

    @property
    def ball_contacts(self) -> tuple[ContactMark, ...]:
        """The ball-ball contacts drawn."""
        return tuple(c for c in self.contacts if c.kind is EventKind.BALL_BALL)


def build_diagram(review: ReviewShot, paths: BallPaths) -> DiagramModel:
    """What the diagram of ``review`` shows, from its events and the tracked paths."""
    shot = review.shot
    end_time = review.end_time
    contacts: list[ContactMark] = []
    for event in shot.events:
        if event.kind not in (EventKind.BALL_BALL, EventKind.BALL_CUSHION):
            continue
        where = paths.position_at(event.balls[0], event.time) or shot.at_strike.get(event.balls[0])
        if where is None:
            continue
        contacts.append(
            ContactMark(
                len(contacts) + 1, event.kind, event.balls, event.cushion, where, event.time
            )
        )
    movers = {b for e in shot.events for b in e.balls} | {
        b
        for b in shot.at_strike
        if b not in shot.at_rest or math.dist(shot.at_strike[b], shot.at_rest[b]) > MOVED_MM
    }
    ball_paths = tuple(
        (b, paths.path(b, shot.strike_time, end_time))
        for b in sorted(movers, key=lambda b: b.number)
    )
    return DiagramModel(
        number=review.number,
        title=f"Shot {review.number} - {review.shooter or 'shooter unknown'} - rack {review.rack}",
        call=review.call,
        paths=tuple((b, p) for b, p in ball_paths if len(p) >= 2),
        start=shot.at_strike,
        end=shot.at_rest,
        contacts=tuple(contacts),
        pocketed=tuple((b, p) for b in shot.pocketed if (p := shot.pocket_of(b)) is not None),
        off_table=shot.left_table,
    )


class _Canvas:
    """Table millimetres to diagram pixels."""

    def __init__(self, table: TableSpec) -> None:
        self.table = table
        self.width = round(table.length * SCALE_PX_PER_MM) + 2 * RAIL_PX
        self.height = round(table.width * SCALE_PX_PER_MM) + 2 * RAIL_PX + HEADER_PX + FOOTER_PX
        self.cx = self.width / 2
        self.cy = HEADER_PX + RAIL_PX + table.width * SCALE_PX_PER_MM / 2

    def px(self, p: Point) -> tuple[int, int]:
        return (round(self.cx + p[0] * SCALE_PX_PER_MM), round(self.cy - p[1] * SCALE_PX_PER_MM))

    def r(self, mm: float) -> int:
        return max(1, round(mm * SCALE_PX_PER_MM))


def draw_diagram(model: DiagramModel, table: TableSpec) -> np.ndarray:
    """The diagram as a BGR image."""
    canvas = _Canvas(table)
    image = np.full((canvas.height, canvas.width, 3), _BACKGROUND, np.uint8)
    _draw_table(image, canvas)
    radius = canvas.r(table.ball_diameter / 2)
    for ball, position in model.start.positions:
        cv2.circle(image, canvas.px(position), radius, _bgr(ball), 1, cv2.LINE_AA)
    for ball, path in model.paths:
        pieces = [np.array([canvas.px(p) for p in piece], np.int32) for piece in _pieces(path)]
        cv2.polylines(image, pieces, False, _bgr(ball), 2, cv2.LINE_AA)
    for ball, position in model.end.positions:
        _ball(image, canvas.px(position), radius, ball)
    in_pocket: dict[PocketId, int] = {}
    for ball, pocket in model.pocketed:
        # Balls in one pocket are stacked beside it, each crossed out.
        k = in_pocket[pocket] = in_pocket.get(pocket, -1) + 1
        x, y = canvas.px(table.pocket(pocket).centre)
        inward = -1 if x > canvas.cx else 1  # stacked toward the middle of the table
        centre = (x + inward * k * (2 * radius + 4), y)
        _ball(image, centre, radius, ball)
        _cross(image, centre, radius + 3, _TEXT)
    for ball in model.off_table:
        last = next((p for b, p in model.paths if b == ball), ())
        if last:
            _cross(image, canvas.px(last[-1]), radius + 3, _LOST)
            _label(image, f"{ball} off", canvas.px(last[-1]), _LOST)
    tagged = model.tagged
    tags: list[tuple[int, int, int, int]] = []
    for contact in model.contacts:
        colour = _CUSHION_MARK if contact.kind is EventKind.BALL_CUSHION else _BALL_MARK
        if contact.order in tagged:
            _number(image, canvas.px(contact.position), contact.order, colour, tags)
        else:
            cv2.circle(image, canvas.px(contact.position), 2, colour, -1, cv2.LINE_AA)
    # A path tracked into a pocket's throat or off the table stops at the rails.
    image[:HEADER_PX] = _BACKGROUND
    image[canvas.height - FOOTER_PX :] = _BACKGROUND
    _text(image, model.title, (10, 27), 0.7)
    _text(image, f"Call: {model.call}", (10, canvas.height - FOOTER_PX + 24), 0.6)
    legend = (
        f"{len(model.ball_contacts)} ball contacts (white), "
        f"{len(model.cushion_contacts)} cushion contacts (orange); "
        f"pocketed: {', '.join(str(b) for b, _ in model.pocketed) or 'none'}; "
        "hollow = start, filled = rest"
    )
    if len(tagged) < len(model.contacts):
        legend += f"; {len(model.contacts) - len(tagged)} contacts among object balls as dots"

    _text(image, legend, (10, canvas.height - 10), 0.45)
    return image


def _pieces(path: tuple[Point, ...]) -> list[tuple[Point, ...]]:
    """The path cut where the track leaps further than a ball can roll between two frames:
    a lost and re-found ball is drawn as two pieces, not a line it never ran."""
    pieces: list[list[Point]] = [[path[0]]] if path else []
    for a, b in itertools.pairwise(path):
        if math.dist(a, b) > LEAP_MM:
            pieces.append([])
        pieces[-1].append(b)
    return [tuple(p) for p in pieces if len(p) >= 2]


def write_diagram(model: DiagramModel, table: TableSpec, path: Path) -> Path:
    """Draw ``model`` into the PNG ``path``.

    Raises:
        RecordError: it cannot be written.
    """
    if not cv2.imwrite(str(path), draw_diagram(model, table)):
        raise RecordError(f"{path}: cannot write the shot diagram")
    return path


def _draw_table(image: np.ndarray, canvas: _Canvas) -> None:
    table = canvas.table
    hx, hy = table.length / 2, table.width / 2
    rail_mm = RAIL_PX / SCALE_PX_PER_MM
    cv2.rectangle(
        image,
        canvas.px((-hx - rail_mm, hy + rail_mm)),
        canvas.px((hx + rail_mm, -hy - rail_mm)),
        _RAIL,
        -1,
    )
    cv2.rectangle(image, canvas.px((-hx, hy)), canvas.px((hx, -hy)), _CLOTH, -1)
    for cushion in table.cushions:
        cv2.line(image, canvas.px(cushion.start), canvas.px(cushion.end), _NOSE, 2, cv2.LINE_AA)
    for pocket in table.pockets:
        cv2.circle(image, canvas.px(pocket.centre), canvas.r(pocket.mouth_width / 2), _POCKET, -1)
    for diamond in table.diamonds:
        cv2.circle(image, canvas.px(diamond), 2, (230, 230, 230), -1, cv2.LINE_AA)
    head = table.head_string_x
    cv2.line(image, canvas.px((head, -hy)), canvas.px((head, hy)), (150, 190, 150), 1)
    cv2.drawMarker(image, canvas.px(table.foot_spot), (150, 190, 150), cv2.MARKER_CROSS, 8, 1)


def _bgr(ball: BallId) -> tuple[int, int, int]:
    r, g, b = look_of(ball).colour_rgb
    return (b, g, r)


def _ball(image: np.ndarray, centre: tuple[int, int], radius: int, ball: BallId) -> None:
    cv2.circle(image, centre, radius, _bgr(ball), -1, cv2.LINE_AA)
    if look_of(ball).striped:
        cv2.circle(image, centre, radius, (255, 255, 255), 1, cv2.LINE_AA)
    text = "C" if ball is BallId.CUE else str(ball)
    scale = 0.35
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    org = (centre[0] - w // 2, centre[1] + h // 2)
    dark = sum(look_of(ball).colour_rgb) > 450
    colour = (0, 0, 0) if dark else (255, 255, 255)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def _number(
    image: np.ndarray,
    at: tuple[int, int],
    n: int,
    colour: tuple[int, int, int],
    taken: list[tuple[int, int, int, int]],
) -> None:
    """A square tag on a leader, so a contact number is never taken for a ball; placed off
    the tags already drawn (``taken``, their boxes, to which this one's is added): a ball that
    hits another and then the cushion beside it has two contacts in one spot."""
    text = str(n)
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.4, 1)
    half = max(w, h) // 2 + 3
    tag, box = _tag_place(at, half, taken)
    taken.append(box)
    cv2.circle(image, at, 3, colour, -1, cv2.LINE_AA)
    cv2.line(image, at, tag, colour, 1, cv2.LINE_AA)
    corners = (box[0], box[1]), (box[2], box[3])
    cv2.rectangle(image, *corners, colour, -1)
    cv2.rectangle(image, *corners, (0, 0, 0), 1)
    org = (tag[0] - w // 2, tag[1] + h // 2)
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)


_TAG_LEADERS = ((14, -14), (14, 14), (-14, -14), (-14, 14), (0, -24), (0, 24), (24, 0), (-24, 0))
"""Where a tag may sit from its contact, in order of preference (up and right first)."""


def _tag_place(
    at: tuple[int, int], half: int, taken: list[tuple[int, int, int, int]]
) -> tuple[tuple[int, int], tuple[int, int, int, int]]:
    """The first leader end whose tag box (x0, y0, x1, y1) overlaps none of ``taken``, and
    that box (the first of all when every place is taken)."""
    places = []
    for dx, dy in _TAG_LEADERS:
        tag = (at[0] + dx, at[1] + dy)
        box = (tag[0] - half, tag[1] - half, tag[0] + half, tag[1] + half)
        clear = all(box[2] < o[0] or o[2] < box[0] or box[3] < o[1] or o[3] < box[1] for o in taken)
        if clear:
            return tag, box
        places.append((tag, box))
    return places[0]


def _cross(image: np.ndarray, at: tuple[int, int], size: int, colour: tuple[int, int, int]) -> None:
    cv2.drawMarker(image, at, colour, cv2.MARKER_TILTED_CROSS, 2 * size, 2, cv2.LINE_AA)


def _label(image: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int]) -> None:
    cv2.putText(
        image, text, (at[0] + 10, at[1] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA
    )


def _text(image: np.ndarray, text: str, org: tuple[int, int], scale: float) -> None:
    # Hershey fonts draw ASCII only: anything else (a player's name) shows as '?'.
    text = text.encode("ascii", "replace").decode("ascii")
    cv2.putText(image, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, _TEXT, 1, cv2.LINE_AA)
