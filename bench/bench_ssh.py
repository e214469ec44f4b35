"""SSH host speed and capacity, run by hand; prints numbers.

1. Connect to a drawn main menu: from opening the TCP connection until "New character" is on
   the screen, against a local `horizon` started on a PTY in the same run, interleaved (median of
   --runs each). Target: SSH ≤ 0.8 × local.
2. Memory: the PSS of the whole host (server, pre-forked session server and every session's
   process, /proc/PID/smaps_rollup) with one session, then with --memory-sessions at their menus;
   the difference per extra session. Target: ≤ 12 MiB. On Python 3.12 and newer the session
   server makes its objects immortal before the first fork (prefork._immortalize), so a session's
   reads leave the shared pages alone; `--mortal` measures without that. Run it on 3.12+ to see
   it: `python3.12 -m venv .venv312 && .venv312/bin/pip install -e . && .venv312/bin/python
   bench/bench_ssh.py`.
3. --sessions players at once (default 50), each pressing a key every --interval seconds (0.5)
   for --seconds (20): the time from each key to the first bytes of the redraw, and to the end of
   it (no more bytes for 15 ms). Target: p95 key → redraw ≤ 100 ms.

With --battle (instead of 1-3): every account has Iriel with a battle in progress on open
ground (50x50, its one enemy walled in: the battle lasts). 4. One session resumes it (Load ▸ Battles ▸ enter) and moves right and left,
one key at a time: the session process's CPU (/proc/PID/stat) from each move key to the end of
its redraw, summed over --moves moves, and the bytes a move sends. Target: ≤ 5 ms of CPU per move.
5. For each of --battle-sessions (10,25,50) players at once, each resuming and pressing a move
key every --interval seconds for --seconds: key → redraw p95, as in 3. When a player's movement
is spent ("no movement left"), it ends the turn (.) and skips the enemies' turns (x), untimed.

The server runs as its own process (`horizon serve-ssh --port 0`) with a throw-away data folder;
the clients are asyncssh in this process. With `--app-command "python tests/ssh/fake_app.py
--saves-dir" --ready READY` it measures the SSH machinery alone, without the player app (and
without the pre-forked session server).

Run: .venv/bin/python bench/bench_ssh.py [--sessions 50] [--seconds 20] [--runs 5]
     .venv/bin/python bench/bench_ssh.py --battle [--battle-sessions 10,25,50] [--moves 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
MOVES = (b"l", b"h")  # right, left: Iriel steps to and fro in battle
SPENT = "no movement left"  # the status line once a turn's movement is used
YOUR_TURN = "Your turn"
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
        from horizon_tui.storage.accounts import Accounts

        accounts = Accounts(data_dir / "server")
        self.users = [f"p{i:02d}" for i in range(users)]
        for name in self.users:
            accounts.add(name, pub)
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.sharing = "no session server"

    def start(self) -> None:
        argv = [sys.executable, "-m", "horizon_tui.cli", "serve-ssh", "--port", str(self.args.port),
                "--data-dir", str(self.data_dir / "server"), "--idle-timeout", "0",
                "--max-sessions", "500", "--max-sessions-per-user", "100",
                "--max-startups", "200:30:400", "--max-startups-per-source", "200"]  # one loopback address
        if self.args.app_command:
            argv += ["--app-command", self.args.app_command]
        env = dict(os.environ, HORIZON_PREFORK_MORTAL="1" if self.args.mortal else "0")
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)
        wanted = ("listening on", "session server") if not self.args.app_command else ("listening on",)
        seen = set()
        for line in self.process.stderr:
            found = re.search(r"listening on \S+:(\d+)", line)
            if found:
                self.port = int(found.group(1))
            seen |= {w for w in wanted if w in line and ("ready" in line or w == "listening on")}
            if "session server" in line and "ready" in line:
                self.sharing = line.rsplit(", ", 1)[-1].rstrip("\n").removesuffix(")")
            if len(seen) == len(wanted):
                break
        else:
            raise SystemExit("the server didn't start")
        # keep draining its log so it never blocks on a full pipe
        self._drain = asyncio.get_event_loop().run_in_executor(None, self.process.stderr.read)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(15)

    def tree(self) -> list[int]:
        """The server and every process under it (the session server and the sessions)."""
        return process_tree(self.process.pid)

    def app_pids(self) -> list[int]:
        """The sessions' processes: the tree's leaves that run the app."""
        tree = self.tree()
        parents = set()
        for pid in tree:
            try:
                parents.add(int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]))
            except OSError:
                pass
        return [pid for pid in tree if pid not in parents]

    def total_pss_kib(self) -> int:
        return sum(self.pss_parts().values())

    def pss_parts(self) -> dict[str, int]:
        """PSS in KiB of the server, the session server (the sessions' parent) and the sessions."""
        parts = {"server": 0, "session server": 0, "sessions": 0}
        sessions = set(self.app_pids())
        for pid in self.tree():
            try:
                pss = memory_kib(pid)[1]
            except (OSError, KeyError):
                continue
            part = "server" if pid == self.process.pid else "sessions" if pid in sessions else "session server"
            parts[part] += pss
        return parts


def process_tree(root: int) -> list[int]:
    """`root` and every process under it."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def memory_kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in KiB from /proc/PID/smaps_rollup."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        parts = line.split()
        if parts and parts[0] in ("Rss:", "Pss:"):
            values[parts[0]] = int(parts[1])
    return values["Rss:"], values["Pss:"]


KSM = Path("/sys/kernel/mm/ksm")


def ksm_running() -> bool:
    """Is the kernel's same-page merging on (the session server opts in to it, prefork.py)?"""
    try:
        return (KSM / "run").read_text().strip() == "1"
    except OSError:
        return False


async def settle(seconds: float) -> None:
    """Wait for the memory to be measured to settle: with KSM on, until ksmd's merging has
    stopped growing (under 1 % more shared pages over two full scans, at least three scans since
    now), at most 180 s; a page is merged only once it was seen unchanged on two scans."""
    if not ksm_running():
        await asyncio.sleep(seconds)
        return

    def read(name: str) -> int:
        return int((KSM / name).read_text())

    start, deadline = read("full_scans"), time.perf_counter() + 180
    sharing: dict[int, int] = {}
    while time.perf_counter() < deadline:
        scans = read("full_scans")
        sharing.setdefault(scans, read("pages_sharing"))
        if scans >= start + 3 and scans - 2 in sharing and sharing[scans] <= sharing[scans - 2] * 1.01:
            return
        await asyncio.sleep(0.5)


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
        """Seconds from connecting to the ready text on the screen."""
        start = time.perf_counter()
        await self.open(size)
        self.reader = asyncio.ensure_future(self._read())
        while self.ready not in plain(bytes(self.output)):
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 30)
        return time.perf_counter() - start

    async def open(self, size) -> None:
        """The session, on a terminal of `size`: `process.stdin` takes keys, `_read` its output."""
        self.conn = await asyncssh.connect(
            "127.0.0.1", self.server.port, username=self.user, client_keys=[self.server.key],
            known_hosts=None, agent_path=None, config=None)
        self.process = await self.conn.create_process(term_type="xterm-256color", term_size=size,
                                                      encoding=None)

    async def _read(self) -> None:
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk
            self.chunks.append((time.perf_counter(), len(chunk)))
            self.arrived.set()

    async def until(self, text: str, since: int, timeout: float = 60) -> None:
        """Wait for `text` on the screen in what arrived after byte `since`."""
        deadline = time.perf_counter() + timeout
        while text not in plain(bytes(self.output[since:])):
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), max(0.01, deadline - time.perf_counter()))

    async def answered(self, before: int, deadline: float) -> bool:
        """Whether output arrives past chunk `before` by `deadline` (perf_counter seconds)."""
        while len(self.chunks) == before and time.perf_counter() < deadline:
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), deadline - time.perf_counter())
            except TimeoutError:
                break
        return len(self.chunks) > before

    async def quiet(self) -> None:
        """Until no byte came for QUIET seconds."""
        while True:
            count = len(self.chunks)
            await asyncio.sleep(QUIET)
            if len(self.chunks) == count:
                return

    async def resume_battle(self) -> None:
        """From the menu: Load ▸ Battles ▸ enter resumes the battle in progress, up to its turn."""
        for key, then in ((b"l", "Saved characters"), (b"b", "in progress"), (b"\r", YOUR_TURN)):
            mark = len(self.output)
            self.process.stdin.write(key)
            await self.until(then, mark)
        await self.quiet()

    async def next_turn(self) -> None:
        """End the turn and skip the enemies' turns, up to ours again (or the battle's end)."""
        mark = len(self.output)
        self.process.stdin.write(b".")
        await self.quiet()
        self.process.stdin.write(b"x")
        try:
            await self.until(YOUR_TURN, mark, timeout=10)
        except TimeoutError:
            self.process.stdin.write(b"x")  # a --more-- took the first one
            try:
                await self.until(YOUR_TURN, mark, timeout=10)
            except TimeoutError:
                raise SystemExit(f"{self.user}: no turn came back; the screen ends with "
                                 f"{plain(bytes(self.output[-3000:]))!r}") from None
        await self.quiet()

    async def move(self, n: int) -> tuple[float, float, int, bool] | None:
        """One move key: (key → first bytes, key → redraw over, bytes, its movement was spent);
        None if nothing came within 2 s."""
        mark, before = len(self.output), len(self.chunks)
        sent = time.perf_counter()
        self.process.stdin.write(MOVES[n % 2])
        if not await self.answered(before, sent + 2.0):
            return None
        first = self.chunks[before][0] - sent
        await self.quiet()
        spent = SPENT in plain(bytes(self.output[mark:]))
        return first, self.chunks[-1][0] - sent, len(self.output) - mark, spent

    async def move_for(self, seconds: float, interval: float, first: list, whole: list, missed: list) -> None:
        """A move key every `interval` seconds for `seconds`; a spent turn is passed on, untimed."""
        await asyncio.sleep(interval * (hash(self.user) % 100) / 100)  # spread the players out
        end = time.perf_counter() + seconds
        n = 0
        while time.perf_counter() < end:
            tick = time.perf_counter()
            got = await self.move(n)
            n += 1
            if got is None:
                missed.append(self.user)
            else:
                first.append(got[0])
                whole.append(got[1])
                if got[3]:
                    await self.next_turn()
            await asyncio.sleep(max(0.0, interval - (time.perf_counter() - tick)))

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
            if not await self.answered(before, sent + 2.0):
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
        users = max(args.battle_sessions) + 1 if args.battle else max(args.sessions, args.runs, args.memory_sessions)
        server = Server(args, Path(tmp), users)
        if args.battle:
            battles_in_progress(server)
        server.start()
        try:
            await (run_battles if args.battle else run)(args, server)
        finally:
            server.stop()


