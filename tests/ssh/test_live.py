"""Recordings, watching and `who` with the real OpenSSH client, against the fake app:
a game is recorded as asciicast v2 and replays; a watcher sees the player's screen
change and can't type into it; the player sees the watcher count and can refuse watchers;
`--spectators none|anyone`; "Watch a game" from the app and back."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from openssh_kit import OpenSSHTerminal, needs_openssh, run_ssh  # the ssh_command fixture: conftest.py

from horizon_tui.host.live import live_sessions
from horizon_tui.host.recording import read_cast

pytestmark = needs_openssh


def horizon(*args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "horizon_tui.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


async def until(condition, timeout: float = 5.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


async def test_a_game_is_recorded_as_asciicast_v2_and_replays(start_host, ssh_command, tmp_path, server_dir):
    host = await start_host()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(90, 28)) as ssh:
        await ssh.expect("READY")
        ssh.process.write(b"j")
        await ssh.expect("KEY 'j'")
        ssh.process.resize(100, 30)
        await ssh.expect("SIZE 100x30")
        ssh.process.write(b"q")
        assert await asyncio.wait_for(ssh.ended, 8) == 3
    casts = list((server_dir / "recordings" / "alice").glob("*/*.cast"))
    assert len(casts) == 1
    assert casts[0].stat().st_mode & 0o777 == 0o600
    header, events = read_cast(casts[0])
    assert (header["version"], header["width"], header["height"]) == (2, 90, 28)
    events = list(events)
    assert ("r", "100x30") in [(code, data) for _, code, data in events]
    assert [t for t, _, _ in events] == sorted(t for t, _, _ in events)
    drawn = "".join(data for _, code, data in events if code == "o")
    assert "MAIN MENU" in drawn and "KEY 'j'" in drawn and "BYE" in drawn
    assert "j" not in "".join(data for _, code, data in events if code == "i")  # keys aren't kept

    played = horizon("replay", "--speed", "100", str(casts[0]))
    assert played.returncode == 0, played.stderr
    assert "MAIN MENU" in played.stdout and "KEY 'j'" in played.stdout and "BYE" in played.stdout


async def test_a_watcher_sees_the_game_change_and_cannot_type_into_it(start_host, ssh_command, tmp_path,
                                                                      server_dir):
    host = await start_host()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(80, 24)) as player, \
            OpenSSHTerminal([*ssh_command(host.port, "-tt", user="bob", key_of="bob"), "watch"],
                            tmp_path, size=(100, 30)) as watcher:
        await player.expect("READY")
        await watcher.expect("live games")
        await watcher.expect("FAKE-HERO")  # the app's own status: the character it plays
        listed = live_sessions(server_dir)
        assert [(s.player, s.character, s.screen, s.watchers) for s in listed] == [
            ("alice", "FAKE-HERO", "Main menu", 0)]
        who = horizon("who", "--data-dir", str(server_dir))
        assert who.returncode == 0, who.stderr
        assert who.stdout.splitlines()[0].split() == ["PLAYER", "CHARACTER", "SCREEN", "IDLE", "WATCHERS", "SINCE"]
        assert who.stdout.splitlines()[1].split()[:3] == ["alice", "FAKE-HERO", "Main"]

        watcher.process.write(b"\r")
        await player.expect("REDRAW")   # the app was asked to draw its whole screen for the watcher
        await watcher.expect("REDRAW")
        player.process.write(b"x")
        await watcher.expect("KEY 'x'")  # the player's screen, live
        watcher.process.write(b"z")     # read-only: the watcher's keys go nowhere
        player.process.write(b"y")
        await watcher.expect("KEY 'y'")
        assert "KEY 'z'" not in player.text and "KEY 'z'" not in watcher.text
        await until(lambda: live_sessions(server_dir)[0].watchers == 1)  # what the player is shown

        player.process.write(b"r")  # the player refuses watchers: the watcher is sent back
        await watcher.expect("doesn't want watchers", timeout=6)
        assert live_sessions(server_dir)[0].watchers == 0
        watcher.process.write(b"\r")
        await asyncio.sleep(0.3)
        assert len(host.sessions) == 1 and not next(iter(host.sessions)).watchers
        watcher.process.write(b"q")
        assert await asyncio.wait_for(watcher.ended, 8) == 0
        player.process.write(b"q")
        assert await asyncio.wait_for(player.ended, 8) == 3
    assert live_sessions(server_dir) == []
    assert not list((server_dir / "live").glob("*.json"))


async def test_watching_turned_off_and_every_other_command_refused(start_host, ssh_command, tmp_path):
    host = await start_host(spectators="none")
    code, out = await run_ssh(ssh_command(host.port, "-tt"), tmp_path, "watch")
    assert code == 1 and "Watching games is turned off" in out
    code, out = await run_ssh(ssh_command(host.port, "-tt"), tmp_path, "watch; id")
    assert code == 1 and "commands are not allowed" in out
    code, out = await run_ssh(ssh_command(host.port, "-T"), tmp_path, "watch")
    assert code == 1 and "needs a terminal" in out


async def test_anyone_may_watch_as_watch_without_a_key_but_not_play(start_host, ssh_command, tmp_path):
    host = await start_host(spectators="anyone")
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path) as player, \
            OpenSSHTerminal([*ssh_command(host.port, "-tt", user="watch", key_of="stranger"), "watch"],
                            tmp_path) as anonymous:
        await player.expect("READY")
        await anonymous.expect("FAKE-HERO")
        anonymous.process.write(b"q")
        assert await asyncio.wait_for(anonymous.ended, 8) == 0
    code, out = await run_ssh(ssh_command(host.port, "-tt", user="watch", key_of="stranger"), tmp_path)
    assert code == 1 and "watch" in out  # a shell: only the list is for `watch`


async def test_by_default_watching_needs_an_account(start_host, ssh_command, tmp_path):
    host = await start_host()  # --spectators users
    code, out = await run_ssh(ssh_command(host.port, "-tt", user="watch", key_of="stranger"), tmp_path,
                              "watch")
    assert code == 255 and "Permission denied" in out


async def test_watch_a_game_from_the_app_and_back(start_host, ssh_command, tmp_path, server_dir):
    host = await start_host()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path) as player:
        await player.expect("READY")
        player.process.write(b"w")  # the app quits with WATCH_EXIT: the host shows the games
        await player.expect("back to your game")
        assert live_sessions(server_dir) == []  # watching, not playing
        player.process.write(b"q")
        await until(lambda: player.text.count("READY") == 2)  # the game again
        launches = (server_dir / "users" / "alice" / "saves" / "launches.log").read_text().split()
        assert len(launches) == 2
        player.process.write(b"q")
        assert await asyncio.wait_for(player.ended, 8) == 3
    assert len(list((server_dir / "recordings" / "alice").glob("*/*.cast"))) == 2


async def test_a_stale_live_entry_is_not_listed_and_is_cleared_at_start(start_host, server_dir):
    live = server_dir / "live"
    live.mkdir(parents=True)
    (live / "dead.json").write_text(json.dumps({
        "id": "dead", "player": "alice", "started": 1, "last_input": 1, "width": 80, "height": 24,
        "watchers": 0, "host_pid": 2**22 + 12345}))  # above pid_max: no such process
    assert live_sessions(server_dir) == []
    await start_host()
    assert not (live / "dead.json").exists()


def test_who_passes_over_a_status_file_it_cant_use(tmp_path, capsys):
    """By hand: `horizon who` crashed (exit 70) on a status file of 30,000 nested brackets
    (RecursionError), and waited for ever on one that was a pipe. Neither is a live session."""
    import os

    from horizon_tui.cli import main

    live = tmp_path / "live"
    live.mkdir()
    (live / "deep.json").write_text("[" * 30_000 + "]" * 30_000)
    os.mkfifo(live / "pipe.json")
    (live / "zero.json").symlink_to("/dev/zero")
    assert live_sessions(tmp_path) == []
    assert main(["who", "--data-dir", str(tmp_path)]) == 0
    assert "no live sessions" in capsys.readouterr().err
