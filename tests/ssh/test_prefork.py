"""The pre-forked session server with the real player app and the real OpenSSH client:
sessions are forks of one warmed-up process; killing one (kill -9) ends that
session only; SIGTERM to `horizon serve-ssh` lets every app save and quit; two sessions of one
user on one character are told it is open in another session."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w
from openssh_kit import OpenSSHTerminal, needs_openssh  # the ssh_command fixture: conftest.py

import horizon_tui.ui
from horizon_tui.storage.lock import read_holder
from horizon_tui.storage.accounts import Accounts

pytestmark = needs_openssh
MENU = "New character"
DOWN = b"\x1b[B"


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def session_pids(host) -> list[int]:
    """The sessions' app pids, in the order they started."""
    running = [s for s in host.sessions if s.process is not None and s.process.pid]
    return [s.process.pid for s in sorted(running, key=lambda s: s.started_at)]


async def test_sessions_are_forks_and_one_crash_ends_one_session(start_host, ssh_command, tmp_path):
    host = await start_host(app_command=None)  # the real app, pre-forked
    await host.session_server.wait_ready()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(100, 30)) as first, \
            OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(100, 30)) as second:
        await first.expect(MENU, timeout=15)
        await second.expect(MENU, timeout=15)
        pids = session_pids(host)
        assert len(pids) == 2
        assert {parent_of(pid) for pid in pids} == {host.session_server.pid}  # forks of one process
        crashed = next(s for s in host.sessions if s.process.pid == pids[0])
        os.kill(pids[0], signal.SIGKILL)
        ended = [t for t in (first, second) if t.ended.done()]
        for _ in range(200):
            ended = [t for t in (first, second) if t.ended.done()]
            if ended:
                break
            await asyncio.sleep(0.025)
        assert len(ended) == 1 and crashed.end_reason == "app killed by SIGKILL"
        survivor = second if ended[0] is first else first
        before = len(survivor.output)
        survivor.process.write(DOWN)  # the other game goes on
        for _ in range(200):
            if len(survivor.output) > before:
                break
            await asyncio.sleep(0.025)
        assert len(survivor.output) > before and not survivor.ended.done()
        async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path) as third:
            await third.expect(MENU, timeout=15)  # and new sessions still start
            assert parent_of(session_pids(host)[-1]) == host.session_server.pid


async def test_a_dead_session_server_loses_no_game_and_is_started_again(start_host, ssh_command, tmp_path):
    host = await start_host(app_command=None)
    await host.session_server.wait_ready()
    old = host.session_server.pid
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(100, 30)) as playing:
        await playing.expect(MENU, timeout=15)
        os.kill(old, signal.SIGKILL)
        for _ in range(100):
            if not host.session_server.running:
                break
            await asyncio.sleep(0.02)
        async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path) as meanwhile:
            await meanwhile.expect(MENU, timeout=20)  # a fresh interpreter while there is none
        before = len(playing.output)
        playing.process.write(DOWN)  # the game that was running goes on
        for _ in range(200):
            if len(playing.output) > before:
                break
            await asyncio.sleep(0.025)
        assert len(playing.output) > before and not playing.ended.done()
        await host.session_server.wait_ready(timeout=60)
        assert host.session_server.running and host.session_server.pid != old
        playing.process.write(b"\x11")  # ctrl+q: its end is still noticed
        assert await asyncio.wait_for(playing.ended, 10) == 0
        async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path) as later:
            await later.expect(MENU, timeout=15)
            assert parent_of(session_pids(host)[-1]) == host.session_server.pid


async def test_a_watcher_gets_the_real_apps_whole_screen_and_then_its_changes(start_host, ssh_command, tmp_path):
    host = await start_host(app_command=None)
    await host.session_server.wait_ready()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(100, 30)) as player:
        await player.expect(MENU, timeout=15)
        await asyncio.sleep(1.5)  # the app has written its status (hosting.py polls each second)
        async with OpenSSHTerminal([*ssh_command(host.port, "-tt", user="bob", key_of="bob"), "watch"],
                                   tmp_path, size=(100, 30)) as watcher:
            await watcher.expect("Main menu")  # the screen the player is on, from the app itself
            watcher.process.write(b"\r")
            await watcher.expect("Recent characters")  # the whole menu, drawn again for the watcher
            await player.expect("watching your game")   # and the player is told
            player.process.write(b"n")
            await watcher.expect("step 1 of 5")         # the player's next screen, live
            watcher.process.write(b"q")
            await watcher.expect("live games")
            watcher.process.write(b"q")
            assert await asyncio.wait_for(watcher.ended, 8) == 0


