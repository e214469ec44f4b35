"""End to end, with the real OpenSSH client: a GM, two players and a spectator, each on
their own `ssh`, play a whole battle at a live table.

The host runs in the test with the real apps (pre-forked); the GM's session opens a campaign made
with the GM tool's own file functions, opens a fight at the table seating two player accounts and
a spectator; the players join with F2 and play their own turns by keys (attack when an enemy is in
reach, else end the turn); one player's ssh is killed mid-turn and the player comes back into the
same turn; at the end all four screens show the same log hash as the table's battle.json; the GM's
undo (F8) reaches every screen. Each terminal is read as a person sees it (pyte draws the bytes).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from pathlib import Path

import asyncssh
import pyte
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ssh"))
from openssh_kit import SSH, OpenSSHTerminal, needs_openssh

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine.persist import load_session, log_digest
from horizon_tui.storage.records import battles_of
from horizon_tui.table.__main__ import TABLE_BATTLE
from horizon_tui.campaign import changes
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.host.ssh.server import HostSettings, SSHHost
from horizon_tui.play.library import encounters_dir, list_encounters

REPO = Path(__file__).resolve().parents[2]
ENCOUNTER = "crypt"  # one skeleton: the smallest fight of the catalogue
ENEMY, ENEMY_GLYPH = "Skeleton Spearman", "s"
SEATS = {"alice": "iriel", "bob": "sefa"}  # account -> the party member (examples/party) it plays
SIZE = (100, 30)
KEYS = {"enter": b"\r", "tab": b"\t", "down": b"\x1b[B", "escape": b"\x1b", "f2": b"\x1bOQ", "f8": b"\x1b[19~",
        "ctrl+o": b"\x0f", "ctrl+s": b"\x13", "f6": b"\x1b[17~"}
FINGERPRINT = re.compile(r"table log (\d+) · ([0-9a-f]{8})")

pytestmark = [needs_openssh, pytest.mark.timeout(240)]


class Seat(OpenSSHTerminal):
    """One person's `ssh -tt` on a terminal; `screen` is what they see now."""

    def __init__(self, name: str, argv: list[str], tmp_path: Path):
        super().__init__(argv, tmp_path, size=SIZE)
        self.name = name
        self._screen = pyte.Screen(*SIZE)
        self._stream = pyte.ByteStream(self._screen)
        self.process._on_output = self._seen  # the bytes go to the drawn screen too

    def _seen(self, data: bytes) -> None:
        self.output.extend(data)
        self._stream.feed(data)

    @property
    def screen(self) -> str:
        return "\n".join(self._screen.display)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.process.write(KEYS.get(key, key.encode()))

    def type(self, text: str) -> None:
        self.process.write(text.encode())

    async def until(self, predicate, what: str, timeout: float = 30.0) -> str:
        """Wait until `predicate(screen)`; the screen then (an AssertionError naming `what` if not)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if predicate(self.screen):
                return self.screen
            if self.ended.done():
                break
            await asyncio.sleep(0.03)
        raise AssertionError(f"{self.name}: no {what} within {timeout} s; the screen:\n{self.screen}")

    async def sees(self, text: str, timeout: float = 30.0) -> str:
        return await self.until(lambda s: text in s, repr(text), timeout)

    def status(self) -> str:
        """The battle screen's status line: the line above the log's rule."""
        lines = self._screen.display
        for i, line in enumerate(lines):
            if line.startswith("────") and i:
                return re.sub(r"^\[[a-z]+, [a-z]+\] ", "", lines[i - 1].strip())  # less "[alice, player]"
        return ""

    def round(self) -> int | None:
        found = re.search(r"Round (\d+)", self._screen.display[0])
        return int(found.group(1)) if found else None


@pytest.fixture
def keys(tmp_path):
    """An ed25519 key per account, as files OpenSSH reads, and the public halves."""
    found = {}
    for name in ("mira", *SEATS, "sam"):
        key = asyncssh.generate_private_key("ssh-ed25519", comment=name)
        private = tmp_path / f"id_{name}"
        private.write_bytes(key.export_private_key("openssh"))
        os.chmod(private, 0o600)
        (tmp_path / f"{name}.pub").write_bytes(key.export_public_key("openssh"))
        found[name] = private
    return found


def ssh_argv(port: int, name: str, key: Path) -> list[str]:
    return [SSH, "-F", "/dev/null", "-tt", "-p", str(port), "-i", str(key), "-o", "IdentitiesOnly=yes",
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
            "-o", "LogLevel=ERROR", f"{name}@127.0.0.1"]


def make_campaign(saves: Path) -> None:
    """The GM's campaign, made as the GM tool makes one: the two seated characters in the party."""
    store = CampaignStore(saves, default_catalogue())
    key, campaign = store.create("Friday Crypt", seed=11)
    session = OpenCampaign(store, key, campaign)
    for stem in SEATS.values():
        character = load_character(REPO / "examples" / "party" / f"{stem}.toml", store.catalogue)
        session.apply(lambda c, ch=character, s=stem: changes.add_member(c, ch, s), f"{character.name} joins")


