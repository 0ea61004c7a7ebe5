"""Points of the table a camera pose is solved against, at their true heights.

The pose must be solved on 3-D points (DESIGN.md, "Geometry that matters for millimetres"):
the cushion noses stand about 36 mm above the cloth and the rail tops a little higher, so a
solver fed their image positions as if they lay on the cloth would tilt the camera to
compensate and misplace balls near the rails.
"""

from __future__ import annotations

from calibration.table import TableSpec
from rules.table import PocketId

Point3 = tuple[float, float, float]


def table_landmarks(table: TableSpec, rail_top_mm: float | None = None) -> dict[str, Point3]:
    """Named landmarks in table millimetres (z above the cloth).

    - ``nose-corner-<pocket>``: where the two cushion-nose lines of a corner pocket meet (a
      virtual point over the pocket's mouth, what a line fit of the cushions gives), at the
      nose height;
    - ``jaw-<pocket>-<k>``: the jaw points of every pocket (k = 0, 1), at the nose height;
    - ``diamond-<k>``: the 18 diamonds on the rail tops, at ``rail_top_mm`` (default: the
      nose height).

    Args:
        table: The table.
        rail_top_mm: Height of the rail tops above the cloth, if measured.
    """
    nose = table.cushion_nose_height
    rail = nose if rail_top_mm is None else rail_top_mm
    hx, hy = table.length / 2, table.width / 2
    points: dict[str, Point3] = {}
    for pocket in PocketId:
        if pocket.is_corner:
            sx = -1.0 if pocket.value.startswith("head") else 1.0
            sy = 1.0 if pocket.value.endswith("left") else -1.0
            points[f"nose-corner-{pocket.value}"] = (sx * hx, sy * hy, nose)
    for pocket in table.pockets:
        for k, (x, y) in enumerate(pocket.jaws):
            points[f"jaw-{pocket.id.value}-{k}"] = (x, y, nose)
    for k, (x, y) in enumerate(table.diamonds):
        points[f"diamond-{k}"] = (x, y, rail)
    return points
