"""Fixtures of the browser front end's tests: an SSH host with `--web` on free ports (the fake app
unless a test asks for the real one), alice and bob; Playwright on Debian's chromium."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest
import web_kit
from web_kit import browser_missing, chromium_path

from horizon_tui.host.ssh.server import HostSettings, SSHHost

USERS = ("alice", "bob")
_skipped_browser_tests: list[str] = []
user_keys = web_kit.user_keys    # the SSH tests' fixtures (tests/ssh/ssh_kit.py)
server_dir = web_kit.server_dir


@pytest.fixture
async def start_host(server_dir: Path, tmp_path: Path, user_keys):
    """`await start_host(**settings)` → a running SSHHost with --web on 127.0.0.1; stopped after."""
    from ssh_kit import FAKE_APP_COMMAND, start_test_host

    hosts: list[SSHHost] = []

    async def start(**overrides) -> SSHHost:
        settings = HostSettings(data_dir=server_dir, port=0, app_command=FAKE_APP_COMMAND,
                                stop_grace=2.0, keepalive_interval=0, web=("127.0.0.1", 0))
        return await start_test_host(hosts, settings, tmp_path, user_keys, USERS, **overrides)

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
