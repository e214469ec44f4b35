"""A session's memory under a flood of typed or pasted input (the player app on a PTY, as the SSH
host runs it): RSS before, the peak (VmHWM) and RSS after `--chars` characters arrive in the
character wizard's name field, typed (one read after another, no bracketed paste) or pasted
(one bracketed paste).

    .venv/bin/python bench/bench_input_flood.py --chars 100000 --mode typed
    .venv/bin/python bench/bench_input_flood.py --chars 100000 --mode pasted
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def largest_mappings(pid: int, count: int = 4) -> str:
    """The mappings holding the most resident memory (the heap, anonymous maps, …)."""
    sizes, name = [], "?"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if "-" in parts[0] and len(parts) >= 5:
            name = parts[5] if len(parts) > 5 else "[anon]"
        elif parts[0] == "Rss:":
            sizes.append((int(parts[1]), name))
    sizes.sort(reverse=True)
    return ", ".join(f"{name} {kib / 1024:.1f} MiB" for kib, name in sizes[:count])


def drain(fd: int, seconds: float) -> bytes:
    """What the app wrote within `seconds` (0: what is there now, as a terminal reads it)."""
    out = bytearray()
    deadline = time.monotonic() + seconds
    while True:
        ready, _, _ = select.select([fd], [], [], 0.05 if seconds else 0)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
        if time.monotonic() >= deadline and (seconds or not ready):
            return bytes(out)
    return bytes(out)


def until(fd: int, text: bytes, seconds: float = 240) -> None:
    seen = bytearray()
    deadline = time.monotonic() + seconds
    while text not in seen and time.monotonic() < deadline:
        seen += drain(fd, 0.2)
        seen = seen[-200000:]
    if text not in seen:
        raise SystemExit(f"no {text!r} within {seconds} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--mode", choices=("typed", "pasted"), default="typed")
    parser.add_argument("--chunk", type=int, default=4096, help="bytes a write (typed)")
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="hz-flood-")
    env = dict(os.environ, HORIZON_DATA_DIR=data, TERM="xterm-256color", COLUMNS="80", LINES="24")
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "horizon_tui"], stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True, close_fds=True)
    os.close(slave)
    try:
        until(master, b"New character")
        os.write(master, b"n")
        until(master, b"Species")
        os.write(master, b"\r")
        until(master, b"Points left")
        os.write(master, b"\x1b[C" * 37)
        drain(master, 1.0)
        os.write(master, b"\x0e")  # ctrl+n: the background step, the name field focused
        until(master, b"Came from")
        drain(master, 1.0)
        before = kib(proc.pid, "VmRSS")
        pss_before = pss_kib(proc.pid)
        payload = b"Z" * args.chars
        if args.mode == "pasted":
            payload = b"\x1b[200~" + payload + b"\x1b[201~"
        start = time.monotonic()
        sent = 0
        while sent < len(payload):
            _, writable, _ = select.select([], [master], [], 0.05)
            if writable:
                try:
                    sent += os.write(master, payload[sent:sent + args.chunk])
                except BlockingIOError:
                    pass
            drain(master, 0)
        written = time.monotonic() - start
        drain(master, 5.0)  # let it settle
        peak = kib(proc.pid, "VmHWM")
        after = kib(proc.pid, "VmRSS")
        print(f"{args.mode} {args.chars:,} chars: written in {written:.1f} s; RSS before {before / 1024:.1f} MiB "
              f"(PSS {pss_before / 1024:.1f}), peak {peak / 1024:.1f} MiB, after {after / 1024:.1f} MiB "
              f"(PSS {pss_kib(proc.pid) / 1024:.1f}); largest: {largest_mappings(proc.pid)}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
