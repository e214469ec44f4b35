"""The small objects a `BattleScreen` is built from besides its viewer: who acts here (an
`ActorPolicy`), what carries an input and keeps the battle (a `Driver`), and the side panels a
screen may be given (`BattlePanel`).

Policies: `Solo` (solo and hot-seat play: every combatant that asks for input is played here),
`GameMaster` (the GM's fight at this keyboard: the same, and keys are never held at a hand-over),
`TableSeat` (a live table: a player's seat plays its own characters, the GM's seat everyone no
player holds, a spectator no one). Drivers: `LocalEngine` (the engine here, autosaving, calling
back when the battle ends and after each input: the player's battles, the GM's campaign
recorder) and `TableDriver` (an input goes to the table; the table plays the AI and keeps the
save). A screen asks these; none of them knows the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

from horizon_tui.engine.actions import Impossible
from horizon_tui.engine.battle import Battle, Entity, cid
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.engine.runner import action_to_dict, needs_input, submit


class ActorPolicy(Protocol):
    """Who acts at this screen."""

    waiting: str  # said to an action key while no one here acts ("": nothing said)
    # keys arriving as the turn changes hands are dropped (`typeahead`); the GM's and a table's
    # aren't: the GM gives every turn, and a table's turns change hands through its process
    holds_keys: bool

    def acts_here(self, battle: Battle, current: Entity) -> bool:
        """Does the combatant whose turn it is take its keys from this screen?"""
        ...


@attrs.frozen
class Solo:
    """Solo and hot-seat play: every combatant that asks for input (`engine.runner.needs_input`)."""

    waiting: str = ""
    holds_keys: bool = True

    def acts_here(self, battle: Battle, current: Entity) -> bool:
        return needs_input(battle, current)


@attrs.frozen
class GameMaster:
    """The GM's fight at this keyboard: every combatant that asks for input, the GM giving each
    turn, so no key is held as the turn changes hands."""

    waiting: str = ""
    holds_keys: bool = False

    def acts_here(self, battle: Battle, current: Entity) -> bool:
        return needs_input(battle, current)


@attrs.frozen
class TableSeat:
    """The seat a table client sits in now (`client.seat`, which a hot-seat hand-over changes),
    as the table seats it (`client.seating`: role and characters by seat): a player plays their
    own characters, the GM everyone no player holds, a spectator no one."""

    client: Any  # a `table.server.TableClient` or a hot-seat `table.hotseat.LocalClient`
    waiting: str = "not your turn: the table waits for another seat"
    holds_keys: bool = False

    @property
    def role(self) -> str:
        return self.client.seating.get(self.client.seat, {}).get("role", "spectator")

    def acts_here(self, battle: Battle, current: Entity) -> bool:
        if battle.over or not needs_input(battle, current):
            return False
        seating = self.client.seating
        role = self.role
        if role == "player":
            return cid(current) in seating.get(self.client.seat, {}).get("characters", ())
        if role == "gm":
            held = {c for s in seating.values() if s.get("role") == "player" for c in s.get("characters", ())}
            return cid(current) not in held
        return False


class Driver(Protocol):
    """What carries an input and keeps the battle."""

    plays_ai: bool  # the AI's turns are played at this screen (else elsewhere: at the table)

    def submit(self, session: BattleInProgress, action) -> Any:
        """Perform or send `action`: the engine's outcome, `Impossible` with the reason, or `SENT`."""
        ...

    def save(self, session: BattleInProgress) -> bool:
        """Keep the battle as it is now: True if it was written here (raises on failure; the
        screen says so)."""
        ...

    def ended(self, session: BattleInProgress) -> None:
        """The battle is over."""
        ...

    def recorded(self, action, outcome) -> None:
        """After an accepted input."""
        ...


SENT = "sent"  # `Driver.submit`: the input went elsewhere (the table) and comes back as an update


@attrs.define
class LocalEngine:
    """The engine in this process: inputs performed here, the AI's turns played here."""

    autosave: Callable[[BattleInProgress], None] | None = None
    on_end: Callable[[BattleInProgress], None] | None = None
    after_input: Callable[[Any, Any], None] | None = None  # the GM's campaign recorder
    plays_ai: bool = True

    def submit(self, session: BattleInProgress, action) -> Any:
        return submit(session.battle, action, session.inputs)

    def save(self, session: BattleInProgress) -> bool:
        if self.autosave is None or session.battle.over:
            return False
        self.autosave(session)
        return True

    def ended(self, session: BattleInProgress) -> None:
        if self.on_end is not None:
            self.on_end(session)

    def recorded(self, action, outcome) -> None:
        if self.after_input is not None:
            self.after_input(action, outcome)


@attrs.define
class TableDriver:
    """A live table: an input is sent to the table and comes back as an update every view
    applies; the table plays the AI's turns and keeps the save."""

    client: Any  # a `table.server.TableClient` or a hot-seat `table.hotseat.LocalClient`
    on_end: Callable[[BattleInProgress], None] | None = None
    plays_ai: bool = False

    def submit(self, session: BattleInProgress, action) -> Any:
        if self.client.replica.paused:
            lobby = getattr(self.client.replica, "lobby", False)  # a table opens in its lobby (table.core)
            return Impossible("the fight hasn't begun: the GM begins it" if lobby else "the GM has paused the table")
        self.client.act(action_to_dict(action))
        return SENT

    def save(self, session: BattleInProgress) -> bool:
        """The table keeps the battle save."""
        return False

    def ended(self, session: BattleInProgress) -> None:
        if self.on_end is not None:
            self.on_end(session)

    def recorded(self, action, outcome) -> None:
        """The table records every input."""


class BattlePanel(Protocol):
    """A side panel plugged into a battle screen (`BattleScreen(panels=…)`): a widget (a
    `widget.Panel` repaints only when its text changed), shown at the top of the side column,
    given the viewer's read model whenever the screen redraws."""

    def show_model(self, known: ReadModel, battle: Battle) -> None:
        ...
