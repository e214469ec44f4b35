"""The initiative tracker's view of a battle (R-8). The GM's reordering is the `Reorder`
override of `engine.overrides`, re-exported here for the tracker's screens."""

from __future__ import annotations

import attrs

from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import Battle, comp, ident, team
from horizon_tui.engine.components import Controller, Presence
from horizon_tui.engine.overrides import Reorder  # noqa: F401 - the GM screens take it from here

__all__ = ["Reorder", "TrackerRow", "acted_this_round", "delay_position", "ready_position", "tracker_rows"]




@attrs.frozen
class TrackerRow:
    id: str
    name: str
    team: str
    controller: str
    state: str  # current | acted | waiting | out
    presence: str


def acted_this_round(battle: Battle) -> set[str]:
    """Who has begun a turn this round: the `turn` events since the last `round` event."""
    acted: set[str] = set()
    for event in reversed(battle.log):
        if isinstance(event, ev.RoundStart):
            break
        if isinstance(event, ev.Turn):
            acted.add(event.actor)
    return acted


def tracker_rows(battle: Battle) -> list[TrackerRow]:
    acted = acted_this_round(battle)
    current = battle.current
    rows = []
    for combatant_id in battle.order:
        e = battle[combatant_id]
        presence = comp(e, Presence)
        if presence is not Presence.active:
            state = "out"
        elif e is current:
            state = "current"
        elif combatant_id in acted:
            state = "acted"
        else:
            state = "waiting"
        rows.append(TrackerRow(combatant_id, ident(e).name, team(e), comp(e, Controller).kind, state, presence.value))
    return rows


def delay_position(battle: Battle, target: str) -> int | str:
    """Delay: one place later, past the next combatant still waiting; a refusal in words if the
    target's turn has begun (its effects have ticked: it would tick twice)."""
    rows = tracker_rows(battle)
    index = next(i for i, r in enumerate(rows) if r.id == target)
    row = rows[index]
    if row.state == "current":
        return "its turn has begun: end it with . (delay a combatant before its turn comes)"
    if row.state == "out":
        return f"{row.name} is out of the battle"
    later = [i for i, r in enumerate(rows) if i > index and r.state != "out"]
    if not later:
        return f"{row.name} is last already"
    return later[0]


def ready_position(battle: Battle, target: str) -> int | str:
    """Ready: act right after the combatant whose turn it is."""
    if target not in battle.order:
        return f"{target} is not in the turn order"
    if battle.current is None:
        return "nobody's turn"
    if target == ident(battle.current).id:
        return "it is acting now"
    if comp(battle[target], Presence) is not Presence.active:
        return f"{ident(battle[target]).name} is out of the battle"
    current_index = battle.order.index(ident(battle.current).id)
    here = battle.order.index(target)
    return current_index + 1 if here > current_index else current_index
