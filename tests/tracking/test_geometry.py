"""The tracker's table cache agrees with the table it caches."""

from __future__ import annotations

import numpy as np

from calibration.table import TableSpec
from rules.table import CushionId
from tracking.geometry import TableCache


def test_on_surface_agrees_with_the_table_near_every_edge_and_corner_rule_3_12() -> None:
    table = TableSpec.standard("9ft")
    cache = TableCache(table)
    rng = np.random.default_rng(5)
    hx, hy = table.length / 2, table.width / 2
    # Mostly near the cushions and in the corners, where the exact test matters.
    points = np.concatenate(
        [
            rng.uniform([-hx - 60, -hy - 60], [hx + 60, hy + 60], (3000, 2)),
            np.array([hx, hy]) - rng.uniform(-40, 150, (3000, 2)),
            np.array([-hx, -hy]) + rng.uniform(-40, 150, (3000, 2)),
        ]
    )
    for x, y in points:
        assert cache.on_surface(x, y) == table.on_playing_surface((x, y)), (x, y)


def test_a_ball_beside_the_side_pocket_is_along_the_half_cushion_it_is_beside_first() -> None:
    # The two halves of a long cushion lie on one line: a ball by the side pocket is as near
    # both, and is along both within the walls' end margin; the half it is beside comes first,
    # so a rebound there names that half.
    cache = TableCache(TableSpec.standard("9ft"))
    hy = cache.hy
    for x, beside in ((44.0, CushionId.LEFT_FOOT), (-44.0, CushionId.LEFT_HEAD)):
        noses = [
            cache.walls[w].cushion
            for w in cache.walls_along(np.array([x, hy - 20.0]))
            if cache.walls[w].mouth is None and cache.walls[w].cushion.name.startswith("LEFT")
        ]
        assert noses[0] is beside
        assert len(noses) == 2  # both halves: the end margin reaches past the pocket
