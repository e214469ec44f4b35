"""The browser front end's speed and memory, run by hand; prints numbers.

1. Navigation → drawn menu: Playwright driving Debian's chromium (`--chromium`, never a
   download) opens the play page of a logged-in browser, in a new browser context each run (a
   first visit: an empty cache), until "Recent characters" is on the terminal's rows: from the
   call to `page.goto` to the mutation of xterm.js's rows that shows it, in the page's own clock
   (an init script's MutationObserver; `performance.timeOrigin` ties it to this process's wall
   clock). Playwright's own notice comes up to 500 ms later (its locators poll with a back-off:
   0, 20, 50, 100, 100, 500 ms…), printed beside it. Then the same browser twice more (a
   returning player: its HTTP cache and, from the third visit, V8's code cache warm); and a bare
   websocket client (aiohttp) from opening the socket to the menu's text. Median of --runs each,
   interleaved, and the page's phases (HTML, scripts, socket, first bytes, terminal, menu). Goals,
   for the first visit: ≤ 0.7 s in the browser, and ≤ 0.3 s more than the bare client (the
   median of each run's difference). `--trace FILE` saves a Chrome trace of the last first visit.
2. Key → frame in the browser, one session: a MutationObserver on the terminal's rows notes
   when xterm.js draws; each key's time is its keydown's; Down/Up on the main menu (the highlight
   moves every time), --keys keys --gap seconds apart. Goal: p95 ≤ 35 ms. Measured in a context
   with `bypass_csp` so the observer can be installed: the page itself is unchanged.
3. Memory: the PSS of the whole host (server, pre-forked session server, every session's process;
   /proc/PID/smaps_rollup) with one web session, then with --memory-sessions at their menus; the
   difference per extra web session. Goal: ≤ 9 MiB on Python 3.12 (immortal objects, prefork.py):
   `python3.12 -m venv /tmp/venv312 && /tmp/venv312/bin/pip install -e . &&
   /tmp/venv312/bin/python bench/bench_web.py` (playwright is in the dev extra; without it only
   the bare-client numbers and memory are printed).

4. --unauthenticated 1000 websocket connections without a login (half with no cookie, half with
   one that is no login), 100 at a time: how many were refused, and the processes under the host
   before and after. Goal: 0 game processes started.
5. With --sessions N: N web sessions (bare clients) at their menus, each moving the highlight
   every --interval s for --seconds: key → first bytes of the redraw. Goal: p95 ≤ 100 ms at 50.
6. With --battle N (after 1-5: one command prints every goal's figure): N more accounts, each
   with Iriel's battle in progress on open ground (bench_ssh.battles_in_progress), N web sessions
   logged in by their own links: N-1 bare clients and one Chromium page. Each resumes its battle (Load ▸ Battles ▸ enter) and moves
   right and left every --interval s for --seconds; a spent turn is ended and the enemies'
   skipped, untimed. Key → frame in Chromium (as in 2) and key → first bytes across every
   session (the page's key → frame among them); the host's CPU per move: the server process (SSH
   and web front ends, one event loop) and the sessions' apps, over the moves answered. Goal: p95
   ≤ 100 ms at 50.

The host runs as its own process (`horizon serve-ssh --web 127.0.0.1:0`, a throw-away data
folder); a link from `ssh … web-login` (asyncssh) is spent once for a cookie every client uses.

Run: .venv/bin/python bench/bench_web.py [--runs 7] [--keys 60] [--memory-sessions 11]
     .venv/bin/python bench/bench_web.py --battle 50 --seconds 60   # every goal: 1-4, then 6
     .venv/bin/python bench/bench_web.py --runs 0 --keys 0 --memory-sessions 0 --unauthenticated 0 --battle 50  # 6 only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import aiohttp
import asyncssh
from bench_ssh import (MOVES, SPENT, YOUR_TURN, Player, battles_in_progress, cpu_seconds, memory_kib,
                       percentile, plain, process_tree, settle)

REPO = Path(__file__).resolve().parent.parent
READY = "Recent characters"
KEYS = ("ArrowDown", "ArrowUp")
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "v8.execute",
                    "disabled-by-default-v8.compile", "blink", "loading", "netlog", "toplevel"]


class WebHost:
    """`horizon serve-ssh --web` in its own process, with accounts (`bench`, and b00… for battles)."""

    def __init__(self, data_dir: Path, users: tuple[str, ...] = ("bench",)):
        self.data_dir = data_dir
        self.users = list(users)
        self.battle_users: tuple[str, ...] = ()  # those with a battle in progress (6)
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        pub = data_dir / "bench.pub"
        data_dir.mkdir(parents=True, exist_ok=True)
        pub.write_bytes(self.key.export_public_key("openssh"))
        from horizon_tui.storage.accounts import Accounts

        accounts = Accounts(data_dir / "server")
        for user in self.users:
            accounts.add(user, pub)
        self.process: subprocess.Popen | None = None
        self.ssh_port = self.web_port = 0
        self.sharing = ""

    def start(self) -> None:
        argv = [sys.executable, "-m", "horizon_tui.cli", "serve-ssh", "--port", "0",
                "--data-dir", str(self.data_dir / "server"), "--idle-timeout", "0",
                "--max-sessions", "500", "--max-sessions-per-user", "200", "--max-connections-per-user", "200",
                "--web", "127.0.0.1:0"]
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=REPO)
        for line in self.process.stderr:
            if found := re.search(r"web: listening on \S+:(\d+)", line):
                self.web_port = int(found.group(1))
            elif found := re.search(r"listening on \S+:(\d+)", line):
                self.ssh_port = int(found.group(1))
            if "session server" in line and "ready" in line:
                self.sharing = line.rsplit(", ", 1)[-1].rstrip("\n").removesuffix(")")
                break
        else:
            raise SystemExit("the host didn't start")
        self._drain = asyncio.get_event_loop().run_in_executor(None, self.process.stderr.read)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    async def cookie(self, user: str = "bench") -> str:
        """Log in as a player does: `ssh … web-login`, open the link, press Continue."""
        async with asyncssh.connect("127.0.0.1", self.ssh_port, username=user, client_keys=[self.key],
                                    known_hosts=None, agent_path=None, config=None) as conn:
            result = await conn.run("web-login", term_type="xterm", timeout=10)
        token = re.search(r"/login/(\S+)", result.stdout).group(1)
        async with aiohttp.ClientSession() as session, session.post(
                f"{self.origin}/login", data={"token": token}, headers={"Origin": self.origin},
                allow_redirects=False) as response:
            return response.cookies["horizon_session"].value

    def total_pss_kib(self) -> int:
        total = 0
        for pid in process_tree(self.process.pid):
            try:
                total += memory_kib(pid)[1]
            except (OSError, KeyError):
                continue
        return total

    def cpu_seconds(self) -> tuple[float, float]:
        """CPU seconds so far of (the server process, every process under it)."""
        others = 0.0
        for pid in process_tree(self.process.pid)[1:]:
            try:
                others += cpu_seconds(pid)
            except OSError:
                continue
        return cpu_seconds(self.process.pid), others


class BareClient:
    """A websocket client without a browser: bytes in, nothing drawn."""

    def __init__(self, host: WebHost, cookie: str):
        self.host, self.cookie = host, cookie
        self.session: aiohttp.ClientSession | None = None
        self.ws = None
        self.output = b""

    async def connect(self) -> float:
        """Seconds from opening the socket to the menu's text having arrived."""
        self.session = aiohttp.ClientSession()
        started = time.perf_counter()
        self.ws = await self.session.ws_connect(
            f"{self.host.origin}/ws", params={"cols": "100", "rows": "30"},
            headers={"Origin": self.host.origin, "Cookie": f"horizon_session={self.cookie}"})
        while READY not in plain(self.output):
            message = await self.ws.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                self.output += message.data
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise SystemExit(f"the socket closed before the menu: {plain(self.output)[-500:]!r}")
        return time.perf_counter() - started

    async def press_keys(self, seconds: float, interval: float, delays: list, missed: list) -> None:
        """Down/Up every `interval` for `seconds`: the time from each key to the first bytes."""
        end = time.perf_counter() + seconds
        index = 0
        await asyncio.sleep(interval * (hash(self) % 100) / 100)  # not all in step
        while time.perf_counter() < end:
            await self.ws.send_bytes((b"\x1b[B", b"\x1b[A")[index % 2])
            index += 1
            sent = time.perf_counter()
            try:
                while True:
                    message = await asyncio.wait_for(self.ws.receive(), 2.0)
                    if message.type == aiohttp.WSMsgType.BINARY:
                        delays.append(time.perf_counter() - sent)
                        break
            except TimeoutError:
                missed.append(1)
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - sent)))
            while True:  # the rest of that redraw
                try:
                    await asyncio.wait_for(self.ws.receive(), 0.015)
                except TimeoutError:
                    break

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.send_bytes(b"\x11")  # ctrl+q: the app quits (nothing to resume)
            await asyncio.sleep(0.05)
            await self.ws.close()
        if self.session is not None:
            await self.session.close()


