"""SSH host speed and capacity (issue 7), run by hand; prints numbers.

1. Connect to a drawn main menu: from opening the TCP connection until "New character" is on
   the screen (median of --runs). Target: under 1 s.
2. --sessions players at once (default 20), each pressing a key every --interval seconds (0.2)
   for --seconds (20): the time from each key to the first bytes of the next screen update, and to
   the end of that update (no more bytes for 15 ms). Target: 95th percentile under 200 ms.
3. Memory per session: RSS and PSS of each session's app process (/proc/PID/smaps_rollup), the
   server's own, the CPU the apps used during the load, and an estimate of how many sessions this
   machine could hold (by memory, and by CPU at that key rate).

The server runs as its own process (`horizon serve-ssh --port 0`) with a throw-away data folder;
the clients are asyncssh in this process. With `--app-command "python tests/ssh/fake_app.py
--saves-dir" --ready READY` it measures the SSH machinery alone, without the player app.

Run: .venv/bin/python bench/bench_ssh.py [--sessions 20] [--seconds 20] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

REPO = Path(__file__).resolve().parent.parent
ESCAPES = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")
KEYS = (b"\x1b[B", b"\x1b[A")  # down, up: the menu's highlight moves every time
QUIET = 0.015  # an update is over when no byte came for this long


def plain(data: bytes) -> str:
    return ESCAPES.sub(b"", data).decode("utf-8", "replace")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


class Server:
    """`horizon serve-ssh` in its own process, with accounts p00… sharing one key."""

    def __init__(self, args, data_dir: Path, users: int):
        self.args = args
        self.data_dir = data_dir
        self.key = asyncssh.generate_private_key("ssh-ed25519")
        pub = data_dir / "bench.pub"
        data_dir.mkdir(parents=True, exist_ok=True)
        pub.write_bytes(self.key.export_public_key("openssh"))
        from horizon_tui.ssh.accounts import Accounts

        accounts = Accounts(data_dir / "server")
        self.users = [f"p{i:02d}" for i in range(users)]
        for name in self.users:
            accounts.add(name, pub)
        self.process: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> None:
        argv = [sys.executable, "-m", "horizon_tui.cli", "serve-ssh", "--port", "0",
                "--data-dir", str(self.data_dir / "server"), "--idle-timeout", "0",
                "--max-sessions", "500", "--max-sessions-per-user", "100"]
        if self.args.app_command:
            argv += ["--app-command", self.args.app_command]
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=REPO)
        for line in self.process.stderr:
            found = re.search(r"listening on \S+:(\d+)", line)
            if found:
                self.port = int(found.group(1))
                break
        else:
            raise SystemExit("the server didn't start")
        # keep draining its log so it never blocks on a full pipe
        self._drain = asyncio.get_event_loop().run_in_executor(None, self.process.stderr.read)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(15)

    def app_pids(self) -> list[int]:
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.process.pid:
                    pids.append(int(entry))
        return pids


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in KiB from /proc/PID/smaps_rollup."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if parts and parts[0] in ("Rss:", "Pss:"):
            values[parts[0]] = int(parts[1])
    return values["Rss:"], values["Pss:"]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Player:
    """One client session; records when output arrives."""

    def __init__(self, server: Server, user: str, ready: str):
        self.server, self.user, self.ready = server, user, ready
        self.output = bytearray()
        self.chunks: list[tuple[float, int]] = []  # (arrival time, size)
        self.arrived = asyncio.Event()
        self.conn = self.process = None
        self.reader: asyncio.Task | None = None

    async def connect(self, size=(100, 30)) -> float:
        start = time.perf_counter()
        self.conn = await asyncssh.connect(
            "127.0.0.1", self.server.port, username=self.user, client_keys=[self.server.key],
            known_hosts=None, agent_path=None, config=None)
        self.process = await self.conn.create_process(term_type="xterm-256color", term_size=size,
                                                      encoding=None)
        self.reader = asyncio.ensure_future(self._read())
        while self.ready not in plain(bytes(self.output)):
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 30)
        return time.perf_counter() - start

    async def _read(self) -> None:
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk
            self.chunks.append((time.perf_counter(), len(chunk)))
            self.arrived.set()

    async def close(self) -> None:
        if self.conn:
            self.conn.close()
            await self.conn.wait_closed()
        if self.reader:
            self.reader.cancel()

    async def press_keys(self, seconds: float, interval: float, first: list, whole: list,
                         missed: list) -> None:
        await asyncio.sleep(interval * (hash(self.user) % 100) / 100)  # spread the players out
        end = time.perf_counter() + seconds
        n = 0
        while time.perf_counter() < end:
            tick = time.perf_counter()
            before = len(self.chunks)
            self.process.stdin.write(KEYS[n % 2])
            n += 1
            sent = time.perf_counter()
            deadline = sent + 2.0
            while len(self.chunks) == before and time.perf_counter() < deadline:
                self.arrived.clear()
                try:
                    await asyncio.wait_for(self.arrived.wait(), deadline - time.perf_counter())
                except asyncio.TimeoutError:
                    break
            if len(self.chunks) == before:
                missed.append(self.user)
            else:
                first.append(self.chunks[before][0] - sent)
                while True:  # the update is over after QUIET seconds without bytes
                    count = len(self.chunks)
                    await asyncio.sleep(QUIET)
                    if len(self.chunks) == count:
                        break
                whole.append(self.chunks[-1][0] - sent)
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - tick)))


async def bench(args) -> None:
    with tempfile.TemporaryDirectory(prefix="horizon-bench-") as tmp:
        server = Server(args, Path(tmp), max(args.sessions, args.runs))
        server.start()
        try:
            await run(args, server)
        finally:
            server.stop()


async def run(args, server: Server) -> None:
    print(f"server pid {server.process.pid} on port {server.port}; app: "
          f"{args.app_command or 'horizon play (the real player app)'}")

    times = []
    for i in range(args.runs):
        player = Player(server, server.users[i], args.ready)
        times.append(await player.connect())
        await player.close()
        await asyncio.sleep(0.3)  # let the previous app save and go
    print(f"connect to a drawn menu: median {statistics.median(times) * 1000:.0f} ms over "
          f"{args.runs} runs (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}); target < 1000 ms")

    players = [Player(server, server.users[i], args.ready) for i in range(args.sessions)]
    started = time.perf_counter()
    together = await asyncio.gather(*(p.connect() for p in players))
    print(f"{args.sessions} sessions connecting at once: all menus drawn after "
          f"{(time.perf_counter() - started) * 1000:.0f} ms (slowest {max(together) * 1000:.0f} ms)")
    await asyncio.sleep(1.0)

    pids = server.app_pids()
    cpu_before = {pid: cpu_seconds(pid) for pid in pids}
    server_cpu_before = cpu_seconds(server.process.pid)
    first, whole, missed = [], [], []
    load_start = time.perf_counter()
    await asyncio.gather(*(p.press_keys(args.seconds, args.interval, first, whole, missed)
                           for p in players))
    elapsed = time.perf_counter() - load_start
    app_cpu = sum(cpu_seconds(pid) - cpu_before[pid] for pid in pids if Path(f"/proc/{pid}").exists())
    server_cpu = cpu_seconds(server.process.pid) - server_cpu_before
    print(f"{args.sessions} sessions × a key every {args.interval * 1000:.0f} ms for {args.seconds:g} s: "
          f"{len(first)} keys answered, {len(missed)} unanswered within 2 s")
    if first:
        print(f"  key → first bytes of the update: p50 {percentile(first, 50) * 1000:.0f} ms, "
              f"p95 {percentile(first, 95) * 1000:.0f} ms, p99 {percentile(first, 99) * 1000:.0f} ms, "
              f"max {max(first) * 1000:.0f} ms; target p95 < 200 ms")
        print(f"  key → update complete:       p50 {percentile(whole, 50) * 1000:.0f} ms, "
              f"p95 {percentile(whole, 95) * 1000:.0f} ms, max {max(whole) * 1000:.0f} ms")
    print(f"  CPU during the load: apps {app_cpu / elapsed * 100:.0f}% of one core in all "
          f"({app_cpu / elapsed / args.sessions * 100:.1f}% each), server {server_cpu / elapsed * 100:.0f}%")

    memory = [memory_kib(pid) for pid in pids]
    server_rss, server_pss = memory_kib(server.process.pid)
    rss = statistics.median(m[0] for m in memory) / 1024
    pss = statistics.median(m[1] for m in memory) / 1024
    print(f"memory per session (median of {len(memory)} app processes): RSS {rss:.1f} MiB, PSS {pss:.1f} MiB; "
          f"server RSS {server_rss / 1024:.1f} MiB, PSS {server_pss / 1024:.1f} MiB")
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    cores = os.cpu_count() or 1
    by_memory = int((total * 0.8 - server_pss / 1024) / pss)
    per_session_cpu = (app_cpu + server_cpu) / elapsed / args.sessions
    by_cpu = int(cores * 0.7 / per_session_cpu) if per_session_cpu else 0
    print(f"capacity estimate on {total / 1024:.0f} GiB, {cores} cores: ~{by_memory} sessions by memory "
          f"(80% of RAM / PSS), ~{by_cpu} sessions all pressing a key every {args.interval * 1000:.0f} ms "
          f"by CPU (70% of the cores); idle sessions cost memory only")
    await asyncio.gather(*(p.close() for p in players))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--runs", type=int, default=5, help="connect-time runs (median)")
    parser.add_argument("--app-command", default=None,
                        help="instead of the player app (the saves folder is appended)")
    parser.add_argument("--ready", default="New character", help="text that means the menu is drawn")
    args = parser.parse_args()
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
