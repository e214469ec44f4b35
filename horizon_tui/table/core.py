"""A live table: one authoritative battle, many seats.

The battle lives here; every view is fed the accepted inputs, as battle saves already replay from
seed + inputs (`engine.persist`, `engine.runner`). A view keeps a `Replica` and applies each
`Update`, so all views reach the same log (the same `log_digest`) without ever sharing memory.

Seats: the GM controls everything that no player holds and may override, pause and undo; a player
acts only for their own characters on their own turns; a spectator only watches. A player who is
away for their turn longer than `absent_wait_s` is handed to the AI (a recorded `SetController`,
so it replays), and handed back when they return. Requests a player can't grant themselves (a free
action's ruling, an override, a dialogue check) wait in a queue for the GM.

No transport and no clock of its own: `table.server` carries it over a local socket, and a
hot-seat game can drive it in one process.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import attrs

from horizon_tui.engine.actions import Impossible, perform
from horizon_tui.engine.battle import Battle, cid, comp
from horizon_tui.engine.components import Controller
from horizon_tui.engine.overrides import OVERRIDE_TYPES, SetController
from horizon_tui.engine.persist import BattleInProgress, log_digest
from horizon_tui.engine.runner import (
    Input,
    action_from_dict,
    action_to_dict,
    needs_input,
    run_ai,
)
from horizon_tui.table.talk import TalkLine, TalkRefused, TalkRoom

ROLES = ("gm", "player", "spectator")
REQUEST_KINDS = ("free_action", "override", "dialogue")
MAX_REQUEST_TEXT = 500
MAX_QUEUE = 50
MAX_REQUEST_NUMBER = 10**6


class TableError(Exception):
    """A seat asked for something it may not do now (the reason is for that seat's screen)."""


@attrs.define
class Seat:
    name: str  # the account (over SSH) or the player's name at a hot-seat table
    role: str  # gm | player | spectator
    characters: tuple[str, ...] = ()  # combatant ids this seat plays
    connected: bool = False
    away_since: float | None = None  # when it was last seen leaving; None while connected


@attrs.frozen
class Request:
    id: int
    seat: str
    kind: str
    text: str
    combatant: str | None
    target: str | None = None  # the combatant it is aimed at, if any
    number: int | None = None  # what the player proposes: a chance in %, an amount


@attrs.frozen
class Update:
    """What every view applies, in order: `version` counts accepted inputs; on `reset` (an undo)
    a view rebuilds from `inputs`, otherwise it appends them."""

    version: int
    inputs: tuple[dict[str, Any], ...]
    reset: bool = False
    paused: bool = False
    note: str = ""
    lobby: bool = False  # the fight hasn't begun: the seats gather and talk until the GM starts it

    def to_dict(self) -> dict[str, Any]:
        return {"type": "update", "version": self.version, "inputs": list(self.inputs), "reset": self.reset,
                "paused": self.paused, "note": self.note, "lobby": self.lobby}


def input_to_dict(item: Input) -> dict[str, Any]:
    return {"at": item.at, "auto_end": item.auto_end, "action": action_to_dict(item.action)}


def input_from_dict(data: Any) -> Input:
    """ValueError for anything that isn't an input this version knows (hostile or stale)."""
    if not isinstance(data, dict) or not isinstance(data.get("action"), dict):
        raise ValueError("an input is {at, auto_end, action}")
    at = data.get("at")
    if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= 10**7:
        raise ValueError("an input's `at` is a log position")
    try:
        action = action_from_dict(data["action"])
    except Exception as exc:  # noqa: BLE001 - any malformed action is the sender's problem
        raise ValueError(f"not an action this version knows ({type(exc).__name__})") from None
    return Input(at, action, bool(data.get("auto_end", True)))


class Table:
    """The authoritative side. `rebuild(inputs)` makes a fresh battle replayed to `inputs` (used
    for undo); `session` is the live one."""

    def __init__(self, session: BattleInProgress, seats: list[Seat], rebuild: Callable[[list[Input]], Battle], *,
                 absent_wait_s: float = 60.0, kept: int = 0, lobby: bool = False):
        if sum(seat.role == "gm" for seat in seats) > 1:
            raise ValueError("a table has at most one GM")
        for seat in seats:
            if seat.role not in ROLES:
                raise ValueError(f"a seat's role is one of {', '.join(ROLES)}")
        self.session = session
        self.seats = {seat.name: seat for seat in seats}
        self.rebuild = rebuild
        self.absent_wait_s = absent_wait_s
        self.kept = kept  # the battle's opening inputs (carried from the last fight): no undo takes them
        self.in_lobby = lobby  # seats gather (and talk) before the fight; the GM starts it (`pause`)
        self.paused = lobby
        self.closed = False  # the GM closed the table: its process saves and ends
        self.requests: dict[int, Request] = {}
        self._ids = itertools.count(1)
        self._handed_to_ai: set[str] = set()  # combatants the table gave the AI for an absent seat
        self.talk_room = TalkRoom(session.battle.seed)  # the table's talk and its dice (`table.talk`)

    # -- what a view needs -------------------------------------------------------------------
    @property
    def battle(self) -> Battle:
        return self.session.battle

    @property
    def version(self) -> int:
        return len(self.session.inputs)

    def digest(self) -> str:
        return log_digest(self.battle)

    def snapshot(self) -> dict[str, Any]:
        """Everything a joining (or returning) view needs: the inputs so far and the table's state."""
        return {"type": "snapshot", "version": self.version,
                "inputs": [input_to_dict(i) for i in self.session.inputs], "paused": self.paused, "lobby": self.in_lobby,
                "requests": [attrs.asdict(r) for r in self.requests.values()],
                "seating": {s.name: {"role": s.role, "characters": list(s.characters)} for s in self.seats.values()}}

    def owner_of(self, combatant: str) -> Seat | None:
        for seat in self.seats.values():
            if seat.role == "player" and combatant in seat.characters:
                return seat
        return None

    def whose_turn(self) -> Seat | None:
        """The seat that must act now: a player for their character, else the GM (if seated)."""
        current = self.battle.current
        if current is None or self.battle.over or not needs_input(self.battle):
            return None
        owner = self.owner_of(cid(current))
        if owner is not None:
            return owner
        return next((s for s in self.seats.values() if s.role == "gm"), None)

    # -- seats coming and going --------------------------------------------------------------
    def seat(self, name: str) -> Seat:
        try:
            return self.seats[name]
        except KeyError:
            raise TableError(f"{name} has no seat at this table") from None

    def connect(self, name: str) -> list[Update]:
        """A seat (re)joins. Characters the AI held for it while it was away come back to it."""
        seat = self.seat(name)
        seat.connected, seat.away_since = True, None
        updates = []
        for combatant in seat.characters:
            if combatant in self._handed_to_ai and combatant in self.battle.by_id:
                self._handed_to_ai.discard(combatant)
                update = self._override(SetController(combatant, "player", f"{name} is back"),
                                        note=f"{name} is back at the table")
                if update is not None:
                    updates.append(update)
        return updates

    def disconnect(self, name: str, now: float) -> None:
        seat = self.seat(name)
        seat.connected, seat.away_since = False, now

    def tick(self, now: float) -> list[Update]:
        """Hand the turn to the AI when the seat that must act has been away too long."""
        if self.paused:
            return []
        seat = self.whose_turn()
        if seat is None or seat.role != "player" or seat.connected or seat.away_since is None:
            return []
        if now - seat.away_since < self.absent_wait_s:
            return []
        combatant = cid(self.battle.current)
        self._handed_to_ai.add(combatant)
        update = self._override(SetController(combatant, "ai", f"{seat.name} is away"),
                                note=f"{seat.name} is away: the AI plays {combatant}")
        return [update] if update is not None else []

    # -- acting ------------------------------------------------------------------------------
    def submit(self, name: str, action_data: Any) -> Update:
        """A seat's action on the current turn. Raises TableError with the reason if it may not."""
        seat = self.seat(name)
        if seat.role == "spectator":
            raise TableError("spectators watch; they don't act")
        if self.in_lobby:
            raise TableError("the fight hasn't begun: the GM starts it when everyone is here")
        if self.paused:
            raise TableError("the GM has paused the table")
        if self.battle.over:
            raise TableError("the battle is over")
        if self.whose_turn() is not seat:
            current = self.battle.current
            raise TableError(f"it is not your turn ({cid(current) if current is not None else 'nobody'} acts)")
        try:
            item = input_from_dict({"at": len(self.battle.log), "action": action_data,
                                    "auto_end": bool(action_data.get("auto_end", True))
                                    if isinstance(action_data, dict) else True})
        except ValueError as exc:
            raise TableError(str(exc)) from None
        actor = getattr(item.action, "actor", None)
        if type(item.action).__name__ in OVERRIDE_TYPES:
            raise TableError("overrides go through the GM")
        if actor != cid(self.battle.current):
            raise TableError(f"you can act only for {cid(self.battle.current)} now")
        return self._accept(item)

    def override(self, name: str, override_data: Any) -> Update:
        """The GM's hand on the battle, at any moment."""
        self._gm(name)
        try:
            item = input_from_dict({"at": len(self.battle.log), "action": override_data, "auto_end": False})
        except ValueError as exc:
            raise TableError(str(exc)) from None
        if type(item.action).__name__ not in OVERRIDE_TYPES:
            raise TableError("that is an action, not an override")
        update = self._override(item.action)
        if update is None:
            raise TableError("that override doesn't apply now")
        return update

    def _override(self, change, note: str = "") -> Update | None:
        at = len(self.battle.log)
        outcome = change(self.battle)
        if isinstance(outcome, Impossible):
            return None
        item = Input(at, change, False)
        self.session.inputs.append(item)
        run_ai(self.battle)
        return Update(self.version, (input_to_dict(item),), paused=self.paused, note=note, lobby=self.in_lobby)

    def _accept(self, item: Input) -> Update:
        outcome = perform(self.battle, item.action, auto_end=item.auto_end)
        if isinstance(outcome, Impossible):
            raise TableError(outcome.reason)
        self.session.inputs.append(item)
        run_ai(self.battle)
        return Update(self.version, (input_to_dict(item),), paused=self.paused, lobby=self.in_lobby)

    # -- the GM's table controls -------------------------------------------------------------
    def _gm(self, name: str) -> Seat:
        seat = self.seat(name)
        if seat.role != "gm":
            raise TableError("only the GM can do that")
        return seat

    def pause(self, name: str, paused: bool) -> Update:
        """The GM pauses the table or goes on; going on from the lobby begins the fight."""
        self._gm(name)
        self.paused = paused
        note = "the GM paused the table" if paused else "play resumes"
        if self.in_lobby and not paused:
            self.in_lobby, note = False, "the GM begins the fight"
        return Update(self.version, (), paused=paused, note=note, lobby=self.in_lobby)

    def close(self, name: str) -> None:
        """The GM closes the table: every seat leaves it, the process saves and ends (the fight, if
        not over, stays in the GM's campaign to play on there)."""
        self._gm(name)
        self.closed = True

    def say(self, name: str, text: Any) -> Update:
        """The GM's word to every view (the XP awarded after the battle, a ruling for all)."""
        self._gm(name)
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_REQUEST_TEXT:
            raise TableError(f"say it in 1 to {MAX_REQUEST_TEXT} characters")
        return Update(self.version, (), paused=self.paused, note=f"GM: {text.strip()}", lobby=self.in_lobby)

    def undo(self, name: str, steps: int = 1) -> Update:
        """Take back the last `steps` inputs; every view rebuilds to the same point."""
        self._gm(name)
        room = self.version - self.kept
        if not 1 <= steps <= room:
            raise TableError("nothing to undo" if room <= 0 else f"at most {room} steps")
        kept = list(self.session.inputs[:-steps])
        self.session.battle = self.rebuild(kept)
        self.session.inputs = kept
        return Update(self.version, tuple(input_to_dict(i) for i in kept), reset=True, paused=self.paused, lobby=self.in_lobby,
                      note=f"the GM undid {steps} step{'s' if steps != 1 else ''}")

    def talk(self, name: str, text: Any, now: float) -> TalkLine:
        """A seat's line of talk (or a talk command: a roll, a whisper, the GM's mute), checked
        here whatever the seat's client checked; TableError with the reason for that seat."""
        seat = self.seat(name)
        try:
            return self.talk_room.say(name, seat.role, text, now, {n: s.role for n, s in self.seats.items()})
        except TalkRefused as exc:
            raise TableError(str(exc)) from None

    def heard(self, name: str) -> list[TalkLine]:
        """The talk kept so far that `name`'s seat may read (whispers and secret rolls: the GM's)."""
        return self.talk_room.heard(name, self.seat(name).role)

    # -- requests for the GM -----------------------------------------------------------------
    def ask(self, name: str, kind: str, text: str, target: Any = None, number: Any = None) -> Request:
        seat = self.seat(name)
        if seat.role != "player":
            raise TableError("only players ask the GM")
        if kind not in REQUEST_KINDS:
            raise TableError(f"a request is one of {', '.join(REQUEST_KINDS)}")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_REQUEST_TEXT:
            raise TableError(f"say what you ask in 1 to {MAX_REQUEST_TEXT} characters")
        if sum(r.seat == name for r in self.requests.values()) >= MAX_QUEUE // 5 or len(self.requests) >= MAX_QUEUE:
            raise TableError("the GM has enough questions waiting; wait for an answer")
        if target is not None and (not isinstance(target, str) or target not in self.battle.by_id):
            raise TableError("a request is aimed at a combatant of this battle, or at nobody")
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)
                                   or not 0 <= number <= MAX_REQUEST_NUMBER):
            raise TableError(f"a request's number is a whole number from 0 to {MAX_REQUEST_NUMBER}")
        current = self.battle.current
        combatant = next((c for c in seat.characters if current is not None and c == cid(current)),
                         seat.characters[0] if seat.characters else None)
        request = Request(next(self._ids), name, kind, text.strip(), combatant, target, number)
        self.requests[request.id] = request
        return request

    def answer(self, name: str, request_id: int, approve: bool) -> Request:
        """The GM approves or refuses a request; an approval is then carried out by the GM's own
        action or override (amended as the GM sees fit), so it is recorded like any other input."""
        self._gm(name)
        try:
            return self.requests.pop(request_id)
        except KeyError:
            raise TableError(f"no request {request_id}") from None

    def rule(self, name: str, request_id: int, action_data: Any) -> tuple[Request, Update]:
        """The GM approves a free action (R-13) with a ruling: the asker's character takes it on
        its own turn (the GM's ruling on the effect and chance, amended or as asked)."""
        self._gm(name)
        request = self.requests.get(request_id)
        if request is None:
            raise TableError(f"no request {request_id}")
        if self.paused:
            raise TableError("the table is paused")
        try:
            item = input_from_dict({"at": len(self.battle.log), "action": action_data, "auto_end": True})
        except ValueError as exc:
            raise TableError(str(exc)) from None
        current = self.battle.current
        if type(item.action).__name__ != "FreeAction" or item.action.actor != request.combatant:
            raise TableError(f"a ruling is a free action of {request.combatant}")
        if current is None or cid(current) != request.combatant or not needs_input(self.battle):
            raise TableError(f"a free action is taken on {request.combatant}'s own turn: keep it until then")
        update = self._accept(item)
        del self.requests[request_id]
        return request, update


