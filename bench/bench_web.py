"""The browser front end's speed and memory, run by hand; prints numbers.

1. Navigation → drawn menu: Playwright driving Debian's chromium (`--chromium`, never a
   download) opens the play page of a logged-in browser until "Recent characters" is on the
   terminal's screen; and the same over a bare websocket client (aiohttp) from opening the socket.
   Median of --runs each, interleaved. Goals: ≤ 0.7 s in the browser, ≤ 0.3 s bare.
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

4. With --sessions N: N web sessions (bare clients) at their menus, each moving the highlight
   every --interval s for --seconds: key → first bytes of the redraw. Goal: p95 ≤ 100 ms at 50.

The host runs as its own process (`horizon serve-ssh --web 127.0.0.1:0`, a throw-away data
folder); a link from `ssh … web-login` (asyncssh) is spent once for a cookie every client uses.

Run: .venv/bin/python bench/bench_web.py [--runs 7] [--keys 60] [--memory-sessions 11]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import asyncssh
from bench_ssh import memory_kib, percentile, plain, process_tree, settle

REPO = Path(__file__).resolve().parent.parent
READY = "Recent characters"
KEYS = ("ArrowDown", "ArrowUp")


class WebHost:
    """`horizon serve-ssh --web` in its own process, one account (`bench`)."""

    def __init__(self, data_dir: Path):
        self.data_dir = data_dir
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        pub = data_dir / "bench.pub"
        data_dir.mkdir(parents=True, exist_ok=True)
        pub.write_bytes(self.key.export_public_key("openssh"))
        from horizon_tui.storage.accounts import Accounts

        Accounts(data_dir / "server").add("bench", pub)
        self.process: subprocess.Popen | None = None
        self.ssh_port = self.web_port = 0
        self.sharing = ""

    def start(self) -> None:
        argv = [sys.executable, "-m", "horizon_tui.cli", "serve-ssh", "--port", "0",
                "--data-dir", str(self.data_dir / "server"), "--idle-timeout", "0",
                "--max-sessions", "500", "--max-sessions-per-user", "200", "--web", "127.0.0.1:0"]
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=REPO)
        for line in self.process.stderr:
            if found := re.search(r"web: listening on \S+:(\d+)", line):
                self.web_port = int(found.group(1))
            elif found := re.search(r"listening on \S+:(\d+)", line):
                self.ssh_port = int(found.group(1))
            if "session server" in line and "ready" in line:
                self.sharing = line.rsplit(", ", 1)[-1].rstrip(")\n")
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

    async def cookie(self) -> str:
        """Log in as a player does: `ssh … web-login`, open the link, press Continue."""
        async with asyncssh.connect("127.0.0.1", self.ssh_port, username="bench", client_keys=[self.key],
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


OBSERVE = """() => {
  window.benchFrames = [];
  window.benchKeys = [];
  const rows = document.querySelector('.xterm-rows');
  new MutationObserver(() => window.benchFrames.push(performance.now()))
    .observe(rows, {childList: true, subtree: true, characterData: true, attributes: true});
  document.addEventListener('keydown', () => window.benchKeys.push(performance.now()), true);
}"""


async def browser_runs(args, host: WebHost, cookie: str, browser) -> None:
    """1 (browser and bare, interleaved) and 2."""
    page_times, bare_times = [], []
    for _ in range(args.runs):
        context = await browser.new_context(viewport={"width": 1000, "height": 640})
        await context.add_cookies([{"name": "horizon_session", "value": cookie, "url": host.origin}])
        page = await context.new_page()
        started = time.perf_counter()
        await page.goto(f"{host.origin}/")
        await page.locator(".xterm-rows", has_text=READY).wait_for(timeout=30000)
        page_times.append(time.perf_counter() - started)
        await page.keyboard.press("Control+q")
        await asyncio.sleep(0.3)
        await context.close()
        client = BareClient(host, cookie)
        bare_times.append(await client.connect())
        await client.close()
        await asyncio.sleep(0.3)
    print(f"navigation → menu in chromium: median {statistics.median(page_times) * 1000:.0f} ms "
          f"(min {min(page_times) * 1000:.0f}, max {max(page_times) * 1000:.0f}; goal ≤ 700); "
          f"bare websocket client: median {statistics.median(bare_times) * 1000:.0f} ms "
          f"(min {min(bare_times) * 1000:.0f}, max {max(bare_times) * 1000:.0f}; goal ≤ 300); "
          f"{args.runs} runs each, interleaved")

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


def find_chromium(given: str | None) -> str | None:
    return given or shutil.which("chromium") or shutil.which("chromium-browser")


async def bench(args) -> None:
    with tempfile.TemporaryDirectory(prefix="horizon-bench-web-") as tmp:
        host = WebHost(Path(tmp))
        host.start()
        try:
            cookie = await host.cookie()
            print(f"host pid {host.process.pid}, web on {host.origin}; Python {sys.version.split()[0]}; "
                  f"session server: {host.sharing}; load average {os.getloadavg()[0]:.1f} "
                  f"on {os.cpu_count()} CPUs")
            chromium = find_chromium(args.chromium)
            try:
                from playwright.async_api import async_playwright
            except ImportError:
                async_playwright = None
            if chromium and async_playwright is not None:
                async with async_playwright() as playwright:
                    browser = await playwright.chromium.launch(executable_path=chromium)
                    await browser_runs(args, host, cookie, browser)
                    await browser.close()
            else:
                print("browser steps skipped: " + ("no chromium (apt-get install -y chromium)" if not chromium
                                                   else "Playwright is not installed"))
            if args.memory_sessions > 1:
                await memory(args, host, cookie)
            if args.sessions:
                await asyncio.sleep(2.0)
                await load(args, host, cookie)
        finally:
            host.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="navigation runs (median)")
    parser.add_argument("--keys", type=int, default=60, help="keys for key → frame")
    parser.add_argument("--gap", type=float, default=0.15, help="seconds between those keys")
    parser.add_argument("--memory-sessions", type=int, default=11, help="web sessions for the memory step")
    parser.add_argument("--sessions", type=int, default=0,
                        help="then this many web sessions moving at once (bare clients; e.g. 50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long they move")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between one session's keys")
    parser.add_argument("--chromium", default=None, help="the browser (default: chromium on PATH)")
    args = parser.parse_args()
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
