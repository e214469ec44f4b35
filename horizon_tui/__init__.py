"""Horizon: a terminal roguelike client and game-master tool for Horizon of Darkness."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("horizon-tui")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
