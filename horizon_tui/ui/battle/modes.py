"""The battlefield's input modes: small objects that turn a key command (the id of a binding in
`play.keymap`, without its `battle.` prefix) into what should happen — `Act(action)` (submit it,
after a question if `ask` is set), `Switch(mode)` (another mode; `None` is back to moving) or
`Stay(say)` (nothing happens; `say` explains, `refused` rings the bell). No Textual here: the
screen applies the outcome, the tests call `on_key` directly.

Every cursor mode (look, travel, target, and the GM's) moves its cursor with the same direction
keys as the character moves, and never scrolls the map instead. Who may be bumped, picked or looked
at is the viewer's read model's (`engine.readmodel`, `known`): a mode never works out sight.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from horizon_tui.content.models import Ability, Target
from horizon_tui.engine import targeting
from horizon_tui.engine.actions import Attack, Move, UseAbility, Wait, first_step_affordable
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import Battle, Entity, comp, gear, hp, ident, pos, team
from horizon_tui.engine.components import Loadout, Presence, TurnState
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.engine.usability import ability_refusal, turn_refusal
from horizon_tui.rules.ranges import distance
from horizon_tui.rules.texts import listed

DIRECTIONS = {
    "up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0),
    "up_left": (-1, -1), "up_right": (1, -1), "down_left": (-1, 1), "down_right": (1, 1),
}


@attrs.frozen
class Act:
    action: object
    ask: str | None = None  # a question to answer yes to first (fleeing)


@attrs.frozen
class Switch:
    mode: Mode | None  # None: back to moving


@attrs.frozen
class Stay:
    say: str = ""
    refused: bool = False


@attrs.frozen
class Place:
    """Put a combatant on a cell (the GM's move override); the screen's `placer` does it."""

    target: str
    cell: tuple[int, int]


Outcome = Act | Switch | Stay | Place


def flee_question(battle: Battle, me: Entity) -> str:
    """What stepping off the edge costs, asked before it happens (R-8 fleeing, R-14 XP)."""
    name = ident(me).name
    others = [e for e in battle.active.values() if team(e) == team(me) and e is not me]
    if others:
        return (f"Flee the battle? {name} leaves it for good and earns no XP from it "
                f"({len(others)} of the side fight on without {name}).")
    return (f"Flee the battle? It counts as a defeat: {name} leaves the battlefield for good, the battle "
            "ends and no XP is earned from it.")


class Mode:
    """A key → an outcome. `cursor` is the cell a cursor mode points at (None when moving)."""

    name = "mode"
    cursor: tuple[int, int] | None = None

    def on_key(self, key: str, me: Entity | None) -> Outcome:
        return Stay()


Known = Callable[[], ReadModel]  # the viewer's read model now (`engine.readmodel.Reader.model`)


def nobody() -> ReadModel:
    """The read model of a mode that picks no one and never asks (`PlaceMode`)."""
    raise LookupError("this mode knows no read model")


AUTO_FIGHT_STOP = 0.3  # Crawl's autofight_stop: below this share of health, Tab refuses (keymap.toml [options])


@attrs.define
class AutoFight:
    """What auto-fight remembers across presses (one per battle screen): the enemies already seen
    (one that comes into view stops it once) and how far the log was read (a blow from someone
    unseen stops it once). `stop`: the share of health below which it refuses, as the player set."""

    stop: float = AUTO_FIGHT_STOP
    seen: set[str] | None = None
    read_to: int = 0

    def refusal(self, battle: Battle, me: Entity, known: ReadModel) -> str | None:
        """Why Tab must not fight on by itself now, or None. Each reason is given once."""
        name = ident(me).name
        health = hp(me)
        if health.max_hp and health.hp < self.stop * health.max_hp:
            # the status line is one line of 80 columns: the acting one's name is on the top line
            return (f"health {health.hp}/{health.max_hp}, below {round(self.stop * 100)} %: fight by hand "
                    "(auto_fight_stop)")
        enemies = [u for u in known.foes() if u.team != team(me)]
        in_sight = {u.id for u in enemies}
        unseen_blow = next((event for event in battle.log[self.read_to:]
                            if isinstance(event, ev.Damaged) and event.target == ident(me).id and event.amount > 0
                            and event.source in battle.by_id and event.source not in in_sight
                            and team(battle.by_id[event.source]) != team(me)), None)
        self.read_to = len(battle.log)
        new = [u for u in enemies if self.seen is not None and u.id not in self.seen]
        self.seen = (self.seen or set()) | in_sight
        if unseen_blow is not None:
            return f"Tab again fights on — something unseen hit {name}, look around first"
        if new:  # what to do first: at 80 columns a long list of names is what gets cut
            return f"Tab again fights on — {listed([u.name for u in new])} just came into view"
        return None


class MoveMode(Mode):
    """Steps (a bump on an enemy attacks), and the keys that open the other modes."""

    name = "move"

    def __init__(self, battle: Battle, known: Known, *, auto: AutoFight | None = None) -> None:
        self.battle = battle
        self.known = known
        self.auto = auto if auto is not None else AutoFight()

    def on_key(self, key: str, me: Entity | None) -> Outcome:
        if key == "look":
            return Switch(LookMode(self.battle, self.known, me, self._look_start(me)))
        if me is None:
            return Stay()  # not the player's turn: only looking
        if key in DIRECTIONS:
            return self.step(me, key)
        if key == "wait":
            return Act(Wait(ident(me).id))
        if key == "travel":
            if comp(me, TurnState).movement_left <= 0:
                return Stay(f"{ident(me).name} has no movement left this turn", refused=True)
            return Switch(TravelMode(self.battle, self.known, me))
        if key == "attack":
            problem = turn_refusal(self.battle, me)
            if problem:
                return Stay(f"Attack: {problem}", refused=True)
            if not self.known().targets["attack"]:
                return Stay("Attack: no enemy in sight", refused=True)
            return TargetMode.for_attack(self.battle, self.known, me).opened()
        if key.startswith("ability"):
            return self.ability(me, int(key[len("ability"):]))
        if key == "next":
            return self.auto_fight(me)
        return Stay()

    def auto_fight(self, me: Entity) -> Outcome:
        """Crawl's Tab: attack the nearest enemy in sight if it is in reach, else walk toward it as
        far as this turn's movement goes, else end the turn; one press, one of those. Once the
        turn's action is spent it ends the turn: walking on after the blow took an archer who had
        just shot from 5 squares to the foe's side (found by hand); afraid (R-10), it waits. Refused
        (saying why, spending nothing) below the health the player set, or when an enemy has just
        come into view or someone unseen hit."""
        known = self.known()
        problem = self.auto.refusal(self.battle, me, known)
        if problem:
            return Stay(f"Auto-fight: {problem}", refused=True)
        enemies = [self.battle[uid] for uid in known.targets["attack"]]
        if not enemies:
            return Stay("Auto-fight: no enemy in sight", refused=True)
        here = pos(me)
        nearest = min(enemies, key=lambda e: (distance(pos(e), here), ident(e).id))
        cannot_act = turn_refusal(self.battle, me)
        if cannot_act is None and targeting.attack_preview(self.battle, me, pos(nearest), known).problem is None:
            return Act(Attack(ident(me).id, ident(nearest).id))
        if cannot_act is not None:
            # the action is spent: the turn ends where the blow was struck; afraid: no attack
            # and no step toward the foe, so it waits rather than walk in
            return Act(Wait(ident(me).id))
        if comp(me, TurnState).movement_left > 0:
            step_to = self._beside(me, nearest)
            if step_to is not None and first_step_affordable(self.battle, me, step_to):
                return Act(Move(ident(me).id, step_to, partial=True))
        return Act(Wait(ident(me).id))  # not even a step is left this turn (rough ground costs 2)

    def _beside(self, me: Entity, enemy: Entity) -> tuple[int, int] | None:
        """The free cell next to `enemy` nearest to `me` (where a step toward it leads)."""
        field = self.battle.battlefield
        here = pos(me)
        free = [c for c in field.neighbours(pos(enemy)) if field.is_walkable(c)
                and (self.battle.at(c) is None or c == here)]
        if here in free:
            return None
        return min(free, key=lambda c: (distance(c, here),
                                        (c[0] - here[0]) ** 2 + (c[1] - here[1]) ** 2, c), default=None)

    def _look_start(self, me: Entity | None) -> tuple[int, int]:
        if me is not None and comp(me, Presence) is Presence.active:
            return pos(me)
        shown = self.known().unit(self.known().current)  # never where an unseen one stands
        return shown.position if shown is not None else (0, 0)

    def step(self, me: Entity, direction: str) -> Outcome:
        dx, dy = DIRECTIONS[direction]
        x, y = pos(me)
        to = (x + dx, y + dy)
        if not self.battle.battlefield.in_bounds(to):
            if comp(me, TurnState).movement_left <= 0:
                return Act(Move(ident(me).id, to))  # refused by the engine (no movement), nothing to ask
            return Act(Move(ident(me).id, to), ask=flee_question(self.battle, me))
        other = self.known().unit_at(to)
        if other is not None and other.team != team(me):
            return Act(Attack(ident(me).id, other.id))  # bump to attack
        return Act(Move(ident(me).id, to))

    def ability(self, me: Entity, number: int) -> Outcome:
        """Slot `number`: refused at the key when it can't be used now (R-6), before any cursor."""
        slotted = list(comp(me, Loadout).slotted)
        if not 1 <= number <= len(slotted):
            return Stay(f"no ability in slot {number}", refused=True)
        name = slotted[number - 1]
        problem = ability_refusal(self.battle, me, name)
        if problem:
            return Stay(f"{name}: {problem}", refused=True)
        ability = gear(me).character.ability(name)
        if ability.target is Target.enemy and not self.known().targets["attack"]:
            return Stay(f"{name}: no enemy in sight", refused=True)
        # a slot's key opens its targeting (on the user for a self ability): enter, or the same key
        # again, confirms; no charge is ever spent in one press
        return TargetMode.for_ability(self.battle, self.known, me, ability, slot_key=f"ability{number}").opened()


class CursorMode(Mode):
    """A cursor on the map: the direction keys move it, tab jumps between targets, esc leaves."""

    name = "cursor"
    picks = "attack"  # which of the read model's targets tab visits (`engine.readmodel.TARGET_KINDS`)

    def __init__(self, battle: Battle, known: Known, me: Entity | None, start: tuple[int, int]) -> None:
        self.battle = battle
        self.known = known
        self.me = me
        self.cursor = start

    def on_key(self, key: str, me: Entity | None) -> Outcome:
        if key in DIRECTIONS:
            dx, dy = DIRECTIONS[key]
            x, y = self.cursor
            if self.battle.battlefield.in_bounds((x + dx, y + dy)):
                self.cursor = (x + dx, y + dy)
            return Stay()
        if key == "cancel":
            return Switch(None)
        if key == "next":
            cells = [pos(e) for e in self.targets()]
            if cells:
                index = (cells.index(self.cursor) + 1) % len(cells) if self.cursor in cells else 0
                self.cursor = cells[index]
            return Stay()
        if key == "confirm":
            return self.confirm()
        return Stay()

    def targets(self) -> list[Entity]:
        if self.me is None and self.picks != "look":
            return []
        return [self.battle[uid] for uid in self.known().targets[self.picks]]

    def confirm(self) -> Outcome:
        return Stay()


class LookMode(CursorMode):
    """Examine any cell; tab visits everyone the viewer can see."""

    name = "look"
    picks = "look"


class TravelMode(CursorMode):
    """Pick a cell; enter walks there along the cheapest path, as far as the movement allows."""

    name = "travel"

    def __init__(self, battle: Battle, known: Known, me: Entity) -> None:
        super().__init__(battle, known, me, pos(me))

    def confirm(self) -> Outcome:
        if self.cursor == pos(self.me):
            return Stay("pick another cell first", refused=True)
        return Act(Move(ident(self.me).id, self.cursor, partial=True))


class TargetMode(CursorMode):
    """Aim an attack, an ability or a free action. `preview(cell)` is the engine's answer for
    the cell (reach, area, odds, why it would be refused); `make(cell)` the action to submit."""

    name = "target"

    def __init__(self, battle: Battle, known: Known, me: Entity, label: str,
                 preview: Callable[[tuple[int, int]], targeting.Preview],
                 make: Callable[[tuple[int, int]], object | None], *, ability: Ability | None = None,
                 start: tuple[int, int] | None = None, free_action: bool = False,
                 slot_key: str | None = None) -> None:
        first = known().targets["attack"]
        super().__init__(battle, known, me, start or (pos(battle[first[0]]) if first else pos(me)))
        self.label = label
        self.preview = preview
        self.make = make
        self.ability = ability
        self.free_action = free_action  # a stock free action: its stated chance, no damage
        self.picks = "ally" if ability is not None and ability.target is Target.ally else "attack"
        self.slot_key = slot_key  # the slot key that opened it: pressed again, it confirms

    @classmethod
    def for_attack(cls, battle: Battle, known: Known, me: Entity) -> TargetMode:
        def make(cell):
            target = known().unit_at(cell)
            return Attack(ident(me).id, target.id) if target is not None else None

        return cls(battle, known, me, "Attack", lambda cell: targeting.attack_preview(battle, me, cell, known()),
                   make)

    @classmethod
    def for_ability(cls, battle: Battle, known: Known, me: Entity, ability: Ability, *,
                    slot_key: str | None = None) -> TargetMode:
        me_id = ident(me).id

        def make(cell):
            if ability.target is Target.self:
                return UseAbility(me_id, ability.name)
            if ability.target in (Target.area, Target.line):
                return UseAbility(me_id, ability.name, at=cell)
            target = known().unit_at(cell)
            return UseAbility(me_id, ability.name, target=target.id) if target is not None else None

        return cls(battle, known, me, ability.name,
                   lambda cell: targeting.ability_preview(battle, me, ability, cell, known()), make,
                   ability=ability, start=pos(me) if ability.target in (Target.ally, Target.self) else None,
                   slot_key=slot_key)

    def on_key(self, key: str, me: Entity | None) -> Outcome:
        if self.slot_key is not None and key == self.slot_key:
            return self.confirm()
        return super().on_key(key, me)

    def targets(self) -> list[Entity]:
        if self.ability is not None and self.ability.target is Target.self:
            return [self.me]
        return super().targets()

    def opened(self) -> Outcome:
        """Switch to this cursor, unless no target could be picked at all: then say why at the
        key (the nearest one's reason), before any cursor and spending nothing."""
        aimed_at_cells = self.ability is not None and self.ability.target in (Target.area, Target.line)
        targets = self.targets()
        if not aimed_at_cells and targets:
            problems = [self.preview(pos(e)).problem for e in targets]
            if all(problems):
                return Stay(f"{self.label}: {problems[0]}", refused=True)
        return Switch(self)



    def confirm(self) -> Outcome:
        problem = self.preview(self.cursor).problem
        if problem:
            return Stay(f"{self.label}: {problem}", refused=True)
        action = self.make(self.cursor)
        if action is None:
            return Stay(f"{self.label}: no one there", refused=True)
        return Act(action)


class PlaceMode(CursorMode):
    """The GM's: pick any cell of the map to put a combatant on; enter puts it there (`Place`),
    esc leaves. A wall or a taken cell is marked (`open_cell`)."""

    name = "place"

    def __init__(self, battle: Battle, target: str, start: tuple[int, int]) -> None:
        super().__init__(battle, nobody, None, start)
        self.target = target

    def targets(self) -> list[Entity]:
        return []

    @property
    def open_cell(self) -> bool:
        field = self.battle.battlefield
        return (field.in_bounds(self.cursor) and field.is_walkable(self.cursor)
                and self.cursor not in self.battle.occupancy)

    def confirm(self) -> Outcome:
        return Place(self.target, self.cursor)  # the engine refuses a wall or a taken cell, saying so
