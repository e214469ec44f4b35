"""The parts of a battle screen the GM's tests reach (`ui.battle.parts`): one `BattleScreen`
class, told apart by what it is built from."""

from __future__ import annotations

from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.battle.table_screen import TableControls
from horizon_tui.ui.gm.screens.gm_battle import CampaignFight
from horizon_tui.ui.gm.screens.table import CampaignTable
from horizon_tui.ui.gm.screens.tracker import GMHand


def _part(screen, kind):
    return screen.part(kind) if isinstance(screen, BattleScreen) else None


def is_gm_fight(screen) -> bool:
    """The GM's fight at this keyboard (`gm_battle.gm_battle_screen`)."""
    return _part(screen, CampaignFight) is not None


def is_gm_table(screen) -> bool:
    """The GM at a live table (`table.gm_table_screen`)."""
    return _part(screen, CampaignTable) is not None


def is_table_seat(screen) -> bool:
    """Any seat at a live table (`table_screen.table_battle_screen`)."""
    return _part(screen, TableControls) is not None


def _required(screen, kind):
    part = _part(screen, kind)
    assert part is not None, f"no {kind.__name__} part on {screen!r}"
    return part


def hand(screen) -> GMHand:
    return _required(screen, GMHand)


def fight(screen) -> CampaignFight:
    return _required(screen, CampaignFight)


def campaign_table(screen) -> CampaignTable:
    return _required(screen, CampaignTable)


def at_table(screen) -> TableControls:
    return _required(screen, TableControls)