def open_ground() -> str:
    """A 50x50 encounter of open ground with thickets and rocks; its one enemy is walled in,
    so that the battle lasts however long the players move (on the steppe Iriel falls in six
    rounds), while the map, sight and panels cost what a battle of that size costs."""
    rows = []
    for y in range(50):
        row = []
        for x in range(50):
            walled_in = 44 <= x <= 48 and 44 <= y <= 48 and not (45 <= x <= 47 and 45 <= y <= 47)
            if x in (0, 49) or y in (0, 49) or walled_in or ((x * 11 + y * 5) % 41 == 0 and x > 3):
                row.append("#")
            elif (x * 7 + y * 13) % 23 == 0:
                row.append(",")
            else:
                row.append(".")
        rows.append(row)
    rows[46][46] = "s"
    rows[25][2] = "@"
    body = "\n".join("".join(row) for row in rows)
    return ('name = "Open Ground"\ndescription = "The benchmark\'s field."\ndifficulty = "normal"\n'
            f"[map]\nrows = '''\n{body}\n'''\n[map.legend]\ns = {{ enemy = \"skeleton\" }}\n")


def battles_in_progress(server: Server) -> None:
    """Every account: Iriel, and her battle on open ground (`open_ground`) begun and played to
    her first turn (`battle_in_progress`)."""
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.storage.accounts import Accounts
    from horizon_tui.tools.validate_encounters import checked_enemies

    catalogue = default_catalogue()
    enemies = checked_enemies(catalogue)
    encounter = server.data_dir / "open_ground.toml"
    encounter.write_text(open_ground())
    accounts = Accounts(server.data_dir / "server")
    for user in server.users:
        battle_in_progress(accounts.prepare_user(user)[1], encounter, catalogue, enemies)