class SocketKeys:
    """What `bench_ssh.Player` writes keys to (`process.stdin.write`), for a websocket: each
    write is sent in order, without waiting, as an SSH channel's write is."""

    def __init__(self, ws):
        self.ws = ws
        self.stdin = self
        self._sending: asyncio.Future | None = None

    def write(self, data: bytes) -> None:
        previous = self._sending

        async def send() -> None:
            if previous is not None:
                await previous
            await self.ws.send_bytes(data)

        self._sending = asyncio.ensure_future(send())


class WebPlayer(Player):
    """A bare websocket client that plays a battle as `bench_ssh.Player` does over SSH."""

    def __init__(self, host: WebHost, user: str, cookie: str, compress: bool = True):
        super().__init__(host, user, READY)
        self.cookie = cookie
        self.compress = compress  # permessage-deflate, as every browser asks for
        self.session: aiohttp.ClientSession | None = None
        self.ws = None

    async def open(self, size) -> None:
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(
            f"{self.server.origin}/ws", params={"cols": str(size[0]), "rows": str(size[1])},
            headers={"Origin": self.server.origin, "Cookie": f"horizon_session={self.cookie}"},
            compress=15 if self.compress else 0)
        self.process = SocketKeys(self.ws)

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.output += message.data
                self.chunks.append((time.perf_counter(), len(message.data)))
                self.arrived.set()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.send_bytes(b"\x11")  # ctrl+q: the app saves and quits
            await asyncio.sleep(0.05)
            await self.ws.close()
        if self.reader:
            self.reader.cancel()
        if self.session is not None:
            await self.session.close()


