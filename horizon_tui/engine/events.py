"""Battle events: every change in a battle is one of these, in order (INTERFACES.md "Battle events").

Each event is a frozen attrs class with a `type` name; `to_json` gives the one-line JSON object
with `type`, `round`, `seq` first. The log is append-only and lives on the battle.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import attrs

from horizon_tui.engine.frozen import quick_init


@attrs.frozen(kw_only=True)
class Event:
    type: ClassVar[str] = "event"
    round: int = 0
    seq: int = 0

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "round": self.round, "seq": self.seq}
        for field in attrs.fields(type(self)):
            if field.name not in ("round", "seq"):
                data[field.name] = getattr(self, field.name)
        return data

    def to_json(self) -> str:
        return json.dumps(self.payload(), separators=(",", ":"), ensure_ascii=False)


def _event(name: str):
    def wrap(cls):
        cls.type = name
        EVENT_TYPES[name] = cls
        return quick_init(cls)  # the log gets several a turn: attrs' frozen __init__ was a few % of a battle

    return wrap


EVENT_TYPES: dict[str, type[Event]] = {}


@_event("battle_start")
@attrs.frozen(kw_only=True)
class BattleStart(Event):
    seed: int
    encounter: str
    combatants: list[dict[str, Any]]


@_event("initiative")
@attrs.frozen(kw_only=True)
class Initiative(Event):
    order: list[dict[str, Any]]  # [{id, roll, total}]


@_event("round")
@attrs.frozen(kw_only=True)
class RoundStart(Event):
    pass


@_event("turn")
@attrs.frozen(kw_only=True)
class Turn(Event):
    actor: str
    movement: int = 0


@_event("move")
@attrs.frozen(kw_only=True)
class Move(Event):
    actor: str
    path: list[list[int]]
    cost: int = 0
    forced: bool = False  # not of its own will: blindness stumbles (reason "blind"), a GM's move ("gm")
    reason: str | None = None


@_event("attack")
@attrs.frozen(kw_only=True)
class Attack(Event):
    actor: str
    target: str | None
    ability: str | None
    difficulty: str
    hit: bool
    crit: bool
    at: list[int] | None = None  # the aimed cell for area and line abilities


@_event("damage")
@attrs.frozen(kw_only=True)
class Damage(Event):
    target: str
    amount: int
    hp: int
    source: str


@_event("heal")
@attrs.frozen(kw_only=True)
class Heal(Event):
    target: str
    amount: int
    hp: int
    source: str


@_event("effect")
@attrs.frozen(kw_only=True)
class EffectEvent(Event):
    target: str
    effect: str
    duration: int = 0
    magnitude: float = 0
    source: str | None = None
    ended: bool = False
    resisted: bool = False


@_event("check")
@attrs.frozen(kw_only=True)
class Check(Event):
    actor: str
    kind: str  # difficulty | accuracy | crit | effect | free_action | activation
    chance: float
    success: bool
    outcome: str | None = None  # a failed difficulty check: fizzle | self | random
    ability: str | None = None
    target: str | None = None


@_event("ability")
@attrs.frozen(kw_only=True)
class AbilityUsed(Event):
    actor: str
    ability: str
    difficulty: str
    charges_left: int | None
    cooldown: int


@_event("swap")
@attrs.frozen(kw_only=True)
class Swap(Event):
    actor: str
    removed: str
    added: str


@_event("toggle")
@attrs.frozen(kw_only=True)
class Toggle(Event):
    actor: str
    ability: str
    active: bool


@_event("free_action")
@attrs.frozen(kw_only=True)
class FreeActionEvent(Event):
    actor: str
    description: str
    points_left: int
    target: str | None = None


@_event("wait")
@attrs.frozen(kw_only=True)
class Wait(Event):
    actor: str
    reason: str = "waits"


@_event("get_up")
@attrs.frozen(kw_only=True)
class GetUp(Event):
    actor: str


@_event("side")
@attrs.frozen(kw_only=True)
class SideChange(Event):
    target: str
    team: str


@_event("join")
@attrs.frozen(kw_only=True)
class Join(Event):
    combatant: dict[str, Any]
    owner: str | None = None


@_event("defeated")
@attrs.frozen(kw_only=True)
class Defeated(Event):
    target: str
    state: str = "dead"  # dead | unconscious (player characters, R-9)


@_event("fled")
@attrs.frozen(kw_only=True)
class Fled(Event):
    target: str


@_event("override")
@attrs.frozen(kw_only=True)
class Override(Event):
    """A GM override: set health, add/remove an effect, charges, cooldowns, position, a forced check."""

    target: str
    what: str
    value: Any = None
    reason: str = ""


@_event("result")
@attrs.frozen(kw_only=True)
class Result(Event):
    winner: str  # party | enemies | draw
    rounds: int
    xp: dict[str, int]
