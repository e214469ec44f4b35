"""Pre-forked sessions: one *session server* process, each session a fork of it.

The SSH host starts `python -P -m horizon_tui.host.prefork` once. That process imports the player
app (Textual, tcod, every `horizon_tui.ui` module), loads the rules data, runs the app once
headless to its main menu, makes its objects immortal (Python 3.12+: `_immortalize`, so using them
writes no reference count) and `gc.freeze()`s, so the collector never writes to what it made
either and those pages stay shared, copy-on-write, with every session (MEASURED.md, "Pre-forked
sessions"; README, "Speed and memory").

For each session the host sends one request over a `SOCK_SEQPACKET` socket pair (one message per
request or reply); the session server opens a PTY, forks, and replies with the child's pid and the
PTY's master side (SCM_RIGHTS). The child is a session leader on that PTY and runs `cli.main(argv)`
(`play --saves-dir saves`, or `gm` for a GM's account) as a fresh interpreter would: its own
environment, working folder, standard streams and signal handlers. A crash kills one child only; the session server
reaps each child and reports its exit status. If the host goes away, the PTY masters close, every
child gets SIGHUP (the app saves and quits) and the session server exits.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import fcntl
import gc
import importlib
import io
import json
import logging
import os
import pkgutil
import select
import signal
import socket
import sys
import sysconfig
import tempfile
import termios
import time
import traceback
import types
from collections.abc import Callable, Sequence
from pathlib import Path

from horizon_tui.host.pty_process import set_window_size

MESSAGE_LIMIT = 256 * 1024  # one request: argv, environment, folder, size
MAX_RESTARTS = 5            # then sessions stay fresh interpreters (the log says why it died)
RESTART_AFTER = 2.0          # seconds after the session server died before another is started
READY_TIMEOUT = 120.0        # the warm-up imports everything once; on a busy machine it is slow
CLI_MODULE = "horizon_tui.cli"  # a session runs what `python -m horizon_tui.cli ARGS` would
_CHILD_SIGNALS = (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE,
                  signal.SIGWINCH, signal.SIGUSR1)


class PreforkError(Exception):
    """The session server is not running or could not start a session."""


# --- the host's side ----------------------------------------------------------------------------

class SessionServer:
    """The host's handle on the session server: `await spawn(...)` → (master fd, pid, exit future)."""

    def __init__(self, *, python_path: str | None, log: logging.Logger, cwd: Path,
                 warm_up: bool = True):
        self.python_path = python_path
        self.log = log
        self.cwd = Path(cwd).resolve()
        self.warm_up = warm_up
        self.process: asyncio.subprocess.Process | None = None
        self.pid: int | None = None
        self._sock: socket.socket | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._next_id = 0
        self._spawning: dict[int, asyncio.Future] = {}
        self._exits: dict[int, asyncio.Future[int]] = {}
        self._pids: dict[int, int] = {}  # request id → the session's pid, while it runs
        self.ready: asyncio.Future[None] | None = None
        self._stopped = False
        self.restarts = 0

    async def start(self) -> None:
        """Start the session server; `ready` resolves once it has warmed up."""
        self._loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": os.defpath, "LANG": "C.UTF-8", "HOME": str(self.cwd)}
        if self.python_path:
            env["PYTHONPATH"] = self.python_path
        # where crash reports go, as for the host itself; HORIZON_PREFORK_MORTAL=1: no immortal
        # objects (bench_ssh --mortal measures what they save)
        for name in ("HORIZON_DATA_DIR", "HORIZON_PREFORK_MORTAL"):
            if name in os.environ:
                env[name] = os.environ[name]
        argv = [sys.executable, "-P", "-m", "horizon_tui.host.prefork", "--fd", str(theirs.fileno())]
        if not self.warm_up:
            argv.append("--no-warm-up")
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                pass_fds=[theirs.fileno()], cwd=self.cwd, env=env, start_new_session=True)
        finally:
            theirs.close()
        self.pid = self.process.pid
        ours.setblocking(False)
        self._sock = ours
        if self.ready is None or self.ready.done():
            self.ready = self._loop.create_future()
        self._loop.add_reader(ours, self._readable)

    @property
    def running(self) -> bool:
        return self._sock is not None

    async def wait_ready(self, timeout: float = READY_TIMEOUT) -> None:
        if self.ready is None:
            raise PreforkError("the session server was not started")
        await asyncio.wait_for(asyncio.shield(self.ready), timeout)

    async def spawn(self, argv: Sequence[str], *, env: dict[str, str], cwd: Path,
                    size: tuple[int, int, int, int]) -> tuple[int, int, asyncio.Future[int]]:
        """Fork one session. Returns the PTY master (ours to close), the child's pid and a future
        that resolves to its return code (negative: the signal that killed it)."""
        if self._sock is None:
            raise PreforkError("the session server is not running")
        self._next_id += 1
        request_id = self._next_id
        spawned = self._loop.create_future()
        self._spawning[request_id] = spawned
        exited = self._loop.create_future()
        self._exits[request_id] = exited
        message = json.dumps({"id": request_id, "argv": list(argv), "env": env, "cwd": str(cwd),
                              "size": list(size)}).encode()
        if len(message) > MESSAGE_LIMIT:
            raise PreforkError("session request too large")
        try:
            self._sock.send(message)  # a few hundred bytes into an empty socket: never blocks long
        except BlockingIOError:
            await self._loop.sock_sendall(self._sock, message)
        except OSError as exc:
            self._spawning.pop(request_id, None)
            self._exits.pop(request_id, None)
            raise PreforkError(f"the session server is gone: {exc}") from exc
        try:
            master, pid = await spawned
        finally:
            self._spawning.pop(request_id, None)
        return master, pid, exited

    def _readable(self) -> None:
        try:
            data, fds, _flags, _addr = socket.recv_fds(self._sock, MESSAGE_LIMIT, 4)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.log.error("session server connection failed: %s", exc)
            data, fds = b"", []
        if not data:
            self._lost()
            return
        try:
            reply = json.loads(data)
        except ValueError:
            for fd in fds:
                os.close(fd)
            self.log.error("session server sent an unreadable message")
            return
        if reply.get("ready"):
            self.log.info("session server pid %s ready (warm-up %.2f s, page merging %s, %s)", self.pid,
                          reply.get("took", 0), "allowed" if reply.get("page_merging") else "unavailable",
                          f"{reply['immortal']} objects immortal" if reply.get("immortal")
                          else "no immortal objects" + (" (Python 3.12+ has them)" if sys.version_info < (3, 12) else ""))
            if not self.ready.done():
                self.ready.set_result(None)
            return
        request_id = reply.get("id")
        if "pid" in reply:
            spawned = self._spawning.get(request_id)
            if spawned is None or spawned.done() or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                return
            os.set_blocking(fds[0], False)
            self._pids[request_id] = int(reply["pid"])
            spawned.set_result((fds[0], int(reply["pid"])))
        elif "error" in reply:
            spawned = self._spawning.get(request_id)
            self._exits.pop(request_id, None)
            if spawned is not None and not spawned.done():
                spawned.set_exception(PreforkError(str(reply["error"])))
        elif "exit" in reply:
            self._pids.pop(request_id, None)
            exited = self._exits.pop(request_id, None)
            if exited is not None and not exited.done():
                exited.set_result(int(reply["exit"]))

    def _lost(self) -> None:
        """The session server died. Sessions already running go on (their PTYs are ours); their
        exits are then noticed by the PTY closing, without a status. Meanwhile new sessions start
        as fresh interpreters (session.py), and a new session server is started after a pause."""
        if self._sock is not None:
            self._loop.remove_reader(self._sock)
            self._sock.close()
            self._sock = None
            self.log.error("session server pid %s is gone; new sessions start as fresh interpreters "
                           "until another is ready", self.pid)
        error = PreforkError("the session server is gone")
        for future in self._spawning.values():
            if not future.done():
                future.set_exception(error)
        if self.ready is not None and not self.ready.done():
            self.ready.cancel()
        for request_id, future in list(self._exits.items()):
            pid = self._pids.pop(request_id, None)
            if not future.done() and not (pid and self._watch_orphan(pid, future)):
                future.set_result(0)  # gone already; its status went with the session server
        self._exits.clear()
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        if not self._stopped and self.restarts < MAX_RESTARTS:
            self.ready = self._loop.create_future()  # waiters wait for the next one
            self._loop.call_later(RESTART_AFTER, self._restart)

    def _watch_orphan(self, pid: int, exited: asyncio.Future[int]) -> bool:
        """Notice the end of a session whose parent (the session server) is gone, through a
        pidfd; its exit status can't be known any more (0 is reported)."""
        try:
            pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            return False

        def ended() -> None:
            self._loop.remove_reader(pidfd)
            os.close(pidfd)
            if not exited.done():
                exited.set_result(0)

        self._loop.add_reader(pidfd, ended)
        return True

    def _restart(self) -> None:
        if self._stopped or self._sock is not None:
            return
        self.restarts += 1
        self.log.warning("starting a new session server (restart %d)", self.restarts)
        task = self._loop.create_task(self.start())
        task.add_done_callback(lambda t: t.cancelled() or t.exception() is None
                               or self.log.error("session server restart failed: %s", t.exception()))

    async def stop(self, timeout: float = 5.0) -> None:
        """Close our end: the session server exits once its children are gone."""
        self._stopped = True
        if self._sock is not None:
            self._loop.remove_reader(self._sock)
            self._sock.close()
            self._sock = None
        if self.ready is not None and not self.ready.done():
            self.ready.cancel()
        if self.process is not None and self.process.returncode is None:
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()


