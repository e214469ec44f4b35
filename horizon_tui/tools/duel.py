"""A duel's odds: one combatant against one enemy of a battle, both fresh, by the same quick
simulation the encounter list's win chance comes from (`tools.simulate.estimate`).

Look on an enemy shows it as a threat line (`ui.battle.threat`). The duel is played in a walled
ring under the battle's own rules (a run's pace included), every side by its AI, from a fixed
seed: the figure is the same every time it is asked and draws nothing from the battle's random
source (the battle replays exactly). The ring has no way off it: leaving by an edge is fleeing
(R-8), and on a small open field one turn of R-10 fear carried the afraid one off it, so the duel
measured the field's edge, not the two (Sefa against a Skeleton Spearman: 19.5 % in the open, 78 %
walled in, against 85 % for the crypt the spearman guards).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine.battle import Battle, Entity, comp, gear, ident
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.engine.components import Controller
from horizon_tui.engine.encounter import EncounterSetup
from horizon_tui.engine.forming import PartyMember
from horizon_tui.tools.simulate import WinEstimate, estimate

DUEL_RUNS = 200  # duels per estimate: ± about 7 points at 95 %, a second or two
DUEL_SEED = 1
DUEL_FIELD = ["#" * 14] + ["#" + "." * 12 + "#"] * 7 + ["#" * 14]  # open ground, walled in: nobody flees it
DUEL_STARTS = (4, 4), (9, 4)  # the one looking, the foe: 5 cells apart


def enemy_definition(battle: Battle, foe: Entity) -> EnemyDef:
    """The catalogue's definition `foe` was made from (its description and hand-set numbers with
    it), or one rebuilt from what it fights with (a GM's NPC, a character on the other side)."""
    character = gear(foe).character
    for definition in battle.enemy_defs.values():
        if definition.character is character:
            return definition
    who, how = ident(foe), comp(foe, Controller)
    return EnemyDef(who.id, character, who.level, who.xp_value, how.profile, how.targeting, who.glyph,
                    how.flee_below)


def duel_setup(battle: Battle, foe: Entity) -> EncounterSetup:
    definition = enemy_definition(battle, foe)
    return EncounterSetup(
        id="duel", name=f"Duel with {ident(foe).name}", description="", difficulty="normal", xp=0, notes="",
        battlefield=Battlefield.from_rows(DUEL_FIELD), enemies=[(definition, DUEL_STARTS[1], ident(foe).name)],
        party_start=[DUEL_STARTS[0]], source="<duel>")


@attrs.frozen
class Duel:
    """One duel, read from the battle at once (on the screen's thread): plain values after that, so
    the simulation may run on another thread while the battle goes on."""

    setup: EncounterSetup
    member: PartyMember
    rules: Ruleset
    enemies: dict[str, EnemyDef]

    @classmethod
    def of(cls, battle: Battle, mine: Entity, foe: Entity) -> Duel:
        return cls(duel_setup(battle, foe), PartyMember(gear(mine).character, "ai", level=ident(mine).level),
                   battle.rules, dict(battle.enemy_defs))

    def odds(self, catalogue: Catalogue | None = None, *, runs: int = DUEL_RUNS,
             should_stop: Callable[[], bool] | None = None) -> WinEstimate:
        """The chance to win it, both at full health, under the battle's rules (`catalogue`: the
        app's species and gear; default the game's)."""
        return estimate(self.setup, [self.member], runs=runs, seed=DUEL_SEED, should_stop=should_stop,
                        catalogue=(catalogue or default_catalogue()).with_rules(self.rules), enemies=self.enemies)


def duel_odds(battle: Battle, mine: Entity, foe: Entity, catalogue: Catalogue | None = None, *,
              runs: int = DUEL_RUNS) -> WinEstimate:
    """`mine`'s chance to win a duel with `foe`, both at full health, under `battle`'s rules."""
    return Duel.of(battle, mine, foe).odds(catalogue, runs=runs)


def duel_key(mine: Entity, foe: Entity) -> tuple[str, str]:
    """What a duel's odds in one battle depend on: who, against which kind of enemy."""
    return ident(mine).id, gear(foe).character.name
