"""The browser front end (`horizon serve-ssh --web HOST:PORT`), on the SSH host's event loop.

One aiohttp server beside asyncssh: the same `SSHHost` holds the accounts, the limits, the live
games and the shutdown. A browser logs in with a link `ssh -t host web-login` printed
(`logins.py`): GET shows "Continue as NAME" (a link preview can't spend it), the button's POST
spends the token and sets a session cookie. Only with a valid cookie is a game started: a
`WebGame`, the same `GameSession` as an SSH channel's (a fork of the pre-forked session server
on a PTY, recorded, listed by `who` and `watch`, idle-timed, counted in the account's and the
host's games). It starts as the page (`static/play.html`, xterm.js) is served, when the browser
says its window's size (Client Hints): the app draws while the page loads, and what it wrote is
kept for the page's websocket; otherwise (a browser without them) when that socket opens. Binary
frames carry bytes both ways, untouched; a text frame `{"resize": [columns, rows]}` resizes. When
the socket drops the game waits `RECONNECT_GRACE` seconds for the page to come back and resume
it (`?resume=ID`), then is saved and ended. `/watch` lists the live games; a watcher's socket
is read-only.

Every response carries `Content-Security-Policy: default-src 'self'` (nothing is loaded from
another site: xterm.js and the font are vendored under `static/vendor/`, served from memory by
`assets.py`, named by digest and cached for a year); every websocket and
every POST whose Origin is not this site's gets 403. Failed logins (a link unknown, used or
expired) count against the address with the SSH host's (`host.limiter`); a login in progress
counts among the address's connections not logged in yet (`host.preauth`) and is dropped if its
form hasn't come within the login grace time; a game counts in the account's and the host's games
(`host.admit`), and a logged-in socket, playing or watching, among the account's connections
(`host.connections_refusal`), each with SSH's; a game started with its page counts there from its
start, before its socket comes (`WebFront.user_sockets`).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import ipaddress
import json
import secrets
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import attrs
from aiohttp import WSMsgType, web

from horizon_tui.host.game import GameSession
from horizon_tui.host.web.assets import IMMUTABLE, REVALIDATE, assets_of
from horizon_tui.host.watch import MAX_WATCHERS_PER_GAME, REFRESH_EVERY, game_label, watch_refusal
from horizon_tui.host.web.logins import LINK_LIFETIME, SESSION_LIFETIME, FileLoginStore, LoginStore, digest

if TYPE_CHECKING:
    from horizon_tui.host.ssh.server import SSHHost

STATIC = Path(__file__).with_name("static")
COOKIE = "horizon_session"
CSP = "default-src 'self'"
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # a login link in the address bar goes to no other site
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
RECONNECT_GRACE = 60.0           # seconds a game waits for its page to come back
SESSION_CHECK_EVERY = 5.0        # seconds: browsers logged out elsewhere lose their games
OUTPUT_PAUSE_AT = 256 * 1024     # bytes queued for a browser before the app waits
MESSAGE_LIMIT = 64 * 1024        # one websocket message from a browser
CLOSE_ENDED = 4000               # the game ended: the page says so and doesn't reconnect
CLOSE_REFUSED = 4003             # refused (full, logged out, not allowed): no reconnect either
TERM_TYPE = "xterm-256color"     # what xterm.js is
EARLY_GRACE = 30.0               # seconds a game started with its page waits for the page's socket
EARLY_OUTPUT_LIMIT = 1024 * 1024  # bytes kept for that socket; past it, the app draws again when it comes
# The page's size in terminal cells from its window's in CSS pixels: DejaVu Sans Mono's cell at
# 16 px, as static/early.js estimates it (play.js then sends the size it measured).
CELL_WIDTH = 16 * 0.602
CELL_HEIGHT = 19
# The browser says its window's size with each request for the page once asked to (Client Hints;
# Chromium's): the page's game then starts as the page is served, at that size.
VIEWPORT_HINTS = "Sec-CH-Viewport-Width, Sec-CH-Viewport-Height"


@attrs.define
class WebClient:
    """Who a browser is, as a `GameSession` and the host's log want a connection."""

    user: str
    address: str
    where: str
    role: str = "player"
    session_key: str = ""        # the digest of its cookie: games resume only for the same login
    watch_only: bool = False

    @property
    def shown_user(self) -> str:
        return self.user or "-"


