"""A campaign that remembers: what a fight leaves on the party (health, effects with turns left,
and, by the campaign's house switches, charges and cooldowns) goes into the next one; NPCs who
died stay dead. A rest (and the next day, which includes one) resets what the rules reset.

`capture` reads a finished battle into plain data (`Campaign.carried`); `opening_overrides` turns
that back into GM overrides (engine.overrides) recorded as the new battle's first inputs, so the
battle still replays from its seed and its inputs. `[campaign]` in rules.toml holds the switches.
No Textual here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import attrs

from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import CampaignRules, Ruleset
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import Battle, comp, effects, hp, ident
from horizon_tui.engine.narrate import CARRIED
from horizon_tui.engine.components import Charges, Cooldowns, Presence
from horizon_tui.engine.sideview import effect_turns_left
from horizon_tui.engine.usability import cooldown_left
from horizon_tui.campaign.model import Campaign



def capture(battle: Battle) -> dict[str, dict[str, Any]]:
    """The party characters' state at the end of a battle, by name (plain JSON data)."""
    found: dict[str, dict[str, Any]] = {}
    for e in battle.combatants():
        if ident(e).kind != "character":
            continue
        found[ident(e).name] = {
            "hp": max(0, hp(e).hp),
            "max_hp": hp(e).max_hp,
            "presence": comp(e, Presence).value,
            "charges": {d.value: n for d, n in comp(e, Charges).pools.items()},
            "cooldowns": {name: left for name in comp(e, Cooldowns).ready_at
                          if (left := cooldown_left(battle, e, name))},  # R-6, as enforced
            "effects": [{"effect": fx.effect, "turns": left, "magnitude": str(fx.magnitude), "stat": fx.stat}
                        for fx in effects(e).active
                        if (left := effect_turns_left(fx)) > 0 and fx.effect != "hidden"],
        }
    return found


def fallen_npcs(battle: Battle, campaign: Campaign) -> list[str]:
    """The campaign's NPCs who died in this battle (by name)."""
    return [ident(e).name for e in battle.combatants()
            if comp(e, Presence) is Presence.dead and campaign.npc(ident(e).name) is not None]


def after_battle(campaign: Campaign, battle: Battle) -> Campaign:
    """The campaign with what the battle left: the party's state, and the NPCs who died."""
    carried = dict(campaign.carried)
    carried.update({name: state for name, state in capture(battle).items() if campaign.member(name) is not None})
    dead = set(fallen_npcs(battle, campaign))
    npcs = tuple(attrs.evolve(n, dead=True) if n.name in dead else n for n in campaign.npcs)
    return attrs.evolve(campaign, carried=carried, npcs=npcs)


def opening_overrides(campaign: Campaign, battle: Battle, rules: Ruleset) -> list:
    """The overrides that put each party character back as the last fight left it."""
    carried = {name: state for name, state in campaign.carried.items() if campaign.member(name) is not None}
    return carried_overrides(carried, battle, rules.campaign)


def carried_overrides(carried: dict[str, dict[str, Any]], battle: Battle, switches: CampaignRules) -> list:
    """The overrides that put each party character named in `carried` (`capture`'s shape) back
    as it was left, as far as `switches` carry (health, effects, charges, cooldowns)."""
    changes: list = []
    for e in battle.combatants():
        state = carried.get(ident(e).name)
        if ident(e).kind != "character" or not state:
            continue
        target = ident(e).id
        if switches.carry_effects:
            for fx in state.get("effects", []):
                changes.append(ov.AddEffect(target, str(fx["effect"]), int(fx["turns"]),
                                            _fraction(fx.get("magnitude", 0)), fx.get("stat"), CARRIED))
        if switches.carry_charges:
            pools = comp(e, Charges).pools
            for key, n in sorted(state.get("charges", {}).items()):
                difficulty = Difficulty(key)
                if difficulty in pools and int(n) < pools[difficulty]:
                    changes.append(ov.SetCharges(target, key, int(n), CARRIED))
        if switches.carry_cooldowns:
            for name, turns in sorted(state.get("cooldowns", {}).items()):
                if int(turns) > 0 and comp(e, Cooldowns) is not None:
                    changes.append(ov.SetCooldown(target, name, int(turns), CARRIED))
        if switches.carry_health:
            left = min(int(state.get("hp", hp(e).max_hp)), hp(e).max_hp)
            if state.get("presence") != "active":
                left = 0  # it fell last time and nobody raised it: it starts down
            if left < hp(e).hp:
                changes.append(ov.StartHealth(target, max(0, left), CARRIED))
    return changes


def _fraction(value: Any):
    return Fraction(str(value))
