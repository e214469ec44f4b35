"""One game on a host, whatever carries it: the player app on its own PTY, or the watch list.

A `GameSession` is what an SSH channel (`ssh/channel.py`) and a browser's websocket
(`web/server.py`) share: admission (the host's session slots), the app's process (a fork of the
pre-forked session server, `prefork.py`, on a PTY, `pty_process.py`), its recording
(`recording.py`), its live status (`live.py`: `horizon who`, `watch`), its watchers (`watch.py`),
the message of the day (`motd.py`), the resize throttle and the idle timer. A front end subclasses
it and supplies only the transport: `_send` (bytes to the player's terminal), `_send_line` (a line
of the host's own), `_close_front` (the end, with the app's exit status), `output_backlog`,
`_pause_input`/`_resume_input` and `client_environment`; it calls `begin`, `keys`, `resize` and
`front_lost` as its client does things. Bytes pass both ways untouched.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from horizon_tui.host.limits import ResizeThrottle, clamp_terminal_size
from horizon_tui.host.live import StatusFile
from horizon_tui.host.motd import MOTD_WAIT
from horizon_tui.host.prefork import CLI_MODULE
from horizon_tui.host.pty_process import PtyProcess
from horizon_tui.host.recording import Recorder, prune, recording_path
from horizon_tui.host.watch import WatchList
from horizon_tui.paths import ENV_SHARED_SAVES, private_dir
from horizon_tui.play.hosting import ENV_SESSION, ENV_WATCH, REDRAW_SIGNAL, WATCH_EXIT
from horizon_tui.storage.host_records import ENV_DATABASE
from horizon_tui.storage.runs import HALL_OF_FAME, HALL_OF_FAME_ENV
from horizon_tui.table.lobby import ENV_ACCOUNT, ENV_HOST_PID, ENV_TABLES

if TYPE_CHECKING:
    from horizon_tui.host.prefork import SessionServer

START_FAILED = "Horizon couldn't start the game; the server's log says why."
SHUTTING_DOWN = "The Horizon server is shutting down; your game was saved."
STOPPING = "The Horizon server is shutting down; try again later."
INPUT_BACKLOG_LIMIT = 64 * 1024
# Leave the alternate screen, show the cursor, stop mouse and paste reporting: what an app that
# was killed (or ignored SIGTERM's chance to tidy up) leaves undone on the player's terminal.
TERMINAL_RESET = (b"\x1b[0m\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l"
                  b"\x1b[?1015l\x1b[?1004l\x1b[?2004l")
ENDING_OUTPUT_LIMIT = 1024 * 1024  # a stalled client must not keep an ending app from saving
_TERM_TYPE = re.compile(r"[A-Za-z0-9._+-]{1,64}")
_TRUECOLOR_TERMS = ("-direct", "truecolor", "24bit")


def usable_size(width: int, height: int, pixwidth: int = 0, pixheight: int = 0):
    """Clients without a local terminal (`ssh -tt` from a script) send 0x0: give the app 80x24;
    a huge one is cut to what a game needs (limits.MAX_COLUMNS x MAX_ROWS)."""
    return clamp_terminal_size(width, height, pixwidth, pixheight)


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 and seconds % 60 == 0 else f"{seconds:g} s"


def app_environment(term_type: str | None, client_env: dict, home: str, user: str,
                    python_path: str | None) -> dict[str, str]:
    """The app's whole environment: nothing of the server's and only the terminal's facts of
    the client's. COLORTERM is passed on when the client says it has 24-bit colour."""
    term = term_type if term_type and _TERM_TYPE.fullmatch(term_type) else "xterm-256color"
    env = {"TERM": term, "LANG": "C.UTF-8", "HOME": home, "USER": user, "LOGNAME": user,
           "PATH": os.defpath}
    colorterm = str(client_env.get("COLORTERM", "")).lower()
    if colorterm in ("truecolor", "24bit") or any(t in term for t in _TRUECOLOR_TERMS):
        env["COLORTERM"] = "truecolor"
    if python_path:
        env["PYTHONPATH"] = python_path
    return env


