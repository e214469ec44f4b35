"""Fixtures of the browser front end's tests: an SSH host with `--web` on free ports (the fake app
unless a test asks for the real one), alice and bob; Playwright on Debian's chromium."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import asyncssh
import attrs
import pytest
from web_kit import browser_missing, chromium_path

from horizon_tui.host.ssh.server import HostSettings, SSHHost

USERS = ("alice", "bob")
_skipped_browser_tests: list[str] = []


@pytest.fixture(scope="session")
def user_keys() -> dict[str, asyncssh.SSHKey]:
    return {name: asyncssh.generate_private_key("ssh-ed25519", comment=name) for name in USERS}


@pytest.fixture
def server_dir(tmp_path: Path) -> Path:
    return tmp_path / "server"


@pytest.fixture
async def start_host(server_dir: Path, tmp_path: Path, user_keys):
    """`await start_host(**settings)` → a running SSHHost with --web on 127.0.0.1; stopped after."""
    from ssh_kit import FAKE_APP_COMMAND

    hosts: list[SSHHost] = []

    async def start(**overrides) -> SSHHost:
        settings = HostSettings(data_dir=server_dir, port=0, app_command=FAKE_APP_COMMAND,
                                stop_grace=2.0, keepalive_interval=0, web=("127.0.0.1", 0))
        host = SSHHost(attrs.evolve(settings, **overrides))
        for name in USERS:
            pub = tmp_path / f"{name}.pub"
            pub.write_bytes(user_keys[name].export_public_key("openssh"))
            host.accounts.add(name, pub)
        await host.start()
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        await host.stop()


@pytest.fixture
async def http():
    """A client with its own cookie jar (a browser's), which keeps cookies for 127.0.0.1 too."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        yield session


@pytest.fixture
async def browser(request):
    """Playwright's chromium, Debian's build (never a download); skipped, and said so, without it."""
    missing = browser_missing()
    if missing:
        _skipped_browser_tests.append(request.node.nodeid)
        pytest.skip(f"browser test skipped: {missing}")
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium_path())
        try:
            yield launched
        finally:
            await launched.close()


def pytest_terminal_summary(terminalreporter):
    if _skipped_browser_tests:
        terminalreporter.write_sep("!", f"{len(_skipped_browser_tests)} browser tests SKIPPED: {browser_missing()}",
                                   yellow=True)
