"""One SSH session channel: a game (`host/game.py`) carried over SSH, or a one-line refusal.

`shell` with a PTY runs the app; `exec watch` with a PTY opens the list of live games to watch
(`host/watch.py`); `exec web-login` / `exec web-logout` print a browser login link or end the
account's browser sessions (`host/web/`); any other `exec`, `shell` without a PTY and full
servers get a line and exit status 1; subsystems (SFTP) are refused outright. Bytes pass both
ways untouched (the channel has no encoding and no line editor); window changes go to the PTY,
where the kernel tells the app. Everything else a game is (its process, recording, live status,
watchers, idle timer, slot) is the `GameSession`'s, shared with the browser's front end.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh

from horizon_tui.errors import DataError, HorizonError
from horizon_tui.host.game import GameSession, signal_name, usable_size
from horizon_tui.host.watch import WATCH_COMMAND, WATCHING_OFF
from horizon_tui.content.run_rules import load_run_rules
from horizon_tui.play.runs.scores import scores_text
from horizon_tui.storage.host_wiring import score_table
from horizon_tui.storage.runs import HALL_OF_FAME

if TYPE_CHECKING:
    from horizon_tui.host.ssh.server import SSHHost, _Connection

NO_PTY = "Horizon needs a terminal: connect with plain `ssh` (or `ssh -t`) and no command."
EXEC_REFUSED = "Horizon only runs the game here: commands are not allowed. Connect with plain `ssh`."
WEB_LOGIN_COMMAND = "web-login"
WEB_LOGOUT_COMMAND = "web-logout"
SCORES_COMMANDS = ("scores", "scores --daily")  # the host's hall of fame, printed (`horizon scores`)
WEB_OFF = "This server doesn't serve the game to browsers (serve-ssh --web is not set)."


class SshGameSession(GameSession, asyncssh.SSHServerSession):
    """A game over one SSH channel: the terminal asked for, the requests the channel makes."""

    def __init__(self, host: SSHHost, connection: _Connection):
        super().__init__(host, connection)
        self.chan: asyncssh.SSHServerChannel | None = None
        self.has_pty = False
        self.front_open = False
        self._refusal: str | None = None
        self._command: str | None = None  # `watch`, `web-login` or `web-logout`

    # --- the transport ---------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        try:
            self.chan.write(data)
        except (OSError, asyncssh.Error):
            self.front_open = False

    def _send_line(self, text: str) -> None:
        if self.front_open:
            prefix = b"\r\n" if self.process else b""  # below whatever the app left on screen
            try:
                self.chan.write_stderr(prefix + text.encode() + b"\r\n")
            except (OSError, asyncssh.Error):
                self.front_open = False

    def _close_front(self, returncode: int) -> None:
        try:
            if returncode >= 0:
                self.chan.exit(returncode)
            else:
                self.chan.exit_with_signal(signal_name(-returncode).removeprefix("SIG"))
        except (OSError, asyncssh.Error):
            pass

    def output_backlog(self) -> int:
        return self.chan.get_write_buffer_size() if self.chan is not None else 0

    def _pause_input(self) -> None:
        self.chan.pause_reading()

    def _resume_input(self) -> None:
        self.chan.resume_reading()

    def client_environment(self) -> dict:
        return dict(self.chan.get_environment())

    # --- requests --------------------------------------------------------------------------

    def connection_made(self, chan) -> None:
        self.chan = chan
        self.front_open = True

    def pty_requested(self, term_type, term_size, term_modes) -> bool:
        self.has_pty = True
        self.term_type = term_type
        self.term_size = usable_size(*term_size)
        return True

    def shell_requested(self) -> bool:
        if not self.has_pty:
            self._refuse("no terminal requested", NO_PTY)
            return True
        refusal = self.host.admit(self)
        if refusal:
            self._refuse(*refusal)
        return True

    def exec_requested(self, command: str) -> bool:
        command = command.strip()
        if command in (WEB_LOGIN_COMMAND, WEB_LOGOUT_COMMAND):
            if getattr(self.host, "web", None) is None:
                self._refuse(f"{command}: no --web", WEB_OFF)
            elif getattr(self.connection, "watch_only", False):
                self._refuse(f"{command}: watch-only login", EXEC_REFUSED)
            else:
                self._command = command
        elif command in SCORES_COMMANDS:
            self._command = command
        elif command != WATCH_COMMAND:
            self._refuse("exec request", EXEC_REFUSED)  # the command itself is not logged
        elif not self.has_pty:
            self._refuse("watch without a terminal", NO_PTY.replace("and no command", "and `watch`"))
        elif self.host.settings.spectators == "none":
            self._refuse("watch: spectators none", WATCHING_OFF)
        else:
            self._command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        shown = subsystem if re.fullmatch(r"[\w.@-]{1,40}", subsystem) else "?"
        self.host.log_refusal(self.connection, f"subsystem {shown}")
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def signal_received(self, signal: str) -> None:
        pass  # the client doesn't get to signal the app

    def _refuse(self, reason: str, message: str) -> None:
        self._refusal = message
        self.host.log_refusal(self.connection, reason)

    def session_started(self) -> None:
        if self._refusal is not None:
            self._send_line(self._refusal)
            self._close(1)
            return
        if self._command == WATCH_COMMAND:
            self.begin_watching()
            return
        if self._command in SCORES_COMMANDS:
            self._send(self._scores_text(self._command.endswith("--daily")).replace("\n", "\r\n").encode())
            self._close(0)
            return
        if self._command in (WEB_LOGIN_COMMAND, WEB_LOGOUT_COMMAND):
            web = self.host.web
            text = (web.login_link_text(self.user, self.connection.address)
                    if self._command == WEB_LOGIN_COMMAND else web.logout_text(self.user))
            self._send(text.replace("\n", "\r\n").encode())
            self._close(0)
            return
        if getattr(self.connection, "watch_only", False):  # `--spectators anyone`: the list only
            self._send_line(EXEC_REFUSED.replace("Connect with plain `ssh`", "Connect with `ssh -t … watch`"))
            self._close(1)
            return
        self.begin()

    def _scores_text(self, daily: bool) -> str:
        """The host's hall of fame (every account's runs), as `horizon scores --data-dir` prints it."""
        path = Path(self.host.settings.data_dir) / HALL_OF_FAME
        try:  # the host's shared database's when it has one (`--database`: every host's runs)
            entries = score_table(path, self.host.settings.database).entries(daily=daily)
            return scores_text(entries, daily, load_run_rules().ranked_pace, path.name)
        except DataError as exc:
            return f"The hall of fame can't be read: {exc.problems[0].message}\n"
        except HorizonError:  # the database can't be reached: the player is not told the host's URL
            return "The hall of fame can't be read: its database can't be reached; try again later.\n"

    def data_received(self, data: bytes, datatype) -> None:
        self.keys(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.resize(width, height, pixwidth, pixheight)

    def eof_received(self) -> bool:
        return True  # keep the channel: the app decides when the session ends

    def pause_writing(self) -> None:
        self.output_paused()

    def resume_writing(self) -> None:
        self.output_resumed()

    def connection_lost(self, exc: Exception | None) -> None:
        self.front_lost()