def party_xp(saves: Path) -> int:
    store = CampaignStore(saves, default_catalogue())
    campaign = store.load(store.find("Friday Crypt")).campaign
    return sum(member.character.xp for member in campaign.party)


def table_saved(tables: Path) -> tuple[int, str]:
    """(inputs, log hash) of the live table's battle.json, as the table process keeps it."""
    [folder] = [f for f in tables.iterdir() if (f / "spec.json").exists()]
    catalogue = default_catalogue()
    session = load_session(battles_of(folder), TABLE_BATTLE, catalogue, load_enemies(catalogue))
    return len(session.inputs), log_digest(session.battle)


async def saved_at(tables: Path, inputs: int, timeout: float = 15.0) -> str:
    """The table's log hash once its battle.json holds `inputs` inputs (it is kept every 0.5 s)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            count, digest = table_saved(tables)
            if count == inputs:
                return digest
        except (OSError, ValueError):
            pass  # not written yet
        if loop.time() > deadline:
            raise AssertionError(f"battle.json never held {inputs} inputs")
        await asyncio.sleep(0.1)


def table_pids(tables: Path) -> list[int]:
    """The table processes serving a table under `tables` (found by their command line)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if b"horizon_tui.table" in argv and any(arg.startswith(str(tables).encode()) for arg in argv) \
                and state != b"Z":
            found.append(int(proc.name))
    return found


def stop_table_processes(tables: Path) -> None:
    """A test that failed before the host stopped may leave its table running: end it."""
    for pid in table_pids(tables):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


async def say(seat: Seat, text: str, *, paste: bool = False) -> None:
    """`c`, the line (typed, or as a terminal's bracketed paste), enter."""
    seat.press("c")
    await seat.sees("enter sends, esc cancels")
    if paste:
        seat.process.write(b"\x1b[200~" + text.encode() + b"\x1b[201~")
    else:
        seat.type(text)
    await asyncio.sleep(0.3)
    seat.press("enter")
    await seat.until(lambda s: "enter sends, esc cancels" not in s, "the line sent")
    await asyncio.sleep(0.3)  # as a person would: the next `c` reaches the battlefield, not the closing line


ROLLED = re.compile(r"alice rolls 2d6 \+ 3: \[(\d+), (\d+)\] = (\d+)")


