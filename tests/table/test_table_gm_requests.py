"""The GM's approval queue, through the real TableServer and TableClients.

A player's app asks (F9) for a free action's ruling (R-13) and an override; the GM's app answers
(F7) — accepts as asked, amends (edits the ruling's number first), refuses — and the player's
screen is told; what was accepted is carried out at the table, so every view has it."""

from __future__ import annotations

import asyncio
from fractions import Fraction

from table_kit import REPO, SEATED

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import character_to_dict, load_character
from horizon_tui.engine.battle import cid, comp, hp, team
from horizon_tui.engine.components import FreeActions
from horizon_tui.table.__main__ import build
from horizon_tui.table.lobby import SeatSpec, invites_for, load_table, write_spec
from horizon_tui.table.server import TableClient, TableServer
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.table_dialogs import AskDialog, RequestDialog
from horizon_tui.ui.player.joining import join_table
from tests.gm.battle_parts import at_table

SIZE = (100, 34)


def _lay_table(tables):
    catalogue = default_catalogue()
    party = [{"character": character_to_dict(load_character(f, catalogue), catalogue),
              "controller": "player" if f.stem in SEATED.values() else "ai"}
             for f in sorted((REPO / "examples" / "party").glob("*.toml"))]
    seats = [SeatSpec("mira", "gm")] + [SeatSpec(a, "player", (stem,)) for a, stem in SEATED.items()]
    return write_spec(tables, "requests", encounter="wolves", seed=2, party=party, seats=seats)


async def _until(pilots, predicate, timeout=60.0):
    async def wait():
        while not predicate():
            for pilot in pilots:
                await pilot.pause(0.02)

    await asyncio.wait_for(wait(), timeout)


async def _ask(pilot, app, kind, text, target=None, number=None):
    await pilot.press("f9")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, AskDialog)
    dialog.query_one("#ask-kind").value = kind
    if target is not None:
        dialog.query_one("#ask-target").value = target
    if number is not None:
        dialog.query_one("#ask-number").value = str(number)
    dialog.query_one("#ask-text").value = text
    await pilot.press("enter")


async def test_the_gm_accepts_amends_and_refuses_and_the_player_is_told(tmp_path, monkeypatch):
    tables = tmp_path / "tables"
    folder = _lay_table(tables)
    table, tokens, _ = build(folder)
    server = TableServer(table, tokens, folder / "table.sock")
    await server.start()
    monkeypatch.setenv("HORIZON_TABLES", str(tables))
    spec = load_table(folder)
    bob = TableClient(folder / "table.sock", "bob", tokens["bob"], spec.rebuild)
    await bob.connect()
    gm_app, alice_app = create_app(tmp_path / "gm-saves"), create_app(tmp_path / "alice-saves")
    try:
        async with gm_app.run_test(size=SIZE) as gm, alice_app.run_test(size=SIZE) as alice:
            pilots = [gm, alice]
            [gm_invite] = invites_for(tables, "mira")
            [alice_invite] = invites_for(tables, "alice")
            assert await join_table(gm_app, gm_invite) and await join_table(alice_app, alice_invite)
            await gm.pause()
            gm_screen, alice_screen = gm_app.screen, alice_app.screen
            assert at_table(gm_screen).role == "gm" and at_table(alice_screen).role == "player"

            async def to_alices_turn():
                for _ in range(30):
                    due = table.whose_turn()
                    if due is not None and due.name == "alice":
                        await _until(pilots, lambda: alice_screen.me is not None)
                        return
                    version = table.version
                    if due.name == "bob":
                        bob.act({"type": "Wait", "actor": cid(table.battle.current)})
                    else:
                        await _until(pilots, lambda: gm_screen.me is not None)
                        await gm.press("full_stop")
                    await _until(pilots, lambda v=version: table.version > v
                                 and at_table(alice_screen).client.replica.version == table.version)
                raise AssertionError("alice's turn never came")

            await to_alices_turn()
            iriel = table.battle["iriel"]
            points = comp(iriel, FreeActions).points
            assert points > 0
            seen = at_table(alice_screen).names(seen=True)  # what the party sees is what she can aim at
            wolf_id = next(uid for uid in seen if team(table.battle[uid]) == "enemies")

            # 1. A free action, accepted as asked: the table takes it on Iriel's turn.
            await _ask(alice, alice_app, "free_action", "I kick sand into the wolf's eyes", wolf_id, 60)
            await _until(pilots, lambda: at_table(gm_screen).client.requests)
            await gm.press("f7")
            await gm.pause()
            assert isinstance(gm_app.screen, RequestDialog)
            gm_app.screen.query_one("#req-effect").value = "blindness"
            assert gm_app.screen.query_one("#req-chance").value == "60"  # the player's number, offered
            version = table.version
            await gm.press("ctrl+s")
            await _until(pilots, lambda: table.version > version and at_table(alice_screen).answers)
            action = table.session.inputs[version].action
            assert type(action).__name__ == "FreeAction" and action.actor == "iriel" and action.target == wolf_id
            assert (action.effect, action.chance, action.description) == (
                "blindness", Fraction(3, 5), "I kick sand into the wolf's eyes")
            assert comp(table.battle["iriel"], FreeActions).points == points - 1
            told = at_table(alice_screen).answers[-1]
            assert told["approve"] and told["ruling"].startswith("as asked: blindness on ")
            assert "60%" in told["ruling"]
            await _until(pilots, lambda: at_table(alice_screen).client.replica.digest() == table.digest())

            # 2. An override, amended: she asks 5 health back, the GM grants 2.
            await to_alices_turn()
            before = hp(table.battle["iriel"]).hp
            await _ask(alice, alice_app, "override", "my shield took that blow, not me", "iriel", 5)
            await _until(pilots, lambda: at_table(gm_screen).client.requests)
            await gm.press("f7")
            await gm.pause()
            dialog = gm_app.screen
            assert dialog.query_one("#req-amount").value == "5"
            dialog.query_one("#req-amount").value = "2"
            dialog.query_one("#req-words").value = "half a shield"
            version = table.version
            await gm.press("ctrl+s")
            await _until(pilots, lambda: table.version > version and len(at_table(alice_screen).answers) == 2)
            change = table.session.inputs[version].action
            assert (type(change).__name__, change.targets, change.amount) == ("Heal", ("iriel",), 2)
            iriel_hp = hp(table.battle["iriel"])
            assert iriel_hp.hp == min(iriel_hp.max_hp, before + 2)
            told = at_table(alice_screen).answers[-1]
            assert told["approve"] and told["ruling"] == "amended: heal 2 on Iriel — half a shield"

            # 3. Refused: nothing happens at the table, and she is told why.
            await _ask(alice, alice_app, "free_action", "I summon a dragon")
            await _until(pilots, lambda: at_table(gm_screen).client.requests)
            await gm.press("f7")
            await gm.pause()
            gm_app.screen.query_one("#req-words").value = "not in this world"
            version = table.version
            await gm.press("ctrl+r")
            await _until(pilots, lambda: len(at_table(alice_screen).answers) == 3)
            told = at_table(alice_screen).answers[-1]
            assert not told["approve"] and told["ruling"] == "not in this world"
            assert table.version == version and not table.requests and not at_table(gm_screen).client.requests
            # A player can't answer, and the GM doesn't ask.
            await alice.press("f7")
            assert "the GM answers" in alice_screen.prompt
            await gm.press("f9")
            assert "players ask" in gm_screen.prompt
    finally:
        await bob.close()
        await server.close()
