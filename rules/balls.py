"""The balls of pool: ids, numbers and groups (WPA rules 4.1, 5.1, 6.3).

Ball ids are the strings of the map: ``"cue"`` and ``"1"`` ... ``"15"``. Colours are a vision
concern and live in `calibration.balls`; this module is only what the rules need.
"""

from __future__ import annotations

from enum import StrEnum

BALL_DIAMETER_MM = 57.15
"""Standard pool ball diameter, 2 1/4 in (WPA equipment specifications; rule 3.1)."""

BALL_RADIUS_MM = BALL_DIAMETER_MM / 2


class BallId(StrEnum):
    """One ball of the standard pool set."""

    CUE = "cue"
    ONE = "1"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    ELEVEN = "11"
    TWELVE = "12"
    THIRTEEN = "13"
    FOURTEEN = "14"
    FIFTEEN = "15"

    @property
    def number(self) -> int:
        """The number on the ball; 0 for the cue ball."""
        return 0 if self is BallId.CUE else int(self.value)

    @property
    def is_object_ball(self) -> bool:
        """True for the numbered balls 1-15."""
        return self is not BallId.CUE

    @property
    def group(self) -> BallGroup:
        """The 8-ball group this ball belongs to (rule 4.1)."""
        n = self.number
        if n == 0:
            return BallGroup.CUE
        if n == 8:
            return BallGroup.EIGHT
        return BallGroup.SOLIDS if n < 8 else BallGroup.STRIPES

    @property
    def striped(self) -> bool:
        """True for 9-15, the balls with a stripe."""
        return self.number >= 9

    @classmethod
    def numbered(cls, n: int) -> BallId:
        """The ball with number ``n`` (0 is the cue ball).

        Raises:
            ValueError: ``n`` is not 0-15.
        """
        if not 0 <= n <= 15:
            raise ValueError(f"no pool ball has the number {n}; balls are 0 (cue) to 15")
        return cls.CUE if n == 0 else cls(str(n))


class BallGroup(StrEnum):
    """8-ball groups (rule 4.1): solids 1-7, the 8, stripes 9-15."""

    CUE = "cue"
    SOLIDS = "solids"
    EIGHT = "eight"
    STRIPES = "stripes"

    @property
    def balls(self) -> tuple[BallId, ...]:
        """The balls of this group, in number order."""
        return tuple(b for b in BallId if b.group is self)


OBJECT_BALLS: tuple[BallId, ...] = tuple(b for b in BallId if b.is_object_ball)
"""Balls 1-15 in number order."""

NINE_BALL_SET: tuple[BallId, ...] = OBJECT_BALLS[:9]
"""The object balls of 9-ball (rule 5.1)."""
