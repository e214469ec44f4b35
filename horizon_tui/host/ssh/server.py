"""The SSH host: one listener, one `_Connection` per client, one `SshGameSession` per channel.

Everything several connections share (accounts, the failed-login limiter, the connections not
logged in yet, the running sessions) lives on the `SSHHost` instance. Only public-key logins; no
passwords, no forwarding of any kind; only the key exchanges, ciphers and MACs of `CRYPTO`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path

import asyncssh
import attrs
from asyncssh.encryption import get_encryption_algs
from asyncssh.kex import get_kex_algs
from asyncssh.mac import get_mac_algs

import horizon_tui
from horizon_tui.errors import HorizonError
from horizon_tui.paths import default_server_dir
from horizon_tui.storage.accounts import (
    Accounts,
    accepts_key,
    host_accounts,
    is_valid_name,
    private_tree,
)
from horizon_tui.host.ssh.hostkey import fingerprint, load_or_create_host_key
from horizon_tui.host.ssh.proxy_protocol import ProxiedListener, trusted_networks
from horizon_tui.host.limits import LoginLimiter, PreAuthGate, Startups
from horizon_tui.host.prefork import SessionServer
from horizon_tui.host import live
from horizon_tui.host.recording import RecordingLimits, prune
from horizon_tui.host.ssh.channel import SshGameSession
from horizon_tui.host.watch import WATCH_USER
from horizon_tui.host.web.server import WebFront
from horizon_tui.table.lobby import stop_tables

SAVES_NAME = "saves"  # the app runs in the user's folder and is given this relative name
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)  # not SIGHUP: `nohup horizon serve-ssh` must survive


def _available(wanted: tuple[str, ...], supported: list[bytes]) -> tuple[str, ...]:
    return tuple(name for name in wanted if name.encode() in supported)


def modern_crypto() -> dict[str, tuple[str, ...]]:
    """What the host offers: the algorithms ssh-audit's hardening guide for current OpenSSH keeps
    (post-quantum hybrids and curve25519; AEAD ciphers; encrypt-then-MAC MACs), less those this
    asyncssh can't do (sntrup761 needs liboqs). The host key is ed25519 (hostkey.py), so that is
    the only host key algorithm. No NIST curves, no SHA-1, no finite-field groups, no CBC/CTR."""
    return {
        "kex_algs": _available(("mlkem768x25519-sha256", "sntrup761x25519-sha512",
                                "sntrup761x25519-sha512@openssh.com", "curve25519-sha256",
                                "curve25519-sha256@libssh.org"), get_kex_algs()),
        "encryption_algs": _available(("chacha20-poly1305@openssh.com", "aes256-gcm@openssh.com",
                                       "aes128-gcm@openssh.com"), get_encryption_algs()),
        "mac_algs": _available(("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
                                "umac-128-etm@openssh.com"), get_mac_algs()),
        # what server-sig-algs tells clients their key may sign with (accounts.accepts_key)
        "signature_algs": ("ssh-ed25519", "sk-ssh-ed25519@openssh.com", "rsa-sha2-512", "rsa-sha2-256"),
    }


def default_app_command(role: str = "player") -> tuple[str, ...]:
    """The player app (the GM tool for a `gm` account) in a fresh interpreter; the user's saves
    folder is appended."""
    # -P: the player's folder (the working directory) is not put on sys.path
    return (sys.executable, "-P", "-m", "horizon_tui.cli", "gm" if role == "gm" else "play", "--saves-dir")


def configure_logging(level: int = logging.INFO) -> None:
    """One line per event on stderr. asyncssh's own INFO lines are kept out: they would log the
    commands clients try to exec (data typed) and every channel's life."""
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("asyncssh").setLevel(logging.WARNING)


def resolved_dir(path: Path | str | None) -> Path:
    """A data folder as an absolute path, fixed once: the app runs in the user's folder, so a
    relative one would otherwise be read from there (`srv/users/alice/srv/users/alice/saves`)."""
    return default_server_dir() if path is None else Path(path).expanduser().resolve()