def battle_in_progress(saves: Path, encounter: Path, catalogue, enemies) -> None:
    """In a saves folder: Iriel, and her battle of `encounter` begun and played to her first turn."""
    import shutil

    from horizon_tui.content.characters import load_character
    from horizon_tui.engine.forming import PartyMember, create_battle
    from horizon_tui.engine.encounter import load_encounter
    from horizon_tui.engine.persist import BattleInProgress, session_to_dict
    from horizon_tui.engine.runner import begin, run_ai

    (saves / "characters").mkdir(parents=True, exist_ok=True)
    (saves / "battles").mkdir(exist_ok=True)
    shutil.copy(REPO / "examples/party/iriel.toml", saves / "characters/iriel.toml")
    party = [PartyMember(load_character(saves / "characters/iriel.toml", catalogue), "player")]
    battle = create_battle(load_encounter(encounter, catalogue, enemies), party, 2, catalogue, enemies)
    begin(battle)
    run_ai(battle)
    # a save file as older versions wrote it: the app imports it into its journal on first open
    session = BattleInProgress(battle, str(encounter), party)
    (saves / "battles/iriel.json").write_text(json.dumps(session_to_dict(session, catalogue)))


async def run_battles(args, server: Server) -> None:
    print(f"server pid {server.process.pid} on port {server.port}; app: horizon play, pre-forked; Python "
          f"{sys.version.split()[0]}; session server: {server.sharing}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other work on the machine counts in the "
          f"times, not in the CPU per move)")

    # 4. CPU per move, one session alone
    player = Player(server, server.users[-1], args.ready)
    await player.connect()
    await player.resume_battle()
    pid = max(server.app_pids())  # the session just started: the newest process
    cpu, moves, sizes = 0.0, 0, []
    n = 0
    while moves < args.moves:
        before = cpu_seconds(pid)
        got = await player.move(n)
        n += 1
        if got is None:
            continue
        cpu += cpu_seconds(pid) - before
        moves += 1
        sizes.append(got[2])
        if got[3]:
            await player.next_turn()
    await player.close()
    print(f"CPU per move key in battle (one session, {moves} moves, from each key to the end of its "
          f"redraw): {cpu / moves * 1000:.1f} ms (target ≤ 5 ms); bytes per move: median "
          f"{statistics.median(sizes) / 1024:.1f} KiB")
    await asyncio.sleep(2.0)

    # 5. N players moving at once
    for count in args.battle_sessions:
        players = [Player(server, server.users[i], args.ready) for i in range(count)]
        started = time.perf_counter()
        await asyncio.gather(*(p.connect() for p in players))
        await asyncio.gather(*(p.resume_battle() for p in players))
        print(f"{count} sessions: connected and resumed their battles in {time.perf_counter() - started:.1f} s")
        await asyncio.sleep(2.0)
        pids = server.app_pids()
        cpu_before = {pid: cpu_seconds(pid) for pid in pids}
        first_bytes, whole, missed = [], [], []
        load_start = time.perf_counter()
        await asyncio.gather(*(p.move_for(args.seconds, args.interval, first_bytes, whole, missed) for p in players))
        elapsed = time.perf_counter() - load_start
        app_cpu = sum(cpu_seconds(pid) - cpu_before[pid] for pid in pids if Path(f"/proc/{pid}").exists())
        print(f"  {count} players × a move every {args.interval * 1000:.0f} ms for {args.seconds:g} s: "
              f"{len(first_bytes)} moves answered, {len(missed)} unanswered within 2 s; load average "
              f"{os.getloadavg()[0]:.1f}")
        if first_bytes:
            print(f"  key → first bytes: p50 {percentile(first_bytes, 50) * 1000:.0f} ms, "
                  f"p95 {percentile(first_bytes, 95) * 1000:.0f} ms, max {max(first_bytes) * 1000:.0f} ms; "
                  f"key → redraw complete: p95 {percentile(whole, 95) * 1000:.0f} ms (target p95 ≤ 100 ms)")
        print(f"  CPU: apps {app_cpu / elapsed * 100:.0f}% of one core in all")
        await asyncio.gather(*(p.close() for p in players))
        await asyncio.sleep(3.0)


