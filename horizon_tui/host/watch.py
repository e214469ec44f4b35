"""Spectating, as on Crawl's servers: a list of live games; Enter watches one.

A watcher is a game session (`game.py`) in watch mode: `ssh -t HOST watch` (the one command an account may
run), or a player who chose "Watch a game" on the main menu (the app exits with `WATCH_EXIT` and
the host puts the channel here; leaving the list starts the game again). Watching is read-only:
the watcher's keys never reach the player's app; the player's output is copied to the watcher as
it is sent. On joining, the app is asked to draw its whole screen again (SIGUSR1, only to apps
that said they handle it in their status file), so the watcher sees it at once. A watcher too slow
to keep up is dropped, never the player slowed. The player sees how many watch and may refuse
watchers (`horizon_tui/play/hosting.py`); the host's `--spectators none|users|anyone` comes first.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from horizon_tui.host.live import duration

if TYPE_CHECKING:
    from horizon_tui.host.game import GameSession

SPECTATOR_POLICIES = ("none", "users", "anyone")
WATCH_COMMAND = "watch"
WATCH_USER = "watch"            # with --spectators anyone: this name logs in without a key, to watch
REFRESH_EVERY = 2.0             # seconds: the list, and whether a watched player still allows it
WATCHER_BACKLOG_LIMIT = 1 << 20  # bytes waiting for a watcher before it is dropped
MAX_WATCHERS_PER_GAME = 20
WATCHING_OFF = "Watching games is turned off on this server."

ENTER_SCREEN = b"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
LEAVE_SCREEN = b"\x1b[0m\x1b[?1049l\x1b[?25h"
UP, DOWN = (b"\x1b[A", b"\x1bOA", b"k"), (b"\x1b[B", b"\x1bOB", b"j")
ENTER = (b"\r", b"\n", b"\r\n")
QUIT = (b"q", b"Q", b"\x1b", b"\x03", b"\x04")
KEY = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1bO.|\x1b|\r\n|.", re.S)  # one key each


def game_label(session: GameSession) -> str:
    app = session.app_status()
    character = app.get("character") if isinstance(app.get("character"), str) else None
    return f"{session.user}" + (f" ({character})" if character else "")


def watch_refusal(host, target: GameSession) -> str | None:
    """Why `target` may not be watched just now (the host's policy, the game, the player's
    choice), or None; the SSH list and the web's watchers ask the same."""
    if host.settings.spectators == "none":
        return WATCHING_OFF
    if not target.playing:
        return f"{game_label(target)}'s game has ended."
    if not target.watchable:
        return f"{game_label(target)} doesn't want watchers just now."
    if target not in host.sessions:
        return "That game has ended."
    return None


