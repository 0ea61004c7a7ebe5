"""How the balls look: reference colours of the standard pool set.

The ids and groups are the rules' (`rules.balls`); this module adds what vision needs to tell them
apart. Colours are nominal sRGB values of a common tournament set; the calibration learns the real
ones under the table's light and stores them with the calibration.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.balls import BALL_DIAMETER_MM, BallId

RGB = tuple[int, int, int]

_BASE_COLOURS: dict[int, tuple[str, RGB]] = {
    0: ("white", (244, 242, 232)),
    1: ("yellow", (250, 196, 20)),
    2: ("blue", (20, 60, 170)),
    3: ("red", (205, 30, 35)),
    4: ("purple", (85, 40, 130)),
    5: ("orange", (245, 110, 20)),
    6: ("green", (20, 120, 65)),
    7: ("maroon", (120, 25, 35)),
    8: ("black", (20, 20, 22)),
}


@dataclass(frozen=True, slots=True)
class BallLook:
    """One ball's nominal appearance.

    Attributes:
        ball: Which ball.
        colour_name: The colour's name (``yellow`` ...).
        colour_rgb: Nominal sRGB of the coloured part.
        striped: True for 9-15: a coloured band on a white ball.
        diameter_mm: The ball's diameter.
    """

    ball: BallId
    colour_name: str
    colour_rgb: RGB
    striped: bool
    diameter_mm: float = BALL_DIAMETER_MM


def _look(ball: BallId) -> BallLook:
    n = ball.number
    name, rgb = _BASE_COLOURS[n - 8 if n > 8 else n]
    return BallLook(ball, name, rgb, ball.striped)


BALL_SET: tuple[BallLook, ...] = tuple(_look(b) for b in BallId)
"""The standard pool set: cue ball and 1-15, with their reference colours."""


def look_of(ball: BallId) -> BallLook:
    """The nominal appearance of one ball."""
    return BALL_SET[ball.number]
