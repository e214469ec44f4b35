"""The optional components a `BattleScreen` is built with besides its viewer, policy and driver:
a live table's controls and talk (`table_screen.TableControls`), the GM's hand (tracker and
override menu, `ui.gm.screens.tracker.GMHand`), the campaign following a GM's fight
(`ui.gm.screens.gm_battle.CampaignFight`, `ui.gm.screens.table.CampaignTable`).

A part answers the keys of its namespace in the screen's key table (`ui.battle.keys`: a binding
`part('gm', 'damage')` runs the part named "gm"'s `action_damage`), and the screen asks each part,
in order, at the few points a seat's screen differs: the status line, the unit the side panel
shows, the keys it refuses, the widgets of the side column and beside the log. Each hook's
default here says nothing; a part talks to its screen only through the screen's public methods.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.widget import Widget

if TYPE_CHECKING:  # the screen imports this module
    from horizon_tui.engine.battle import Entity
    from horizon_tui.engine.readmodel import ReadModel
    from horizon_tui.ui.battle.screen import BattleScreen


class BattlePart:
    """One component of a battle screen (see the module's docstring)."""

    NAME: ClassVar[str] = ""  # its keys' namespace in the key table
    COMMANDS: ClassVar[frozenset[str]] = frozenset()  # the `action_*` its keys run
    GM_TOOL: ClassVar[bool] = False  # the GM tool's own (its undo keeps the screen: `after_undo`)

    screen: BattleScreen

    def attach(self, screen: BattleScreen) -> None:
        """The screen it is part of, told once as the screen is built."""
        self.screen = screen

    def offers(self, command: str) -> bool:
        """Does this part answer `command` here (else its key is off, and another binding of the
        same key, the battle's own, answers it)?"""
        return command in self.COMMANDS

    def run(self, command: str, *args: object) -> None:
        """One of its keys (`offers(command)` said yes)."""
        getattr(self, f"action_{command}")(*args)

    def side_widgets(self) -> Iterable[Widget]:
        """Widgets atop the side column (each a `roles.BattlePanel`, given the read model on
        every redraw)."""
        return ()

    def beside_log(self) -> Iterable[Widget]:
        """Widgets beside the log (a table's talk)."""
        return ()

    def status(self) -> Text | None:
        """The status line, if this part words it now (the first part that does wins)."""
        return None

    def status_prefix(self) -> Text:
        """Put before the status line (a table seat's name)."""
        return Text("")

    def refusal(self, command: str) -> str | None:
        """Why a battle key (`play.keymap` id without `battle.`) does nothing here, if it doesn't."""
        return None

    def shown_unit(self, known: ReadModel) -> str | None:
        """The combatant the unit panel shows instead of the one acting (the GM's pick)."""
        return None

    def slots_of(self, me: Entity | None) -> Entity | None:
        """The combatant whose abilities the slots panel shows instead of `me` (the GM's pick)."""
        return None

    def mounted(self) -> None:
        """The screen is mounted."""

    def resumed(self) -> None:
        """The screen is shown again (a dialog over it closed)."""

    def unmounted(self) -> None:
        """The screen is gone."""

    def after_undo(self) -> Awaitable[None] | None:
        """The GM's campaign stepped back (the GM app's ctrl+z)."""
        return None
