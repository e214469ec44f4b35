"""Battle events: every change in a battle is one of these, in order (INTERFACES.md "Battle events").

Each event is a slotted class built positionally (its fields in order, as `FIELDS` lists them) and
stamped with its `round` and `seq` when the battle records it (`Battle.emit`, the log's only
writer); `to_json` gives the one-line JSON object with `type`, `round`, `seq` first, then
`FIELDS` in order. The log is append-only and lives on the battle.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar


class Event:
    """One entry of the log. Equal when of one type with equal fields (round and seq too)."""

    __slots__ = ("round", "seq")
    type: ClassVar[str] = "event"
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq

    def values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "round": self.round, "seq": self.seq}
        for name in self.FIELDS:
            data[name] = getattr(self, name)
        return data

    def to_json(self) -> str:
        return json.dumps(self.payload(), separators=(",", ":"), ensure_ascii=False)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, Event):
            return NotImplemented
        return (self.round, self.seq, self.values()) == (other.round, other.seq, other.values())

    def __hash__(self) -> int:
        return hash((self.type, self.round, self.seq, repr(self.values())))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in ("round", "seq", *self.FIELDS))
        return f"{type(self).__name__}({fields})"


class BattleStart(Event):
    __slots__ = ("seed", "encounter", "combatants")
    type: ClassVar[str] = "battle_start"
    FIELDS: ClassVar[tuple[str, ...]] = ("seed", "encounter", "combatants")

    def __init__(self, seed: int, encounter: str, combatants: list[dict[str, Any]], round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.seed = seed
        self.encounter = encounter
        self.combatants = combatants


class Initiative(Event):
    __slots__ = ("order",)
    type: ClassVar[str] = "initiative"
    FIELDS: ClassVar[tuple[str, ...]] = ("order",)
    # order: [{id, roll, total}]

    def __init__(self, order: list[dict[str, Any]], round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.order = order


class RoundStart(Event):
    __slots__ = ()
    type: ClassVar[str] = "round"
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq


class Turn(Event):
    __slots__ = ("actor", "movement")
    type: ClassVar[str] = "turn"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "movement")

    def __init__(self, actor: str, movement: int = 0, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.movement = movement


class Moved(Event):
    __slots__ = ("actor", "path", "cost", "forced", "reason")
    type: ClassVar[str] = "move"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "path", "cost", "forced", "reason")
    # forced: not of its own will: blindness stumbles (reason "blind"), a GM's move ("gm")

    def __init__(
        self,
        actor: str,
        path: list[list[int]],
        cost: int = 0,
        forced: bool = False,
        reason: str | None = None,
        round: int = 0,
        seq: int = 0,
    ) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.path = path
        self.cost = cost
        self.forced = forced
        self.reason = reason


class Attacked(Event):
    __slots__ = ("actor", "target", "ability", "difficulty", "hit", "crit", "at")
    type: ClassVar[str] = "attack"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "target", "ability", "difficulty", "hit", "crit", "at")
    # at: the aimed cell for area and line abilities

    def __init__(
        self,
        actor: str,
        target: str | None,
        ability: str | None,
        difficulty: str,
        hit: bool,
        crit: bool,
        at: list[int] | None = None,
        round: int = 0,
        seq: int = 0,
    ) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.target = target
        self.ability = ability
        self.difficulty = difficulty
        self.hit = hit
        self.crit = crit
        self.at = at


class Damaged(Event):
    __slots__ = ("target", "amount", "hp", "source")
    type: ClassVar[str] = "damage"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "amount", "hp", "source")

    def __init__(self, target: str, amount: int, hp: int, source: str, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.target = target
        self.amount = amount
        self.hp = hp
        self.source = source


class Healed(Event):
    __slots__ = ("target", "amount", "hp", "source")
    type: ClassVar[str] = "heal"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "amount", "hp", "source")

    def __init__(self, target: str, amount: int, hp: int, source: str, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.target = target
        self.amount = amount
        self.hp = hp
        self.source = source


class EffectEvent(Event):
    __slots__ = ("target", "effect", "duration", "magnitude", "source", "ended", "resisted")
    type: ClassVar[str] = "effect"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "effect", "duration", "magnitude", "source", "ended", "resisted")

    def __init__(
        self,
        target: str,
        effect: str,
        duration: int = 0,
        magnitude: int | float = 0,  # as given: 0 stays 0 in the JSON, not 0.0
        source: str | None = None,
        ended: bool = False,
        resisted: bool = False,
        round: int = 0,
        seq: int = 0,
    ) -> None:
        self.round = round
        self.seq = seq
        self.target = target
        self.effect = effect
        self.duration = duration
        self.magnitude = magnitude
        self.source = source
        self.ended = ended
        self.resisted = resisted


class Check(Event):
    __slots__ = ("actor", "kind", "chance", "success", "outcome", "ability", "target")
    type: ClassVar[str] = "check"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "kind", "chance", "success", "outcome", "ability", "target")
    # kind: difficulty | accuracy | crit | effect | free_action | activation
    # outcome: a failed difficulty check: fizzle | self | random

    def __init__(
        self,
        actor: str,
        kind: str,
        chance: float,
        success: bool,
        outcome: str | None = None,
        ability: str | None = None,
        target: str | None = None,
        round: int = 0,
        seq: int = 0,
    ) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.kind = kind
        self.chance = chance
        self.success = success
        self.outcome = outcome
        self.ability = ability
        self.target = target


class AbilityUsed(Event):
    __slots__ = ("actor", "ability", "difficulty", "charges_left", "cooldown")
    type: ClassVar[str] = "ability"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "ability", "difficulty", "charges_left", "cooldown")

    def __init__(
        self,
        actor: str,
        ability: str,
        difficulty: str,
        charges_left: int | None,
        cooldown: int,
        round: int = 0,
        seq: int = 0,
    ) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.ability = ability
        self.difficulty = difficulty
        self.charges_left = charges_left
        self.cooldown = cooldown


class Swapped(Event):
    __slots__ = ("actor", "removed", "added")
    type: ClassVar[str] = "swap"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "removed", "added")

    def __init__(self, actor: str, removed: str, added: str, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.removed = removed
        self.added = added


class Toggle(Event):
    __slots__ = ("actor", "ability", "active")
    type: ClassVar[str] = "toggle"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "ability", "active")

    def __init__(self, actor: str, ability: str, active: bool, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.ability = ability
        self.active = active


class FreeActionEvent(Event):
    __slots__ = ("actor", "description", "points_left", "target")
    type: ClassVar[str] = "free_action"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "description", "points_left", "target")

    def __init__(
        self,
        actor: str,
        description: str,
        points_left: int,
        target: str | None = None,
        round: int = 0,
        seq: int = 0,
    ) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.description = description
        self.points_left = points_left
        self.target = target


class Waited(Event):
    __slots__ = ("actor", "reason")
    type: ClassVar[str] = "wait"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor", "reason")

    def __init__(self, actor: str, reason: str = 'waits', round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor
        self.reason = reason


class GetUp(Event):
    __slots__ = ("actor",)
    type: ClassVar[str] = "get_up"
    FIELDS: ClassVar[tuple[str, ...]] = ("actor",)

    def __init__(self, actor: str, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.actor = actor


class SideChange(Event):
    __slots__ = ("target", "team")
    type: ClassVar[str] = "side"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "team")

    def __init__(self, target: str, team: str, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.target = target
        self.team = team


class Join(Event):
    __slots__ = ("combatant", "owner")
    type: ClassVar[str] = "join"
    FIELDS: ClassVar[tuple[str, ...]] = ("combatant", "owner")

    def __init__(self, combatant: dict[str, Any], owner: str | None = None, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.combatant = combatant
        self.owner = owner


class Defeated(Event):
    __slots__ = ("target", "state")
    type: ClassVar[str] = "defeated"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "state")
    # state: dead | unconscious (player characters, R-9)

    def __init__(self, target: str, state: str = 'dead', round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.target = target
        self.state = state


class Fled(Event):
    __slots__ = ("target",)
    type: ClassVar[str] = "fled"
    FIELDS: ClassVar[tuple[str, ...]] = ("target",)

    def __init__(self, target: str, round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.target = target


class Override(Event):
    """A GM override: set health, add/remove an effect, charges, cooldowns, position, a forced check."""

    __slots__ = ("target", "what", "value", "reason")
    type: ClassVar[str] = "override"
    FIELDS: ClassVar[tuple[str, ...]] = ("target", "what", "value", "reason")

    def __init__(self, target: str, what: str, value: Any = None, reason: str = '', round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.target = target
        self.what = what
        self.value = value
        self.reason = reason


class Result(Event):
    __slots__ = ("winner", "rounds", "xp")
    type: ClassVar[str] = "result"
    FIELDS: ClassVar[tuple[str, ...]] = ("winner", "rounds", "xp")
    # winner: party | enemies | draw

    def __init__(self, winner: str, rounds: int, xp: dict[str, int], round: int = 0, seq: int = 0) -> None:
        self.round = round
        self.seq = seq
        self.winner = winner
        self.rounds = rounds
        self.xp = xp


EVENT_TYPES: dict[str, type[Event]] = {cls.type: cls for cls in (
    BattleStart, Initiative, RoundStart, Turn, Moved, Attacked, Damaged, Healed, EffectEvent, Check, AbilityUsed,
    Swapped, Toggle, FreeActionEvent, Waited, GetUp, SideChange, Join, Defeated, Fled, Override, Result,
)}