class Replica:
    """A view's own copy of the table's battle, kept in step by applying `Update`s."""

    def __init__(self, rebuild: Callable[[list[Input]], Battle], snapshot: dict[str, Any]):
        self.rebuild = rebuild
        self.inputs = [input_from_dict(i) for i in snapshot["inputs"]]
        self.battle = rebuild(self.inputs)
        self.paused = bool(snapshot.get("paused", False))
        self.lobby = bool(snapshot.get("lobby", False))
        self.notes: list[str] = []

    @property
    def version(self) -> int:
        return len(self.inputs)

    def apply(self, update: dict[str, Any]) -> None:
        """ValueError if the update doesn't follow from what this view has (then resync)."""
        items = [input_from_dict(i) for i in update["inputs"]]
        self.paused = bool(update.get("paused", False))
        self.lobby = bool(update.get("lobby", False))
        if update.get("note"):
            self.notes.append(str(update["note"]))
        if update.get("reset"):
            self.inputs = items
            self.battle = self.rebuild(items)
        elif items:
            if update["version"] != self.version + len(items):
                raise ValueError(f"out of step: have {self.version}, update brings {update['version']}")
            for item in items:
                if type(item.action).__name__ in OVERRIDE_TYPES:
                    outcome = item.action(self.battle)
                else:
                    outcome = perform(self.battle, item.action, auto_end=item.auto_end)
                if isinstance(outcome, Impossible):
                    raise ValueError(f"out of step: {outcome.reason}")
                self.inputs.append(item)
                run_ai(self.battle)
        if update["version"] != self.version:
            raise ValueError(f"out of step: have {self.version}, the table has {update['version']}")

    def digest(self) -> str:
        return log_digest(self.battle)


def controller_of(battle: Battle, combatant: str) -> str:
    return comp(battle[combatant], Controller).kind
