"""TableSpec against the WPA equipment specifications, and its predicates at their edges."""

from __future__ import annotations

import math

import pytest

from calibration.balls import BALL_SET, look_of
from calibration.geometry import cross, sub
from calibration.table import INCH_MM, RackShape, TableSpec
from rules.balls import BALL_DIAMETER_MM, BallId
from rules.table import CushionId, PocketId

T9 = TableSpec.standard("9ft")
R = BALL_DIAMETER_MM / 2


@pytest.mark.parametrize(
    ("name", "length_in", "width_in"), [("9ft", 100, 50), ("8ft", 88, 44), ("7ft", 78, 39)]
)
def test_playing_surface_sizes_are_wpa(name: str, length_in: float, width_in: float) -> None:
    spec = TableSpec.standard(name)
    assert spec.length == pytest.approx(length_in * INCH_MM)
    assert spec.width == pytest.approx(width_in * INCH_MM)
    assert spec.head_string_x == pytest.approx(-spec.length / 4)
    assert spec.foot_spot == pytest.approx((spec.length / 4, 0.0))


def test_unknown_size_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known: 9ft, 8ft, 7ft, custom"):
        TableSpec.standard("10ft")


def test_custom_table_and_its_checks() -> None:
    spec = TableSpec.custom(3000, 1500)
    assert spec.name == "custom" and spec.length == 3000.0
    with pytest.raises(ValueError, match="under width"):
        TableSpec.custom(1000, 2000)
    with pytest.raises(ValueError, match="positive"):
        TableSpec.custom(0, 0)
    with pytest.raises(ValueError, match="wider than a ball"):
        TableSpec.custom(2540, 1270, corner_mouth=50.0)


@pytest.mark.parametrize("name", ["9ft", "8ft", "7ft"])
def test_pocket_mouths_within_wpa_ranges(name: str) -> None:
    spec = TableSpec.standard(name)
    for pocket in spec.pockets:
        lo, hi = (5.0, 5.125) if pocket.id.is_side else (4.5, 4.625)
        (ax, ay), (bx, by) = pocket.jaws
        mouth = math.hypot(ax - bx, ay - by)
        assert mouth == pytest.approx(pocket.mouth_width)
        assert lo * INCH_MM <= mouth <= hi * INCH_MM
        shelf_lo, shelf_hi = (0.0, 0.375) if pocket.id.is_side else (1.0, 2.25)
        assert shelf_lo * INCH_MM <= pocket.shelf <= shelf_hi * INCH_MM
        # The drop is narrower than the mouth but still takes a ball.
        assert BALL_DIAMETER_MM < pocket.throat_width < pocket.mouth_width


def test_pocket_positions_and_axes() -> None:
    hx, hy = T9.length / 2, T9.width / 2
    head_left = T9.pocket(PocketId.HEAD_LEFT)
    # Corner jaws sit on the two nose lines meeting at the corner, the mouth at 45 degrees.
    assert {round(v, 6) for v in (head_left.jaws[0][0], head_left.jaws[1][1])} == {
        round(-hx, 6),
        round(hy, 6),
    }
    assert head_left.axis == pytest.approx((-math.sqrt(0.5), math.sqrt(0.5)))
    side_right = T9.pocket(PocketId.SIDE_RIGHT)
    assert side_right.mouth_centre == pytest.approx((0.0, -hy))
    assert side_right.axis == (0.0, -1.0)
    # The drop is behind the mouth, outside the playing surface.
    for pocket in T9.pockets:
        assert not T9.on_playing_surface(pocket.centre)
        assert T9.pocket_at(pocket.centre) is pocket.id


def test_cushion_segments_run_jaw_to_jaw() -> None:
    jaws = {j for p in T9.pockets for j in p.jaws}
    for segment in T9.cushions:
        assert segment.start in jaws and segment.end in jaws
        # The normal points into the table.
        mid = ((segment.start[0] + segment.end[0]) / 2, (segment.start[1] + segment.end[1]) / 2)
        inside = (mid[0] + segment.normal[0], mid[1] + segment.normal[1])
        assert T9.on_playing_surface(inside)
    head = T9.cushion(CushionId.HEAD)
    assert head.start[0] == head.end[0] == -T9.length / 2


def test_ball_on_the_head_string_is_not_in_the_kitchen_rule_3_16() -> None:
    x = T9.head_string_x
    assert not T9.in_kitchen((x, 0.0))
    assert T9.in_kitchen((math.nextafter(x, -math.inf), 0.0))
    assert not T9.in_kitchen((x + 1e-6, 0.0))
    # Behind the head string but off the surface is not the kitchen either.
    assert not T9.in_kitchen((-T9.length / 2 - 1.0, 0.0))


def test_centre_outside_the_cushion_nose_line_is_off_the_playing_surface() -> None:
    hx, hy = T9.length / 2, T9.width / 2
    assert T9.on_playing_surface((hx, 0.0)) and T9.on_playing_surface((0.0, -hy))
    assert not T9.on_playing_surface((math.nextafter(hx, math.inf), 0.0))
    assert not T9.on_playing_surface((0.0, math.nextafter(-hy, -math.inf)))
    # Inside the rectangle but past a corner pocket's mouth line: in the pocket, off the surface.
    assert not T9.on_playing_surface((hx - 1.0, hy - 1.0))


