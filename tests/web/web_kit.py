"""Helpers for the browser front end's tests: a host with `--web`, logins by link, a websocket
client that reads the terminal's bytes, and Debian's chromium for Playwright when it is there."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ssh"))
from ssh_kit import plain, server_dir, user_keys  # noqa: E402, F401 (the SSH tests' helpers and fixtures)

from horizon_tui.host.web.server import CLOSE_REFUSED  # noqa: E402

CHROMIUM_NAMES = ("chromium", "chromium-browser")
LINK = re.compile(r"https?://\S+/login/[A-Za-z0-9_-]{43}")


def chromium_path() -> str | None:
    """Debian's chromium (installed by .ci/run); Playwright's own browsers are never downloaded."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def browser_missing() -> str | None:
    """Why the browser tests can't run here, or None."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[dev]')"
    if chromium_path() is None:
        return "Debian's chromium is not installed (apt-get install -y chromium; .ci/run does it)"
    return None


def login_link(host, user: str) -> str:
    """What `ssh -t host web-login` prints, asked of the host directly."""
    text = host.web.login_link_text(user, "127.0.0.1")
    return LINK.search(text).group(0)


async def log_in(session: aiohttp.ClientSession, host, user: str) -> aiohttp.ClientResponse:
    """Open a link and press Continue, as a browser does (same Origin); the cookie is kept."""
    link = login_link(host, user)
    async with session.get(link) as page:
        assert page.status == 200, await page.text()
    token = link.rsplit("/", 1)[1]
    async with session.post(f"{host.web.origin}/login", data={"token": token},
                            headers={"Origin": host.web.origin}, allow_redirects=False) as response:
        await response.read()
        return response


class SocketTerminal:
    """A browser's websocket to the host, without the browser: bytes in, bytes out."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse):
        self.ws = ws
        self.output = b""
        self.messages: list[dict] = []
        self.closed = False

    @classmethod
    async def open(cls, session: aiohttp.ClientSession, host, path: str = "/ws", **query) -> SocketTerminal:
        query.setdefault("cols", 80)
        query.setdefault("rows", 24)
        url = f"{host.web.origin}{path}"
        ws = await session.ws_connect(url, params={k: str(v) for k, v in query.items()},
                                      headers={"Origin": host.web.origin})
        return cls(ws)

    async def _read_one(self) -> None:
        message = await self.ws.receive()
        if message.type == aiohttp.WSMsgType.BINARY:
            self.output += message.data
        elif message.type == aiohttp.WSMsgType.TEXT:
            self.messages.append(json.loads(message.data))
        else:
            self.closed = True

    async def expect(self, text: str, timeout: float = 10.0) -> str:
        async def read_until() -> str:
            while text not in plain(self.output):
                if self.closed:
                    raise AssertionError(f"socket closed before {text!r}; got {plain(self.output)!r} {self.messages}")
                await self._read_one()
            return plain(self.output)

        try:
            return await asyncio.wait_for(read_until(), timeout)
        except TimeoutError:
            raise AssertionError(f"no {text!r} within {timeout} s; got {plain(self.output)[-2000:]!r}") from None

    async def message(self, key: str, timeout: float = 10.0) -> dict:
        async def read_until() -> dict:
            while True:
                for message in self.messages:
                    if key in message:
                        return message
                if self.closed:
                    raise AssertionError(f"socket closed before a {key!r} message; got {self.messages}")
                await self._read_one()

        return await asyncio.wait_for(read_until(), timeout)

    def line(self, prefix: str) -> str:
        """The last output line starting with `prefix` (without it)."""
        lines = [ln for ln in plain(self.output).replace("\r", "").split("\n") if ln.startswith(prefix)]
        assert lines, f"no line {prefix!r} in {plain(self.output)!r}"
        return lines[-1][len(prefix):].strip()

    async def send(self, data: bytes | str) -> None:
        await self.ws.send_bytes(data.encode() if isinstance(data, str) else data)

    async def refusal(self) -> str:
        """The line a refused socket was told; it was closed so that the page doesn't reconnect."""
        told = (await self.message("refused"))["refused"]
        await self.wait_closed()
        assert self.ws.close_code == CLOSE_REFUSED, (self.ws.close_code, self.messages)
        return told

    async def wait_closed(self, timeout: float = 10.0) -> None:
        async def drain():
            while not self.closed:
                await self._read_one()

        await asyncio.wait_for(drain(), timeout)