async def talk_at_the_table(gm: Seat, alice: Seat, bob: Seat, sam: Seat, tables: Path) -> None:
    """In the table's lobby, before the fight: three seats talk; markup and an escape sequence
    arrive as text; a whisper reaches only the GM; a spectator talks once the GM allows; a roll
    made by the table shows the same dice on every screen and in the table's log; a seat past the
    rate limit is told so."""
    everyone = (gm, alice, bob, sam)
    await say(alice, "Hello [bold]all[/bold]")
    for seat in everyone:
        await seat.sees("alice: Hello [bold]all[/bold]")  # the markup as typed, on every screen
    await say(bob, "\x1b[31mALERT\x1b[0m", paste=True)
    for seat in everyone:  # the escape sequence shown as text, never run: its "31m" is on the screen
        await seat.until(lambda s: re.search(r"bob: \S*31mALERT\S*0m", s), "bob's line as text")
    await say(bob, "/w I pocket the gem")
    await gm.sees("bob → GM: I pocket the gem")
    await bob.sees("bob → GM: I pocket the gem")
    await say(sam, "can I talk?")
    await sam.until(lambda s: "spectators read the talk" in sam.status(), "the refusal")
    await say(gm, "/spectators on")
    await say(sam, "hi from the gallery")
    for seat in everyone:
        await seat.sees("sam: hi from the gallery")
    for seat in (alice, sam):
        assert "pocket" not in seat.screen, seat.screen  # the whisper came before: it would be there
    await say(alice, "/roll 2d6+3")
    rolls = {}
    for seat in everyone:
        screen = await seat.until(lambda s: ROLLED.search(s), "the roll")
        rolls[seat.name] = ROLLED.search(screen).groups()
    [(first, second, total)] = set(rolls.values())  # the same dice on every screen
    assert int(first) + int(second) + 3 == int(total)
    [folder] = [f for f in tables.iterdir() if (f / "spec.json").exists()]
    kept = [json.loads(line) for line in (folder / "talk.jsonl").read_text().splitlines()]
    assert [k["faces"] for k in kept if k["kind"] == "roll"] == [[int(first), int(second)]]
    assert [k["to"] for k in kept if k["kind"] == "whisper"] == ["gm"]
    told = False
    for n in range(9):  # as fast as she can type: her sixth line within 10 s is refused
        await say(alice, f"line {n}")
        if "at most 5 lines in 10 s" in alice.status():
            told, refused = True, f"line {n}"
            break
    assert told, alice.screen
    await asyncio.sleep(0.5)
    assert f"alice: {refused}" not in gm.screen and "alice: line 0" in gm.screen


async def open_table(gm: Seat) -> None:
    """The GM's keys: the campaign, `a` (at the table), the encounter, who plays whom, ctrl+o."""
    await gm.sees("Friday Crypt")
    gm.press("enter")  # opens the campaign
    await gm.sees("Iriel")
    gm.press("a")
    await gm.sees("Who plays whom")
    names = [e.id for e in list_encounters(encounters_dir(default_catalogue())) if e.problem is None]
    gm.press("enter")  # the encounter list opens
    await gm.sees("The Crypt Under the Chapel")
    gm.press(*["down"] * names.index(ENCOUNTER), "enter")
    await gm.until(lambda s: "Goblin Ambush" not in s and "The Crypt Under the Chapel" in s, "the list closed")
    for account in (*SEATS, "sam"):  # Iriel, then Sefa (the party's order), then the spectators
        gm.press("tab")
        await asyncio.sleep(0.3)  # as a person would: keys typed at once may reach the field left behind
        gm.type(account)
        await gm.sees(f"{account} ")
    gm.press("ctrl+o")
    await gm.sees("Round 1", timeout=60)


async def join(seat: Seat, as_what: str) -> None:
    await seat.sees("New character")
    await seat.sees("press F2 to join")  # the notice, on whatever screen
    seat.press("f2")
    await seat.sees(f"as {as_what}")
    seat.press("enter")
    await seat.sees("Round", timeout=30)


async def play_turn(seat: Seat) -> None:
    """A player's keys for one turn: attack the enemy in reach (a, enter), else end the turn (.)."""
    before = (seat.round(), seat.status())
    seat.press("a")
    await seat.until(lambda s: seat.status() != before[1], "an answer to a", timeout=15)
    status = seat.status()
    if "enter ok" in status:
        seat.press("enter")
    else:
        if "esc cancel" in status:
            seat.press("escape")
            await seat.until(lambda s: "esc cancel" not in seat.status(), "the cursor gone", timeout=15)
        seat.press(".")
    await settled(seat, before)
    if seat.status().startswith("Action used"):  # movement left: the turn ends when the player says
        before = (seat.round(), seat.status())
        seat.press(".")
        await settled(seat, before)


