"""A table at one keyboard: every seat in this process, no socket, no SSH.

`LocalClient` speaks for whichever seat has the keyboard (`seat`, which the screen moves from
seat to seat) and has the same face as `table.server.TableClient`: a `replica` to draw, the
seating, the requests waiting, and act/override/pause/undo/ask/answer/say. It drives the `Table`
directly and calls `on_change` with the same messages the table's server would send, so the
battlefield screen is the same for both.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import attrs

from horizon_tui.table.core import Table, TableError, Update
from horizon_tui.table.server import answered


class LocalView:
    """The table's own battle, read where a remote view would read its replica."""

    def __init__(self, table: Table):
        self.table = table
        self.notes: list[str] = []  # what the table said (pauses, the GM's words), as a replica keeps

    @property
    def battle(self):
        return self.table.battle

    @property
    def inputs(self):
        return self.table.session.inputs

    @property
    def paused(self) -> bool:
        return self.table.paused

    @property
    def lobby(self) -> bool:
        return self.table.in_lobby

    @property
    def version(self) -> int:
        return self.table.version

    def digest(self) -> str:
        return self.table.digest()


class LocalClient:
    hotseat = True

    def __init__(self, table: Table, seat: str, *,
                 on_change: Callable[[LocalClient, dict[str, Any]], None] | None = None):
        self.table = table
        self.seat = table.seat(seat).name
        self.on_change = on_change
        self.replica = LocalView(table)
        self.errors: list[str] = []
        for name in table.seats:  # everyone is at the keyboard: nobody's turn goes to the AI
            table.connect(name)

    @property
    def seating(self) -> dict[str, dict[str, Any]]:
        return {s.name: {"role": s.role, "characters": list(s.characters)} for s in self.table.seats.values()}

    @property
    def requests(self) -> list[dict[str, Any]]:
        return [attrs.asdict(r) for r in self.table.requests.values()]

    def due(self) -> str | None:
        """The seat whose turn it is (None while nobody must act)."""
        seat = self.table.whose_turn()
        return seat.name if seat is not None else None

    def _tell(self, message: dict[str, Any]) -> None:
        if message.get("type") == "error":
            self.errors.append(str(message.get("reason")))
        if message.get("type") == "update" and message.get("note"):
            self.replica.notes.append(str(message["note"]))
        if self.on_change is not None:
            self.on_change(self, message)

    def _do(self, step: Callable[[], Update | None]) -> None:
        try:
            update = step()
        except TableError as exc:
            self._tell({"type": "error", "reason": str(exc)})
            return
        if update is not None:
            self._tell(update.to_dict())

    # -- what a screen calls (as on TableClient) ------------------------------------------------
    def act(self, action: dict[str, Any]) -> None:
        self._do(lambda: self.table.submit(self.seat, action))

    def override(self, override: dict[str, Any]) -> None:
        self._do(lambda: self.table.override(self.seat, override))

    def pause(self, paused: bool) -> None:
        self._do(lambda: self.table.pause(self.seat, paused))

    def undo(self, steps: int = 1) -> None:
        self._do(lambda: self.table.undo(self.seat, steps))

    def say(self, text: str) -> None:
        self._do(lambda: self.table.say(self.seat, text))

    def talk(self, text: str) -> None:
        """A line of talk from the seat at the keyboard; every seat reads the table's own lines
        (`talk`), each screen showing those its seat may read."""
        try:
            line = self.table.talk(self.seat, text, time.monotonic())
        except TableError as exc:
            self._tell({"type": "error", "reason": str(exc)})
            return
        self._tell(line.to_dict())

    @property
    def talk_lines(self) -> list[dict[str, Any]]:
        return [line.to_dict() for line in self.table.talk_room.lines]

    def ask(self, kind: str, text: str, target: str | None = None, number: int | None = None) -> None:
        try:
            request = self.table.ask(self.seat, kind, text, target, number)
        except TableError as exc:
            self._tell({"type": "error", "reason": str(exc)})
            return
        self._tell({"type": "request", **attrs.asdict(request)})

    def answer(self, request_id: int, approve: bool, ruling: str = "", action: dict[str, Any] | None = None) -> None:
        try:
            if approve and action is not None:
                request, update = self.table.rule(self.seat, request_id, action)
                self._tell(update.to_dict())
            else:
                request = self.table.answer(self.seat, request_id, approve)
        except TableError as exc:
            self._tell({"type": "error", "reason": str(exc)})
            return
        self._tell(answered(request, approve, ruling))

    def close_now(self) -> None:
        self.on_change = None

    async def close(self) -> None:
        self.close_now()
