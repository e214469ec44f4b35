"""A live table over a local socket: one process holds the `Table`, each session is a client.

One JSON object per line, at most `MAX_LINE` bytes. A client says `hello` with its seat and the
seat's token (handed to that account only), gets a `snapshot`, then `update`s as inputs are
accepted. A crashing client only closes its own connection; the table goes on, and the seat's
turn passes to the AI after the table's absent wait. Everything a client sends is checked like
any other hostile input: an unknown or malformed message is answered with an `error`, never
applied.

Client → table: hello {seat, token} · act {action} · override {override} · pause {paused} · say {text} ·
undo {steps} · ask {kind, text, target, number} · answer {id, approve, ruling, action} · talk {text} ·
close (the GM's) · sync.
Table → client: snapshot (then the talk so far that seat may read) · update · error {reason} ·
request {…} (to the GM) · answered {id, seat, approve, kind, text, ruling} (to the asker and the
GM) · seats {name: connected} · closed {note} (the GM closed the table) · talk {id, seat, role, kind, text, to, faces, total} (to those who
may read it: `table.talk`). Talk is kept, one JSON line each, in the table's `talk.jsonl`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.engine.battle import Battle
from horizon_tui.engine.runner import Input
from horizon_tui.table.core import MAX_REQUEST_TEXT, Replica, Table, TableError, Update
from horizon_tui.table.talk import KEPT, TalkLine

MAX_LINE = 64 * 1024
TICK_S = 0.5
HELLO_TIMEOUT_S = 15.0
SUN_PATH_MAX = 107  # a Unix socket's address, less its NUL (Linux sockaddr_un)


def unix_socket(path: Path, *, listen: bool) -> socket.socket:
    """A listening or connected Unix socket at `path`. The kernel refuses addresses over
    SUN_PATH_MAX bytes, and a table's folder can be deeper than that (a long home or data folder;
    pytest's temporary folders under xdist): then the folder is reached through /proc/self/fd.

    A listening socket is bound under a passing name and renamed to `path` once it listens: its
    file appears only when a connect to it is answered. Bound at `path` itself, the file was there
    from bind() on, and a client that saw it (`lobby.start_table` waits for the file) and connected
    before listen() was refused (ECONNREFUSED: on a loaded machine the table did not open)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    folder = None
    passing = None
    try:
        address = str(path)
        passing_suffix = f".{os.getpid()}.binding"  # the name a listening socket is bound under
        if len(os.fsencode(address + (passing_suffix if listen else ""))) > SUN_PATH_MAX:
            folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
            address = f"/proc/self/fd/{folder}/{path.name}"
        if listen:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(address + passing_suffix)
            sock.bind(address + passing_suffix)
            passing = address + passing_suffix
            sock.listen(64)
            os.replace(passing, address)
            passing = None
        else:
            sock.connect(address)
    except BaseException:
        sock.close()
        if passing is not None:
            with contextlib.suppress(OSError):
                os.unlink(passing)
        raise
    finally:
        if folder is not None:
            os.close(folder)
    sock.setblocking(False)
    return sock


def answered(request, approve: bool, ruling: str) -> dict[str, Any]:
    """What the asker (and the GM) are told of the GM's answer to a request."""
    return {"type": "answered", "id": request.id, "seat": request.seat, "approve": approve, "kind": request.kind,
            "text": request.text, "ruling": ruling.strip()}


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream. ValueError for a bad line."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError as exc:
        await _skip_line(reader, exc.consumed)
        raise ValueError(f"a message is at most {MAX_LINE} bytes") from None
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError("not a JSON line") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ValueError("a message is an object with a `type`")
    return message


async def _skip_line(reader: asyncio.StreamReader, consumed: int) -> None:
    """Drop the rest of an over-long line. Left in the buffer, it would fail every later read at
    once, without the loop ever waiting: one hostile client would freeze the whole table."""
    while True:
        await reader.readexactly(consumed)
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as exc:
            consumed = exc.consumed
        except asyncio.IncompleteReadError:
            return