class SocketSender:
    """What goes to one websocket, in order: bytes coalesced into as few frames as possible,
    text frames and the final close. The game writes without waiting; `backlog` says how much
    the browser has not taken yet."""

    def __init__(self, ws: web.WebSocketResponse, on_drained=None):
        self.ws = ws
        self.queue: list = []        # bytearray (output) or str (a text frame) or int (close code)
        self.queued = 0
        self._wake = asyncio.Event()
        self._on_drained = on_drained
        self.task = asyncio.ensure_future(self._run())

    def send(self, data: bytes) -> None:
        if self.queue and isinstance(self.queue[-1], bytearray):
            self.queue[-1] += data
        else:
            self.queue.append(bytearray(data))
        self.queued += len(data)
        self._wake.set()

    def send_text(self, text: str) -> None:
        self.queue.append(text)
        self._wake.set()

    def close(self, code: int) -> None:
        self.queue.append(code)
        self._wake.set()

    def backlog(self) -> int:
        transport = self.ws._req.transport if self.ws._req is not None else None
        return self.queued + (transport.get_write_buffer_size() if transport is not None else 0)

    async def _run(self) -> None:
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self.queue:
                    item = self.queue.pop(0)
                    if isinstance(item, bytearray):
                        self.queued -= len(item)
                        await self.ws.send_bytes(bytes(item))
                    elif isinstance(item, str):
                        await self.ws.send_str(item)
                    else:
                        await self.ws.close(code=item)
                        return
                if self._on_drained is not None:
                    self._on_drained()
        except (ConnectionError, RuntimeError):  # the browser is gone: the reader notices
            self.queue.clear()
            self.queued = 0


class WebGame(GameSession):
    """A game in a browser: the `GameSession` with a websocket as its terminal."""

    transport = "web"

    def __init__(self, front: WebFront, client: WebClient, columns: int, rows: int):
        super().__init__(front.host, client)
        self.front = front
        self.term_type = TERM_TYPE
        self.resize(columns, rows)
        self.sender: SocketSender | None = None
        self.resume_id = secrets.token_urlsafe(16)  # the page's to resume it, with its login
        self.detached = False
        self._give_up: asyncio.TimerHandle | None = None
        self._paused_output = False
        self.early: list[bytes | str] | None = None  # started with its page: what came before its socket
        self._early_bytes = 0

    def start_early(self) -> None:
        """Start as the page is served (a logged-in browser), before its socket: the app starts
        while the page loads; what it writes is kept for the socket (`attach`), which must come
        within `EARLY_GRACE` seconds or the game is ended."""
        self.early = []
        self.detached = True
        self._give_up = self._loop.call_later(EARLY_GRACE, self._abandon)
        self.begin()

    # --- the transport ---------------------------------------------------------------------

    def attach(self, ws: web.WebSocketResponse) -> None:
        """The page's socket carries this game (at the start, and after a reconnect)."""
        if self._give_up is not None:
            self._give_up.cancel()
            self._give_up = None
        self.sender = SocketSender(ws, self._drained)
        self.front.track_sender(self.sender)
        self.front_open = True
        redraw = self.detached if self.early is None else self._early_bytes > EARLY_OUTPUT_LIMIT
        # "redraw": the app draws its screen again, without the modes it set before (a hidden
        # cursor), which the page sets back (play.js)
        self.sender.send_text(json.dumps({"game": self.resume_id, **({"redraw": True} if redraw else {})}))
        if self.early is not None:  # its first socket: what the app wrote so far, in order
            early, self.early = self.early, None
            self.detached = False
            for item in early:
                if isinstance(item, str):
                    self.sender.send_text(item)
                else:
                    self._send(item)
            if redraw:
                self.redraw(self._send)  # too much was written to keep: the app draws its screen again
        elif self.detached:
            self.detached = False
            self.host.log.info("web resume user=%s addr=%s", self.user, self.connection.where)
            self.redraw(self._send)

    def _send(self, data: bytes) -> None:
        if self.early is not None:
            self._early_bytes += len(data)
            if self._early_bytes <= EARLY_OUTPUT_LIMIT:
                self.early.append(bytes(data))
            else:
                self.early = [item for item in self.early if isinstance(item, str)]
            return
        if self.sender is None:
            self.front_open = False
            return
        self.sender.send(data)
        if not self._paused_output and self.sender.backlog() > OUTPUT_PAUSE_AT:
            self._paused_output = True
            self.output_paused()

    def _drained(self) -> None:
        if self._paused_output:
            self._paused_output = False
            self.output_resumed()

    def _send_line(self, text: str) -> None:
        if self.early is not None:
            self.early.append(json.dumps({"message": text}))
        elif self.front_open and self.sender is not None:
            self.sender.send_text(json.dumps({"message": text}))

    def _close_front(self, returncode: int) -> None:
        self.front.games.pop(self.resume_id, None)
        if self.sender is not None:
            self.sender.send_text(json.dumps({"exit": returncode}))
            self.sender.close(CLOSE_ENDED)

    def output_backlog(self) -> int:
        return self.sender.backlog() if self.sender is not None else 0

    def _pause_input(self) -> None:
        pass  # the reader waits while `input_paused` (`WebFront._play`)

    def _resume_input(self) -> None:
        pass

    @property
    def input_paused(self) -> bool:
        return self._input_paused

    def client_environment(self) -> dict:
        return {"COLORTERM": "truecolor"}  # xterm.js draws 24-bit colour

    # --- the socket dropping ---------------------------------------------------------------

    def socket_closed(self, ws: web.WebSocketResponse) -> None:
        if self.sender is None or self.sender.ws is not ws:
            return  # an old socket of a game that was resumed since
        self.sender = None
        if (self.playing and not self._ending and self.watch is None and not self.host.stopping
                and self.front.running):
            self.detached = True
            self.front_open = False
            self._resizes.cancel()
            if self._paused_output:
                self._paused_output = False
                self.output_resumed()  # nobody reads it now: the app must not block
            self.host.log.info("web detach user=%s addr=%s", self.user, self.connection.where)
            self._give_up = self._loop.call_later(RECONNECT_GRACE, self._abandon)
            return
        self.front.games.pop(self.resume_id, None)
        self.front_lost()

    def _abandon(self) -> None:
        if self._give_up is not None:
            self._give_up.cancel()  # when called before its time (the page's new game not wanted)
            self._give_up = None
        if self.early is not None:
            self.host.log.info("web page never connected user=%s addr=%s", self.user, self.connection.where)
        if self.detached:
            self.front.games.pop(self.resume_id, None)
            self.front_lost()


