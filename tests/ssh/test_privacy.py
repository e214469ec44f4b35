"""Paths and privacy: `--data-dir` resolved once, relative or absolute giving
the same tree; every folder 0700 and file 0600, existing ones tightened; players see only their
own relative names (the real app's menu: test_real_app.py)."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import attrs
from ssh_kit import FAKE_APP_COMMAND, Terminal, connect

from horizon_tui.cli import main
from horizon_tui.storage.accounts import private_tree
from horizon_tui.host.ssh.server import HostSettings, SSHHost


def tree(root: Path) -> dict[str, int]:
    """Every entry under `root` (relative name → permission bits), the host key pair aside; a
    recording's date and name (recording.py) read DATE and GAME."""
    def name(path: Path) -> str:
        return re.sub(r"^(recordings/[^/]+)/\d{4}-\d\d-\d\d(/\d{6}-[0-9a-f]+\.cast)?$",
                      lambda m: f"{m.group(1)}/DATE" + ("/GAME.cast" if m.group(2) else ""),
                      str(path.relative_to(root)))

    return {name(p): stat.S_IMODE(p.lstat().st_mode) for p in sorted(root.rglob("*"))}


async def _one_session(data_dir, user_keys, tmp_path) -> None:
    pub = tmp_path / "alice.pub"
    pub.write_bytes(user_keys["alice"].export_public_key("openssh"))
    assert main(["users", "add", "alice", "--key", str(pub), "--data-dir", str(data_dir)]) == 0
    host = SSHHost(HostSettings(data_dir=data_dir, port=0, app_command=FAKE_APP_COMMAND,
                                stop_grace=2.0, keepalive_interval=0))
    await host.start()
    try:
        async with await connect(host, "alice", user_keys["alice"]) as conn:
            term = await Terminal.open(conn)
            await term.expect("READY")
            assert term.line("SAVES ") == "saves"
            term.send("q")
            await term.finish()
    finally:
        await host.stop()


async def test_a_relative_and_an_absolute_data_dir_give_the_same_tree(tmp_path, user_keys, monkeypatch, capsys):
    relative_home = tmp_path / "rel"
    relative_home.mkdir()
    monkeypatch.chdir(relative_home)
    await _one_session(Path("srv"), user_keys, tmp_path)
    monkeypatch.chdir(tmp_path)
    await _one_session(tmp_path / "abs" / "srv", user_keys, tmp_path)
    capsys.readouterr()
    made = tree(relative_home / "srv")
    assert made == tree(tmp_path / "abs" / "srv")
    assert set(made) == {"ssh_host_ed25519_key", "ssh_host_ed25519_key.pub", "users", "users/alice",
                         "users/alice/authorized_keys", "users/alice/saves",
                         "users/alice/saves/launches.log", "live", "recordings", "recordings/alice",
                         "recordings/alice/DATE", "recordings/alice/DATE/GAME.cast",
                         "tables",  # live tables, private like the rest
                         }  # not srv/users/alice/srv/users/alice/…
    assert list(relative_home.iterdir()) == [relative_home / "srv"]


async def test_everything_the_host_and_the_apps_make_is_private(tmp_path, user_keys):
    data = tmp_path / "srv"
    await _one_session(data, user_keys, tmp_path)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for path in data.rglob("*"):
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (str(path.relative_to(data)), oct(mode))
    assert os.umask(0o022) == 0o022  # the host gave the process its umask back at stop
    os.umask(0o022)


async def test_existing_folders_and_files_are_tightened_at_start(start_host, server_dir, tmp_path, caplog):
    characters = server_dir / "users" / "alice" / "saves" / "characters"
    characters.mkdir(parents=True)
    (characters / "iriel.toml").write_text("name = 'Iriel'\n")
    (characters / "script").write_text("#!/bin/sh\n")
    for path, mode in [(characters / "iriel.toml", 0o664), (characters / "script", 0o755),
                       (characters, 0o777), (characters.parent, 0o755), (server_dir / "users", 0o755),
                       (server_dir, 0o755)]:
        os.chmod(path, mode)
    outside = tmp_path / "outside.txt"
    outside.write_text("not ours\n")
    os.chmod(outside, 0o644)
    (characters / "link").symlink_to(outside)
    caplog.set_level("WARNING", logger="horizon.ssh")
    await start_host()
    assert stat.S_IMODE((characters / "iriel.toml").stat().st_mode) == 0o600
    assert stat.S_IMODE((characters / "script").stat().st_mode) == 0o600
    for folder in (characters, characters.parent, server_dir / "users", server_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644  # a link is not followed out
    assert "made private (folders 0700, files 0600)" in caplog.text


def test_private_tree_counts_what_it_tightened(tmp_path):
    root = tmp_path / "d"
    (root / "a").mkdir(parents=True)
    (root / "a" / "f").write_text("x")
    os.chmod(root / "a" / "f", 0o640)
    os.chmod(root / "a", 0o750)
    assert private_tree(root) == 2
    assert private_tree(root) == 0


def test_host_settings_resolve_the_data_dir_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = HostSettings(data_dir=Path("srv"))
    assert settings.data_dir == tmp_path / "srv"
    monkeypatch.chdir("/")
    assert attrs.evolve(settings, port=0).data_dir == tmp_path / "srv"
    from horizon_tui.paths import default_server_dir
    assert HostSettings().data_dir == default_server_dir()


async def test_hosts_stopped_in_any_order_give_the_umask_back(tmp_path):
    before = os.umask(0o022)
    try:
        hosts = [SSHHost(HostSettings(data_dir=tmp_path / f"srv{n}", port=0, app_command=FAKE_APP_COMMAND,
                                      keepalive_interval=0)) for n in range(2)]
        for host in hosts:
            await host.start()
        assert os.umask(0o077) == 0o077
        await hosts[0].stop()  # the first started stops first: the second still needs 077
        assert os.umask(0o077) == 0o077
        await hosts[1].stop()
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(before)