async def local_start(args, saves: Path, size=(100, 30)) -> float:
    """A local `horizon` on a PTY of the same size: start → "New character" drawn."""
    from horizon_tui.host.pty_process import PtyProcess

    script = Path(sys.executable).with_name("horizon")
    argv = [str(script)] if script.exists() else [sys.executable, "-m", "horizon_tui.cli"]
    output = bytearray()
    arrived = asyncio.Event()
    ended = asyncio.Event()

    def got(data: bytes) -> None:
        output.extend(data)
        arrived.set()

    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": str(saves), "PATH": os.defpath,
           "HORIZON_DATA_DIR": str(saves)}
    start = time.perf_counter()
    process = PtyProcess([*argv, "--saves", str(saves)], env=env, cwd=saves, size=(*size, 0, 0),
                         on_output=got, on_exit=lambda rc: ended.set())
    process.start()
    while args.ready not in plain(bytes(output)):
        arrived.clear()
        await asyncio.wait_for(arrived.wait(), 30)
    took = time.perf_counter() - start
    await process.terminate(5)
    return took


async def run(args, server: Server) -> None:
    print(f"server pid {server.process.pid} on port {server.port}; app: "
          f"{args.app_command or 'horizon play (the real player app), pre-forked'}; Python "
          f"{sys.version.split()[0]}; session server: {server.sharing}")

    # 1. connect → drawn menu, against a local start, interleaved
    ssh_times, local_times = [], []
    local_saves = server.data_dir / "local"
    local_saves.mkdir()
    for i in range(args.runs):
        local_times.append(await local_start(args, local_saves))
        await asyncio.sleep(0.3)
        player = Player(server, server.users[i], args.ready)
        ssh_times.append(await player.connect())
        await player.close()
        await asyncio.sleep(0.3)  # let the previous app save and go
    ssh_ms, local_ms = statistics.median(ssh_times) * 1000, statistics.median(local_times) * 1000
    print(f"connect → drawn menu over SSH: median {ssh_ms:.0f} ms (min {min(ssh_times) * 1000:.0f}, "
          f"max {max(ssh_times) * 1000:.0f}); local `horizon` start: median {local_ms:.0f} ms "
          f"(min {min(local_times) * 1000:.0f}, max {max(local_times) * 1000:.0f}); "
          f"ratio {ssh_ms / local_ms:.2f} (target ≤ 0.8), {args.runs} runs each, interleaved")

    # 2. memory: the whole host with one session, then with --memory-sessions
    await asyncio.sleep(1.0)
    first = Player(server, server.users[0], args.ready)
    await first.connect()
    await settle(1.5)
    one_parts = server.pss_parts()
    one = sum(one_parts.values())
    more = [Player(server, server.users[i], args.ready) for i in range(1, args.memory_sessions)]
    for player in more:  # one at a time, as players arrive
        await player.connect()
    await settle(1.5)
    many_parts = server.pss_parts()
    many = sum(many_parts.values())
    extra = (many - one) / max(1, len(more)) / 1024
    shares = ", ".join(f"{name} {(many_parts[name] - one_parts[name]) / max(1, len(more)) / 1024:.1f}"
                       for name in many_parts)
    apps = server.app_pids()
    per_app = [memory_kib(pid) for pid in apps]
    print(f"memory: whole host PSS {one / 1024:.1f} MiB with 1 session, {many / 1024:.1f} MiB with "
          f"{len(more) + 1}: {extra:.1f} MiB per extra session (target ≤ 12); each session's process "
          f"RSS {statistics.median(m[0] for m in per_app) / 1024:.1f} MiB, PSS "
          f"{statistics.median(m[1] for m in per_app) / 1024:.1f} MiB (median of {len(per_app)}); "
          f"per extra session by process: {shares} MiB; same-page merging (KSM) "
          f"{'on' if ksm_running() else 'off'}")
    await asyncio.gather(first.close(), *(p.close() for p in more))
    await asyncio.sleep(2.0)

    # 3. --sessions players typing
    players = [Player(server, server.users[i], args.ready) for i in range(args.sessions)]
    started = time.perf_counter()
    together = await asyncio.gather(*(p.connect() for p in players))
    print(f"{args.sessions} sessions connecting at once: all menus drawn after "
          f"{(time.perf_counter() - started) * 1000:.0f} ms (slowest {max(together) * 1000:.0f} ms)")
    await asyncio.sleep(2.0)

    pids = server.app_pids()
    cpu_before = {pid: cpu_seconds(pid) for pid in pids}
    server_cpu_before = cpu_seconds(server.process.pid)
    first_bytes, whole, missed = [], [], []
    load_start = time.perf_counter()
    await asyncio.gather(*(p.press_keys(args.seconds, args.interval, first_bytes, whole, missed)
                           for p in players))
    elapsed = time.perf_counter() - load_start
    app_cpu = sum(cpu_seconds(pid) - cpu_before[pid] for pid in pids if Path(f"/proc/{pid}").exists())
    server_cpu = cpu_seconds(server.process.pid) - server_cpu_before
    print(f"{args.sessions} sessions × a key every {args.interval * 1000:.0f} ms for {args.seconds:g} s: "
          f"{len(first_bytes)} keys answered, {len(missed)} unanswered within 2 s")
    if first_bytes:
        print(f"  key → first bytes of the redraw: p50 {percentile(first_bytes, 50) * 1000:.0f} ms, "
              f"p95 {percentile(first_bytes, 95) * 1000:.0f} ms, p99 {percentile(first_bytes, 99) * 1000:.0f} ms, "
              f"max {max(first_bytes) * 1000:.0f} ms; target p95 ≤ 100 ms")
        print(f"  key → redraw complete:          p50 {percentile(whole, 50) * 1000:.0f} ms, "
              f"p95 {percentile(whole, 95) * 1000:.0f} ms, max {max(whole) * 1000:.0f} ms "
              f"(includes the {QUIET * 1000:.0f} ms of quiet that ends it)")
    print(f"  CPU during the load: apps {app_cpu / elapsed * 100:.0f}% of one core in all "
          f"({app_cpu / elapsed / args.sessions * 100:.1f}% each), server {server_cpu / elapsed * 100:.0f}%")
    await asyncio.gather(*(p.close() for p in players))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--port", type=int, default=2352, help="the server's port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between one player's keys")
    parser.add_argument("--memory-sessions", type=int, default=11, help="sessions for the memory step")
    parser.add_argument("--runs", type=int, default=5, help="connect-time runs (median)")
    parser.add_argument("--app-command", default=None,
                        help="instead of the player app (the saves folder is appended)")
    parser.add_argument("--ready", default="New character", help="text that means the menu is drawn")
    parser.add_argument("--mortal", action="store_true",
                        help="the session server leaves reference counts alone (what immortal objects save)")
    parser.add_argument("--battle", action="store_true", help="move in battles (4 and 5) instead of 1-3")
    parser.add_argument("--battle-sessions", type=lambda text: [int(n) for n in text.split(",")],
                        default=[10, 25, 50], help="players at once in battle, one run each (10,25,50)")
    parser.add_argument("--moves", type=int, default=100, help="moves for the CPU per move (battle)")
    args = parser.parse_args()
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