def serve(data_dir: Path, port_file: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "horizon_tui.cli", "serve-ssh", "--port", "0", "--data-dir", str(data_dir),
         "--idle-timeout", "0"], stderr=port_file.open("w"), stdin=subprocess.DEVNULL)


async def wait_for_log(log: Path, pattern: str, timeout: float = 60) -> re.Match:
    for _ in range(int(timeout / 0.05)):
        found = re.search(pattern, log.read_text())
        if found:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {pattern!r} in the server's log: {log.read_text()}")


async def test_sigterm_lets_every_session_save_and_quit(ssh_command, tmp_path, user_keys):
    data_dir = tmp_path / "server"
    pub = tmp_path / "alice.pub"
    pub.write_bytes(user_keys["alice"].export_public_key("openssh"))
    Accounts(data_dir).add("alice", pub)
    log = tmp_path / "server.log"
    server = serve(data_dir, log)
    try:
        port = int((await wait_for_log(log, r"listening on \S+:(\d+)")).group(1))
        await wait_for_log(log, "session server pid .* ready")
        async with OpenSSHTerminal(ssh_command(port, "-tt"), tmp_path, size=(100, 30)) as one, \
                OpenSSHTerminal(ssh_command(port, "-tt"), tmp_path, size=(100, 30)) as two:
            await one.expect(MENU, timeout=15)
            await two.expect(MENU, timeout=15)
            server.send_signal(signal.SIGTERM)
            codes = await asyncio.wait_for(asyncio.gather(one.ended, two.ended), 15)
            assert codes == [0, 0]  # each app quit by itself, not killed
            assert "your game was saved" in one.text and "your game was saved" in two.text
        assert server.wait(15) == 0
        text = log.read_text()
        assert text.count("reason=server shutdown") == 2 and "SIGKILL" not in text
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _player_app_locks_characters() -> bool:
    source = Path(horizon_tui.ui.__file__).parent
    return any("SaveInUse" in p.read_text(encoding="utf-8") for p in source.rglob("*.py"))


@pytest.mark.skipif(not _player_app_locks_characters(),
                    reason="the player app doesn't take the save lock on a character yet (saves/lock.py)")
async def test_two_sessions_of_one_user_on_one_character_are_told(start_host, ssh_command, tmp_path,
                                                                  server_dir, example_data):
    host = await start_host(app_command=None)
    await host.session_server.wait_ready()
    characters = server_dir / "users" / "alice" / "saves" / "characters"
    characters.mkdir(parents=True)
    (characters / "iriel.toml").write_text(tomli_w.dumps(example_data()))
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(110, 32)) as first, \
            OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(110, 32)) as second:
        for term in (first, second):
            await term.expect("Iriel", timeout=15)
        first.process.write(b"\t")
        await asyncio.sleep(0.2)
        first.process.write(b"\r")  # the first session opens Iriel
        await first.expect("Level", timeout=10)
        second.process.write(b"\t")
        await asyncio.sleep(0.2)
        second.process.write(b"\r")  # the second is asked, nothing is silently shared
        await second.expect("another session", timeout=10)
        assert "another session" not in first.text
        pids = session_pids(host)
        holder = read_holder(characters / "iriel.toml")
        assert holder is not None and holder.pid in pids  # each fork holds locks as itself
        second_pid = next(pid for pid in pids if pid != holder.pid)
        second.process.write(b"t")  # take over: from now on only the second session writes it
        for _ in range(200):
            holder = read_holder(characters / "iriel.toml")
            if holder is not None and holder.pid == second_pid:
                break
            await asyncio.sleep(0.025)
        assert holder.pid == second_pid


def test_the_sessions_command_lines_are_parsed_once_and_each_session_gets_its_own_copy():
    from horizon_tui import cli
    from horizon_tui.host.prefork import SESSION_COMMAND_LINES, _ParsedOnce

    parser = cli.build_parser()
    parsed = _ParsedOnce(parser, SESSION_COMMAND_LINES)
    first = parsed.parse_args(["play", "--saves-dir", "saves"])
    assert vars(first) == vars(parser.parse_args(["play", "--saves-dir", "saves"]))
    first.saves = "elsewhere"  # one session's changes stay its own
    assert parsed.parse_args(["play", "--saves-dir", "saves"]).saves == "saves"
    assert parsed.parse_args(["gm", "--saves-dir", "saves"]).command == "gm"
    other = parsed.parse_args(["play", "--saves-dir", "mine"])  # anything else: parsed as usual
    assert other.saves == "mine"


