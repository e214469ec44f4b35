"""The battle screen's key table beyond the battle's own (`play.keymap.battle_bindings`): the
keys of its parts (`ui.battle.parts`), each `part(NAME, command, *args)`, on only where the screen
has a part of that name that offers the command. Where it is on, a part's key shadows the
battle's same key (the GM's + and - set health, not the AI's speed: `shadowed`), and of two parts'
the first here wins (a table's `c` talks); ids stay as they were, so a keymap file rebinds them
alike.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding


PART_COMMANDS: dict[str, tuple[str, str]] = {}  # a part key's action → (part name, command)


def part_key(key: str, name: str, command: str, *args: object, description: str, id: str, **more) -> Binding:
    """A binding to `command` of the screen's part `name`."""
    params = "".join(f", {arg!r}" for arg in args)
    action = f"part({name!r}, {command!r}{params})"
    PART_COMMANDS[action] = (name, command)
    return Binding(key, action, description, id=id, **more)


# A live table, every seat (`table_screen.TableControls`).
TABLE_KEYS = [
    part_key("f6", "table", "pause", description="Pause", id="table.pause"),
    part_key("f7", "table", "requests", description="Requests", id="table.requests"),
    part_key("f8", "table", "undo", description="Undo", id="table.undo"),
    part_key("f9", "table", "ask", description="Ask the GM", id="table.ask"),
    part_key("ctrl+g", "table", "gm_seat", description="GM's seat", id="table.gm_seat", show=False,
             tooltip="At one keyboard: the GM takes the keyboard (again: back to whose turn it is)"),
    part_key("ctrl+l", "table", "leave", description="Leave the table", id="table.leave"),
    part_key("c", "table", "talk", description="Talk", id="table.talk"),
]

# The GM at a live table (`ui.gm.screens.table.CampaignTable`).
GM_TABLE_KEYS = [
    part_key("ctrl+z", "gm_table", "undo", description="Undo", id="gmtable.undo", show=False,
             tooltip="At a table the undo is the table's: every screen follows"),
]

# The GM's campaign fight at this keyboard (`ui.gm.screens.gm_battle.CampaignFight`).
FIGHT_KEYS = [
    part_key("f", "fight", "free_action", description="Free action", id="battle.free"),
    part_key("P", "fight", "make_ability", description="Ruling→ability", id="gmb.ability",
             tooltip="Write the last free action's ruling down as a permanent ability"),
    part_key("q", "fight", "leave", description="Leave", id="gmb.leave"),
]

# The GM's hand, at this keyboard and at a table (`ui.gm.screens.tracker.GMHand`).
GM_HAND_KEYS = [
    part_key("left_square_bracket", "gm", "select", -1, description="Previous", id="gmb.prev", key_display="[",
             show=False),
    part_key("right_square_bracket", "gm", "select", 1, description="Next", id="gmb.next", key_display="]",
             show=False),
    part_key("left_curly_bracket", "gm", "shift", -1, description="Earlier", id="gmb.earlier", key_display="{",
             show=False, tooltip="Move the selected combatant one place earlier in the turn order"),
    part_key("right_curly_bracket", "gm", "shift", 1, description="Later", id="gmb.later", key_display="}",
             show=False, tooltip="Move the selected combatant one place later in the turn order"),
    part_key("d", "gm", "hold", description="Delay/hold", id="gmb.delay",
             tooltip="Hold the selected combatant out of the order (the acting one too); on a held one: "
                     "it re-enters after this turn"),
    part_key("e", "gm", "ready", description="Ready", id="gmb.ready",
             tooltip="The selected combatant acts right after this turn"),
    part_key("c", "gm", "controller", description="Player/GM/AI", id="gmb.controller",
             tooltip="The selected combatant's next controller: player → GM → AI"),
    part_key("p", "gm", "controller_to", "player", description="To a player", id="gmb.to_player", show=False,
             tooltip="The selected combatant played by its player"),
    part_key("g", "gm", "controller_to", "gm", description="To the GM", id="gmb.to_gm", show=False,
             tooltip="The selected combatant played by the GM"),
    part_key("I", "gm", "controller_to", "ai", description="To the AI", id="gmb.to_ai", show=False,
             tooltip="The selected combatant played by its AI"),
    part_key("C", "gm", "party_to_ai", description="Party to AI", id="gmb.party_ai", show=False,
             tooltip="The whole party played by the AI"),
    part_key("plus,equals_sign", "gm", "health", 1, description="Health +1", id="gmb.health_up", key_display="+",
             show=False, tooltip="The selected combatant's health one up"),
    part_key("minus", "gm", "health", -1, description="Health −1", id="gmb.health_down", key_display="-",
             show=False, tooltip="The selected combatant's health one down"),
    part_key("o", "gm", "override", description="Override", id="gmb.override"),
    part_key("space", "gm", "mark", description="Mark", id="gmb.mark", key_display="space",
             tooltip="Mark the selected combatant: D, H and T act on all marked (m is the battle log)"),
    part_key("D", "gm", "damage", description="Damage", id="gmb.damage",
             tooltip="Damage by an amount (the marked, or the selected)"),
    part_key("H", "gm", "heal", description="Heal", id="gmb.heal",
             tooltip="Heal by an amount (the marked, or the selected)"),
    part_key("T", "gm", "temp_health", description="Temp health", id="gmb.temp", show=False,
             tooltip="Temporary health (the marked, or the selected): lost before health"),
    part_key("v", "gm", "revive", description="Revive", id="gmb.revive",
             tooltip="Bring the selected fallen combatant back"),
    part_key("A", "gm", "add_combatant", description="Add", id="gmb.add",
             tooltip="A combatant joins: catalogue, NPC or stat line"),
    part_key("W", "gm", "withdraw", description="Withdraw", id="gmb.withdraw", show=False,
             tooltip="Take the selected combatant out of the fight"),
    part_key("i", "gm", "initiative", description="Initiative", id="gmb.initiative", show=False,
             tooltip="Write the selected combatant's initiative total"),
    part_key("R", "gm", "reveal", description="Reveal", id="gmb.reveal", show=False,
             tooltip="The selected hidden combatant is seen"),
]

# In this order: a table's `c` (talk) before the GM's (controller).
PART_KEYS = [*TABLE_KEYS, *GM_TABLE_KEYS, *FIGHT_KEYS, *GM_HAND_KEYS]


def shadowed(own: list[Binding], offered: Callable[[str, str], bool]) -> frozenset[str]:
    """The actions of `own` (the battle's bindings; by name, as `check_action` is asked) whose key
    a part's offered key takes."""
    taken = {key for b in PART_KEYS if offered(*PART_COMMANDS[b.action]) for key in b.key.split(",")}
    return frozenset(b.action.split("(", 1)[0] for b in own if any(key in taken for key in b.key.split(",")))