class WebWatcher:
    """A browser watching one game: its socket gets the game's output and nothing it sends goes
    anywhere. Dropped if too slow, never the player slowed; told when the game ends."""

    def __init__(self, front: WebFront, target: GameSession, ws: web.WebSocketResponse, who: str):
        self.front = front
        self.target = target
        self.who = who
        self.sender = SocketSender(ws)
        front.track_sender(self.sender)
        self.closed = False
        self._timer = asyncio.get_running_loop().call_later(REFRESH_EVERY, self._check)

    def game_output(self, data: bytes) -> None:
        if self.closed:
            return
        if self.sender.backlog() > OUTPUT_PAUSE_AT * 4:
            self.stop("Your connection couldn't keep up with that game; open it again to watch.")
            return
        self.sender.send(data)

    def game_ended(self, target: GameSession) -> None:
        self.stop(f"{game_label(target)}'s game has ended.")

    def _check(self) -> None:
        self._timer = None
        refusal = watch_refusal(self.front.host, self.target)
        if refusal:
            self.stop(refusal)
        elif not self.closed:
            self._timer = asyncio.get_running_loop().call_later(REFRESH_EVERY, self._check)

    def stop(self, message: str | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self.target.remove_watcher(self)
        self.front.host.log.info("watch end watcher=%s player=%s via=web", self.who, self.target.user)
        if message:
            self.sender.send_text(json.dumps({"exit": 0, "message": message}))
        self.sender.close(CLOSE_ENDED)


def parse_listen(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:8080` for IPv6) → (host, port); ValueError says what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:8080)")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: the port must be a number from 0 to 65535")
    return host, int(port)


def parse_public_url(text: str) -> str:
    """The address browsers use (`https://horizon.example.org`, behind a TLS proxy): its origin
    only, with no path, query or fragment. ValueError says what is wrong."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{text!r} is not an http:// or https:// address (e.g. https://horizon.example.org)")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{text!r}: give the site's address only, without a path (the game is served at its root)")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r}: the port must be a number from 1 to 65535") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")  # as browsers send Origin


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _page(title: str, body: str, *, status: int = 200) -> web.Response:
    text = ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\">"
            f"<title>{html.escape(title)}</title><link rel=\"stylesheet\" href=\"{assets_of(STATIC).url('/static/horizon.css')}\">"
            f"</head><body class=\"page\"><main><h1>{html.escape(title)}</h1>\n{body}\n</main></body></html>\n")
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store"})


