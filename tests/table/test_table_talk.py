"""Talk at a table: checked by the table (length, rate, mute, who may talk), heard by the right
seats only, dice rolled by the table from its own seeded source, control characters shown as text."""

from __future__ import annotations

import asyncio
import json

import pytest
from table_kit import make_rebuild, make_table

from horizon_tui.table.core import TableError
from horizon_tui.table.server import TableClient, TableServer
from horizon_tui.table.talk import MAX_TALK, clean_text, line_text

TOKENS = {"mira": "t-gm", "alice": "t-alice", "bob": "t-bob", "sam": "t-sam"}


def test_control_characters_and_overrides_are_shown_never_run():
    assert clean_text("\x1b[2J\x1b]0;owned\x07") == "␛[2J␛]0;owned␇"
    assert clean_text("a\r\nb\x7f\x9b31m") == "a␍␊b␡<U+009B>31m"
    assert clean_text("evil\u202eexe.txt") == "evil<U+202E>exe.txt"
    assert clean_text("[bold red]hi[/] café ⚔") == "[bold red]hi[/] café ⚔"  # markup: the screens write it as text


def test_a_line_to_everyone_a_whisper_to_the_gm_and_an_announcement():
    table = make_table()
    line = table.talk("alice", "  I shout a warning to Borin  ", 0.0)
    assert (line.kind, line.text, line.to) == ("say", "I shout a warning to Borin", "all")
    assert all(line.heard_by(n, s.role) for n, s in table.seats.items())
    whisper = table.talk("alice", "/w I pocket the gem", 1.0)
    assert (whisper.kind, whisper.text) == ("whisper", "I pocket the gem")
    assert [n for n, s in table.seats.items() if whisper.heard_by(n, s.role)] == ["mira", "alice"]
    assert whisper not in table.heard("bob") and whisper in table.heard("mira")
    announce = table.talk("mira", "/a The bridge collapses", 2.0)
    assert line_text(announce.to_dict()) == "⚑ GM: The bridge collapses"
    with pytest.raises(TableError, match="not a command you have"):
        table.talk("bob", "/a I am the GM now", 3.0)
    with pytest.raises(TableError, match="you are the GM"):
        table.talk("mira", "/w hello", 4.0)


def test_the_table_rolls_from_its_own_seeded_source_and_shows_each_die():
    first, second = make_table(seed=3), make_table(seed=3)
    digest = first.digest()
    rolls = [first.talk("alice", "/roll 2d6+3", float(i)) for i in range(3)]
    again = [second.talk("alice", "/roll 2d6+3", float(i)) for i in range(3)]
    assert [(r.faces, r.total) for r in rolls] == [(r.faces, r.total) for r in again]  # same seed, same dice
    for roll in rolls:
        assert roll.kind == "roll" and len(roll.faces) == 2 and roll.total == sum(roll.faces) + 3
        assert line_text(roll.to_dict()) == f"alice rolls 2d6 + 3: [{roll.faces[0]}, {roll.faces[1]}] = {roll.total}"
    assert first.digest() == digest  # the battle never sees the talk's dice
    assert make_table(seed=4).talk("alice", "/roll 20d20", 0.0).faces != first.talk("bob", "/roll 20d20", 9.0).faces
    with pytest.raises(TableError, match="bad dice expression"):
        first.talk("bob", "/roll 2d", 20.0)


def test_the_gm_rolls_openly_or_secretly():
    table = make_table()
    secret = table.talk("mira", "/sroll 1d20", 0.0)
    assert secret.to == "gm" and line_text(secret.to_dict()).startswith("GM rolls secretly 1d20: [")
    assert secret in table.heard("mira") and secret not in table.heard("alice") and secret not in table.heard("sam")
    assert table.talk("mira", "/roll 1d20", 1.0).to == "all"
    with pytest.raises(TableError, match="only the GM rolls secretly"):
        table.talk("alice", "/sroll 1d20", 2.0)