SHARED_TEXTUAL_WORK = """
import asyncio, sys, tempfile
from pathlib import Path
from horizon_tui.ui.player.app import create_app
from horizon_tui.host.prefork import _share_textual_work

async def menu(saves):
    app = create_app(saves)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        return app.stylesheet.rules, app.get_css_variables(), pilot.app.screen.query_one("#menu").region

with tempfile.TemporaryDirectory() as saves:
    plain = asyncio.run(menu(Path(saves)))
    _share_textual_work()
    one, two = asyncio.run(menu(Path(saves))), asyncio.run(menu(Path(saves)))
def described(rules):
    return [(repr(r.selector_set), {k: repr(v) for k, v in r.styles.get_rules().items()}) for r in rules]
assert described(one[0]) == described(plain[0]), "the same rules as Textual's own parse"
assert all(a is b for a, b in zip(one[0], two[0])) and len(one[0]) == len(two[0]), "parsed once"
assert one[1] == plain[1] == two[1] and one[1] is not two[1], "the same variables, each app its own dict"
assert one[2] == plain[2], "the menu laid out as before"
print("ok")
"""


def test_stylesheets_and_theme_variables_are_computed_once_for_every_app():
    result = subprocess.run([sys.executable, "-c", SHARED_TEXTUAL_WORK], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


@pytest.mark.skipif(not Path("/proc/self/ksm_stat").exists(), reason="no per-process KSM (Linux 6.4+)")
def test_the_session_server_and_its_forks_allow_same_page_merging():
    script = ("import os; from horizon_tui.host.prefork import _allow_page_merging; "
              "assert _allow_page_merging(); pid = os.fork()\n"
              "if pid == 0: os._exit(0 if 'ksm_merge_any: yes' in open('/proc/self/ksm_stat').read() else 1)\n"
              "assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


IMMORTAL_OBJECTS = """
import os, sys
from horizon_tui.host.prefork import _immortalize

class Thing:
    pass

things = [Thing() for _ in range(100)]
name = "made at run time " + str(os.getpid())
def function():
    return "a constant of the code"
constant = function.__code__.co_consts[1] if function.__code__.co_consts[0] is None else function.__code__.co_consts[0]
watched = (things[0], things[99], name, function, function.__code__, constant, Thing)
made = _immortalize()
before = [sys.getrefcount(o) for o in watched]
held = [list(watched) for _ in range(1000)]
after = [sys.getrefcount(o) for o in watched]
if sys.version_info >= (3, 12):
    assert made > 100, made
    assert after == before, (before, after)  # a thousand more references wrote no count
    pid = os.fork()  # a fork that reads them leaves them as they are
    if pid == 0:
        os._exit(0 if [sys.getrefcount(o) for o in watched] == before else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
else:
    assert made == 0
    assert after == [b + 1000 for b in before], (before, after)  # 3.11: counts left alone
print("ok")
"""


def test_the_session_server_makes_its_objects_immortal_where_python_can():
    # Python 3.12+: a session's use of the session server's objects writes no reference count,
    # so their pages stay shared (bench_ssh: 7.0 MiB PSS per extra session instead of 13.1)
    result = subprocess.run([sys.executable, "-c", IMMORTAL_OBJECTS], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def _other_pythons_with_immortal_objects() -> list[str]:
    """Interpreters ≥ 3.12 on this machine besides the one running the tests (PATH, pyenv): the
    host should run on one, so the immortal path is tried there even when the venv is 3.11."""
    import glob
    import shutil

    found = [shutil.which(f"python3.{minor}") for minor in range(12, 16)]
    pyenv = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    found += sorted(glob.glob(f"{pyenv}/versions/3.1[2-9]*/bin/python3"))
    usable = []
    for path in filter(None, found):
        try:
            probe = subprocess.run([path, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                                   capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if probe.returncode == 0 and probe.stdout.strip() == "True" and \
                Path(path).resolve() != Path(sys.executable).resolve():
            usable.append(path)
    return usable[:2]


def test_immortal_objects_on_another_python_where_the_machine_has_one():
    # prefork imports only the standard library, so a bare interpreter runs the same check
    pythons = _other_pythons_with_immortal_objects()
    if not pythons:
        pytest.skip("no other Python 3.12+ on this machine")
    root = str(Path(__file__).resolve().parents[2])
    for python in pythons:
        result = subprocess.run([python, "-s", "-c", IMMORTAL_OBJECTS], capture_output=True, text=True,
                                timeout=120, env={"PYTHONPATH": root, "PATH": os.defpath})
        assert result.returncode == 0 and result.stdout.strip() == "ok", (python, result.stderr)