# --- the session server's side ------------------------------------------------------------------

def _import_player_app() -> Callable[[list[str]], int]:
    """Everything a session uses, imported once here, so forks share it."""
    # here, not at the top: the SSH host imports this module and never runs the apps itself
    import horizon_tui.campaign
    import horizon_tui.ui
    from horizon_tui import cli

    for package in (horizon_tui.ui, horizon_tui.campaign):  # the player app; the GM tool for a GM's account
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    parser = _ParsedOnce(cli.build_parser(), SESSION_COMMAND_LINES)
    for name in ("textual.scrollbar", "tcod", "tcod_ecs", "horizon_tui.engine", "horizon_tui.rules", "horizon_tui.storage.atomic",
                 "horizon_tui.storage.lock"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    return lambda argv: cli.main(argv, parser)


SESSION_COMMAND_LINES = (("play", "--saves-dir", "saves"), ("gm", "--saves-dir", "saves"))  # server.app_argv


class _ParsedOnce:
    """The command lines sessions run, parsed once here: argparse's code is never run again in a
    session, so its pages stay shared. Any other command line is parsed as usual."""

    def __init__(self, parser, command_lines):
        self.parser = parser
        self._parsed = {tuple(argv): parser.parse_args(list(argv)) for argv in command_lines}

    def parse_args(self, argv):
        parsed = self._parsed.get(tuple(argv))
        if parsed is None:
            return self.parser.parse_args(argv)

        return argparse.Namespace(**vars(parsed))  # the session's own copy


def _share_textual_work() -> None:
    """What each new app would compute again from the same input, computed once in the session
    server and shared by every fork: the stylesheets parsed into rules (Textual caches them per
    app only) and the theme's CSS variables. Installed only in this process."""
    # (the session server only, as in _import_player_app)
    from textual.app import App
    from textual.css.stylesheet import Stylesheet

    parse_rules = Stylesheet._parse_rules
    parsed: dict = {}

    def shared_parse_rules(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
        key = (css, read_from, is_default_rules, tie_breaker, scope, self._variables_key())
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    def variables_key(self):
        key = getattr(self, "_horizon_variables_key", None)
        if key is None or key[0] is not self._variables:
            key = self._horizon_variables_key = (self._variables, tuple(sorted(self._variables.items())))
        return key[1]

    Stylesheet._parse_rules = shared_parse_rules
    Stylesheet._variables_key = variables_key

    get_css_variables = App.get_css_variables
    variables: dict = {}

    def shared_css_variables(self):
        theme = self.current_theme
        key = (type(self), id(theme))
        found = variables.get(key)
        if found is None or found[0] is not theme:
            found = variables[key] = (theme, get_css_variables(self))
        self.theme_variables = dict(found[1])
        return dict(found[1])

    App.get_css_variables = shared_css_variables


def _warm_up() -> None:
    """Load the rules data and run the app headless to its drawn main menu once: what a session
    would otherwise create for itself (parsed stylesheets, caches, lazily imported modules)."""
    # (the session server only, as in _import_player_app)
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.ui.player.app import create_app

    with contextlib.suppress(Exception):  # a broken data folder is each session's to report
        default_catalogue()

    async def to_the_menu(saves: Path):
        app = create_app(saves)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("down", "up")
            await pilot.pause()

    with tempfile.TemporaryDirectory(prefix="horizon-warm-up-") as saves:
        asyncio.run(to_the_menu(Path(saves)))  # once: more runs leave more garbage to fill


def _immortalize() -> int:
    """Make every object the session server has now immortal, so that using it writes nothing.

    A session copies a shared page whenever it writes to it, and in CPython every use of an object
    writes to it: its reference count goes up and down. That, not the objects a session makes, is
    most of a session's private memory (README, "Where a session's memory goes"). CPython 3.12 and
    newer have *immortal* objects (None, small ints, the built-in types): their count holds one
    fixed value that incrementing and decrementing leave alone, and they are never freed. Setting
    that value on the objects of the warmed-up session server, the last thing before the first
    fork, leaves their pages unwritten by a session's reads: measured with bench_ssh, 7.1 MiB PSS
    per extra session instead of 12.9 on 3.12 (15.1 on 3.11).

    Walks from everything the collector tracks through `gc.get_referents` (and, since code has no
    traverse function, through each code object's constants and names), setting the count in
    place: the count is the first word of every object (Include/object.h, `ob_refcnt`), and the
    immortal value is read off None rather than written down. Nothing here is ever freed again,
    which costs nothing in a process that only forks. On 3.11, on a free-threaded build (another
    object layout) or where None's count doesn't look immortal, does nothing and returns 0;
    otherwise the number of objects made immortal."""
    if sys.version_info < (3, 12) or sysconfig.get_config_var("Py_GIL_DISABLED"):
        return 0
    count_at = ctypes.c_ssize_t.from_address
    immortal = count_at(id(None)).value
    if ctypes.c_int32(immortal).value >= 0:  # CPython's test: the low 32 bits, read signed
        return 0
    todo = gc.get_objects()  # before gc.freeze(): frozen objects are no longer listed
    made = 0
    code_type = types.CodeType
    referents = gc.get_referents
    while todo:
        obj = todo.pop()
        count = count_at(id(obj))
        if count.value == immortal:  # already (or always) immortal: seen
            continue
        count.value = immortal
        made += 1
        if type(obj) is code_type:
            todo.extend((obj.co_consts, obj.co_names, obj.co_filename, obj.co_name,
                         obj.co_qualname, obj.co_linetable, obj.co_exceptiontable))
            todo.extend(obj.co_varnames + obj.co_cellvars + obj.co_freevars)  # tuples made anew: their names
        else:
            todo.extend(referents(obj))
    return made


PR_SET_MEMORY_MERGE = 67  # linux/prctl.h, Linux 6.4+


def _allow_page_merging() -> bool:
    """Let the kernel's same-page merging (KSM) share this process's pages and its forks' with
    each other, where the host runs it (`/sys/kernel/mm/ksm/run` = 1; off by default). Most of a
    session's private memory is pages it copied only to change a reference count, byte-identical
    to the session server's or to another session's (README, "Speed and memory"). Inherited
    by every fork; nothing happens where KSM is off or the kernel is older."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _std_streams() -> None:
    """Fresh standard streams on fds 0-2 (now the PTY), as a new interpreter on a terminal has."""
    def stream(fd: int, mode: str, **options):
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(buffered, encoding="utf-8", **options)

    sys.stdin = sys.__stdin__ = stream(0, "r", errors="strict")
    sys.stdout = sys.__stdout__ = stream(1, "w", errors="strict", line_buffering=True)
    sys.stderr = sys.__stderr__ = stream(2, "w", errors="backslashreplace", line_buffering=True)


def _child(request: dict, slave: int, target: Callable[[list[str]], int]) -> int:
    """In the fork: become a session leader on the PTY, take the session's environment, run."""
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    if slave > 2:
        os.close(slave)
    os.closerange(3, 4096)  # the control socket, the wake-up pipe, other sessions' nothing
    signal.set_wakeup_fd(-1)
    for signum in _CHILD_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as Python sets it at start
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in request["env"].items()})
    os.chdir(request["cwd"])
    _std_streams()
    argv = [str(a) for a in request["argv"]]
    sys.argv = ["horizon", *argv]
    try:
        code = target(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 (the crash is this session's alone)
        traceback.print_exc()
        code = 70
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    return int(code or 0)


def _spawn(control: socket.socket, request: dict, target, children: dict[int, int]) -> None:
    columns, rows, xpixels, ypixels = (int(n) for n in request["size"])
    master, slave = os.openpty()
    try:
        set_window_size(master, columns, rows, xpixels, ypixels)
        pid = os.fork()
    except OSError as exc:
        os.close(master)
        os.close(slave)
        control.send(json.dumps({"id": request["id"], "error": str(exc)}).encode())
        return
    if pid == 0:  # the session
        code = 70
        try:
            os.close(master)
            code = _child(request, slave, target)
        finally:
            os._exit(code)
    os.close(slave)
    children[pid] = request["id"]
    try:
        socket.send_fds(control, [json.dumps({"id": request["id"], "pid": pid}).encode()], [master])
    finally:
        os.close(master)


def _reap(control: socket.socket, children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        request_id = children.pop(pid, None)
        if request_id is not None:
            code = os.waitstatus_to_exitcode(status)
            with contextlib.suppress(OSError):
                control.send(json.dumps({"id": request_id, "exit": code}).encode())


def serve(control: socket.socket, *, warm_up: bool = True, immortalize: bool = True) -> int:
    """The session server's loop: spawn on request, report exits, end when the host goes."""
    started = time.perf_counter()
    target = _import_player_app()
    _share_textual_work()
    if warm_up:
        _warm_up()
    gc.collect()
    immortal = _immortalize() if immortalize else 0
    gc.freeze()  # what exists now is never scanned again: its pages stay shared with every fork
    merging = _allow_page_merging()
    children: dict[int, int] = {}
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the host ends sessions; we end when it goes
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        control.send(json.dumps({"ready": True, "took": time.perf_counter() - started,
                                 "page_merging": merging, "immortal": immortal}).encode())
    except OSError:  # the host gave up before we were warm (a --host it can't listen on): no one to serve
        return 0
    host_gone = False
    while not host_gone or children:
        readable, _, _ = select.select([wake_r] + ([] if host_gone else [control]), [], [],
                                       1.0 if host_gone else None)
        if wake_r in readable or host_gone:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 4096)
            _reap(control, children)
        if control in readable:
            try:
                data = control.recv(MESSAGE_LIMIT)
            except OSError:
                data = b""
            if not data:
                host_gone = True  # the children see their PTY close (SIGHUP) and save
                continue
            request: dict = {}
            try:
                request = json.loads(data)
                _spawn(control, request, target, children)
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                with contextlib.suppress(OSError, AttributeError):
                    control.send(json.dumps({"id": request.get("id"), "error": f"bad request: {exc}"}).encode())
            except OSError:  # the host went away while we answered
                host_gone = True
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Horizon's pre-forked session server (started by serve-ssh)")
    parser.add_argument("--fd", type=int, required=True, help="the control socket from the host")
    parser.add_argument("--no-warm-up", action="store_true")
    args = parser.parse_args(argv)
    control = socket.socket(fileno=args.fd)
    # HORIZON_PREFORK_MORTAL=1 (passed on by the host): no immortal objects, to measure what they save
    return serve(control, warm_up=not args.no_warm_up, immortalize=os.environ.get("HORIZON_PREFORK_MORTAL") != "1")


if __name__ == "__main__":
    sys.exit(main())
