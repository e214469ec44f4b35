"""R-13 hide and what one combatant sees now: the sight questions asked after nearly every move
(the turn's `turns.update_sight`, the AI's `visible_enemies`, the actions' target checks). Compiled
with mypyc (the Makefile's COMPILED list); `engine.sideview` builds a side's read model on them
and lends their names.
"""

from __future__ import annotations

from horizon_tui.engine.battle import Battle, Entity, effects, find, gear, pos, team
from horizon_tui.engine.components import Position


def hidden_from(other: Entity, side: str | None) -> bool:
    """R-13 hide: `other` is hidden from `side` (None = the game master, from whom nothing hides)."""
    fx = effects(other)
    if not fx.active:  # most combatants carry no effect at all
        return False
    return side is not None and team(other) != side and fx.has("hidden")


def sees(battle: Battle, viewer: Entity, other: Entity) -> bool:
    """`viewer` sees `other` now: in its field of view and not hidden from its side (R-13)."""
    at = find(other, Position)
    if at is None or hidden_from(other, team(viewer)):
        return False
    field = battle.battlefield
    view = field.fov_bytes(pos(viewer), gear(viewer).sight_radius)
    return bool(view[at.y * field.width + at.x])


def in_view(battle: Battle, viewer: Entity) -> list[tuple[Entity, int, int]]:
    """The other active combatants on cells in `viewer`'s field of view now, each with its cell,
    in spawn order; hidden ones (R-13) are still in: callers apply `hidden_from` for the side
    asking. One pass per viewer per placement, shared by everyone who asks until someone is
    placed again (the turn's sight, `turns.update_sight`, and the AI's `visible_enemies`):
    positions and who is active change only through `battle.place`, which counts placements.
    The pass reads every active combatant's cell in the field of view's bytes (`Battle.cells`)."""
    stamp = battle.placements
    found = battle.views.get(viewer.uid)
    if found is not None and found[0] == stamp:
        return found[1]
    index = battle.cells()
    seen = index.seen_in(battle.battlefield.fov_flat(pos(viewer), gear(viewer).sight_radius), viewer)
    battle.views[viewer.uid] = (stamp, seen)
    return seen