class WatchList:
    """One watcher's list and, while watching, the copy of one game's screen."""

    def __init__(self, session: GameSession, *, back_to_game: bool):
        self.session = session
        self.host = session.host
        self.back_to_game = back_to_game
        self.selected = 0
        self.entries: list[GameSession] = []
        self.watching: GameSession | None = None
        self.message = ""
        self.closed = False
        self._loop = asyncio.get_running_loop()
        self._timer: asyncio.TimerHandle | None = None

    # --- life ------------------------------------------------------------------------------

    def start(self) -> None:
        self._write(ENTER_SCREEN)
        self.draw()
        self._timer = self._loop.call_later(REFRESH_EVERY, self._tick)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.stop_watching(draw=False)
        self._write(LEAVE_SCREEN)

    def _tick(self) -> None:
        self._timer = None
        if self.closed:
            return
        target = self.watching
        if target is not None:
            refusal = self.refusal(target)
            if refusal:
                self.stop_watching(message=refusal)
        else:
            self.draw()
        self._timer = self._loop.call_later(REFRESH_EVERY, self._tick)

    # --- the list --------------------------------------------------------------------------

    def games(self) -> list[GameSession]:
        return sorted((s for s in self.host.sessions if s is not self.session and s.playing),
                      key=lambda s: s.started_wall or 0)

    def refusal(self, target: GameSession) -> str | None:
        return watch_refusal(self.host, target)

    def draw(self) -> None:
        self.entries = self.games()
        self.selected = max(0, min(self.selected, len(self.entries) - 1))
        columns, rows = self.session.term_size[0], self.session.term_size[1]
        leave = "back to your game" if self.back_to_game else "quit"
        lines = [f"\x1b[1mHorizon — live games\x1b[0m   ↑/↓ choose · Enter watch · r refresh · q {leave}", ""]
        header = f"   {'PLAYER':<14} {'CHARACTER':<18} {'SCREEN':<16} {'IDLE':>7} {'WATCHERS':>8}  SIZE"
        lines.append(f"\x1b[2m{header}\x1b[0m")
        now = self._loop.time()
        for index, game in enumerate(self.entries):
            app = game.app_status()
            character = str(app.get("character") or "-")[:18]
            screen = str(app.get("screen") or "-")[:16]
            idle = duration(now - game.last_input)
            watchers = f"{len(game.watchers)}" if game.watchable else "refused"
            size = f"{game.term_size[0]}x{game.term_size[1]}"
            row = (f"{'>' if index == self.selected else ' '}  {game.user[:14]:<14} {character:<18} "
                   f"{screen:<16} {idle:>7} {watchers:>8}  {size}")
            lines.append(f"\x1b[7m{row}\x1b[0m" if index == self.selected else row)
        if not self.entries:
            lines.append("   No one is playing just now; the list refreshes by itself.")
        if self.entries and self.selected < len(self.entries):
            game = self.entries[self.selected]
            if game.term_size[0] > columns or game.term_size[1] > rows:
                lines += ["", f"\x1b[33m{game.user}'s terminal is {game.term_size[0]}x{game.term_size[1]}, "
                              f"yours {columns}x{rows}: make yours larger to see it all.\x1b[0m"]
        if self.message:
            lines += ["", self.message]
        body = "\r\n".join(line for line in lines[:max(rows - 1, 3)])
        self._write(b"\x1b[H\x1b[2J" + body.encode("utf-8", "replace"))

    # --- keys ------------------------------------------------------------------------------

    def keys(self, data: bytes) -> bool:
        """What the watcher typed (one read may hold several keys). Returns False when the
        watcher leaves the list."""
        return all(self.key(key) for key in KEY.findall(data))

    def key(self, data: bytes) -> bool:
        """One key from the watcher. Returns False when the watcher leaves the list."""
        if self.watching is not None:
            if data in QUIT:
                self.stop_watching()
            return True  # read-only: nothing else goes anywhere
        if data in QUIT:
            return False
        if data in UP:
            self.selected = max(0, self.selected - 1)
        elif data in DOWN:
            self.selected = min(max(0, len(self.entries) - 1), self.selected + 1)
        elif data in ENTER:
            if self.entries:
                self.watch(self.entries[self.selected])
                return True
        elif data in (b"r", b"R"):
            self.message = ""
        self.draw()
        return True

    # --- watching --------------------------------------------------------------------------

    def watch(self, target: GameSession) -> None:
        refusal = self.refusal(target)
        if refusal is None and len(target.watchers) >= MAX_WATCHERS_PER_GAME:
            refusal = f"{game_label(target)} already has {MAX_WATCHERS_PER_GAME} watchers."
        if refusal:
            self.message = refusal
            self.draw()
            return
        self.message = ""
        self.watching = target
        self._write(b"\x1b[H\x1b[2J")
        target.add_watcher(self)
        self.host.log.info("watch start watcher=%s player=%s", self.session.user, target.user)

    def stop_watching(self, *, message: str = "", draw: bool = True) -> None:
        target, self.watching = self.watching, None
        if target is not None:
            target.remove_watcher(self)
            self.host.log.info("watch end watcher=%s player=%s", self.session.user, target.user)
        if message:
            self.message = message
        if draw and not self.closed:
            self._write(b"\x1b[0m\x1b[H\x1b[2J")
            self.draw()

    def game_output(self, data: bytes) -> None:
        """What the watched player's app drew, as it is sent to the player."""
        if self.session.output_backlog() > WATCHER_BACKLOG_LIMIT:
            self._loop.call_soon(lambda: self.stop_watching(
                message="Your connection couldn't keep up with that game; choose it again to watch."))
            return
        self._write(data)

    def game_ended(self, target: GameSession) -> None:
        if self.watching is target:
            self._loop.call_soon(lambda: self.stop_watching(message=f"{game_label(target)}'s game has ended."))

    def _write(self, data: bytes) -> None:
        self.session.write_raw(data)

