"""A flood of typed keys waits in the terminal, not in the app's memory (`ui.input_driver`).

Textual's input thread handed every key to the app at once; typed faster than the app took them
(100 kB into a name field) they piled up, some 3 kB each: a session went from 50 to 313 MiB and
kept it (bench/bench_input_flood.py). The paced driver's input thread waits while two batches are
not yet taken: here an app that takes nothing holds the thread after two batches, and one that
catches up lets every key through, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import select
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from textual import events
from textual.drivers.linux_driver import LinuxDriver

from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.input_driver import BATCH, PacedInputDriver
from horizon_tui.ui.player.app import create_app

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Textual's POSIX driver")

KEYS = 5 * BATCH


class StalledApp:
    """What the driver sees of an app: events queued, callbacks run only when the test says."""

    def __init__(self) -> None:
        self.queued: list[events.Key] = []
        self.later: list = []
        self.focused = self  # the focused widget (the name field): its queue is this one's too
        self.screen = self

    async def _post_message(self, message) -> bool:
        self.queued.append(message)
        return True

    def call_later(self, callback) -> bool:
        self.later.append(callback)
        return True

    def catch_up(self) -> None:
        callbacks, self.later = self.later, []
        for callback in callbacks:
            callback()


def typing(driver, count: int) -> threading.Thread:
    """The driver's input thread, reading `count` keys as fast as they come."""
    def read() -> None:
        for n in range(count):
            driver.send_message(events.Key(chr(ord("a") + n % 26), chr(ord("a") + n % 26)))

    thread = threading.Thread(target=read, daemon=True)
    driver._key_thread = thread  # noqa: SLF001 - the thread the driver paces is its input thread
    thread.start()
    return thread


async def until(predicate, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_the_input_thread_waits_while_the_app_has_not_taken_the_keys_before():
    app = StalledApp()
    driver = PacedInputDriver(app)
    thread = typing(driver, KEYS)
    await until(lambda: len(app.queued) >= 2 * BATCH)
    await asyncio.sleep(0.5)  # the app takes nothing meanwhile (its loop stalled, its output full)
    assert thread.is_alive() and len(app.queued) == 2 * BATCH  # two batches out, the rest unread
    while thread.is_alive() or app.later:  # the app catches up: every key comes, in order
        app.catch_up()
        await asyncio.sleep(0.01)
    await until(lambda: len(app.queued) == KEYS)
    assert "".join(key.key for key in app.queued) == "".join(chr(ord("a") + n % 26) for n in range(KEYS))


async def test_without_pacing_a_stalled_app_gets_every_key_at_once():
    """What the paced driver changes: Textual's own driver hands the whole flood over at once."""
    app = StalledApp()
    thread = typing(LinuxDriver(app), KEYS)
    await until(lambda: len(app.queued) == KEYS)
    assert not thread.is_alive()


async def test_the_apps_read_their_terminal_with_the_paced_driver(tmp_path):
    assert create_app(tmp_path / "saves").get_driver_class() is PacedInputDriver
    assert create_gm_app(tmp_path / "gm").get_driver_class() is PacedInputDriver


def test_an_app_whose_terminal_hangs_up_ends(tmp_path):
    """A terminal that hangs up (an SSH client gone, `tmux kill-session`) sends the app's session
    SIGHUP and then SIGCONT: the app ends, saving on its way out. Textual's SIGCONT handler used to
    restart application mode on the dead terminal, and the app then waited for ever on exit."""
    horizon = Path(sys.executable).with_name("horizon")
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the app, leader of the terminal's session
        os.environ["HORIZON_DATA_DIR"] = str(tmp_path / "data")
        os.execv(horizon, [str(horizon), "--saves", str(tmp_path / "saves")])
    try:
        shown, deadline = b"", time.monotonic() + 60
        while b"character" not in shown.lower() and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.5)[0]:
                shown += os.read(terminal, 65536)
        assert b"character" in shown.lower(), shown[-500:]
        os.close(terminal)  # the hang-up, while the menu is still being drawn (its output queued)
        deadline = time.monotonic() + 30
        while (ended := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ended[0] == pid, "the app was still running 30 s after its terminal hung up"
        assert os.waitstatus_to_exitcode(ended[1]) == 0
    finally:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


async def test_sigcont_resumes_the_terminal_only_after_a_suspend(monkeypatch):
    """The hang-up's SIGCONT (no ctrl+z before it) leaves application mode alone; after SIGTSTP
    (ctrl+z, then `fg`) it is resumed as Textual does."""
    resumed = []
    driver = PacedInputDriver(StalledApp())
    monkeypatch.setattr(driver, "resume_application_mode", lambda: resumed.append(True))
    monkeypatch.setattr(driver, "suspend_application_mode", lambda: None)
    monkeypatch.setattr(os, "kill", lambda pid, sig: None)  # SIGTSTP's own SIGSTOP
    driver._auto_restart = True
    driver._sigcont_application()
    assert resumed == []
    driver._sigtstp_application()
    driver._sigcont_application()
    assert resumed == [True]