@attrs.frozen
class HostSettings:
    data_dir: Path = attrs.field(factory=default_server_dir, converter=resolved_dir)
    host: str = "127.0.0.1"
    port: int = 2222
    idle_timeout: float = 1800.0          # seconds without a key from the client; 0 = never
    max_sessions_per_user: int = 3
    max_sessions: int = 50
    max_failed_logins: int = 5            # per source address, within failed_login_window
    failed_login_window: float = 60.0
    login_ban: float = 60.0               # how long such an address is refused
    max_auth_tries: int = 6               # keys one connection may offer before it is dropped
    login_timeout: float = 10.0           # LoginGraceTime: connect → logged in, else dropped
    max_connections: int = 200            # open at once, logged in or not (a flood guard)
    max_startups: Startups = attrs.field(factory=Startups)  # not logged in yet, in all: MaxStartups 10:30:100
    max_startups_per_source: int = 3      # not logged in yet, per address (IPv6: per /64)
    max_connections_per_user: int = 4     # logged in as one account, with a session or not
    resize_interval: float = 0.2          # the app sees at most one terminal resize this often
    motd: bytes | None = None             # shown before the menu (motd.py)
    stop_grace: float = 5.0               # SIGTERM → SIGKILL, for a session's app
    keepalive_interval: float = 60.0      # a vanished client is noticed, its app saved
    app_command: tuple[str, ...] | None = None
    spectators: str = "users"             # who may watch live games: none | users | anyone (watch.py)
    record: bool = True                   # every game recorded as asciicast v2 (recording.py)
    recording_limits: RecordingLimits = RecordingLimits()
    web: tuple[str, int] | None = None    # --web HOST:PORT: browsers play here too (host/web/)
    web_url: str | None = None            # --web-url: the address browsers use (behind a TLS proxy)
    database: str | None = None           # accounts (and offers) in this database, not the folder's files
    proxy_protocol_from: tuple[str, ...] = ()  # balancers whose PROXY v2 header names the client (proxy_protocol.py)


class _PrivateUmask:
    """The umask is the process's, not a host's: the first host to start sets 077 and keeps what
    was there; the last one to stop (in whatever order) puts it back."""

    holders = 0
    saved = 0o022

    @classmethod
    def take(cls) -> None:
        if cls.holders == 0:
            cls.saved = os.umask(0o077)
        cls.holders += 1

    @classmethod
    def give_back(cls) -> None:
        cls.holders -= 1
        if cls.holders == 0:
            os.umask(cls.saved)