def test_five_lines_in_ten_seconds_per_seat():
    table = make_table()
    for i in range(5):
        table.talk("alice", f"line {i}", 100.0 + i)
    with pytest.raises(TableError, match=r"at most 5 lines in 10 s: wait 6 s"):
        table.talk("alice", "one too many", 104.5)
    table.talk("bob", "my own five", 104.5)  # per seat
    table.talk("alice", "the first has aged out", 110.0)
    with pytest.raises(TableError, match="at most 5 lines"):
        table.talk("alice", "and again too soon", 110.5)


def test_a_line_is_at_most_500_characters_and_not_empty():
    table = make_table()
    assert len(table.talk("alice", "x" * MAX_TALK, 0.0).text) == 500
    with pytest.raises(TableError, match="at most 500 characters \\(this one has 501\\)"):
        table.talk("alice", "x" * 501, 1.0)
    for bad in ("   ", None, 7, ["hi"]):
        with pytest.raises(TableError):
            table.talk("alice", bad, 2.0)


def test_the_gm_mutes_a_seat_and_lets_spectators_talk():
    table = make_table()
    with pytest.raises(TableError, match="spectators read the talk"):
        table.talk("sam", "hello?", 0.0)
    assert table.talk("mira", "/spectators on", 0.0).text == "spectators may talk"
    assert table.talk("sam", "hello!", 1.0).text == "hello!"
    assert table.talk("mira", "/mute bob", 1.0).text == "the GM muted bob"
    with pytest.raises(TableError, match="muted you"):
        table.talk("bob", "but", 2.0)
    with pytest.raises(TableError, match="not a command you have"):
        table.talk("alice", "/mute mira", 2.0)
    with pytest.raises(TableError, match="can't be muted"):
        table.talk("mira", "/mute mira", 2.0)
    with pytest.raises(TableError, match="no seat"):
        table.talk("mira", "/mute nobody", 3.0)
    table.talk("mira", "/unmute bob", 3.0)
    assert table.talk("bob", "thanks", 4.0).kind == "say"


async def _until(predicate, timeout=10.0):
    async def wait():
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)


async def test_over_the_socket_whispers_reach_only_the_gm_and_talk_is_kept(tmp_path):
    table = make_table(seed=11)
    talk_file = tmp_path / "talk.jsonl"
    server = TableServer(table, TOKENS, tmp_path / "t.sock", talk_file=talk_file)
    await server.start()
    rebuild, _ = make_rebuild(seed=11)
    clients = {}
    try:
        for name in ("mira", "alice", "bob"):
            clients[name] = TableClient(server.path, name, TOKENS[name], rebuild)
            await clients[name].connect()
        clients["alice"].talk("hello [bold]all[/bold] \x1b[31m")
        clients["alice"].talk("/w psst")
        clients["bob"].talk("/roll 3d6")
        await _until(lambda: len(clients["mira"].talk_lines) == 3 and len(clients["bob"].talk_lines) == 2)
        texts = {n: [line_text(m) for m in c.talk_lines] for n, c in clients.items() if c}
        assert texts["alice"][0] == "alice: hello [bold]all[/bold] ␛[31m"
        assert "alice → GM: psst" in texts["mira"] and "alice → GM: psst" in texts["alice"]
        assert not any("psst" in t for t in texts["bob"])
        assert texts["mira"][-1] == texts["bob"][-1] == texts["alice"][-1]  # the same dice on every screen
        clients["bob"].talk("x" * 501)
        await _until(lambda: clients["bob"].errors)
        assert "at most 500 characters" in clients["bob"].errors[-1]
        # a spectator joining later reads what was said to everyone, not the whisper
        sam = TableClient(server.path, "sam", TOKENS["sam"], rebuild)
        await sam.connect()
        await _until(lambda: len(sam.talk_lines) == 2)
        assert [m["kind"] for m in sam.talk_lines] == ["say", "roll"]
        await sam.close()
        kept = [json.loads(line) for line in talk_file.read_text(encoding="utf-8").splitlines()]
        assert [k["kind"] for k in kept] == ["say", "whisper", "roll"]
    finally:
        for client in clients.values():
            if client:
                await client.close()
        await server.close()
