"""Who is looking at a battle: one value instead of a loose side and eyes copied by hand.

A `Viewer` is a side and whose eyes count (R-13's sight, `engine.sideview`): a side's whole party
playing at one keyboard, a table seat's characters, a spectator watching with the party's eyes,
or the game master, from whom nothing hides. The read model (`engine.readmodel`) is built for one.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from horizon_tui.engine.sideview import Eyes

ROLES = ("side", "seat", "spectator", "gm")


@attrs.frozen
class Viewer:
    side: str | None  # the side whose sight counts; None: the game master
    eyes: Eyes = None  # those of its members whose sight counts; None: all of them
    role: str = attrs.field(default="side", validator=attrs.validators.in_(ROLES))

    @classmethod
    def gm(cls) -> Viewer:
        return cls(None, None, "gm")

    @classmethod
    def of_side(cls, side: str) -> Viewer:
        """A side played at one screen (solo, a hot-seat party): all its members' sight."""
        return cls(side, None, "side")

    @classmethod
    def seat(cls, side: str, characters: Iterable[str]) -> Viewer:
        """A player's seat at a table: they see through their own characters' eyes (all the
        side's once none of them is left, `sideview.eyes_open`); no characters: the side's."""
        return cls(side, frozenset(characters) or None, "seat")

    @classmethod
    def spectator(cls, side: str = "party") -> Viewer:
        """Someone watching with a side's eyes, playing nothing."""
        return cls(side, None, "spectator")

    @classmethod
    def from_sight(cls, side: str | None, eyes: Iterable[str] | None = None) -> Viewer:
        """The viewer a screen's side and eyes name: None is the GM, eyes a seat."""
        if side is None:
            return cls.gm()
        return cls.seat(side, eyes) if eyes else cls.of_side(side)

    @property
    def sees_all(self) -> bool:
        return self.side is None
