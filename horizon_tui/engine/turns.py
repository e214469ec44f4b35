"""R-8 turn order and the turn's start; R-6 passives before battle; R-14 the end and the reward."""

from __future__ import annotations

from collections import deque


from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import (
    ENEMIES, PARTY, Battle, Entity, cid, comp, current_attributes,
    effects, ident, is_active, movement_budget, pos, remember, set_turn_state, stats, team,
)
from horizon_tui.engine.components import (
    Controller, Memory, Presence, TurnState,
)
from horizon_tui.engine.effects import expire_turn_effects, tick_effects
from horizon_tui.engine.sight import hidden_from, in_view
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.reward import equal_shares
from horizon_tui.rules.turns import initiative_key


def free_cell_near(battle: Battle, origin: tuple[int, int]) -> tuple[int, int] | None:
    """The nearest walkable, unoccupied cell to `origin` (breadth-first, deterministic order)."""
    field = battle.battlefield
    seen = {origin}
    queue = deque([origin])
    while queue:
        xy = queue.popleft()
        if xy != origin and field.is_walkable(xy) and xy not in battle.occupancy:
            return xy
        for n in field.neighbours(xy):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return None


def roll_initiative(battle: Battle) -> None:
    """R-8 [H]: initiative + 1d6, higher first; ties to higher agility, then a seeded coin."""
    die = parse_dice(battle.rules.turns.initiative_die)
    entries = []
    for e in battle.combatants():
        if ident(e).kind == "companion":
            continue  # companions act right after their owner
        roll = die.roll(battle.rng)
        coin = battle.rng.random()
        entries.append((e, roll, stats(e)["initiative"] + roll, coin))
    entries.sort(key=lambda t: initiative_key(t[2], current_attributes(t[0]).get("agility", 0), t[3]))
    companions: dict[str, list[str]] = {}  # by owner, in spawn order: one pass, not one per entry
    for c in battle.combatants():
        owner = ident(c).owner
        if owner is not None:
            companions.setdefault(owner, []).append(cid(c))
    order = []
    for e, *_ in entries:
        order.append(cid(e))
        order += companions.get(cid(e), ())
    battle.order = order
    battle.emit(ev.Initiative([
        {"id": cid(e), "roll": roll, "total": float(total)} for e, roll, total, _ in entries
    ]))


def update_sight(battle: Battle, e: Entity) -> None:
    """Who this combatant sees now joins its memory (R-11: "seen at least once")."""
    if not is_active(e):
        return
    memory = comp(e, Memory)
    me = e.uid
    # Nobody placed since its last look and its memory untouched: it would learn nothing new.
    seen_at = battle.looks.get(me)
    if seen_at is not None and seen_at[0] == battle.placements and seen_at[1] is memory:
        return
    known = memory.last_known
    side = team(e)
    news = None  # those seen somewhere it doesn't know them to be (new, or moved)
    for other, x, y in in_view(battle, e):  # one sight pass per placement, shared with the AI
        # Where it already knows them to be first: most haven't moved since it last looked.
        at = known.get(other.uid)
        if at is None or at[0] != x or at[1] != y:  # on its numbers: `!= (x, y)` builds a tuple to compare
            if hidden_from(other, side):
                continue  # R-13 hide: the other side doesn't see it, so learns nothing new of it
            if news is None:
                news = {}
            news[other.uid] = other.cell  # the (x, y) it stands on, as `Battle.place` keeps it (no new tuple)
    if news is None:
        battle.looks[me] = (battle.placements, memory)
        return
    remember(battle, e, news)  # its look at this placement stays unrecorded: the next one looks again, as before


def start(battle: Battle) -> None:
    """Begin the first round (after set-up); stops at the first turn that needs a decision."""
    battle.index = -1
    advance(battle)


