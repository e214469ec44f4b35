"""What one side may know of a battle now: the one R-13 sight / hidden rule and a plain read model.

`hidden_from` is R-13's hide, in one place (engine.sight, compiled, with `sees` and `in_view`:
asked after nearly every move): a hidden combatant is neither seen nor targetable by the other
side (its own side still sees it). `sees` is one combatant's sight (its field of view, less the
hidden); `side_view` is what a whole side knows — the cells its active members see now,
the cells it has seen (from where its members stood after each move, and now), and the units it
can see, each with position, health and effects with their turns left (R-10's count,
`effect_turns_left`). The player's map, the GM's screens, the AI and the simulator read this; a
screen only formats it. Plain attrs data and numpy masks: no Textual.
"""

from __future__ import annotations

import attrs
import numpy as np

from horizon_tui.engine import events as ev
from horizon_tui.engine.battlefield import as_cell
from horizon_tui.engine.battle import Battle, Entity, effects, find, gear, hp, ident, pos, team
from horizon_tui.engine.components import ActiveEffect, Position
from horizon_tui.engine.sight import hidden_from, in_view as in_view, sees as sees  # lent: one definition each
from horizon_tui.rules.ranges import distance


def effect_turns_left(effect: ActiveEffect) -> int:
    """R-10: how many of its holder's own turns the effect still covers, the turn in progress
    included once it has begun under the effect (the model: `engine.effects`'s docstring)."""
    return effect.turns_left


@attrs.frozen
class EffectView:
    name: str
    turns_left: int
    magnitude: float
    stat: str | None = None


@attrs.frozen
class UnitView:
    id: str
    name: str
    glyph: str
    team: str
    kind: str
    level: int
    position: tuple[int, int]
    hp: int
    max_hp: int
    effects: tuple[EffectView, ...] = ()
    kind_name: str = ""  # its kind as a legend names it (the enemy's data name; a character's own)
    distance: int | None = None  # R-11 distance from the one acting (0: adjacent), in a read model


class KnownUnits:
    """Looking up the units a view holds (`SideView`, `engine.readmodel.ReadModel`)."""

    units: tuple[UnitView, ...]

    def unit(self, combatant_id: str | None) -> UnitView | None:
        for u in self.units:
            if u.id == combatant_id:
                return u
        return None

    def unit_at(self, xy: tuple[int, int]) -> UnitView | None:
        for u in self.units:
            if u.position == xy:
                return u
        return None


@attrs.frozen(eq=False)
class SideView(KnownUnits):
    """What `side` may know now (None = the game master, who knows everything)."""

    side: str | None
    round: int
    visible: np.ndarray  # bool [y, x]: seen now
    remembered: np.ndarray  # bool [y, x]: seen at some point this battle (`visible` included)
    units: tuple[UnitView, ...]  # active combatants it can see (its own always), in spawn order


Eyes = frozenset[str] | None  # whose sight counts: these combatant ids of the side; None: all its members


def eyes_open(battle: Battle, side: str | None, eyes: Eyes) -> Eyes:
    """Per-character sight: `eyes` while one of them is still in the battle; once all
    of them are down or gone, their player watches with the whole side's eyes (None)."""
    if eyes is None or side is None:
        return None
    for uid in eyes:
        e = battle.active.get(uid)
        if e is not None and team(e) == side and find(e, Position) is not None:
            return eyes
    return None


def visible_cells(battle: Battle, side: str | None, eyes: Eyes = None) -> np.ndarray:
    """The union of the side's active members' fields of view (everything for the GM); with
    `eyes`, only those members' (`eyes_open`)."""
    field = battle.battlefield
    if side is None:
        return np.ones((field.height, field.width), dtype=bool)
    eyes = eyes_open(battle, side, eyes)
    seen = np.zeros((field.height, field.width), dtype=bool)
    for uid, e in battle.active.items():
        at = find(e, Position)
        if team(e) == side and at is not None and (eyes is None or uid in eyes):
            seen |= field.fov(at.xy, gear(e).sight_radius)
    return seen