class GameSession:
    """One player's game (or watch list) on a host. `connection` says who and from where: it
    has `user`, `role` ("player" or "gm"), `where` (address:port, for the log) and may have
    `watch_only` (logged in only to watch)."""

    transport = "ssh"  # for the log: which front end carries it

    def __init__(self, host: Any, connection: Any):
        self.host = host
        self.connection = connection
        self.user = connection.user or "?"
        self.has_pty = True
        self.term_type: str | None = None
        self.term_size = (80, 24, 0, 0)
        self.process: PtyProcess | None = None
        self.started_at: float | None = None
        self.last_input = 0.0
        self.end_reason: str | None = None
        self.front_open = True
        self._input_paused = False
        self._ending = False
        self._idle_handle: asyncio.TimerHandle | None = None
        self._started = asyncio.Event()  # the app's process is there (or failed to start)
        self._loop = asyncio.get_running_loop()
        self.id = secrets.token_hex(4)
        self.started_wall: float | None = None  # time.time() the game started, for the lists
        self.status: StatusFile | None = None   # this game's entry in live/ (who, watch)
        self.recorder: Recorder | None = None
        self.watchers: set[WatchList] = set()   # watching this game
        self.watch: WatchList | None = None     # this front end is watching (or choosing a game)
        self._resizes = ResizeThrottle(self._resize_app, host.settings.resize_interval, self._loop)
        self._motd_timer: asyncio.TimerHandle | None = None  # the message is up (motd.py)

    # --- the transport: what a front end supplies ---------------------------------------------

    def _send(self, data: bytes) -> None:
        """Bytes to the client's terminal; on a broken transport, set `front_open` False."""
        raise NotImplementedError

    def _send_line(self, text: str) -> None:
        """A line of the host's own (a refusal, why the game ended), below what is on screen."""
        raise NotImplementedError

    def _close_front(self, returncode: int) -> None:
        """End the transport, telling the client the app's exit status (< 0: its signal)."""
        raise NotImplementedError

    def output_backlog(self) -> int:
        """Bytes sent to the client that it has not taken yet."""
        raise NotImplementedError

    def _pause_input(self) -> None:
        raise NotImplementedError

    def _resume_input(self) -> None:
        raise NotImplementedError

    def client_environment(self) -> dict:
        """What the client says of its terminal (COLORTERM)."""
        return {}

    # --- what a front end calls ------------------------------------------------------------

    def begin(self) -> None:
        """The client is ready: the server's message (a key goes on to the game), or the game."""
        if self.host.settings.motd:
            self._show_motd(self.host.settings.motd)
            return
        self._start_app()

    def begin_watching(self) -> None:
        """The client asked for the list of live games (`ssh -t host watch`, /watch)."""
        self._enter_watch(back_to_game=False)

    def keys(self, data: bytes) -> None:
        """What the client typed, to the app (or to the watch list, or ending the message)."""
        self.last_input = self._loop.time()
        if self.watch is not None:
            if not self.watch.keys(data):
                self._leave_watch()
            return
        if self.status is not None:
            self.status.touch()
        if self._motd_timer is not None:
            self._end_motd()
            return
        if self.process is None:
            return
        if self.process.write(data) > INPUT_BACKLOG_LIMIT and not self._input_paused:
            self._input_paused = True
            self._pause_input()

    def resize(self, width: int, height: int, pixwidth: int = 0, pixheight: int = 0) -> None:
        self.term_size = usable_size(width, height, pixwidth, pixheight)
        if self.watch is not None and self.watch.watching is None:
            self.watch.draw()
        self._resizes.submit(self.term_size)  # at most one every settings.resize_interval

    def output_paused(self) -> None:
        """The client can't take more just now: the app waits (never the host buffering)."""
        if self.process is not None and not self._ending:
            self.process.pause_output()

    def output_resumed(self) -> None:
        if self.process is not None:
            self.process.resume_output()

    def front_lost(self) -> None:
        """The client went away: the game is saved and ended, the slot given back."""
        self.front_open = False
        self._resizes.cancel()
        self._end_motd()
        if self.watch is not None:
            self.watch.close()
            self.watch = None
            self.host.release(self)
            return
        if self.process is not None and not self.process.finished:
            self.end("client closed")
        elif self.process is None:
            self.host.release(self)

    # --- the message of the day ------------------------------------------------------------

    def _show_motd(self, text: bytes) -> None:
        self._send(b"\x1b[H\x1b[2J" + text)
        self._motd_timer = self._loop.call_later(MOTD_WAIT, self._end_motd)

    def _end_motd(self) -> None:
        if self._motd_timer is not None:
            self._motd_timer.cancel()
            self._motd_timer = None
            if self.front_open:
                self._start_app()

    # --- the app ---------------------------------------------------------------------------

    def _start_app(self) -> None:
        host = self.host
        if host.stopping:
            host.release(self)
            self._send_line(STOPPING)
            self._close(1)
            return
        server = getattr(host, "session_server", None)
        forked = server is not None and server.running and not host.settings.app_command
        try:
            home, saves = host.accounts.prepare_user(self.user)
            env = app_environment(self.term_type, self.client_environment(), str(home),
                                  self.user, host.python_path)
            self.id = secrets.token_hex(4)  # per game: "Watch a game" and back is a new one
            self.status = StatusFile(host.settings.data_dir, self.id, self.user, self.term_size[:2])
            env[ENV_SESSION] = str(self.status.path)
            # who this session is at a live table, and where the host's tables are.
            env[ENV_ACCOUNT] = self.user
            env[ENV_TABLES] = str(private_dir(Path(host.settings.data_dir) / "tables"))
            if host.settings.database:  # characters, locks and offers shared by every host (storage/host_records.py)
                env[ENV_DATABASE] = host.settings.database
                # and the account's runs, battles and campaigns (storage/host_shared.py); a live table's aren't
                env[ENV_SHARED_SAVES] = str(Path(saves).resolve())
            env[ENV_HOST_PID] = str(os.getpid())  # its tables end with it, even if it is killed
            env[HALL_OF_FAME_ENV] = str(Path(host.settings.data_dir) / HALL_OF_FAME)  # one for every account
            if host.settings.spectators != "none":
                env[ENV_WATCH] = "1"
            argv = host.app_argv(saves, getattr(self.connection, "role", "player"))
            if forked:  # the same command line, less the interpreter: `cli.main(argv)` in the fork
                argv = argv[argv.index(CLI_MODULE) + 1:]
            self.process = PtyProcess(
                argv, env=env, cwd=home, size=self.term_size,
                on_output=self._app_output, on_exit=self._app_exited,
                on_input_drained=self._input_drained)
            if forked:
                host.track(self._start_forked(server, argv, env, Path(home).resolve()))
                return
            pid = self.process.start()
        except Exception as exc:  # a broken app command must end this session only
            self._start_failed(exc)
            return
        self._app_started(pid)

    async def _start_forked(self, server: SessionServer, argv: list[str], env: dict, home) -> None:
        try:
            master, pid, exited = await server.spawn(argv, env=env, cwd=home, size=self.term_size)
        except Exception as exc:  # noqa: BLE001 (the session server gone: this session only)
            self._start_failed(exc)
            return
        self.process.attach(master, pid, exited)
        self._app_started(pid)

    def _start_failed(self, exc: Exception) -> None:
        self.host.log.error("session start failed user=%s addr=%s: %s", self.user,
                            self.connection.where, exc)
        self.process = None
        if self.status is not None:
            self.status.remove()
        self._started.set()
        self.host.release(self)
        self._send_line(START_FAILED)
        self._close(1)

    def _app_started(self, pid: int) -> None:
        host = self.host
        self._started.set()
        self.started_at = self.last_input = self._loop.time()
        self.started_wall = time.time()
        self._start_recording()
        host.log.info("session start user=%s addr=%s pid=%s term=%s size=%sx%s%s", self.user,
                      self.connection.where, pid, self.process.env["TERM"], self.term_size[0],
                      self.term_size[1], "" if self.transport == "ssh" else f" via={self.transport}")
        self._schedule_idle_check(host.settings.idle_timeout)

    def _start_recording(self) -> None:
        settings = self.host.settings
        if not settings.record:
            return
        limits = settings.recording_limits
        try:
            prune(settings.data_dir, limits, user=self.user)
            path = recording_path(settings.data_dir, self.user, self.id)
            self.recorder = Recorder(path, *self.term_size[:2], term=self.process.env["TERM"],
                                     title=f"Horizon: {self.user}", max_bytes=limits.max_bytes)
        except OSError as exc:  # a full or read-only disk: the game goes on unrecorded
            self.host.log.warning("recording not started user=%s: %s", self.user, exc)

    # --- what this game looks like to others ------------------------------------------------

    @property
    def playing(self) -> bool:
        return self.process is not None and self.process.pid is not None and not self.process.finished

    def app_status(self) -> dict:
        return self.status.app_status() if self.status is not None else {}

    @property
    def watchable(self) -> bool:
        # A GM's screen shows what the players may not know (hidden enemies): it is
        # watched only if the GM's app says so; a player's game unless the player refuses.
        default = "refuse" if getattr(self.connection, "role", "player") == "gm" else "allow"
        return self.app_status().get("watchers", default) != "refuse"

    def redraw(self, target=None) -> None:
        """Have the app draw its whole screen again (a watcher joined, a browser came back);
        an app that can't: at least `target`'s screen is clean."""
        if self.app_status().get("redraw") == REDRAW_SIGNAL and self.process is not None:
            self.process.signal_leader(signal.SIGUSR1)
        elif target is not None:
            target(b"\x1b[H\x1b[2J")

    def add_watcher(self, watcher: WatchList) -> None:
        self.watchers.add(watcher)
        if self.status is not None:
            self.status.update(watchers=len(self.watchers))
        self.redraw(watcher.game_output)

    def remove_watcher(self, watcher: WatchList) -> None:
        self.watchers.discard(watcher)
        if self.status is not None:
            self.status.update(watchers=len(self.watchers))

    def write_raw(self, data: bytes) -> None:
        if self.front_open:
            self._send(data)

    # --- watch mode ------------------------------------------------------------------------

    def _enter_watch(self, *, back_to_game: bool) -> None:
        if self.started_at is None:
            self.started_at = self._loop.time()
        self.last_input = self._loop.time()
        self.watch = WatchList(self, back_to_game=back_to_game)
        self.watch.start()
        self._schedule_idle_check(self.host.settings.idle_timeout)

    def _leave_watch(self) -> None:
        watch, self.watch = self.watch, None
        if watch is not None:
            watch.close()
        if watch is not None and watch.back_to_game and self.front_open:
            self.process = None
            self.end_reason = None
            self._ending = False
            self._started = asyncio.Event()
            self._start_app()  # the player's game again, as it was saved
        else:
            self.host.release(self)
            self._close(0)

    def _input_drained(self) -> None:
        if self._input_paused and self.front_open:
            self._input_paused = False
            self._resume_input()

    def _resize_app(self, size: tuple) -> None:
        if self.process is not None:
            self.process.resize(*size)
            if self.recorder is not None:
                self.recorder.resize(*size[:2])
            if self.status is not None:
                self.status.update(width=size[0], height=size[1])

    def _app_output(self, data: bytes) -> None:
        if self.recorder is not None:
            self.recorder.output(data)
        for watcher in list(self.watchers):
            watcher.game_output(data)
        if self.front_open:
            if self._ending and self.output_backlog() > ENDING_OUTPUT_LIMIT:
                return
            self._send(data)

    def _app_exited(self, returncode: int) -> None:
        if self._idle_handle is not None:
            self._idle_handle.cancel()
            self._idle_handle = None
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        for watcher in list(self.watchers):
            watcher.game_ended(self)
        self.watchers.clear()
        if self.status is not None:
            self.status.remove()
            self.status = None
        if (returncode == WATCH_EXIT and self.front_open and not self._ending
                and self.host.settings.spectators != "none" and not self.host.stopping):
            self.host.log.info("session watch user=%s addr=%s", self.user, self.connection.where)
            self._enter_watch(back_to_game=True)  # "Watch a game" on the main menu
            return
        self.host.release(self)
        if self.end_reason is None:
            self.end_reason = (f"app quit (status {returncode})" if returncode >= 0
                               else f"app killed by {signal_name(-returncode)}")
        duration = self._loop.time() - (self.started_at or self._loop.time())
        self.host.log.info("session end user=%s addr=%s duration=%.1fs reason=%s", self.user,
                           self.connection.where, duration, self.end_reason)
        if self.front_open and self.has_pty and (self._ending or returncode < 0):
            self._app_output(TERMINAL_RESET)
        if self.end_reason == "idle":
            self._send_line(f"Horizon: no key pressed for {_duration(self.host.settings.idle_timeout)};"
                            " your game was saved and the session closed.")
        elif self.end_reason == "server shutdown":
            self._send_line(SHUTTING_DOWN)
        self._close(returncode)

    # --- ending ----------------------------------------------------------------------------

    def _schedule_idle_check(self, delay: float) -> None:
        if self.host.settings.idle_timeout > 0:
            self._idle_handle = self._loop.call_later(max(delay, 0.05), self._check_idle)

    def _check_idle(self) -> None:
        self._idle_handle = None
        watching = self.watch is not None
        if not watching and (self.process is None or self.process.finished):
            return
        idle = self._loop.time() - self.last_input
        timeout = self.host.settings.idle_timeout
        if idle >= timeout and watching:
            self.watch.back_to_game = False
            self._leave_watch()
        elif idle >= timeout:
            self.end("idle")
        else:
            self._schedule_idle_check(timeout - idle)

    def end(self, reason: str) -> asyncio.Task | None:
        """Ask the app to save and quit (SIGTERM, then SIGKILL after the grace time)."""
        if self.process is None or self.process.finished:
            return None
        if self.end_reason is None:
            self.end_reason = reason
        self._ending = True
        if self.process.pid is None:  # still being forked: ended once it is there
            return self.host.track(self._end_when_started())
        self.process.resume_output()  # its last writes (saving, restoring the terminal) must not block
        return self.host.track(self.process.terminate(self.host.settings.stop_grace))

    async def _end_when_started(self) -> None:
        await self._started.wait()
        if self.process is not None and self.process.pid is not None and not self.process.finished:
            self.process.resume_output()
            await self.process.terminate(self.host.settings.stop_grace)

    def _close(self, returncode: int) -> None:
        if not self.front_open:
            return
        self._close_front(returncode)
        self.front_open = False
