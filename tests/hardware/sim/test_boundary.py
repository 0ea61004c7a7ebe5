"""The closed boundary of the playing region: noses, jaws, jaw points, pocket lines."""

from __future__ import annotations

import math

import pytest

from calibration.table import TableSpec
from hardware.sim.boundary import Boundary
from rules.table import CushionId, PocketId

TABLE = TableSpec.standard("9ft")


def test_every_pocket_has_two_jaw_faces_and_two_jaw_points() -> None:
    boundary = Boundary.of(TABLE)
    assert len([w for w in boundary.walls if not w.is_jaw]) == 6
    assert len([w for w in boundary.walls if w.is_jaw]) == 12
    assert len(boundary.knuckles) == 12
    assert [p.pocket for p in boundary.pockets] == list(PocketId)


@pytest.mark.parametrize("pocket", list(PocketId))
def test_jaw_faces_turn_in_by_the_wpa_mouth_angle(pocket: PocketId) -> None:
    spec = TABLE.pocket(pocket)
    boundary = Boundary.of(TABLE)
    faces = [w for w in boundary.walls if w.is_jaw and w.start in spec.jaws]
    assert len(faces) == 2
    for face in faces:
        # Each face leans in toward the axis by the jaw convergence angle.
        lean = math.degrees(
            math.acos(face.direction[0] * spec.axis[0] + face.direction[1] * spec.axis[1])
        )
        assert lean == pytest.approx(spec.jaw_convergence_deg, abs=1e-6)
        # Its normal points to the pocket's axis line, where balls come in.
        mid = ((face.start[0] + face.end[0]) / 2, (face.start[1] + face.end[1]) / 2)
        mx, my = spec.mouth_centre
        to_axis = (mx + spec.axis[0] * 20 - mid[0], my + spec.axis[1] * 20 - mid[1])
        assert face.normal[0] * to_axis[0] + face.normal[1] * to_axis[1] > 0


def test_jaws_belong_to_the_cushion_they_end() -> None:
    boundary = Boundary.of(TABLE)
    foot_left = TABLE.pocket(PocketId.FOOT_LEFT)
    owners = {k.cushion for k in boundary.knuckles if k.point in foot_left.jaws}
    assert owners == {CushionId.FOOT, CushionId.LEFT_FOOT}


def test_drop_line_sits_at_the_shelf() -> None:
    boundary = Boundary.of(TABLE)
    for lines in boundary.pockets:
        assert lines.drop_depth == pytest.approx(TABLE.pocket(lines.pocket).shelf)
        assert lines.depth(lines.mouth_centre) == pytest.approx(0.0)