# Installed before the page's scripts: notes when each binary message of the game's socket
# arrives, so a key → frame splits into key → message (socket, host, app) and message → frame
# (xterm.js parsing and drawing).
SOCKET_TIMES = """(() => {
  window.benchMessages = [];
  const Original = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const socket = new Original(url, protocols);
    socket.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') window.benchMessages.push(performance.now());
    });
    return socket;
  };
  window.WebSocket.prototype = Original.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})()"""


class PagePlayer:
    """The one session in Chromium: resumes its battle and moves by keys pressed on the page;
    key → frame from each keydown to xterm.js's next change of its rows (as in 2)."""

    def __init__(self, page):
        self.page = page

    async def screen(self) -> str:
        return await self.page.locator(".xterm-rows").inner_text()

    async def until(self, text: str, timeout: float = 60) -> None:
        await self.page.locator(".xterm-rows", has_text=text).wait_for(timeout=timeout * 1000)

    async def resume_battle(self) -> None:
        for key, then in (("l", "Saved characters"), ("b", "in progress"), ("Enter", YOUR_TURN)):
            await self.page.keyboard.press(key)
            await self.until(then)
        await asyncio.sleep(1.0)
        await self.page.evaluate(OBSERVE)

    async def next_turn(self, timeout: float = 20) -> None:
        """Until the turn is ours again, with its movement back."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            screen = await self.screen()
            if YOUR_TURN in screen and SPENT not in screen:
                return
            await asyncio.sleep(0.05)
        raise SystemExit(f"the browser's turn didn't come back: {await self.screen()!r}")

    async def move_for(self, seconds: float, interval: float) -> tuple[list[float], list[float], int]:
        """(key → frame of each move, key → its first message, moves without a frame before the
        next key)."""
        await self.page.evaluate("window.benchFrames.length = 0; window.benchKeys.length = 0")
        end = time.perf_counter() + seconds
        spans, n = [], 0
        while time.perf_counter() < end:
            tick = time.perf_counter()
            await self.page.keyboard.press(MOVES[n % 2].decode())
            n += 1
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - tick)))
            spans.append(await self.page.evaluate("[window.benchKeys.at(-1), window.benchFrames.length]"))
            if SPENT in await self.screen():  # ended and skipped, untimed: these frames are not a move's
                await self.page.keyboard.press(".")
                await asyncio.sleep(0.2)
                await self.page.keyboard.press("x")
                await self.next_turn()
        frames = await self.page.evaluate("window.benchFrames")
        messages = await self.page.evaluate("window.benchMessages")
        delays, arrivals, missed = [], [], 0
        for pressed, drawn_by in spans:  # a move's frame comes before its interval is over
            drawn = [t for t in frames[:drawn_by] if t >= pressed]
            if drawn:
                delays.append((drawn[0] - pressed) / 1000)
                arrivals.append((min((t for t in messages if t >= pressed), default=drawn[0]) - pressed) / 1000)
            else:
                missed += 1
        return delays, arrivals, missed


OBSERVE = """() => {
  window.benchFrames = [];
  window.benchKeys = [];
  const rows = document.querySelector('.xterm-rows');
  new MutationObserver(() => window.benchFrames.push(performance.now()))
    .observe(rows, {childList: true, subtree: true, characterData: true, attributes: true});
  document.addEventListener('keydown', () => window.benchKeys.push(performance.now()), true);
}"""


# Installed before the page's scripts (an init script: the page's Content-Security-Policy doesn't
# apply to it): notes, in the page's clock (ms since its navigation started), when each phase of
# navigation → menu happened; `ready` is the mutation of xterm.js's rows that first shows the menu.
NAVIGATION_MARKS = """(() => {
  const marks = window.benchMarks = {document: performance.now()};
  const Original = window.WebSocket;
  window.WebSocket = function (url, protocols) {
    const socket = new Original(url, protocols);
    marks.socket = marks.socket ?? performance.now();
    socket.addEventListener('open', () => { marks.open = marks.open ?? performance.now(); });
    const decoder = new TextDecoder();
    let seen = '';
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string') return;
      marks.bytes = marks.bytes ?? performance.now();
      seen = (seen + decoder.decode(event.data, {stream: true}).replace(/\\x1b\\[[0-9;?]*[A-Za-z]/g, '')).slice(-4096);
      if (marks.arrived === undefined && seen.includes(READY_TEXT)) marks.arrived = performance.now();
    });
    return socket;
  };
  window.WebSocket.prototype = Original.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  const watch = new MutationObserver(() => {
    const rows = document.querySelector('.xterm-rows');
    if (rows && marks.terminal === undefined) marks.terminal = performance.now();
    if (rows && rows.textContent.includes(READY_TEXT)) { marks.ready = performance.now(); watch.disconnect(); }
  });
  watch.observe(document, {childList: true, subtree: true, characterData: true});
  document.addEventListener('DOMContentLoaded', () => { marks.parsed = performance.now(); });
})()""".replace("READY_TEXT", json.dumps(READY))
PHASES = (("html", "the page's HTML received"), ("document", "its document made (renderer up)"),
          ("scripts", "its scripts and styles received"), ("socket", "the socket asked for"),
          ("open", "open"), ("bytes", "the game's first bytes"), ("terminal", "xterm.js's rows made"),
          ("parsed", "DOMContentLoaded"), ("arrived", "the menu's text received"),
          ("ready", "the menu on the terminal's rows"))
PAGE_TIMES = """() => {
  const navigation = performance.getEntriesByType('navigation')[0];
  const files = performance.getEntriesByType('resource').filter((e) => e.initiatorType !== 'fetch');
  const scripts = files.filter((e) => /[.](js|css)$/.test(new URL(e.name).pathname));
  return {origin: performance.timeOrigin, marks: window.benchMarks, html: navigation.responseEnd,
          scripts: scripts.length ? Math.max(...scripts.map((e) => e.responseEnd)) : null,
          files: files.map((e) => [new URL(e.name).pathname, Math.round(e.startTime), Math.round(e.responseEnd),
                                   e.transferSize, e.decodedBodySize])};
}"""


async def visit(page, host: WebHost) -> tuple[float, float, dict]:
    """Navigation → menu once: (seconds until the frame that shows it, in the page's own clock
    from this call; seconds until Playwright noticed it, as this bench measured it before; the
    page's phases)."""
    wall = time.time()
    started = time.perf_counter()
    await page.goto(f"{host.origin}/")
    await page.locator(".xterm-rows", has_text=READY).wait_for(timeout=30000)
    noticed = time.perf_counter() - started
    for _ in range(100):  # the observer's mark is there by now, give or take a task
        times = await page.evaluate(PAGE_TIMES)
        if times["marks"].get("ready") is not None:
            break
        await asyncio.sleep(0.01)
    drawn = (times["origin"] + times["marks"]["ready"]) / 1000 - wall
    phases = dict(times["marks"], html=times["html"], scripts=times["scripts"], files=times["files"])
    return drawn, noticed, phases


async def quit_game(page) -> None:
    """The app quits and the page says the game ended: the next visit starts a new game."""
    await page.keyboard.press("Control+q")
    await page.locator("#banner", has_text="ended").wait_for(timeout=30000)
    await asyncio.sleep(0.1)


def phase_lines(label: str, runs: list[dict]) -> list[str]:
    shown = []
    for key, name in PHASES:
        values = [run[key] for run in runs if run.get(key) is not None]
        if values:
            shown.append(f"{name} {statistics.median(values):.0f}")
    return [f"  {label}, ms after navigation start (medians): " + ", ".join(shown)]


async def browser_runs(args, host: WebHost, cookie: str, browser) -> None:
    """1 (browser and bare, interleaved) and 2; nothing without a browser."""
    if browser is None:
        return
    if args.runs:
        await navigation_runs(args, host, cookie, browser)
    if args.keys:
        await key_to_frame(args, host, cookie, browser)


async def navigation_runs(args, host: WebHost, cookie: str, browser) -> None:
    """1: navigation → menu, first and returning visits in the browser, and the bare client."""
    first, returning, noticed, bare_times = [], [], [], []
    first_phases, returning_phases = [], []
    for run in range(args.runs):
        context = await browser.new_context(viewport={"width": 1000, "height": 640})
        await context.add_init_script(NAVIGATION_MARKS)
        await context.add_cookies([{"name": "horizon_session", "value": cookie, "url": host.origin}])
        page = await context.new_page()
        if args.trace and run == args.runs - 1:
            await browser.start_tracing(page=page, path=args.trace, categories=TRACE_CATEGORIES)
        drawn, seen, phases = await visit(page, host)  # a first visit: an empty cache
        if args.trace and run == args.runs - 1:
            await browser.stop_tracing()
        first.append(drawn)
        noticed.append(seen)
        first_phases.append(phases)
        if run == 0:
            print("  the first visit's files (path, start ms, end ms, bytes sent, bytes): "
                  + "; ".join(f"{path} {start}-{end} {sent} {size}" for path, start, end, sent, size in phases["files"]))
        for _ in range(2):  # a returning player: the same browser again (its second visit warms V8's code cache)
            await quit_game(page)
            drawn, seen, phases = await visit(page, host)
        returning.append(drawn)
        returning_phases.append(phases)
        if run == 0:
            print("  a returning visit's files: " + ("; ".join(
                f"{path} {start}-{end} {sent} {size}" for path, start, end, sent, size in phases["files"]) or "none"))
        await quit_game(page)
        await context.close()
        client = BareClient(host, cookie)
        bare_times.append(await client.connect())
        await client.close()
        await asyncio.sleep(0.3)

    def ms(values: list[float]) -> str:
        return (f"median {statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f}, "
                f"max {max(values) * 1000:.0f})")

    print(f"navigation → menu in chromium, a first visit (an empty cache; the goal figure): {ms(first)} "
          f"(goal ≤ 700); bare websocket client: {ms(bare_times)}; the browser's over the bare client's: "
          f"median {statistics.median(p - b for p, b in zip(first, bare_times)) * 1000:.0f} ms (goal ≤ 300); "
          f"{args.runs} runs each, interleaved")
    print(f"  a returning player (the third visit in the same browser): {ms(returning)}; over the bare "
          f"client's: median {statistics.median(p - b for p, b in zip(returning, bare_times)) * 1000:.0f} ms")
    print(f"  (as Playwright noticed the first visit's menu, polling with its back-off of up to 500 ms: "
          f"{ms(noticed)})")
    for line in phase_lines("a first visit", first_phases) + phase_lines("a returning visit", returning_phases):
        print(line)


async def key_to_frame(args, host: WebHost, cookie: str, browser) -> None:
    """2: key → frame in the browser, one session on the main menu."""
    context = await browser.new_context(viewport={"width": 1000, "height": 640}, bypass_csp=True)
    await context.add_cookies([{"name": "horizon_session", "value": cookie, "url": host.origin}])
    page = await context.new_page()
    await page.goto(f"{host.origin}/")
    await page.locator(".xterm-rows", has_text=READY).wait_for(timeout=30000)
    await asyncio.sleep(1.0)
    await page.evaluate(OBSERVE)
    for index in range(args.keys):
        await page.keyboard.press(KEYS[index % 2])
        await asyncio.sleep(args.gap)
    keys = await page.evaluate("window.benchKeys")
    frames = await page.evaluate("window.benchFrames")
    delays, missed = [], 0
    for index, pressed in enumerate(keys):
        until = keys[index + 1] if index + 1 < len(keys) else float("inf")
        drawn = [t for t in frames if pressed <= t < until]
        if drawn:
            delays.append((drawn[0] - pressed) / 1000)
        else:
            missed += 1
    if delays:
        print(f"key → frame in chromium, one session: p50 {percentile(delays, 50) * 1000:.1f} ms, "
              f"p95 {percentile(delays, 95) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms "
              f"({len(delays)} keys, {missed} without a frame before the next; goal p95 ≤ 35)")
    await page.keyboard.press("Control+q")
    await asyncio.sleep(0.3)
    await context.close()


async def memory(args, host: WebHost, cookie: str) -> None:
    await asyncio.sleep(1.0)
    first = BareClient(host, cookie)
    await first.connect()
    await settle(1.5)
    one = host.total_pss_kib()
    more = [BareClient(host, cookie) for _ in range(1, args.memory_sessions)]
    for client in more:  # one at a time, as players arrive
        await client.connect()
    await settle(1.5)
    many = host.total_pss_kib()
    print(f"memory: whole host PSS {one / 1024:.1f} MiB with 1 web session, {many / 1024:.1f} MiB "
          f"with {len(more) + 1}: {(many - one) / max(1, len(more)) / 1024:.1f} MiB per extra web "
          f"session (goal ≤ 9 on Python 3.12)")
    await asyncio.gather(first.close(), *(client.close() for client in more))


async def steady_processes(host: WebHost, seconds: float = 1.0) -> int:
    """The number of processes under the host once it hasn't changed for `seconds` (games that
    were ending have ended)."""
    count, since = len(process_tree(host.process.pid)), time.perf_counter()
    while time.perf_counter() - since < seconds:
        await asyncio.sleep(0.1)
        now = len(process_tree(host.process.pid))
        if now != count:
            count, since = now, time.perf_counter()
    return count


async def without_login(args, host: WebHost) -> None:
    """4: sockets without a login start no game process."""
    before = await steady_processes(host)
    refused, opened = 0, 0
    started = time.perf_counter()
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session:
        async def one(index: int) -> None:
            nonlocal refused, opened
            headers = {"Origin": host.origin}
            if index % 2:
                headers["Cookie"] = f"horizon_session={'x' * 43}"
            try:
                ws = await session.ws_connect(f"{host.origin}/ws", headers=headers)
            except aiohttp.WSServerHandshakeError as exc:
                refused += exc.status == 401
            else:
                opened += 1
                await ws.close()

        for batch in range(0, args.unauthenticated, 100):
            await asyncio.gather(*(one(batch + i) for i in range(min(100, args.unauthenticated - batch))))
    elapsed = time.perf_counter() - started
    after = await steady_processes(host)
    print(f"{args.unauthenticated} websockets without a login in {elapsed:.1f} s: {refused} refused (401), "
          f"{opened} opened; processes under the host {before} before, {after} after "
          f"({after - before} started; goal 0)")


async def load(args, host: WebHost, cookie: str) -> None:
    """--sessions bare web clients at their menus, each moving the highlight every --interval."""
    clients = [BareClient(host, cookie) for _ in range(args.sessions)]
    started = time.perf_counter()
    await asyncio.gather(*(client.connect() for client in clients))
    print(f"{args.sessions} web sessions connecting at once: all menus drawn after "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")
    await asyncio.sleep(2.0)
    delays, missed = [], []
    await asyncio.gather(*(client.press_keys(args.seconds, args.interval, delays, missed) for client in clients))
    if delays:
        print(f"  key → first bytes with {args.sessions} web sessions moving (main menu, bare clients): "
              f"p50 {percentile(delays, 50) * 1000:.0f} ms, p95 {percentile(delays, 95) * 1000:.0f} ms, "
              f"max {max(delays) * 1000:.0f} ms; {len(delays)} keys, {len(missed)} unanswered within 2 s "
              f"(goal p95 ≤ 100)")
    await asyncio.gather(*(client.close() for client in clients))


async def battles(args, host: WebHost, browser) -> None:
    """6: --battle web sessions in battles, moving; one of them in Chromium when there is one."""
    started = time.perf_counter()
    cookies = [await host.cookie(user) for user in host.battle_users]
    print(f"{len(cookies)} logins by link (ssh web-login, Continue) in {time.perf_counter() - started:.1f} s")
    bare = [WebPlayer(host, user, cookie, args.compress) for user, cookie in zip(host.battle_users, cookies)]
    page = context = None
    if browser is not None:
        bare.pop()
        context = await browser.new_context(viewport={"width": 1000, "height": 640}, bypass_csp=True)
        await context.add_init_script(SOCKET_TIMES)
        await context.add_cookies([{"name": "horizon_session", "value": cookies[-1], "url": host.origin}])
        page = PagePlayer(await context.new_page())
    started = time.perf_counter()
    await asyncio.gather(*(player.connect() for player in bare))
    await asyncio.gather(*(player.resume_battle() for player in bare))
    if page is not None:
        await page.page.goto(f"{host.origin}/")
        await page.until(READY)
        await page.resume_battle()
    print(f"{args.battle} web sessions ({len(bare)} bare{', 1 in Chromium' if page else ''}; "
          f"{'with' if args.compress else 'without'} permessage-deflate) connected and "
          f"resumed their battles in {time.perf_counter() - started:.1f} s")
    await asyncio.sleep(2.0)
    first_bytes, whole, missed = [], [], []
    cpu_before, load_before = host.cpu_seconds(), os.getloadavg()[0]
    marks = [len(player.chunks) for player in bare]
    moving = time.perf_counter()
    results = await asyncio.gather(
        *(player.move_for(args.seconds, args.interval, first_bytes, whole, missed) for player in bare),
        *([page.move_for(args.seconds, args.interval)] if page else []))
    elapsed = time.perf_counter() - moving
    sizes = [size for player, mark in zip(bare, marks) for _, size in player.chunks[mark:]]
    cpu_after = host.cpu_seconds()
    page_delays, page_arrivals, page_missed = results[-1] if page else ([], [], 0)
    moves = len(first_bytes) + len(page_delays)
    every = first_bytes + page_delays
    print(f"  {args.battle} sessions × a move every {args.interval * 1000:.0f} ms for {args.seconds:g} s: "
          f"{moves} moves answered, {len(missed) + page_missed} unanswered; load average "
          f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} CPUs")
    if page_delays:
        print(f"  key → frame in Chromium: p50 {percentile(page_delays, 50) * 1000:.0f} ms, "
              f"p95 {percentile(page_delays, 95) * 1000:.0f} ms, max {max(page_delays) * 1000:.0f} ms "
              f"({len(page_delays)} moves); of which key → its first message p50 "
              f"{percentile(page_arrivals, 50) * 1000:.0f} ms, p95 {percentile(page_arrivals, 95) * 1000:.0f} ms")
    if every:
        print(f"  key → first bytes (the page: key → frame), every session: p50 {percentile(every, 50) * 1000:.0f} ms, "
              f"p95 {percentile(every, 95) * 1000:.0f} ms, max {max(every) * 1000:.0f} ms (goal p95 ≤ 100)")
    if moves:
        server, apps = (after - before for after, before in zip(cpu_after, cpu_before))
        print(f"  host CPU per move: server process (SSH + web front ends) {server / moves * 1000:.2f} ms, "
              f"session server and apps {apps / moves * 1000:.2f} ms; in all {(server + apps) / elapsed * 100:.0f}% "
              f"of one CPU")
    if sizes:
        print(f"  websocket messages: {len(sizes) / max(1, len(first_bytes)):.1f} per move (turn ends included), "
              f"median {statistics.median(sizes)} bytes, largest {max(sizes)}, "
              f"{sum(size > 16384 for size in sizes)} over 16 KiB")
    await asyncio.gather(*(player.close() for player in bare))
    if context is not None:
        await page.page.keyboard.press("Control+q")
        await asyncio.sleep(0.3)
        await context.close()


def find_chromium(given: str | None) -> str | None:
    return given or shutil.which("chromium") or shutil.which("chromium-browser")


async def with_browser(args, use) -> None:
    """`await use(browser)` with Debian's Chromium under Playwright, or `use(None)` (said why)."""
    chromium = find_chromium(args.chromium)
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        async_playwright = None
    if not chromium or async_playwright is None:
        print("browser steps skipped: " + ("no chromium (apt-get install -y chromium)" if not chromium
                                           else "Playwright is not installed"))
        await use(None)
        return
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium)
        try:
            await use(browser)
        finally:
            await browser.close()


async def bench(args) -> None:
    with tempfile.TemporaryDirectory(prefix="horizon-bench-web-") as tmp:
        battle_users = tuple(f"b{i:02d}" for i in range(args.battle))
        host = WebHost(Path(tmp), ("bench", *battle_users))
        host.battle_users = battle_users
        if battle_users:  # theirs only: bench's menu stays as 1-5 measured it before
            battles_in_progress(types.SimpleNamespace(data_dir=host.data_dir, users=battle_users))
        host.start()
        try:
            print(f"host pid {host.process.pid}, web on {host.origin}; Python {sys.version.split()[0]}; "
                  f"session server: {host.sharing}; load average {os.getloadavg()[0]:.1f} "
                  f"on {os.cpu_count()} CPUs")
            cookie = await host.cookie()
            await with_browser(args, lambda browser: browser_runs(args, host, cookie, browser))
            if args.memory_sessions > 1:
                await memory(args, host, cookie)
            if args.unauthenticated:
                await without_login(args, host)
            if args.sessions:
                await asyncio.sleep(2.0)
                await load(args, host, cookie)
            if args.battle:
                await asyncio.sleep(2.0)
                await with_browser(args, lambda browser: battles(args, host, browser))
        finally:
            host.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="navigation runs (median)")
    parser.add_argument("--keys", type=int, default=60, help="keys for key → frame")
    parser.add_argument("--gap", type=float, default=0.15, help="seconds between those keys")
    parser.add_argument("--memory-sessions", type=int, default=11, help="web sessions for the memory step")
    parser.add_argument("--unauthenticated", type=int, default=1000,
                        help="websockets without a login, for the processes they start")
    parser.add_argument("--sessions", type=int, default=0,
                        help="then this many web sessions moving at once (bare clients; e.g. 50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long they move")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between one session's keys")
    parser.add_argument("--battle", type=int, default=0,
                        help="then: this many web sessions moving in battles, one in Chromium (e.g. 50)")
    parser.add_argument("--compress", action=argparse.BooleanOptionalAction, default=True,
                        help="bare clients ask for permessage-deflate, as browsers do (--battle)")
    parser.add_argument("--chromium", default=None, help="the browser (default: chromium on PATH)")
    parser.add_argument("--trace", default=None, metavar="FILE",
                        help="save a Chrome trace of the last first visit (open it in chrome://tracing or Perfetto)")
    args = parser.parse_args()
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