def test_nearest_cushion_and_distance() -> None:
    hx, hy = T9.length / 2, T9.width / 2
    assert T9.nearest_cushion((-hx + 10, 0.0)) is CushionId.HEAD
    assert T9.nearest_cushion((hx - 10, 0.0)) is CushionId.FOOT
    assert T9.nearest_cushion((-400.0, hy - 50)) is CushionId.LEFT_HEAD
    assert T9.nearest_cushion((400.0, -hy + 50)) is CushionId.RIGHT_FOOT
    frozen = (-hx + R, 100.0)
    assert T9.distance_to_cushion(frozen) == pytest.approx(R)
    assert T9.distance_to_cushion(frozen, CushionId.FOOT) == pytest.approx(T9.length - R)
    # Opposite the side pocket the nearest nose is the jaw point, not the missing cushion.
    s = T9.side_mouth / 2
    assert T9.distance_to_cushion((0.0, hy - 10)) == pytest.approx(math.hypot(s, 10))


def test_pocket_at_its_edges() -> None:
    foot_left = T9.pocket(PocketId.FOOT_LEFT)
    mc = foot_left.mouth_centre
    ax, ay = foot_left.axis
    assert T9.pocket_at(mc) is PocketId.FOOT_LEFT  # on the mouth line
    assert T9.pocket_at((mc[0] - ax * 0.01, mc[1] - ay * 0.01)) is None  # table side
    # Across the mouth line, just inside and just outside a jaw point.
    jaw = foot_left.jaws[0]
    lateral = sub(jaw, mc)
    inside = (mc[0] + lateral[0] * 0.99 + ax, mc[1] + lateral[1] * 0.99 + ay)
    outside = (mc[0] + lateral[0] * 1.05 + ax, mc[1] + lateral[1] * 1.05 + ay)
    assert T9.pocket_at(inside) is PocketId.FOOT_LEFT
    assert T9.pocket_at(outside) is None
    assert abs(cross(foot_left.axis, lateral)) == pytest.approx(foot_left.mouth_width / 2)
    assert T9.pocket_at((0.0, 0.0)) is None
    side = T9.pocket(PocketId.SIDE_LEFT)
    assert T9.pocket_at((0.0, T9.width / 2 + side.shelf + side.throat_width + 1)) is None


def test_diamonds_follow_the_spec() -> None:
    diamonds = T9.diamonds
    assert len(diamonds) == 18
    setback = 3.6875 * INCH_MM
    long_rail = sorted(x for x, y in diamonds if y == pytest.approx(T9.width / 2 + setback))
    assert len(long_rail) == 6
    assert long_rail[1] == pytest.approx(T9.head_string_x)  # second diamond: the head string
    assert long_rail[1] - long_rail[0] == pytest.approx(T9.length / 8)


@pytest.mark.parametrize(("shape", "count"), [(RackShape.TRIANGLE, 15), (RackShape.DIAMOND, 9)])
def test_rack_slots_are_tight_with_the_apex_on_the_foot_spot(shape: RackShape, count: int) -> None:
    slots = T9.rack_slots(shape)
    assert len(slots) == count
    assert slots[0] == pytest.approx(T9.foot_spot)
    gaps = [math.dist(a, b) for i, a in enumerate(slots) for b in slots[i + 1 :]]
    assert min(gaps) == pytest.approx(BALL_DIAMETER_MM)
    # Every ball touches at least two others: the rack is tight.
    for a in slots:
        touching = sum(1 for b in slots if math.dist(a, b) == pytest.approx(BALL_DIAMETER_MM))
        assert touching >= 2
    assert all(T9.on_playing_surface(s) for s in slots)


@pytest.mark.parametrize("shape", list(RackShape))
def test_rack_footprint_wraps_the_balls(shape: RackShape) -> None:
    footprint = T9.rack_footprint(shape)
    slots = T9.rack_slots(shape)
    n = len(footprint)
    for s in slots:
        # Inside (or on) every edge, by at least a ball radius.
        for i in range(n):
            a, b = footprint[i], footprint[(i + 1) % n]
            edge = sub(b, a)
            distance = cross(edge, sub(s, a)) / math.hypot(*edge)
            sign = (
                1
                if cross(sub(footprint[1], footprint[0]), sub(footprint[2], footprint[1])) > 0
                else -1
            )
            assert sign * distance >= R - 1e-6


def test_ball_set_reference_colours() -> None:
    assert len(BALL_SET) == 16
    assert look_of(BallId.ONE).colour_name == "yellow"
    assert look_of(BallId.NINE).colour_rgb == look_of(BallId.ONE).colour_rgb
    assert look_of(BallId.NINE).striped and not look_of(BallId.ONE).striped
    names = [look_of(BallId.numbered(n)).colour_name for n in range(1, 9)]
    assert names == ["yellow", "blue", "red", "purple", "orange", "green", "maroon", "black"]


def test_table_spec_satisfies_the_rules_geometry_protocol() -> None:
    from rules.table import TableGeometry

    def head_string(table: TableGeometry) -> float:
        return table.head_string_x

    members = [n for n in vars(TableGeometry) if not n.startswith("_")]
    assert "rack_slots" in members
    for name in members:
        assert hasattr(T9, name), name
    assert head_string(T9) == T9.head_string_x


@pytest.mark.parametrize("name", ["9ft", "7ft"])
def test_each_jaw_face_belongs_to_the_cushion_ending_at_its_jaw_point(name: str) -> None:
    table = TableSpec.standard(name)
    faces = table.jaw_faces()
    assert len(faces) == 12
    for pocket, pair in zip(table.pockets, zip(faces[::2], faces[1::2], strict=True), strict=True):
        assert {f.start for f in pair} == set(pocket.jaws)
        for face in pair:
            nose = table.cushion(face.cushion)
            assert face.start in (nose.start, nose.end)
            # It runs into the pocket, past the mouth line, and faces the pocket's axis.
            assert pocket.depth_of(face.end) > pocket.shelf
            assert abs(math.hypot(*face.normal) - 1.0) < 1e-9
