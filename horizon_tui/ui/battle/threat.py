"""Look on an enemy: what it is (its description from the catalogue) and how dangerous it is to
the one looking — its level against theirs and the chance to win a duel with it, both fresh
(`tools.duel`, simulated in a background thread once per character and kind of enemy).

The numbers come from the simulation; this only formats them and runs it off the screen's thread.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.engine.battle import Battle, Entity, ident, team
from horizon_tui.engine.sideview import UnitView
from horizon_tui.errors import HorizonError
from horizon_tui.rules.numbers import percent_text
from horizon_tui.tools.duel import Duel, duel_key, enemy_definition
from horizon_tui.tools.simulate import WinEstimate

Odds = WinEstimate | str  # a string: why it can't be simulated


def level_words(theirs: int, yours: int) -> str:
    """"level 3, yours 2 (1 above you)": the gap said, not left to arithmetic."""
    gap = theirs - yours
    if gap == 0:
        return f"level {theirs}, the same as yours"
    return f"level {theirs}, yours {yours} ({abs(gap)} {'above' if gap > 0 else 'below'} you)"


def threat_text(unit: UnitView, description: str, mine: str, mine_level: int, odds: Odds | None) -> Text:
    """The description, then the threat line: level against the looker's, and the duel."""
    text = Text()
    if description:
        text.append(f"{description}\n", style="italic")
    text.append("Threat: ", style="bold")
    text.append(f"{level_words(unit.level, mine_level)}\n")
    text.append(f"Duel with {mine} in a walled ring, both fresh: ", style="dim")  # not this map (`tools.duel`)
    if odds is None:
        text.append("simulating…\n", style="dim")
    elif isinstance(odds, str):
        text.append(f"can't be simulated: {odds}\n", style="red")
    else:
        text.append(f"{mine} wins {percent_text(odds.win_rate)}", style="bold")
        text.append(f" (of {odds.runs})\n", style="dim")
    return text


class Threats:
    """The duel odds a battle screen has asked for, and the threads working them out.
    `catalogue()`: the app's catalogue (its house rules); `start`
    runs a job off the screen's thread (a Textual `run_worker(thread=True)`); `ready` is called
    from that thread when a result is in (the screen redraws)."""

    def __init__(self, catalogue: Callable[[], Catalogue | None], start: Callable[[Callable[[], None]], None], ready: Callable[[], None]) -> None:
        self.catalogue = catalogue
        self.start = start
        self.ready = ready
        self.odds: dict[tuple[str, str], Odds] = {}
        self.asked: set[tuple[str, str]] = set()

    def text(self, battle: Battle, mine: Entity | None, unit: UnitView) -> Text:
        """The Look lines for `unit` seen by `mine`'s player; nothing for one of its own side."""
        foe = battle[unit.id]
        if mine is None or unit.team == team(mine) or foe is mine:
            return Text()
        key = duel_key(mine, foe)
        if key not in self.asked:
            self.asked.add(key)
            duel = Duel.of(battle, mine, foe)  # read here; simulated on another thread
            self.start(lambda: self._work(duel, key))
        description = enemy_definition(battle, foe).description
        return threat_text(unit, description, ident(mine).name, ident(mine).level, self.odds.get(key))

    def _work(self, duel: Duel, key: tuple[str, str]) -> None:
        try:
            self.odds[key] = duel.odds(self.catalogue())
        except HorizonError as exc:
            self.odds[key] = str(exc)
        except Exception as exc:  # noqa: BLE001 - a failed estimate says so and never ends the battle
            self.odds[key] = f"{type(exc).__name__}: {exc}"
        self.ready()
