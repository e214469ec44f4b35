"""Textual's terminal driver with its input held back while the app is behind.

Textual's input thread reads the terminal 4 kB at a time and hands every key of it to the app's
loop at once, each as a task of its own (`asyncio.run_coroutine_threadsafe`: a coroutine, a task
and two futures besides the event, some 3 kB a key). Typed faster than the app can take it (100 kB
typed into a name field, a text pasted without bracketed paste, a key held down), that pile grew
without bound: a session went from 50 to 313 MiB, and the allocator kept the memory after the pile
was gone (bench/bench_input_flood.py).

Here, after every `BATCH` events, the input thread waits until the app has taken the batch before
(a checkpoint sent behind it through the app's queue and then the focused widget's, where typed keys
go): at most two batches are ever waiting. What is typed meanwhile waits in the kernel's PTY buffer
and, behind it, in the SSH host's bounded input backlog, which pauses the channel (`host/game.py`,
INPUT_BACKLOG_LIMIT): no key is lost. The app may be stalled for long (a client that floods keys and
reads nothing: the app's writes block once Textual's 30 queued writes are waiting, its loop with
them); the thread then waits as long, sending one more checkpoint every `RECHECK_S` in case one was
lost with the widget it went to.

POSIX only (Textual's `LinuxDriver`, macOS's too): imported by `HorizonApp.get_driver_class` only
when that is the driver Textual chose.
"""

from __future__ import annotations

import threading

from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

BATCH = 128  # events; more than a person types ahead, a few kB of a flood
RECHECK_S = 1.0  # a checkpoint not reached in this long: another one


class PacedInputDriver(LinuxDriver):
    """`LinuxDriver` whose input thread keeps at most two `BATCH`es of events waiting in the app."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._sent = 0
        self._caught_up = threading.Event()  # the last checkpoint was reached (none is out)
        self._caught_up.set()

    def send_message(self, message: Message) -> None:
        super().send_message(message)
        if threading.current_thread() is not self._key_thread:
            return
        self._sent += 1
        if self._sent % BATCH:
            return
        while not self._caught_up.wait(RECHECK_S) and not self.exit_event.is_set():
            self._send_checkpoint()
        self._caught_up.clear()
        self._send_checkpoint()

    def _send_checkpoint(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._checkpoint)  # after the events sent so far are queued
        except RuntimeError:  # the loop is closed: the app is ending
            self._caught_up.set()

    def _sigcont_application(self, *_) -> None:
        """SIGCONT resumes only what SIGTSTP (ctrl+z) suspended. When a terminal hangs up (an SSH
        client gone, `tmux kill-session`, a closed window) the kernel sends its session leader
        SIGHUP and then SIGCONT; Textual's handler then restarted application mode on the dead
        terminal with a second output thread, which died on its first write, and the app's exit
        waited for ever on that thread's full queue: the process never ended (found as orphaned
        `horizon` processes after terminal tests; tests/tui/test_input_driver.py)."""
        if self._must_signal_resume:
            super()._sigcont_application()

    def _checkpoint(self) -> None:
        """On the app's loop: behind the batch in the app's queue, then in the focused widget's."""
        self._app.call_later(self._through_the_app)

    def _through_the_app(self) -> None:
        try:
            target = self._app.focused or self._app.screen
        except Exception:  # noqa: BLE001 - no screen yet (or any more): nothing further to go through
            target = None
        if target is None or not target.call_later(self._caught_up.set):
            self._caught_up.set()