async def settled(seat: Seat, before: tuple) -> None:
    """Until the table has answered the player's last key (their screen says something new)."""
    def answered(_screen: str) -> bool:
        status = seat.status()
        return (seat.round(), status) != before and not status.startswith(("Attack", "sent to the table"))

    await seat.until(answered, "the table's answer", timeout=20)


async def gm_undoes(gm: Seat, seats: dict[str, Seat], tables: Path) -> bool:
    """The GM's undo (F8) reaches every screen: each is rebuilt to the same earlier point, the one
    the table's battle.json then holds."""
    await asyncio.sleep(0.7)  # the table keeps battle.json every 0.5 s; nobody acts meanwhile
    before, _ = table_saved(tables)
    gm.press("f8")
    after = {}
    for name, seat in seats.items():
        where = await seat.sees("undid 1 step:", timeout=20)
        after[name] = fingerprint(seat, where)
    [(inputs, digest)] = set(after.values())
    assert inputs == before - 1
    assert (await saved_at(tables, inputs))[:8] == digest
    return True


def in_view(seat: Seat) -> str:
    """What the battlefield shows above the status line (the map, the order, the panels; not the log)."""
    lines = seat.screen.split("\n")
    status = next(i for i, line in enumerate(lines) if line.startswith("────")) - 1
    return "\n".join(lines[:status])


def shows_the_enemy(seat: Seat) -> bool:
    view = in_view(seat)
    glyphs = any(ENEMY_GLYPH in line.split("│")[0] for line in view.split("\n")[1:-1])  # the map's cells
    return ENEMY in view or glyphs


async def gm_hides_the_enemy(gm: Seat, others: list[Seat]) -> None:
    """The GM hides the enemy (o on it: R-13's hidden): the GM's screen still shows it, no
    player's or spectator's does, nor names it in their log."""
    for _ in range(10):  # ] selects the next combatant, its panel then on the GM's side; o opens the menu on it
        gm.press("]")  # (until a ] has come, the panel follows whoever acts: o could open on the next one)
        await asyncio.sleep(0.3)
        if f"{ENEMY} · level" not in gm.screen:
            continue
        gm.press("o")
        await gm.sees("GM override on")
        if f"GM override on {ENEMY}" in gm.screen:
            break
        gm.press("escape")  # the screen was behind the keys (a loaded machine): the next one was selected
        await gm.until(lambda s: "GM override on" not in s, "the menu closed")
    await gm.sees(f"GM override on {ENEMY}")
    gm.press("down", "down", "down")  # health, add, remove, hide
    await asyncio.sleep(0.3)
    gm.press("enter")
    await gm.until(lambda s: "hidden" in in_view(gm) and ENEMY in in_view(gm), "the enemy hidden on the GM's screen")
    await gm.sees(f"hidden on {ENEMY}")  # the GM's log says what the GM did
    for seat in others:
        await seat.until(lambda s, seat=seat: not shows_the_enemy(seat), "the enemy gone from view", timeout=15)
        # the update is in (its map drawn): the GM's act on someone now unseen writes no line there,
        # not even "GM: add hidden on someone unseen" or "Someone unseen suffers hidden"
        assert "hidden on" not in seat.screen and "suffers hidden" not in seat.screen, seat.screen


def fingerprint(seat: Seat, where: str) -> tuple[int, str]:
    found = FINGERPRINT.findall(where)
    assert found, f"{seat.name}: no table fingerprint on\n{seat.screen}"
    count, digest = found[-1]
    return int(count), digest


