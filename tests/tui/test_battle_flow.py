"""The battle as a player meets it, through keys: start, act, win or lose, XP, resume, saves."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from horizon_tui.content.characters import load_character
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.storage.records import has_battle

from .conftest import write

DATA = Path(__file__).resolve().parents[2] / "data" / "encounters"

# A veteran archer: everything in sight is in reach of a longbow (R-11: 30–50 cells).
CHAMPION = """
name = "Champion"
species = "human"
weapon = "longbow"
[attributes]
physical = 60
agility = 40
perception = 60
cognition = 20
faith = 20
beauty = 1
"""

# Barely past creation, alone against the deadliest fight.
WEAKLING = """
name = "Weakling"
species = "human"
weapon = "knife"
[attributes]
physical = 7
agility = 7
perception = 7
cognition = 7
faith = 7
beauty = 7
"""


async def _battle_screen(pilot, app) -> BattleScreen:
    """The battle screen once it is up (a slow machine may take a few frames)."""
    for _ in range(100):
        if isinstance(app.screen, BattleScreen):
            return app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"no battle screen; the screen is {app.screen!r}")


async def _open_battle(pilot, app, path: Path, encounter: str) -> BattleScreen:
    """Open the character at `path`, then fight `encounter` (a file of data/encounters/)."""
    app.open_character(path)
    await pilot.pause()
    app.start_battle(DATA / encounter, app.session.character)
    return await _battle_screen(pilot, app)


async def _fight(pilot, app, limit: int = 400) -> None:
    """Play as a player would: skip the enemies' turns, shoot the nearest foe, else end the turn."""
    for _ in range(limit):
        screen = app.screen
        if not isinstance(screen, BattleScreen):
            return
        if screen.battle.over:
            await pilot.pause(0.1)
            continue
        if screen.me is None:
            await pilot.press("x")
            continue
        await pilot.press("a", "enter")  # refused at the key when no enemy is in sight
        if isinstance(app.screen, BattleScreen):
            if app.screen.mode != "move":
                await pilot.press("escape")
            if app.screen.me is not None:
                await pilot.press("full_stop")


async def test_a_won_battle_gives_xp_saves_it_and_returns_to_the_sheet(saves, catalogue, won_by_the_champion):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(100, 32)) as pilot:
        battle = (await _open_battle(pilot, app, path, "goblin_ambush.toml")).battle
        await _fight(pilot, app)
        assert battle.result is not None and battle.result.winner == "party"
        gained = battle.result.xp["Champion"]
        assert gained > 0
        assert type(app.screen).__name__ == "BattleSummary"
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "SheetScreen"
    assert load_character(path, catalogue).xp == gained  # R-14 XP, saved to the file
    assert not has_battle(saves, saves / "battles" / "champion.json")  # the finished battle's journal is gone


async def test_a_lost_battle_gives_no_xp(saves, catalogue):
    path = write(saves, "weakling.toml", WEAKLING)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        battle = (await _open_battle(pilot, app, path, "barrow.toml")).battle
        await _fight(pilot, app)
        assert battle.result is not None and battle.result.winner == "enemies"
        await pilot.press("enter")
        await pilot.pause()
    assert load_character(path, catalogue).xp == 0


async def test_a_battle_in_progress_is_saved_and_resumes_where_it_was(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_battle(pilot, app, path, "crypt.toml")
        await pilot.press("x")  # to the player's turn
        assert screen.me is not None
        await pilot.press("full_stop")  # end the turn: autosave
        await pilot.press("x")
        length = len(screen.battle.log)
        await pilot.press("escape")  # nothing to cancel; the screen stays
        app.pop_screen()  # leave the battle (as quitting does): saved on the way out
        await pilot.pause()
        save = saves / "battles" / "champion.json"
        assert has_battle(saves, save) and not save.exists()  # in the journal, not a file
        app.start_battle(DATA / "crypt.toml", app.session.character)
        await pilot.pause()
        assert type(app.screen).__name__ == "QuestionDialog"  # "Resume it?"
        await pilot.press("r")
        assert len((await _battle_screen(pilot, app)).battle.log) == length  # replayed to the same point


async def test_a_broken_battle_save_is_reported_and_left_untouched(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    save = saves / "battles" / "champion.json"
    save.parent.mkdir(parents=True)
    save.write_text('{"kind": "horizon-battle", "schema": 1, "seed": ', encoding="utf-8")
    before = save.read_bytes()
    app = create_app(saves, catalogue)
    said = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(path)
        await pilot.pause()
        app.start_battle(DATA / "crypt.toml", app.session.character)
        await pilot.pause()
        question = str(app.screen.query_one(".question", Static).render())
        assert "champion.json" in question and "can't be read" in question  # the file and why
        await pilot.press("r")  # no Resume for a save that can't be read: the key does nothing
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, BattleScreen)
    assert said == []
    assert save.read_bytes() == before


async def test_keys_move_the_character_and_the_targeting_cursor_shows_odds(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_battle(pilot, app, path, "wolves.toml")
        await pilot.press("x")
        me = screen.me
        from horizon_tui.engine.battle import pos

        start = pos(me)
        for key in ("up", "down", "left", "right", "y", "u", "b", "n"):
            await pilot.press(key)
            if pos(me) != start:
                break
        assert pos(me) != start  # some direction was free
        await pilot.press("a")
        status = str(screen.query_one("#status").render())
        if screen.mode == "target":
            # the cursor starts on the nearest foe in sight: the longbow's reach, its odds in the panel
            assert "reach 45" in status and "hit " in str(screen.query_one("#unit").render())
        else:
            assert status == "Attack: no enemy in sight"  # refused at the key: no cursor opened
        await pilot.press("escape")
        assert screen.mode == "move"


async def test_loading_from_the_encounter_list_comes_back_to_it(saves, catalogue):
    """Battle with no character: l loads one and returns to the encounter list (its sheet under
    it); escape from the load screen returns there too, not to the main menu."""
    from horizon_tui.ui.player.screens.battle import EncounterPickerScreen
    from horizon_tui.ui.player.screens.load import LoadScreen
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(100, 32)) as pilot:
        app.action_battle()
        await pilot.pause()
        assert isinstance(app.screen, EncounterPickerScreen) and app.session is None
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LoadScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, EncounterPickerScreen)
        await pilot.press("l")
        for _ in range(40):  # the saves are read after the screen is drawn
            await pilot.pause(0.05)
            if app.screen.entries:
                break
        await pilot.press("enter")
        for _ in range(40):
            await pilot.pause(0.05)
            if isinstance(app.screen, EncounterPickerScreen):
                break
        assert isinstance(app.screen, EncounterPickerScreen)
        assert app.session.character.name == "Champion"
        await pilot.press("escape")
        assert isinstance(app.screen, SheetScreen)