def remembered_cells(battle: Battle, side: str | None, visible: np.ndarray | None = None,
                     eyes: Eyes = None) -> np.ndarray:
    """Every cell the side (or, with `eyes`, those members) has seen: from where they stood at the
    start (or joined), after each move of the log, and now. Derived from the log (kept up to date
    in the battle's memo), never state: a battle replayed from its inputs (a resumed save)
    remembers what the one played on did, the start's view with it."""
    field = battle.battlefield
    if side is None:
        return np.ones((field.height, field.width), dtype=bool)
    eyes = eyes_open(battle, side, eyes)
    key = ("remembered", side, eyes)
    found = battle.memo.get(key)
    if found is None or found[0] > len(battle.log):
        found = (0, np.zeros((field.height, field.width), dtype=bool), {})
    done, mask, teams = found
    mask = mask.copy()
    teams = dict(teams)
    for event in battle.log[done:]:
        if isinstance(event, ev.SideChange):
            teams[event.target] = event.team
            continue
        if isinstance(event, ev.Moved) and event.path:
            stood = [(event.actor, as_cell(event.path[-1]))]
        elif isinstance(event, (ev.BattleStart, ev.Join)):
            placed = event.combatants if isinstance(event, ev.BattleStart) else [event.combatant]
            stood = [(str(c.get("id")), (x, y)) for c in placed
                     if isinstance(x := c.get("x"), int) and isinstance(y := c.get("y"), int)]
        else:
            continue
        for actor, cell in stood:
            who = battle.by_id.get(actor)
            if who is None:
                continue
            if (field.in_bounds(cell) and teams.get(actor, ident(who).base_team) == side
                    and (eyes is None or actor in eyes)):
                mask |= field.fov(cell, gear(who).sight_radius)
    mask |= visible if visible is not None else visible_cells(battle, side, eyes)
    battle.memo[key] = (len(battle.log), mask, teams)
    return mask.copy()


def unit_view(e: Entity) -> UnitView:
    i, h = ident(e), hp(e)
    shown = tuple(EffectView(fx.effect, effect_turns_left(fx), float(fx.magnitude), fx.stat)
                  for fx in effects(e).active)
    return UnitView(i.id, i.name, i.glyph, team(e), i.kind, i.level, pos(e), h.hp, h.max_hp, shown)


def visible_units(battle: Battle, side: str | None, visible: np.ndarray | None = None,
                  eyes: Eyes = None) -> list[Entity]:
    """Active combatants `side` can see now: its own, and others on a cell it sees (with `eyes`:
    those members see) and not hidden from it (R-13). Spawn order."""
    if visible is None:
        visible = visible_cells(battle, side, eyes)
    found = []
    for e in battle.active.values():
        at = find(e, Position)
        if at is None:
            continue
        if side is None or team(e) == side or (visible[at.y, at.x] and not hidden_from(e, side)):
            found.append(e)
    return found


def side_view(battle: Battle, side: str | None, eyes: Eyes = None) -> SideView:
    """What `side` may know now (R-13): see the module's docstring. With `eyes`, what those of
    its members see (a player at a live table sees through their own characters' eyes)."""
    visible = visible_cells(battle, side, eyes)
    remembered = remembered_cells(battle, side, visible, eyes)
    units = tuple(unit_view(e) for e in visible_units(battle, side, visible))
    return SideView(side, battle.round, visible, remembered, units)


def targetable(battle: Battle, actor: Entity, eyes: Eyes = None) -> list[Entity]:
    """The other side's combatants `actor`'s side sees now (with `eyes`: those members see) and
    may pick (hidden ones excluded, R-13), nearest first, ties by id. Range and line of sight
    stay with each action."""
    side, here = team(actor), pos(actor)
    found = [e for e in visible_units(battle, side, eyes=eyes) if team(e) != side]
    return sorted(found, key=lambda e: (distance(here, pos(e)), e.uid))


def unseen_ids(battle: Battle, side: str | None, eyes: Eyes = None) -> frozenset[str]:
    """The combatants in the battle that `side` (with `eyes`: those members) can't see now: the
    names its log leaves out (`engine.narrate.describe`). Nothing is unseen by the GM."""
    if side is None:
        return frozenset()
    seen = {e.uid for e in visible_units(battle, side, eyes=eyes)}
    return frozenset(cid for cid in battle.active if cid not in seen)
