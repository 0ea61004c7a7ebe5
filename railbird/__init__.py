"""railbird, the monitor: wiring, CLI, recordings, replay, review, scoreboard and console."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("railbird")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
