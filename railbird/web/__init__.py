"""The web scoreboard and operator console.

The live loop builds a `ScoreboardState` (`scoreboard_state`), publishes it on a `Hub`, and
registers its input handler with `Hub.on_input`; `serve` runs the web server for the hub in a
background thread. Importing this package does not import the web server library; import
`railbird.web.server` for that.
"""

from railbird.web.hub import Hub, InputQueue, NoLiveLoop
from railbird.web.inputs import InputError, decode_input, parse_input
from railbird.web.scoreboard import LastCall, LogLine, Notice, ScoreboardState, scoreboard_state

__all__ = [
    "Hub",
    "InputError",
    "InputQueue",
    "LastCall",
    "LogLine",
    "NoLiveLoop",
    "Notice",
    "ScoreboardState",
    "decode_input",
    "parse_input",
    "scoreboard_state",
]