class WebFront:
    """The aiohttp server of one `SSHHost`: `await start()`, `await stop()` (the host's own)."""

    def __init__(self, host: SSHHost, listen: tuple[str, int], public_url: str | None = None,
                 store: LoginStore | None = None):
        self.host = host
        self.listen = listen
        self.public_url = public_url
        self.store = store or FileLoginStore(host.settings.data_dir)
        self.games: dict[str, WebGame] = {}     # by game id, while alive (attached or waiting)
        self.watchers: set[WebWatcher] = set()
        self.port: int | None = None
        self.origin = ""
        self.running = False
        self.log = host.log
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self._logged_in: dict[web.WebSocketResponse, str] = {}  # sockets of an account, counted as its connections
        self._senders: set[asyncio.Task] = set()
        self._checker: asyncio.Task | None = None

    # --- life ------------------------------------------------------------------------------

    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard], client_max_size=16 * 1024)
        app.on_response_prepare.append(self._headers)
        app.router.add_get("/", self._index)
        app.router.add_get("/favicon.ico", self._no_icon)
        app.router.add_get("/login/{token}", self._login_page)
        app.router.add_post("/login", self._login)
        app.router.add_get("/ws", self._play)
        app.router.add_get("/watch", self._watch_list)
        app.router.add_get("/watch/{game}", self._watch_page)
        app.router.add_get("/ws/watch/{game}", self._watch_socket)
        app.router.add_get("/static/{path:.+}", self._static)
        return app

    async def start(self) -> int:
        host, port = self.listen
        # the page's files read and compressed once per process, off the event loop (~0.2 s of CPU)
        await asyncio.get_running_loop().run_in_executor(None, assets_of, STATIC)
        # The SSH host's login grace time: a connection that sends no whole request by then (or
        # sits idle between requests that long) is closed, as an SSH connection not logged in is.
        self._runner = web.AppRunner(self.make_app(), access_log=None, handle_signals=False,
                                     shutdown_timeout=1.0, keepalive_timeout=self.grace)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port, reuse_address=True)
        await site.start()
        self.port = self._runner.addresses[0][1]
        shown_host = f"[{host}]" if ":" in host else host
        self.origin = self.public_url or f"http://{shown_host}:{self.port}"
        self.running = True
        self._checker = asyncio.ensure_future(self._check_sessions())
        self.log.info("web: listening on %s:%s, links and the Origin checked as %s", host, self.port, self.origin)
        return self.port

    async def stop(self) -> None:
        """After the host ended its games: close what is left and stop listening."""
        self.running = False
        if self._checker is not None:
            self._checker.cancel()
        for game in list(self.games.values()):
            if game.detached:
                game._abandon()
        for watcher in list(self.watchers):
            watcher.stop("The Horizon server is shutting down.")
        if self._senders:  # each page is told why its game ended before its socket closes
            await asyncio.wait(list(self._senders), timeout=1.0)
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=CLOSE_ENDED)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def user_sockets(self, user: str) -> int:
        """The account's connections through browsers (`SSHHost.user_connections`): its open
        sockets, playing or watching, and its games started with their page whose socket hasn't
        come yet. Such a game holds its slot from its start (`_early_game`), the page's socket
        takes it over, and it is freed wherever the game ends (out of `games`)."""
        sockets = sum(1 for owner in self._logged_in.values() if owner == user)
        return sockets + sum(1 for game in self.games.values() if game.early is not None and game.user == user)

    def track_sender(self, sender: SocketSender) -> None:
        self._senders.add(sender.task)
        sender.task.add_done_callback(self._senders.discard)

    @property
    def grace(self) -> float:
        """The SSH host's login grace time, for requests not logged in (75 s when it has none)."""
        return self.host.settings.login_timeout or 75.0

    @property
    def secure(self) -> bool:
        return self.origin.startswith("https://")

    # --- what `ssh -t host web-login` / `web-logout` print ---------------------------------

    def login_link_text(self, user: str, address: str) -> str:
        token = self.store.issue_link(user)
        self.host.log.info("web link issued user=%s addr=%s", user, address)
        return (f"Open this link in your browser within {LINK_LIFETIME / 60:g} minutes; it works once:\n\n"
                f"  {self.origin}/login/{token}\n\n"
                f"It logs that browser in as {user} for {SESSION_LIFETIME / 86400:g} days. "
                f"`web-logout` logs every browser of yours out.\n")

    def logout_text(self, user: str) -> str:
        ended = self.store.end_sessions(user)
        games = self.end_logged_out()
        self.host.log.info("web logout user=%s sessions=%d games=%d", user, ended, games)
        return (f"Logged {ended} browser{'s' if ended != 1 else ''} out"
                + (f"; {games} game{'s' if games != 1 else ''} in them saved and closed" if games else "")
                + ".\n")

    def end_logged_out(self) -> int:
        """End the games and watchers of browsers whose login was ended (`web-logout`, `horizon
        users remove`, expiry); how many games."""
        ended = 0
        logged_in = self.store.session_key_users()
        for game in list(self.games.values()):
            if logged_in.get(game.connection.session_key) != game.user:
                ended += 1
                game._send_line("You were logged out; your game was saved.")
                if game.detached:
                    game._abandon()
                else:
                    game.end("logged out")
        return ended

    async def _check_sessions(self) -> None:
        while True:
            await asyncio.sleep(SESSION_CHECK_EVERY)
            try:
                self.end_logged_out()
            except Exception:  # noqa: BLE001 (a broken store must not stop the checks)
                self.log.exception("web: checking logins failed")

    # --- every request ---------------------------------------------------------------------

    def client_address(self, request: web.Request) -> str:
        """The browser's address: the peer's, or, from a proxy on this machine (the TLS proxy
        the default 127.0.0.1 listens for), the last address of X-Forwarded-For."""
        peer = request.remote or "?"
        forwarded = request.headers.get("X-Forwarded-For", "")
        if forwarded and _is_loopback(peer):
            last = forwarded.split(",")[-1].strip()
            with contextlib.suppress(ValueError):
                return str(ipaddress.ip_address(last))
        return peer

    def same_origin(self, request: web.Request) -> bool:
        return request.headers.get("Origin") == self.origin

    @web.middleware
    async def _guard(self, request: web.Request, handler):
        """Cross-origin POSTs and websockets are refused before any handler runs."""
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        if (request.method not in ("GET", "HEAD") or upgrade) and not self.same_origin(request):
            self.host.log.info("web refused addr=%s reason=cross-origin %s %s", self.client_address(request),
                               "websocket" if upgrade else request.method, request.path)
            return web.Response(status=403, text="403: cross-origin request refused\n")
        return await handler(request)

    async def _headers(self, request: web.Request, response: web.StreamResponse) -> None:
        """Every response, pages, files, errors and websocket upgrades alike."""
        response.headers.update(SECURITY_HEADERS)
        response.headers["Accept-CH"] = VIEWPORT_HINTS  # from now on the page's request says the window's size

    def _user(self, request: web.Request) -> tuple[str | None, str]:
        """The logged-in account of this request (or None) and its session key."""
        cookie = request.cookies.get(COOKIE)
        user = self.store.session_user(cookie)
        if user is not None and not self.host.accounts.exists(user):
            user = None
        return user, digest(cookie) if user else ""

    def _banned(self, address: str) -> float:
        return self.host.limiter.blocked_for(address)

    def _failed_login(self, address: str, reason: str) -> None:
        self.host.log.info("web refused addr=%s reason=%s", address, reason)
        if self.host.limiter.record_failure(address):
            self.host.log.warning("address %s refused for %g s after %d failed logins", address,
                                  self.host.settings.login_ban, self.host.settings.max_failed_logins)

    def _ssh_hint(self) -> str:
        name = urlsplit(self.origin).hostname or "HOST"
        port = self.host.port or self.host.settings.port
        return f"ssh -t -p {port} NAME@{name} web-login" if port != 22 else f"ssh -t NAME@{name} web-login"

    # --- pages -----------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        user, key = self._user(request)
        if user is None:
            return _page("Horizon", f"<p>Log in with your SSH key: run</p><pre>{html.escape(self._ssh_hint())}</pre>"
                         f"<p>and open the link it prints here (it works once, for "
                         f"{LINK_LIFETIME / 60:g} minutes).</p><p><a href=\"/watch\">Live games</a></p>")
        game = self._early_game(request, user, key)
        return self._play_page(game.resume_id if game is not None else "",
                               {"Critical-CH": VIEWPORT_HINTS, "Vary": VIEWPORT_HINTS})

    def _play_page(self, game_id: str, headers: dict | None = None) -> web.Response:
        """static/play.html, naming the game started with it (or none: the page's socket starts one)."""
        text = assets_of(STATIC).page("play.html").replace(
            '<meta name="horizon-game" content="">', f'<meta name="horizon-game" content="{html.escape(game_id)}">')
        return web.Response(text=text, content_type="text/html",
                            headers={"Cache-Control": "no-store", **(headers or {})})

    def _early_game(self, request: web.Request, user: str, key: str) -> WebGame | None:
        """The game of a logged-in browser's page, started as the page is served, when the
        browser said its window's size (`VIEWPORT_HINTS`) and this is a GET and no prefetch; None
        when not, or the address is banned, or the account has all its connections open, or the
        account or the host has no room for a game (the page's socket then says why)."""
        try:
            width = int(request.headers["Sec-CH-Viewport-Width"])
            height = int(request.headers["Sec-CH-Viewport-Height"])
        except (KeyError, ValueError):
            return None  # not asked yet (Critical-CH has the browser ask again), or a browser without hints
        purpose = request.headers.get("Sec-Purpose", "") + request.headers.get("Purpose", "")
        address = self.client_address(request)
        if (request.method != "GET" or "prefetch" in purpose or self._banned(address)
                or self.host.connections_refusal(user)):
            return None  # (the page's socket is then refused, saying why)
        size = (max(20, int(width / CELL_WIDTH)), max(10, int(height / CELL_HEIGHT)))
        game, _refusal = self._admitted_game(request, user, key, address, size)
        if game is not None:
            game.start_early()
        return game

    async def _static(self, request: web.Request) -> web.StreamResponse:
        """The page's files (`assets.py`): by digest name kept a year, by plain name asked again."""
        asset, by_digest = assets_of(STATIC).find(request.path)
        if asset is None:
            raise web.HTTPNotFound()
        headers = {"Cache-Control": IMMUTABLE if by_digest else REVALIDATE, "ETag": asset.etag}
        if request.headers.get("If-None-Match") == asset.etag:
            return web.Response(status=304, headers=headers)
        body = asset.body
        if asset.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
            if "gzip" in request.headers.get("Accept-Encoding", ""):
                body = asset.gzipped
                headers["Content-Encoding"] = "gzip"
        charset = "utf-8" if asset.content_type.startswith("text/") else None
        return web.Response(body=body, content_type=asset.content_type, charset=charset, headers=headers)

    async def _no_icon(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=204)

    async def _login_page(self, request: web.Request) -> web.StreamResponse:
        address = self.client_address(request)
        if self._banned(address):
            return _page("Too many failed logins", "<p>Try again in a minute.</p>", status=429)
        token = request.match_info["token"]
        user = self.store.link_user(token)
        if user is None:
            self._failed_login(address, "login link unknown, used or expired")
            return _page("This link doesn't work", "<p>It was used already, or it is older than "
                         f"{LINK_LIFETIME / 60:g} minutes. Get a new one:</p>"
                         f"<pre>{html.escape(self._ssh_hint())}</pre>", status=403)
        form = (f"<form method=\"post\" action=\"/login\"><input type=\"hidden\" name=\"token\" "
                f"value=\"{html.escape(token)}\"><button type=\"submit\" autofocus>Continue as "
                f"{html.escape(user)}</button></form>")
        return _page("Horizon", f"<p>This link logs this browser in as <b>{html.escape(user)}</b> "
                     f"for {SESSION_LIFETIME / 86400:g} days.</p>{form}")

    async def _login(self, request: web.Request) -> web.StreamResponse:
        address = self.client_address(request)
        if self._banned(address):
            return _page("Too many failed logins", "<p>Try again in a minute.</p>", status=429)
        if self.host.preauth.admit(address):  # counted with the SSH host's logins in progress
            return _page("Busy", "<p>Too many logins in progress from your address; try again.</p>", status=503)
        try:
            form = await asyncio.wait_for(request.post(), self.grace)
            token = form.get("token")
            user = self.store.spend_link(token if isinstance(token, str) else None)
        except TimeoutError:  # the form never came: dropped, as an SSH login past its grace time
            self.host.log.info("web refused addr=%s reason=login form not sent within %g s", address, self.grace)
            request.transport.close()
            raise web.HTTPRequestTimeout() from None
        except ConnectionError:  # the browser went away mid-form
            raise web.HTTPBadRequest() from None
        finally:
            self.host.preauth.release(address)
        if user is None or not self.host.accounts.exists(user):
            self._failed_login(address, "login link unknown, used or expired")
            return _page("This link doesn't work", "<p>It was used already, or it is older than "
                         f"{LINK_LIFETIME / 60:g} minutes. Get a new one:</p>"
                         f"<pre>{html.escape(self._ssh_hint())}</pre>", status=403)
        cookie = self.store.open_session(user)
        self.host.log.info("login user=%s addr=%s via=web", user, address)
        response = web.HTTPSeeOther("/")
        response.set_cookie(COOKIE, cookie, max_age=int(SESSION_LIFETIME), path="/", httponly=True,
                            secure=self.secure, samesite="Strict")
        raise response

    # --- playing ---------------------------------------------------------------------------

    def _size(self, request: web.Request) -> tuple[int, int]:
        try:
            return int(request.query.get("cols", 80)), int(request.query.get("rows", 24))
        except ValueError:
            return 80, 24

    async def _play(self, request: web.Request) -> web.StreamResponse:
        address = self.client_address(request)
        if self._banned(address):
            return web.Response(status=429, text="too many failed logins from your address\n")
        user, key = self._user(request)
        if user is None:  # no game process, no socket: a page without a login gets nothing
            return web.Response(status=401, text="log in first\n")
        ws = web.WebSocketResponse(max_msg_size=MESSAGE_LIMIT, heartbeat=30.0)
        await ws.prepare(request)
        game = self._own_game(request.query.get("resume"), key)  # the tab's game, after a drop or a reload
        fresh = self._own_game(request.query.get("fresh"), key)  # the game started with this page
        if game is None:
            game = fresh
        elif fresh is not None and fresh is not game and fresh.early is not None:
            fresh._abandon()  # the tab goes back to its own game: the page's new one isn't wanted
        if game is not None and not game.detached and game.sender is not None:
            self._take_over(game)  # its old socket's network went away unnoticed, or a copy of the tab
        # a game of this login holds its slot already (a page's own new one since it started,
        # `user_sockets`); a new game takes one, with the account's SSH connections
        refusal = None if game is not None else self.host.connections_refusal(user)
        if refusal:
            self.host.log.info("refused user=%s addr=%s reason=too many connections for user via=web", user, address)
            await self._refuse(ws, refusal)
            return ws
        self._sockets.add(ws)
        self._logged_in[ws] = user
        try:
            if game is not None and game.detached:
                game.attach(ws)
                columns, rows = self._size(request)
                game.resize(columns, rows)
            else:
                game, refusal = self._new_game(ws, user, key, address, request)
                if game is None:
                    await self._refuse(ws, refusal)
                    return ws
            await self._read_keys(ws, game)
        finally:
            self._sockets.discard(ws)
            self._logged_in.pop(ws, None)
            if game is not None:
                game.socket_closed(ws)
        return ws

    def _own_game(self, game_id: str | None, key: str) -> WebGame | None:
        """The live game of this id started by this login (never another login's)."""
        game = self.games.get(game_id or "")
        return game if game is not None and game.connection.session_key == key else None

    def _take_over(self, game: WebGame) -> None:
        """A page of the same login resumes a game whose socket still looks open: the old socket is
        told and closed (refused, so that its page doesn't take the game back) and the game waits
        for the new one, as after a drop."""
        old = game.sender
        self._logged_in.pop(old.ws, None)  # its place goes to the new socket
        old.send_text(json.dumps({"refused": "This game was opened in another window."}))
        old.close(CLOSE_REFUSED)
        game.socket_closed(old.ws)

    def _admitted_game(self, request: web.Request, user: str, key: str, address: str,
                       size: tuple[int, int]) -> tuple[WebGame | None, str]:
        """A game for this browser, admitted by the host (not started); or None and the line
        saying why not."""
        try:
            role = self.host.accounts.role(user)
        except Exception:  # noqa: BLE001 (an unreadable account plays as a player)
            role = "player"
        peer = request.transport.get_extra_info("peername") if request.transport else None
        client = WebClient(user=user, address=address, role=role, session_key=key,
                           where=f"{address}:{peer[1]}" if peer else address)
        game = WebGame(self, client, *size)
        refusal = self.host.admit(game)
        if refusal:
            self.host.log_refusal(client, refusal[0])
            return None, refusal[1]
        self.games[game.resume_id] = game
        return game, ""

    def _new_game(self, ws, user: str, key: str, address: str, request) -> tuple[WebGame | None, str]:
        """A game for this socket, started; or None and the line saying why not."""
        game, refusal = self._admitted_game(request, user, key, address, self._size(request))
        if game is not None:
            game.attach(ws)
            game.begin()
        return game, refusal

    async def _refuse(self, ws: web.WebSocketResponse, message: str) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_str(json.dumps({"refused": message}))
            await ws.close(code=CLOSE_REFUSED)

    async def _read_keys(self, ws: web.WebSocketResponse, game: WebGame) -> None:
        async for message in ws:
            if message.type == WSMsgType.BINARY:
                while game.input_paused and not ws.closed:  # the app is behind: the browser waits
                    await asyncio.sleep(0.05)
                game.keys(message.data)
            elif message.type == WSMsgType.TEXT:
                self._control(game, message.data)
            elif message.type == WSMsgType.ERROR:
                break

    def _control(self, game: WebGame, text: str) -> None:
        try:
            data = json.loads(text)
            columns, rows = data["resize"]
            columns, rows = int(columns), int(rows)
        except (ValueError, TypeError, KeyError, RecursionError, OverflowError):
            return  # not a resize: nothing else is understood
        game.resize(columns, rows)

    # --- watching --------------------------------------------------------------------------

    def _may_watch(self, request: web.Request) -> tuple[str | None, web.Response | None]:
        """Who watches (an account, or None: anyone may), or the page saying why not."""
        spectators = self.host.settings.spectators
        if spectators == "none":
            return None, _page("Watching is off", "<p>Watching games is turned off on this server.</p>", status=403)
        user, _key = self._user(request)
        if user is None and spectators != "anyone":
            return None, _page("Log in to watch", f"<p>Watching is for players of this server: run</p>"
                               f"<pre>{html.escape(self._ssh_hint())}</pre><p>and open the link it prints.</p>",
                               status=401)
        return user, None

    def watchable_games(self) -> list[GameSession]:
        return sorted((s for s in self.host.sessions if s.playing), key=lambda s: s.started_wall or 0)

    async def _watch_list(self, request: web.Request) -> web.StreamResponse:
        user, refused = self._may_watch(request)
        if refused is not None:
            return refused
        rows = []
        for game in self.watchable_games():
            app = game.app_status()
            cells = [html.escape(game.user), html.escape(str(app.get("character") or "-")[:40]),
                     html.escape(str(app.get("screen") or "-")[:40]),
                     str(len(game.watchers)) if game.watchable else "refused"]
            link = (f"<a href=\"/watch/{html.escape(game.id)}\">watch</a>"
                    if game.watchable and game.user != user else "")
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + f"<td>{link}</td></tr>")
        table = ("<table><thead><tr><th>Player</th><th>Character</th><th>Screen</th><th>Watchers</th>"
                 "<th></th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>") if rows else \
            "<p>No one is playing just now.</p>"
        response = _page("Horizon — live games", table + "<p><a href=\"/watch\">Refresh</a></p>")
        return response

    async def _watch_page(self, request: web.Request) -> web.StreamResponse:
        _who, refused = self._may_watch(request)
        if refused is not None:
            return refused
        return self._play_page("")  # watches at /watch/

    async def _watch_socket(self, request: web.Request) -> web.StreamResponse:
        user, refused = self._may_watch(request)
        if refused is not None:
            return web.Response(status=refused.status, text="not allowed to watch\n")
        who = user or "anyone"
        game_id = request.match_info["game"]
        target = next((s for s in self.host.sessions if s.id == game_id and s.playing), None)
        ws = web.WebSocketResponse(max_msg_size=1024, heartbeat=30.0)
        await ws.prepare(request)
        refusal = "That game has ended." if target is None else watch_refusal(self.host, target)
        if refusal is None and len(target.watchers) >= MAX_WATCHERS_PER_GAME:
            refusal = f"{game_label(target)} already has {MAX_WATCHERS_PER_GAME} watchers."
        if refusal is None and user is not None:  # a logged-in watcher's socket is one of its connections
            refusal = self.host.connections_refusal(user)
        if refusal:
            await self._refuse(ws, refusal)
            return ws
        watcher = WebWatcher(self, target, ws, who)
        self.watchers.add(watcher)
        self._sockets.add(ws)
        if user is not None:
            self._logged_in[ws] = user
        self.host.log.info("watch start watcher=%s player=%s via=web", who, target.user)
        watcher.sender.send_text(json.dumps({"watching": game_label(target),
                                             "size": list(target.term_size[:2])}))
        target.add_watcher(watcher)
        try:
            async for _message in ws:
                pass  # read-only: what a watcher sends goes nowhere
        finally:
            self._sockets.discard(ws)
            self._logged_in.pop(ws, None)
            self.watchers.discard(watcher)
            watcher.stop()
        return ws