class TableServer:
    """Serves one `Table` on a Unix socket at `path` (mode 0600: only the host's own user)."""

    def __init__(self, table: Table, tokens: dict[str, str], path: Path, *, talk_file: Path | None = None):
        self.table = table
        self.tokens = tokens
        self.path = Path(path)
        self.talk_file = talk_file  # the table's log of its talk (None: not kept on disk)
        self.clients: dict[str, asyncio.StreamWriter] = {}
        self.closed = asyncio.Event()  # the GM closed the table (its process then saves and ends)
        self._server: asyncio.AbstractServer | None = None
        self._ticker: asyncio.Task | None = None

    async def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._serve, sock=unix_socket(self.path, listen=True),
                                                       limit=MAX_LINE)
        self.path.chmod(0o600)
        self._ticker = asyncio.create_task(self._tick())

    async def close(self) -> None:
        if self._ticker:
            self._ticker.cancel()
        if self._server:
            self._server.close()
        for writer in list(self.clients.values()):
            writer.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            for update in self.table.tick(time.monotonic()):
                self._broadcast(update.to_dict())

    def _broadcast(self, message: dict[str, Any], only: Callable[[str], bool] = lambda _: True) -> None:
        data = encode(message)
        for name, writer in list(self.clients.items()):
            if only(name):
                with contextlib.suppress(ConnectionError, RuntimeError):
                    writer.write(data)

    def _presence(self) -> None:
        self._broadcast({"type": "seats", "seats": {n: s.connected for n, s in self.table.seats.items()}})

    def _send_snapshot(self, name: str, writer: asyncio.StreamWriter) -> None:
        """The battle so far, then the talk kept so far that this seat may read, a line each (so no
        message comes near MAX_LINE however long the evening)."""
        writer.write(encode(self.table.snapshot()))
        for line in self.table.heard(name):
            writer.write(encode(line.to_dict()))

    def _talk(self, line: TalkLine) -> None:
        """Pass a line to the seats that may read it, and keep it in the table's log."""
        roles = {n: s.role for n, s in self.table.seats.items()}
        self._broadcast(line.to_dict(), only=lambda n: line.heard_by(n, roles.get(n, "spectator")))
        kept = self.table.talk_room.lines
        if self.talk_file is not None and kept and kept[-1] is line:  # not an answer to /help
            with contextlib.suppress(OSError), self.talk_file.open("a", encoding="utf-8") as log:
                log.write(json.dumps(line.to_dict() | {"at": time.time()}, ensure_ascii=False) + "\n")

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        name = None
        try:
            name = await self._hello(reader, writer)
            if name is None:
                return
            while True:
                try:
                    message = await read_message(reader)
                except ValueError as exc:
                    writer.write(encode({"type": "error", "reason": str(exc)}))
                    continue
                if message is None:
                    return
                self._handle(name, message, writer)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            if name is not None and self.clients.get(name) is writer:
                del self.clients[name]
                self.table.disconnect(name, time.monotonic())
                self._presence()
            writer.close()

    async def _hello(self, reader, writer) -> str | None:
        try:
            message = await asyncio.wait_for(read_message(reader), HELLO_TIMEOUT_S)
        except (ValueError, TimeoutError):
            message = None
        if not message or message.get("type") != "hello":
            writer.write(encode({"type": "error", "reason": "say hello with your seat and token first"}))
            return None
        name, token = message.get("seat"), message.get("token")
        expected = self.tokens.get(name) if isinstance(name, str) else None
        if expected is None or not isinstance(token, str) or not hmac.compare_digest(token, expected):
            writer.write(encode({"type": "error", "reason": "no such seat, or the wrong token"}))
            return None
        old = self.clients.pop(name, None)
        if old is not None:  # the same seat from a new connection (a reconnect): the new one wins
            old.close()
        self.clients[name] = writer
        updates = self.table.connect(name)
        self._send_snapshot(name, writer)
        for update in updates:
            self._broadcast(update.to_dict())
        self._presence()
        return name

    def _handle(self, name: str, message: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        kind = message["type"]
        try:
            if kind == "sync":
                self._send_snapshot(name, writer)
            elif kind == "close":
                self.table.close(name)
                self._broadcast({"type": "closed", "note": "the GM closed the table"})
                self.closed.set()
            elif kind == "talk":
                self._talk(self.table.talk(name, message.get("text"), time.monotonic()))
            elif kind == "act":
                self._broadcast(self.table.submit(name, message.get("action")).to_dict())
            elif kind == "override":
                self._broadcast(self.table.override(name, message.get("override")).to_dict())
            elif kind == "pause":
                self._broadcast(self.table.pause(name, bool(message.get("paused"))).to_dict())
            elif kind == "say":
                self._broadcast(self.table.say(name, message.get("text")).to_dict())
            elif kind == "undo":
                steps = message.get("steps", 1)
                if not isinstance(steps, int) or isinstance(steps, bool):
                    raise TableError("undo takes a whole number of steps")
                self._broadcast(self.table.undo(name, steps).to_dict())
            elif kind == "ask":
                request = self.table.ask(name, str(message.get("kind")), message.get("text"), message.get("target"),
                                         message.get("number"))
                gm = {s.name for s in self.table.seats.values() if s.role == "gm"}
                self._broadcast({"type": "request", **attrs.asdict(request)}, only=lambda n: n in gm or n == name)
            elif kind == "answer":
                request_id = message.get("id")
                if not isinstance(request_id, int):
                    raise TableError("answer names a request by its id")
                ruling = message.get("ruling", "")
                if not isinstance(ruling, str) or len(ruling) > MAX_REQUEST_TEXT:
                    raise TableError(f"a ruling is at most {MAX_REQUEST_TEXT} characters")
                approve = bool(message.get("approve"))
                if approve and message.get("action") is not None:  # a free action's ruling, taken now
                    request, update = self.table.rule(name, request_id, message["action"])
                    self._broadcast(update.to_dict())
                else:
                    request = self.table.answer(name, request_id, approve)
                self._broadcast(answered(request, approve, ruling), only=lambda n: n in (name, request.seat))
            else:
                raise TableError(f"unknown message {kind[:40]!r}")
        except TableError as exc:
            writer.write(encode({"type": "error", "reason": str(exc)}))


class TableClient:
    """One view of a table: connects, keeps a `Replica` in step, calls `on_change` after each
    message that changed something. Resyncs from a snapshot if it ever falls out of step."""

    def __init__(self, path: Path, seat: str, token: str, rebuild: Callable[[list[Input]], Battle], *,
                 on_change: Callable[[TableClient, dict[str, Any]], None] | None = None):
        self.path, self.seat, self.token, self.rebuild = Path(path), seat, token, rebuild
        self.on_change = on_change
        self.replica: Replica | None = None
        self.errors: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.seats: dict[str, bool] = {}
        self.seating: dict[str, dict[str, Any]] = {}  # seat -> {role, characters}, from the snapshot
        self.talk_lines: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT)  # what this seat read
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task | None = None
        self._snapshot = asyncio.Event()

    async def connect(self) -> None:
        self._reader, self._writer = await asyncio.open_unix_connection(sock=unix_socket(self.path, listen=False),
                                                                        limit=MAX_LINE)
        self._snapshot.clear()
        self._send({"type": "hello", "seat": self.seat, "token": self.token})
        self._task = asyncio.create_task(self._read())
        done, _ = await asyncio.wait([self._task, asyncio.create_task(self._snapshot.wait())],
                                     timeout=HELLO_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        if not self._snapshot.is_set():
            raise ConnectionError(self.errors[-1] if self.errors else "the table did not answer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await self._task

    def close_now(self) -> None:
        """Hang up without waiting (a screen going away); the table notices the seat left."""
        if self._writer is not None:
            self._writer.close()
        if self._task is not None:
            self._task.cancel()

    def _send(self, message: dict[str, Any]) -> None:
        assert self._writer is not None
        self._writer.write(encode(message))

    async def _read(self) -> None:
        assert self._reader is not None
        while True:
            message = await read_message(self._reader)
            if message is None:
                return
            self._receive(message)
            if self.on_change is not None:
                self.on_change(self, message)

    def _receive(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "snapshot":
            self.replica = Replica(self.rebuild, message)
            self.requests = list(message.get("requests", []))
            seating = message.get("seating")
            self.seating = dict(seating) if isinstance(seating, dict) else {}
            self._snapshot.set()
        elif kind == "update" and self.replica is not None:
            try:
                self.replica.apply(message)
            except ValueError:
                self._send({"type": "sync"})
        elif kind == "error":
            self.errors.append(str(message.get("reason")))
        elif kind == "request":
            self.requests.append(message)
        elif kind == "answered":
            self.requests = [r for r in self.requests if r.get("id") != message.get("id")]
        elif kind == "seats":
            self.seats = dict(message.get("seats", {}))
        elif kind == "talk":
            line_id = message.get("id")
            if isinstance(line_id, int) and (not self.talk_lines or line_id > self.talk_lines[-1]["id"]):
                self.talk_lines.append(message)  # lines sent again after a resync are already here

    # -- what a screen calls -----------------------------------------------------------------
    def act(self, action: dict[str, Any]) -> None:
        self._send({"type": "act", "action": action})

    def override(self, override: dict[str, Any]) -> None:
        self._send({"type": "override", "override": override})

    def pause(self, paused: bool) -> None:
        self._send({"type": "pause", "paused": paused})

    def say(self, text: str) -> None:
        self._send({"type": "say", "text": text})

    def undo(self, steps: int = 1) -> None:
        self._send({"type": "undo", "steps": steps})

    def close_table(self) -> None:
        """The GM's: the table ends for everyone (asked first on the GM's screen)."""
        self._send({"type": "close"})

    def talk(self, text: str) -> None:
        """A line of talk, or a talk command (`table.talk`); the table answers a refusal with an error."""
        self._send({"type": "talk", "text": text})

    def ask(self, kind: str, text: str, target: str | None = None, number: int | None = None) -> None:
        self._send({"type": "ask", "kind": kind, "text": text, "target": target, "number": number})

    def answer(self, request_id: int, approve: bool, ruling: str = "", action: dict[str, Any] | None = None) -> None:
        """Approve or refuse a request, with the GM's words; `action`: a free action's ruling,
        which the table carries out for the asker's character at once."""
        self._send({"type": "answer", "id": request_id, "approve": approve, "ruling": ruling, "action": action})


__all__ = ["TableServer", "TableClient", "Update", "MAX_LINE"]
