"""The tracker's table cache agrees with the table it caches."""

from __future__ import annotations

import numpy as np

from calibration.table import TableSpec
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
