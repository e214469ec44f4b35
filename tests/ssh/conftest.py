"""SSH host fixtures: a server in-process on 127.0.0.1 (a free port, a tmp data folder) running
`fake_app.py` unless a test asks for the real app, accounts for alice and bob."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import attrs
import pytest
from openssh_kit import ssh_command  # noqa: F401 (a fixture: the real OpenSSH client)
from ssh_kit import FAKE_APP_COMMAND, USERS

from horizon_tui.host.ssh.server import HostSettings, SSHHost


@pytest.fixture(scope="session")
def user_keys() -> dict[str, asyncssh.SSHKey]:
    """Private keys: one per account, and a stranger's that is on no account."""
    return {name: asyncssh.generate_private_key("ssh-ed25519", comment=name)
            for name in (*USERS, "stranger")}


@pytest.fixture
def server_dir(tmp_path: Path) -> Path:
    return tmp_path / "server"


@pytest.fixture
async def start_host(server_dir: Path, tmp_path: Path, user_keys):
    """`await start_host(**settings)` → a running SSHHost with alice and bob; stopped after."""
    hosts: list[SSHHost] = []

    async def start(*, users=USERS, **overrides) -> SSHHost:
        settings = HostSettings(data_dir=server_dir, port=0, app_command=FAKE_APP_COMMAND,
                                stop_grace=2.0, keepalive_interval=0)
        host = SSHHost(attrs.evolve(settings, **overrides))
        for name in users:
            pub = tmp_path / f"{name}.pub"
            pub.write_bytes(user_keys[name].export_public_key("openssh"))
            host.accounts.add(name, pub)
        await host.start()
        hosts.append(host)
        return host

    yield start
    for host in hosts:
        await host.stop()