def advance(battle: Battle, *, count_off: bool = True) -> None:
    """End the current turn and begin the next combatant's, skipping those out of the battle.
    Turns that run themselves (stunned, getting up) pass straight on. `count_off=False`: the turn
    ending is not counted off (a GM's `overrides.Hold`: it is taken up again later)."""
    while True:
        ending = battle.current
        if not count_off:
            count_off = True  # only the held turn; those passed over after it end as any turn
        elif ending is not None and is_active(ending) and effects(ending).active:
            expire_turn_effects(battle, ending)  # the covered turn is counted off
        if check_end(battle) or not battle.order:
            return
        battle.index += 1
        if battle.index >= len(battle.order) or battle.round == 0:
            battle.index = 0
            battle.round += 1
            if battle.round > battle.rules.turns.round_cap:
                battle.round -= 1
                finish(battle, "draw")
                return
            battle.emit(ev.RoundStart())
        e = battle.by_id[battle.order[battle.index]]
        if not is_active(e):
            continue
        if begin_turn(battle, e):
            return


def begin_turn(battle: Battle, e: Entity) -> bool:
    """Start `e`'s turn (R-8, R-10). True if it now waits for a decision; False if the turn
    already ended by itself (stunned, getting up, fallen to bleeding)."""
    state = comp(e, TurnState)
    if battle.held_turns and battle.held_turns.pop(e.uid, None) == battle.round:
        # a turn the GM held (overrides.Hold) taken up again: it goes on as it was left, not begun twice
        battle.emit(ev.Turn(e.uid, state.movement_left))
        update_sight(battle, e)
        return True
    budget = movement_budget(battle, e)
    set_turn_state(e, state.own_turns + 1, budget, False)
    battle.emit(ev.Turn(e.uid, budget))
    fx = effects(e)
    if not fx.active:  # most turns: nothing to tick, nothing that stops or blinds it
        update_sight(battle, e)
        return True
    stunned = fx.has("stun")
    tick_effects(battle, e)
    if not is_active(e) or check_end(battle):
        return False
    fx = effects(e)
    knocked = fx.get("knockdown")
    if knocked is not None:  # a covered turn spent on the ground, the last getting up
        if knocked.turns_left <= 1:
            battle.emit(ev.GetUp(cid(e)))
        else:
            battle.emit(ev.Waited(cid(e), "down"))
        return False
    if stunned:
        battle.emit(ev.Waited(cid(e), "stunned"))
        return False
    update_sight(battle, e)
    if fx.has("blindness"):
        _stumble(battle, e)
        if not is_active(e) or check_end(battle):
            return False
    return True


def _stumble(battle: Battle, e: Entity) -> None:
    """R-10 blindness: the combatant moves to a random free neighbouring cell."""
    field = battle.battlefield
    options = [n for n in field.neighbours(pos(e)) if field.is_walkable(n) and n not in battle.occupancy]
    state = comp(e, TurnState)
    if options:
        xy = options[battle.rng.randrange(len(options))]
        battle.place(e, xy)
        battle.emit(ev.Moved(cid(e), [list(xy)], 0, True, "blind"))
    set_turn_state(e, state.own_turns, 0, state.acted)


def sides_present(battle: Battle) -> set[str]:
    return set(battle.sides)


def check_end(battle: Battle) -> bool:
    """R-14: the battle ends when one side has nobody able to act and present."""
    if battle.result is not None:
        return True
    if battle.round == 0 and not battle.order:
        return False
    present = battle.sides  # runs after every action: the index of who is on which side, no scan
    if PARTY in present and ENEMIES in present:
        return False
    finish(battle, PARTY if PARTY in present else ENEMIES if ENEMIES in present else "draw")
    return True


def finish(battle: Battle, winner: str) -> None:
    """R-14 [H]: the player characters still standing share the defeated enemies' XP equally
    (rules.reward.equal_shares); the xp table lists them in the order they were placed."""
    pool = sum(ident(e).xp_value for e in battle.combatants()
               if ident(e).base_team == ENEMIES and comp(e, Presence) is Presence.dead)
    characters = [e for e in battle.combatants() if ident(e).kind == "character" and not ident(e).ally]
    standing = [ident(e).name for e in characters if is_active(e)]
    xp = equal_shares(pool, standing, others=(ident(e).name for e in characters))
    battle.result = battle.emit(ev.Result(winner, battle.round, xp))


def controller(e: Entity) -> Controller:
    return comp(e, Controller)