class SSHHost:
    """A running server. `await start()` returns the port; `await stop()` saves and closes every
    session (SIGTERM to each app, SIGKILL after the grace time) and stops listening."""

    def __init__(self, settings: HostSettings, *, log: logging.Logger | None = None):
        self.settings = settings
        self.log = log or logging.getLogger("horizon.ssh")
        # in the data folder's files, or the database's (DatabaseError: the host doesn't start, saying why)
        self.accounts: Accounts = host_accounts(settings.data_dir, settings.database)
        self.limiter = LoginLimiter(settings.max_failed_logins, settings.failed_login_window,
                                    settings.login_ban)
        self.preauth = PreAuthGate(settings.max_startups, settings.max_startups_per_source)
        self.sessions: set[SshGameSession] = set()
        self.connections: set[_Connection] = set()
        self.host_key: asyncssh.SSHKey | None = None
        self.port: int | None = None
        self.python_path = str(Path(horizon_tui.__file__).resolve().parent.parent)
        self.session_server: SessionServer | None = None  # the pre-forked player app (prefork.py)
        self.web = None  # the browser front end on this loop (host/web/), with --web
        self._acceptor: asyncssh.SSHAcceptor | None = None
        self._tasks: set[asyncio.Task] = set()
        self._stopping = False
        self._holds_umask = False

    @property
    def stopping(self) -> bool:
        return self._stopping

    # --- listening -------------------------------------------------------------------------

    async def start(self) -> int:
        data_dir = self.settings.data_dir
        # Everything made from now on (by the host and by the apps it starts) is the owner's
        # alone; what was already there is tightened to match.
        _PrivateUmask.take()
        self._holds_umask = True
        tightened = private_tree(data_dir)
        if tightened:
            self.log.warning("data folder %s: %d file(s) or folder(s) others could read were made "
                             "private (folders 0700, files 0600)", data_dir, tightened)
        self.host_key = load_or_create_host_key(data_dir)
        s = self.settings
        live.remove_stale(data_dir)  # entries a stopped host left behind
        prune(data_dir, s.recording_limits)
        if s.app_command is None:
            self.session_server = SessionServer(python_path=self.python_path, log=self.log, cwd=data_dir)
            await self.session_server.start()
        options = dict(
            server_host_keys=[self.host_key], server_version="Horizon",
            encoding=None, line_editor=False, allow_pty=True, allow_scp=False,
            agent_forwarding=False, x11_forwarding=False,
            public_key_auth=True, password_auth=False, kbdint_auth=False, host_based_auth=False,
            gss_host=None, gss_kex=False, gss_auth=False,
            login_timeout=s.login_timeout or None,
            keepalive_interval=s.keepalive_interval, keepalive_count_max=3,
            **modern_crypto())
        if s.proxy_protocol_from:
            self._acceptor = self._proxied(options)
        else:
            self._acceptor = await asyncssh.create_server(lambda: _Connection(self), s.host, s.port, **options)
        self.port = self._acceptor.get_port()
        if s.web is not None:
            self.web = WebFront(self, s.web, s.web_url)
            await self.web.start()
        self.log.info("listening on %s:%s, data in %s, host key %s", s.host, self.port, data_dir,
                      fingerprint(self.host_key))
        self.log.info("limits: login grace %gs, not logged in %s in all and %d per address, "
                      "%d connections per account", s.login_timeout, s.max_startups,
                      s.max_startups_per_source, s.max_connections_per_user)
        return self.port

    def _proxied(self, options: dict) -> ProxiedListener:
        """The listener when balancers send the PROXY protocol: each connection's address is the
        one its balancer reports (or its own, from anywhere else) before SSH begins on it."""
        s = self.settings
        ssh_options = asyncssh.SSHServerConnectionOptions(**options)

        async def handshake(sock, address: str) -> None:
            try:
                await asyncssh.run_server(sock, options=ssh_options,
                                          server_factory=lambda: _Connection(self, address=address))
            except (asyncssh.Error, OSError) as exc:  # refused or gone in the handshake, as with any listener
                self.log.debug("addr=%s: %s", address, exc)

        def begin(sock, address: str) -> None:
            self.track(handshake(sock, address))

        def refused(peer: str, reason: str) -> None:
            self.log.debug("refused addr=%s: %s", peer, reason)  # debug: a flood must not flood the log

        return ProxiedListener(s.host, s.port, trusted_networks(s.proxy_protocol_from),
                               timeout=s.login_timeout or 10.0, max_waiting=s.max_connections,
                               on_connection=begin, on_refused=refused)

    async def stop(self) -> None:
        if self._stopping:
            return
        self._stopping = True
        if self._acceptor is not None:
            self._acceptor.close()
        sessions = list(self.sessions)
        endings = [t for t in (session.end("server shutdown") for session in sessions) if t]
        if endings:
            self.log.info("stopping: saving and closing %d session(s)", len(endings))
            await asyncio.wait(endings, timeout=self.settings.stop_grace + 6)
            # Each client is told its game's exit status before its connection is closed.
            closing = [asyncio.ensure_future(s.chan.wait_closed()) for s in sessions
                       if getattr(s, "chan", None)]  # a browser's game has no channel
            if closing:
                await asyncio.wait(closing, timeout=1)
        # The tables the sessions opened run in processes of their own: they stop with the host,
        # each saving first.
        stopped = await asyncio.to_thread(stop_tables, Path(self.settings.data_dir) / "tables",
                                          self.settings.stop_grace + 8)
        if stopped:
            self.log.info("stopped %d table(s): %s", len(stopped), ", ".join(stopped))
        for connection in list(self.connections):
            connection.conn.close()
        waits = [asyncio.ensure_future(c.conn.wait_closed()) for c in list(self.connections)]
        if waits:
            await asyncio.wait(waits, timeout=2)
        if self.web is not None:
            await self.web.stop()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        if self.session_server is not None:
            await self.session_server.stop()
        if self._acceptor is not None:
            self._acceptor = None
        if self._holds_umask:
            self._holds_umask = False
            _PrivateUmask.give_back()
        self.log.info("stopped")

    async def serve_until_signal(self) -> None:
        """Serve until SIGTERM or SIGINT, then stop cleanly."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in _STOP_SIGNALS:
            loop.add_signal_handler(signum, stop.set)
        try:
            await self.start()  # a failed start is stopped too (the umask given back)
            await stop.wait()
            self.log.info("signal received; shutting down")
        finally:
            for signum in _STOP_SIGNALS:
                loop.remove_signal_handler(signum)
            await self.stop()

    # --- sessions --------------------------------------------------------------------------

    def app_argv(self, saves_dir: Path, role: str = "player") -> list[str]:
        """The app's command line: the player app, or the GM tool for a GM's account (`role`).
        It runs in the user's folder (`saves_dir`'s parent) and gets its saves folder by that
        relative name, so no screen shows the server's own paths."""
        return [*(self.settings.app_command or default_app_command(role)), saves_dir.name]

    def user_connections(self, user: str) -> int:
        return sum(1 for c in self.connections if c.user == user)

    def admit(self, session: SshGameSession) -> tuple[str, str] | None:
        """Take a session slot, or say (reason for the log, line for the player) why not."""
        if self._stopping:
            return "server stopping", "The Horizon server is shutting down; try again later."
        s = self.settings
        mine = sum(1 for other in self.sessions if other.user == session.user)
        if mine >= s.max_sessions_per_user:
            return ("too many sessions for user",
                    f"You already have {mine} Horizon session{'s' if mine != 1 else ''} open, the "
                    f"most allowed; close one and try again.")
        if len(self.sessions) >= s.max_sessions:
            return "server full", f"The Horizon server is full ({s.max_sessions} players); try again later."
        self.sessions.add(session)
        return None

    def release(self, session: SshGameSession) -> None:
        self.sessions.discard(session)

    def track(self, coroutine: Coroutine) -> asyncio.Task:
        """Run a background job owned by the host (kept referenced, awaited at stop)."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("session job failed: %r", task.exception())

    def log_refusal(self, connection: _Connection, reason: str) -> None:
        self.log.info("refused user=%s addr=%s reason=%s", connection.shown_user,
                      connection.where, reason)


class _Connection(asyncssh.SSHServer):
    """One client connection: its address, who it claims to be, whether it has failed a login."""

    def __init__(self, host: SSHHost, *, address: str | None = None):
        self.host = host
        self.conn: asyncssh.SSHServerConnection | None = None
        self.reported = address  # the client's address as a trusted balancer reported it (PROXY v2)
        self.address = "?"
        self.where = "?"
        self.user: str | None = None       # set once authenticated
        self.role = "player"               # or "gm", read from the account at login
        self.watch_only = False            # logged in as `watch` with --spectators anyone
        self._claimed: str | None = None   # the name being tried, when it is a valid name
        self._allowed: set[bytes] = set()
        self._failed = False
        self._tries = 0
        self._closing = False
        self._pending = False              # counted in host.preauth until logged in or gone
        self._sessions_opened = 0
        self._no_session_timer: asyncio.TimerHandle | None = None

    @property
    def shown_user(self) -> str:
        return self.user or self._claimed or "-"

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("?", 0)
        self.address = self.reported or str(peer[0])
        self.where = f"{peer[0]}:{peer[1]}" if self.reported in (None, str(peer[0])) else \
            f"{self.reported} via {peer[0]}:{peer[1]}"
        # A connection turned away here is never counted in `host.connections`, so a flood being
        # dropped takes no place from anyone.
        if self.host.stopping:
            self._disconnect(asyncssh.DISC_BY_APPLICATION, "The Horizon server is shutting down.")
            return
        if len(self.host.connections) >= self.host.settings.max_connections:
            self.host.log_refusal(self, "too many connections")
            self._disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, "The Horizon server is busy.")
            return
        dropped = self.host.preauth.admit(self.address)
        if dropped:  # logged at debug only: a flood must not flood the log too
            self.host.log.debug("dropped addr=%s: %s", self.where, dropped)
            self._disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, "The Horizon server is busy.")
            return
        self._pending = True
        self.host.connections.add(self)
        # A banned address is told so at `begin_auth`: a disconnect sent before the key exchange
        # reaches OpenSSH as a bare "Broken pipe".

    def connection_lost(self, exc: Exception | None) -> None:
        self.host.connections.discard(self)
        self._logged_in_or_gone()
        if self._no_session_timer is not None:
            self._no_session_timer.cancel()
            self._no_session_timer = None

    def _logged_in_or_gone(self) -> None:
        if self._pending:
            self._pending = False
            self.host.preauth.release(self.address)

    def _refuse_if_banned(self) -> bool:
        if self._closing:
            return True
        left = self.host.limiter.blocked_for(self.address)
        if left:
            self.host.log_refusal(self, "too many failed logins from this address")
            self._disconnect(asyncssh.DISC_HOST_NOT_ALLOWED_TO_CONNECT,
                             f"Too many failed logins from {self.address}; try again in "
                             f"{math.ceil(left)} s.")
        return bool(left)

    def _disconnect(self, code: int, reason: str) -> None:
        if not self._closing:
            self._closing = True
            asyncio.get_running_loop().call_soon(self.conn.disconnect, code, reason)

    def _fail(self, reason: str) -> None:
        """Count this connection's first failed login against its address."""
        if self._failed:
            return
        self._failed = True
        self.host.log_refusal(self, reason)
        if self.host.limiter.record_failure(self.address):
            self.host.log.warning("address %s refused for %g s after %d failed logins",
                                  self.address, self.host.settings.login_ban,
                                  self.host.settings.max_failed_logins)

    # --- authentication: public keys only --------------------------------------------------

    def begin_auth(self, username: str) -> bool:
        self._allowed = set()
        self._claimed = username if is_valid_name(username) else None  # only such names are logged
        if self._refuse_if_banned():
            return True
        if self._claimed is None:
            self._fail("invalid user name")
            return True
        try:  # HorizonError: the accounts' database can't be reached (nobody logs in meanwhile)
            if (username == WATCH_USER and self.host.settings.spectators == "anyone"
                    and not self.host.accounts.exists(username)):
                self.watch_only = True  # `--spectators anyone`: no key, and only the list of games
                return False
            self._allowed = self.host.accounts.allowed_keys(username)
        except (HorizonError, OSError) as exc:
            self.host.log.warning("accounts of %s can't be read: %s", username, exc)
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def host_based_auth_supported(self) -> bool:
        return False

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self._closing or self.host.limiter.blocked_for(self.address):
            return False
        if self._claimed == username and key.public_data in self._allowed and accepts_key(key):
            return True
        self._tries += 1
        self._fail("key not on the account" if self._allowed else "no such user")
        if self._tries >= self.host.settings.max_auth_tries:
            self._disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                             "Too many authentication failures.")
        return False

    def validate_ca_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        return False

    def auth_completed(self) -> None:
        self._logged_in_or_gone()
        if self._failed:
            self.host.limiter.forgive(self.address)
        s = self.host.settings
        others = self.host.user_connections(self._claimed)
        if others >= (s.max_sessions if self.watch_only else s.max_connections_per_user):
            self.host.log_refusal(self, "too many connections for user")
            self._disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS,
                             f"You already have {others} connections to Horizon open, the most "
                             f"allowed; close one and try again.")
            return
        self.user = self._claimed
        try:
            self.role = self.host.accounts.role(self.user)
        except (HorizonError, OSError):
            self.role = "player"
        self.host.log.info("login user=%s role=%s addr=%s", self.user, self.role, self.where)
        if s.login_timeout:  # a login that opens no session doesn't keep its place
            self._no_session_timer = asyncio.get_running_loop().call_later(
                s.login_timeout, self._close_if_no_session)

    def _close_if_no_session(self) -> None:
        self._no_session_timer = None
        if not self._sessions_opened and not self._closing:
            self.host.log_refusal(self, "no session opened")
            self._disconnect(asyncssh.DISC_BY_APPLICATION,
                             f"No session was opened within {self.host.settings.login_timeout:g} s.")

    # --- what an authenticated client may open: a session, nothing else --------------------

    def session_requested(self) -> SshGameSession | bool:
        # Every session channel is an SshGameSession; what it may run (the game, or the one
        # command `watch`) is decided by its shell/exec request, in session.py.
        if self._closing or self.user is None:
            return False
        self._sessions_opened += 1
        return SshGameSession(self.host, self)

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        self.host.log_refusal(self, "port forwarding (local)")
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        self.host.log_refusal(self, "port forwarding (remote)")
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        self.host.log_refusal(self, "socket forwarding (local)")
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        self.host.log_refusal(self, "socket forwarding (remote)")
        return False

    def tun_requested(self, unit) -> bool:
        self.host.log_refusal(self, "tunnel")
        return False

    def tap_requested(self, unit) -> bool:
        self.host.log_refusal(self, "tunnel")
        return False


async def serve(settings: HostSettings) -> int:
    await SSHHost(settings).serve_until_signal()
    return 0
