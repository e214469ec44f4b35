"""Both apps start over a saves folder holding a damaged file of every kind, list each
damaged one with its reason beside the good ones, and work around it (Pilot)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from textual.widgets import DataTable

from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.screens.load import LoadScreen

REPO = Path(__file__).resolve().parents[2]
GOOD = (REPO / "examples" / "party" / "iriel.toml").read_text(encoding="utf-8")

DAMAGED = {  # a file of each way a character save goes bad, with what the list says
    "deep.toml": ("xp = " + "[" * 1000 + "]" * 1000 + "\n", "nested too deeply"),
    "digits.toml": (GOOD.replace("xp = 0", "xp = " + "9" * 5000), "digits"),
    "huge.toml": (GOOD.replace("beauty = 1", "beauty = 1e308"), "out of range"),
    "hang.json": (json.dumps({"name": "H", "species": "human", "weapon": "dagger", "attributes": {},
                              "abilities": [{"name": "X", "difficulty": "II", "kind": "damage",
                                             "multiplier": "1e999999999"}]}), "exponent"),
    "loadout.toml": (GOOD.replace('loadout = ["Opening Cut", "Shadow Step"]', 'loadout = "' + "x" * 8000 + '"'),
                     "expected a list"),
    "truncated.toml": (GOOD[: len(GOOD) // 2] + '"\n[[', "broken TOML"),
    "bytes.toml": ("\udcff", "UTF-8"),
    "empty.json": ("[1, 2, 3]", "expected a table"),
}


def _damaged_saves(saves: Path) -> None:
    folder = saves / "characters"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "iriel.toml").write_text(GOOD, encoding="utf-8")
    for name, (text, _) in DAMAGED.items():
        if name == "bytes.toml":
            (folder / name).write_bytes(b"name = \"\xff\xfe\"\n")
        else:
            (folder / name).write_text(text, encoding="utf-8")
    (folder / ".iriel.toml.999999.abcd.tmp").write_bytes(b"half a save")  # an interrupted save
    battles = saves / "battles"
    battles.mkdir()
    (battles / "iriel.json").write_text('{"kind": "horizon-battle", "schema": 1, "seed": 1, "encounter": '
                                        '"wolves", "party": [1], "inputs": []}', encoding="utf-8")
    campaigns = saves / "campaigns"
    campaigns.mkdir()
    (campaigns / "bad.json").write_text('{"kind": "horizon-campaign", "schema": 1, "name": "Bad", "seed": 1, '
                                        '"party": 5}', encoding="utf-8")
    (campaigns / "deep.json").write_text('{"kind": "horizon-campaign", "x": ' + "[" * 5000 + "]" * 5000 + "}",
                                         encoding="utf-8")
    (campaigns / "garbage.json").write_bytes(b"\x00\xff" * 100)


async def test_the_player_app_lists_damaged_saves_and_moves_one_aside(tmp_path, catalogue):
    saves = tmp_path / "saves"
    _damaged_saves(saves)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.action_load_character()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LoadScreen)
        by_name = {e.path.name: e for e in screen.entries}
        assert set(by_name) == {"iriel.toml", *DAMAGED}
        assert by_name["iriel.toml"].openable and not by_name["iriel.toml"].broken
        for name, (_, reason) in DAMAGED.items():
            assert by_name[name].broken and reason in by_name[name].problem_text, (name, by_name[name].problem_text)
        assert not list((saves / "characters").glob("*.tmp")) and not list((saves / "characters").glob(".*.tmp"))
        table = screen.query_one("#saves", DataTable)
        assert table.row_count == len(DAMAGED) + 1
        row = next(i for i, e in enumerate(screen.entries) if e.path.name == "deep.toml")
        table.move_cursor(row=row)
        await pilot.press("m")  # asks first
        await pilot.pause()
        assert (saves / "characters" / "deep.toml").exists()
        await pilot.press("y")
        await pilot.pause()
        assert not (saves / "characters" / "deep.toml").exists()
        assert (saves / "characters" / "damaged" / "deep.toml").read_text(encoding="utf-8") == DAMAGED["deep.toml"][0]
        assert "deep.toml" not in {e.path.name for e in screen.entries}
        good = next(i for i, e in enumerate(screen.entries) if e.path.name == "iriel.toml")
        table.move_cursor(row=good)
        await pilot.press("m")  # a good save is never moved
        await pilot.pause()
        assert (saves / "characters" / "iriel.toml").exists()
        await pilot.press("enter")  # and still opens
        await pilot.pause()
        assert app.session is not None and app.session.character.name == "Iriel"


async def test_a_damaged_battle_save_is_offered_to_be_set_aside_and_a_fresh_one_starts(tmp_path, catalogue):
    from horizon_tui.storage import records
    from horizon_tui.ui.battle.screen import BattleScreen

    saves = tmp_path / "saves"
    _damaged_saves(saves)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_character(saves / "characters" / "iriel.toml")
        await pilot.pause()
        app.start_battle(REPO / "data" / "encounters" / "wolves.toml", app.session.character)
        await pilot.pause()
        await pilot.press("r")  # resume it: it can't be, so it offers to set it aside
        await pilot.pause()
        damaged = records.read_battle(saves, saves / "battles" / "iriel.json")  # imported, left as it was
        await pilot.press("y")  # set aside and start fresh
        await pilot.pause()
        assert isinstance(app.screen, BattleScreen)
    assert records.read_battle(saves, saves / "battles" / "damaged" / "iriel.json") == damaged  # never deleted


async def test_the_gm_tool_lists_damaged_campaigns_with_their_problem(tmp_path, catalogue):
    from horizon_tui.ui.gm.app import create_gm_app
    from horizon_tui.ui.gm.screens.campaigns import CampaignsScreen

    saves = tmp_path / "saves"
    _damaged_saves(saves)
    shutil.rmtree(saves / "battles")
    app = create_gm_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CampaignsScreen)
        problems = {e.file.name: e.problem for e in app.screen.entries}
        assert set(problems) == {"bad.json", "deep.json", "garbage.json"}
        assert all(problems.values())
        assert "nested too deeply" in problems["deep.json"] and "UTF-8" in problems["garbage.json"]
        await pilot.press("n", *"Lantern Road", "enter")  # and a new campaign still works beside them
        await pilot.pause()
        assert app.campaign is not None and app.campaign.name == "Lantern Road"
    assert (saves / "campaigns" / "bad.json").read_text(encoding="utf-8").endswith('"party": 5}')
