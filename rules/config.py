"""The `[referee]` section of the config file: which game, its options, rack-check tolerances."""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.games import GAMES
from rules.rack import RackCheckConfig
from rules.state import GameOptions


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """What the referee plays and how strictly it checks racks.

    Attributes:
        game: The game's name (``9-ball``, ``8-ball``, ``14.1``).
        options: The game's options (breaker, warnings, variants).
        rack_check: Tolerances of the rack checks (4.3, 5.2, 6.4).
    """

    game: str = "9-ball"
    options: GameOptions = field(default_factory=GameOptions)
    rack_check: RackCheckConfig = field(default_factory=RackCheckConfig)

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game {self.game!r} is not one of {', '.join(sorted(GAMES))}")