async def test_a_gm_two_players_and_a_spectator_play_a_battle_over_openssh(tmp_path, keys):
    data = tmp_path / "server"
    host = SSHHost(HostSettings(data_dir=data, port=0, app_command=None, stop_grace=2.0, keepalive_interval=0,
                                record=False, max_startups_per_source=8))  # four friends from one address
    for name in keys:
        host.accounts.add(name, tmp_path / f"{name}.pub", role="gm" if name == "mira" else None)
    _home, saves = host.accounts.prepare_user("mira")
    make_campaign(saves)
    tables = data / "tables"
    await host.start()
    seats: dict[str, Seat] = {}
    try:
        await host.session_server.wait_ready()
        for name in keys:
            seats[name] = await Seat(name, ssh_argv(host.port, name, keys[name]), tmp_path).__aenter__()
        gm, alice, bob, sam = (seats[n] for n in ("mira", "alice", "bob", "sam"))
        await open_table(gm)
        await asyncio.gather(join(alice, "player"), join(bob, "player"), join(sam, "spectator"))
        await gm.sees("F6 begins the fight")  # the table's lobby: everyone is here, the GM begins
        await talk_at_the_table(gm, alice, bob, sam, tables)
        gm.press("f6")

        turns = {name: 0 for name in SEATS}
        dropped = undone = hidden = False
        loop = asyncio.get_running_loop()
        idle_since = loop.time()
        while True:
            due = None
            for name in SEATS:
                if seats[name].status().startswith(("Your turn", "Action used")):  # (after an undo)
                    due = name
            if "The battle is over" in sam.status():
                break
            if due is None:
                assert loop.time() - idle_since < 20, "nobody's turn for 20 s:\n" + "\n".join(
                    f"{n}: {seat.status()!r}" for n, seat in seats.items()) + "\n" + gm.screen
                await asyncio.sleep(0.05)
                continue
            if due == "alice" and turns["alice"] == 1 and not dropped:
                # alice's connection dies mid-turn; she logs in again and is back in the same turn
                round_then = alice.round()
                alice.process.signal(signal.SIGKILL)
                await alice.ended
                seats["alice"] = alice = await Seat("alice", ssh_argv(host.port, "alice", keys["alice"]),
                                                    tmp_path).__aenter__()
                await join(alice, "player")
                await alice.until(lambda s, back=alice: "Your turn" in back.status(), "her turn again")
                assert alice.round() == round_then
                dropped = True
            await play_turn(seats[due])
            turns[due] += 1
            if due == "bob" and turns["bob"] == 2:
                undone = await gm_undoes(gm, seats, tables)
            elif not hidden and turns["bob"] > 2 and ENEMY in in_view(alice):
                await gm_hides_the_enemy(gm, [alice, bob, sam])
                hidden = True
            idle_since = loop.time()
        assert dropped and undone and hidden and all(turns.values()), (turns, sam.screen)  # both played by keys

        # Every screen says the battle is over, with the same log hash as the table's battle.json.
        views = {}
        for name, seat in seats.items():
            await seat.until(lambda s, seat=seat: "The battle is over" in seat.status(), "the end", timeout=20)
            views[name] = fingerprint(seat, seat.status())
        [(inputs, digest)] = set(views.values())
        assert (await saved_at(tables, inputs))[:8] == digest

        # The GM awards the fight's XP into the campaign: enter, then ctrl+s.
        xp_before = party_xp(saves)
        gm.press("enter")
        await gm.sees("ctrl+s awards it")
        gm.press("ctrl+s")
        await gm.sees("XP awarded")
        assert party_xp(saves) > xp_before

        # The host stops (as on SIGTERM): the table's process stops with it, saving first.
        assert len(table_pids(tables)) == 1
        await host.stop()
        assert table_pids(tables) == [] and table_saved(tables)[0] == inputs
        assert not [f for f in tables.iterdir() if (f / "table.sock").exists()]

    finally:
        for seat in seats.values():
            await seat.__aexit__(None, None, None)
        await host.stop()
        if tables.is_dir():
            stop_table_processes(tables)
