"""The server's ed25519 host key: made on the first start (mode 0600), reused after, so players'
`known_hosts` keep trusting the same server."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import asyncssh

from horizon_tui.errors import HorizonError
from horizon_tui.paths import private_dir
from horizon_tui.storage.atomic import atomic_write

HOST_KEY_FILE = "ssh_host_ed25519_key"

log = logging.getLogger("horizon.ssh")


class HostKeyError(HorizonError):
    """The host key file can't be used; the CLI prints it and exits 1 (nothing is overwritten)."""


def host_key_path(data_dir: Path) -> Path:
    return Path(data_dir) / HOST_KEY_FILE


def load_or_create_host_key(data_dir: Path) -> asyncssh.SSHKey:
    path = host_key_path(data_dir)
    if path.exists():
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            log.warning("host key %s was readable by others (mode %o); set to 0600", path, mode)
            os.chmod(path, 0o600)
        try:
            key = asyncssh.read_private_key(str(path))
        except (asyncssh.KeyImportError, ValueError, OSError) as exc:
            raise HostKeyError(f"{path}: not a usable private key ({exc}); move it away and a new "
                               "one is made at the next start (players will be told the host key "
                               "changed)") from None
        if key.algorithm != b"ssh-ed25519":
            raise HostKeyError(f"{path}: a {key.algorithm.decode(errors='replace')} key; the host "
                               "offers only ed25519 (make one: ssh-keygen -t ed25519 -N '' -f "
                               f"{path})")
        return key
    private_dir(path.parent)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="horizon host key")
    atomic_write(path, key.export_private_key("openssh"))  # mkstemp: created 0600 already
    os.chmod(path, 0o600)
    atomic_write(path.with_name(HOST_KEY_FILE + ".pub"), key.export_public_key("openssh"))
    log.info("made a new host key %s", path)
    return key


def fingerprint(key: asyncssh.SSHKey) -> str:
    """What `ssh` shows a player on the first connection (public, safe to print)."""
    return key.get_fingerprint("sha256")
