"""A child process on its own pseudo-terminal, driven from the asyncio loop.

The child is a session leader whose controlling terminal is the PTY, so the kernel sends it
SIGWINCH when the window size is set on the master and SIGHUP when the master closes. The parent
keeps only the master side, non-blocking, watched with `loop.add_reader`; the child's exit is
watched through a pidfd (no thread per child), polled where pidfds are missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

READ_CHUNK = 65536
OUTPUT_DRAIN_AFTER_EXIT = 1.0  # a grandchild holding the PTY open can't keep a session alive


def _take_controlling_terminal() -> None:  # runs in the child between fork and exec
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def set_window_size(fd: int, columns: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
    clamp = lambda n: max(0, min(int(n), 0xFFFF))  # noqa: E731
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", clamp(rows), clamp(columns),
                                                    clamp(xpixels), clamp(ypixels)))


class PtyProcess:
    """One child on one PTY. `on_output(bytes)` gets what it writes; `on_exit(returncode)` is
    called once, after its output was drained (returncode < 0: killed by that signal)."""

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: Path,
                 size: tuple[int, int, int, int], on_output: Callable[[bytes], None],
                 on_exit: Callable[[int], None], on_input_drained: Callable[[], None] | None = None):
        self.argv = list(argv)
        self.env = dict(env)
        self.cwd = cwd
        self.size = size
        self._on_output = on_output
        self._on_exit = on_exit
        self._on_input_drained = on_input_drained
        self._loop = asyncio.get_running_loop()
        self._popen: subprocess.Popen | None = None
        self._pid: int | None = None
        self._master: int | None = None
        self._pidfd: int | None = None
        self._poll_handle: asyncio.TimerHandle | None = None
        self._drain_handle: asyncio.TimerHandle | None = None
        self._pending_input = bytearray()
        self._writing = False
        self._reading = False
        self._output_paused = False
        self._output_eof = False
        self.returncode: int | None = None
        self._done: asyncio.Future[int] = self._loop.create_future()

    # --- life ------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._pid

    def start(self) -> int:
        master, slave = os.openpty()
        try:
            set_window_size(master, *self.size)
            self._popen = subprocess.Popen(
                self.argv, stdin=slave, stdout=slave, stderr=slave, cwd=self.cwd, env=self.env,
                start_new_session=True, preexec_fn=_take_controlling_terminal, close_fds=True)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self._master = master
        self._pid = self._popen.pid
        os.set_blocking(master, False)
        self._start_reading()
        try:
            self._pidfd = os.pidfd_open(self._popen.pid)
            self._loop.add_reader(self._pidfd, self._child_exited)
        except (AttributeError, OSError):
            self._poll_handle = self._loop.call_later(0.1, self._poll)
        return self._popen.pid

    def attach(self, master: int, pid: int, exited: asyncio.Future[int]) -> int:
        """Drive a child someone else forked (the pre-forked session server, `prefork.py`): its
        PTY master is ours now; `exited` resolves to its return code when it is reaped."""
        self._master = master
        self._pid = pid
        os.set_blocking(master, False)
        with contextlib.suppress(OSError):
            set_window_size(master, *self.size)  # a resize may have come while it was forked
        self._start_reading()
        if self._pending_input:
            self._flush_input()
        exited.add_done_callback(lambda done: self._exited(done.result()))
        return pid

    def signal(self, signum: int) -> None:
        """Send `signum` to the child's process group (the child and anything it started)."""
        if self._pid is None or self.returncode is not None or self._done.done():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._pid, signum)

    def signal_leader(self, signum: int) -> None:
        """Send `signum` to the child alone (not to anything it started)."""
        if self._pid is None or self.returncode is not None or self._done.done():
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self._pid, signum)

    async def wait(self) -> int:
        return await asyncio.shield(self._done)

    async def terminate(self, grace: float = 5.0) -> int:
        """SIGTERM (the app saves and quits), then SIGKILL if it is still there after `grace`."""
        if self._done.done():
            return self._done.result()
        self.signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.wait(), grace)
        except TimeoutError:
            self.signal(signal.SIGKILL)
            return await asyncio.wait_for(self.wait(), 5.0)

    @property
    def finished(self) -> bool:
        return self._done.done()

    # --- input -----------------------------------------------------------------------------

    def write(self, data: bytes) -> int:
        """Queue keys for the child; returns how many bytes are still waiting."""
        if self._done.done() or (self._master is None and self._pid is not None):
            return 0
        self._pending_input += data  # before the child is there (being forked), kept for it
        if not self._writing and self._master is not None:
            self._flush_input()
        return len(self._pending_input)

    def _flush_input(self) -> None:
        while self._pending_input and self._master is not None:
            try:
                written = os.write(self._master, self._pending_input)
            except BlockingIOError:
                break
            except OSError:  # the child is gone; its exit is handled elsewhere
                self._pending_input.clear()
                break
            del self._pending_input[:written]
        if self._pending_input and not self._writing and self._master is not None:
            self._loop.add_writer(self._master, self._flush_input)
            self._writing = True
        elif not self._pending_input and self._writing:
            self._loop.remove_writer(self._master)
            self._writing = False
            if self._on_input_drained:
                self._on_input_drained()

    def resize(self, columns: int, rows: int, xpixels: int = 0, ypixels: int = 0) -> None:
        self.size = (columns, rows, xpixels, ypixels)
        if self._master is not None:
            with contextlib.suppress(OSError):
                set_window_size(self._master, columns, rows, xpixels, ypixels)

    # --- output ----------------------------------------------------------------------------

    def pause_output(self) -> None:
        """The SSH channel is full: stop reading, so the child blocks instead of us buffering."""
        self._output_paused = True
        if self.returncode is None:
            self._stop_reading()

    def resume_output(self) -> None:
        self._output_paused = False
        self._start_reading()

    def _start_reading(self) -> None:
        if not self._reading and self._master is not None and not self._output_eof:
            self._loop.add_reader(self._master, self._read_output)
            self._reading = True

    def _stop_reading(self) -> None:
        if self._reading and self._master is not None:
            self._loop.remove_reader(self._master)
            self._reading = False

    def _read_output(self) -> None:
        try:
            data = os.read(self._master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO: every holder of the slave side has closed it
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            self._output_eof = True
            self._stop_reading()
            if self.returncode is not None:
                self._finish()
            return
        self._on_output(data)

    # --- exit ------------------------------------------------------------------------------

    def _poll(self) -> None:
        self._poll_handle = None
        if self._popen is not None and self._popen.poll() is not None:
            self._child_exited()
        else:
            self._poll_handle = self._loop.call_later(0.1, self._poll)

    def _child_exited(self) -> None:
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        assert self._popen is not None
        self._exited(self._popen.wait())

    def _exited(self, returncode: int) -> None:
        if self.returncode is not None or self._done.done():
            return
        self.returncode = returncode
        if self._output_eof:
            self._finish()
            return
        self._start_reading()  # drain what it wrote last, even while the channel is paused
        self._drain_handle = self._loop.call_later(OUTPUT_DRAIN_AFTER_EXIT, self._finish)

    def _finish(self) -> None:
        if self._done.done():
            return
        if self._drain_handle is not None:
            self._drain_handle.cancel()
        self.close()
        self._done.set_result(self.returncode if self.returncode is not None else -signal.SIGKILL)
        self._on_exit(self._done.result())

    def close(self) -> None:
        """Release the PTY and watchers (the child has exited or is being abandoned)."""
        self._stop_reading()
        if self._poll_handle is not None:
            self._poll_handle.cancel()
            self._poll_handle = None
        if self._master is not None:
            if self._writing:
                self._loop.remove_writer(self._master)
                self._writing = False
            os.close(self._master)
            self._master = None
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
