"""The games, selected by name: ``game_for("9-ball", table)``; ``"8-ball"`` and ``"14.1"`` alike.

Each is a pure ``start / judge / advance`` over an immutable `GameState` (see `rules.games.base`).
"""

from __future__ import annotations

from collections.abc import Callable

from rules.errors import ConfigError
from rules.games.base import Game
from rules.games.eight_ball import EightBall
from rules.games.nine_ball import NineBall
from rules.games.straight_pool import StraightPool
from rules.table import TableGeometry

GAMES: dict[str, Callable[[TableGeometry], Game]] = {
    NineBall.name: NineBall,
    EightBall.name: EightBall,
    StraightPool.name: StraightPool,
}
"""Registry: game name to the class that plays it on a table."""


def game_for(name: str, table: TableGeometry) -> Game:
    """The game called ``name`` on ``table``.

    Raises:
        ConfigError: no game has that name (the message lists the known ones).
    """
    try:
        factory = GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise ConfigError(f"unknown game {name!r}; known games: {known}") from None
    return factory(table)


__all__ = ["GAMES", "Game", "game_for"]
