"""SSH host fixtures: a server in-process on 127.0.0.1 (a free port, a tmp data folder) running
`fake_app.py` unless a test asks for the real app, accounts for alice and bob."""

from __future__ import annotations

from pathlib import Path

import pytest
from openssh_kit import ssh_command  # noqa: F401 (a fixture: the real OpenSSH client)
import ssh_kit
from ssh_kit import FAKE_APP_COMMAND, USERS, start_test_host

from horizon_tui.host.ssh.server import HostSettings, SSHHost

user_keys = ssh_kit.user_keys    # fixtures shared with tests/web
server_dir = ssh_kit.server_dir


@pytest.fixture
async def start_host(server_dir: Path, tmp_path: Path, user_keys):
    """`await start_host(**settings)` → a running SSHHost with alice and bob; stopped after."""
    hosts: list[SSHHost] = []

    async def start(*, users=USERS, **overrides) -> SSHHost:
        settings = HostSettings(data_dir=server_dir, port=0, app_command=FAKE_APP_COMMAND,
                                stop_grace=2.0, keepalive_interval=0)
        return await start_test_host(hosts, settings, tmp_path, user_keys, users, **overrides)

    yield start
    for host in hosts:
        await host.stop()
