"""A run in the player app (Pilot): New run → the depth's choice → a fight on the battle screen →
its summary → the next depth with the health it left → a rest → giving up → the record and the
hall of fame; Continue heads the main menu while the run is in progress."""

from __future__ import annotations

import json

import attrs
import pytest
from textual.widgets import DataTable, Input, SelectionList, Static

from horizon_tui.engine import ai
from horizon_tui.engine.runner import needs_input, run_ai
from horizon_tui.storage import records
from horizon_tui.storage.lock import LockLost, SaveLock
from horizon_tui.storage.runs import FileRuns, HeldRuns
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.screens.main_menu import MainMenuScreen
from horizon_tui.ui.player.screens.runs import DepthScreen, HallOfFameScreen, NewRunScreen, RunOverScreen, keeper

from .conftest import IRIEL, write


@pytest.fixture(autouse=True)
def own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HORIZON_DATA_DIR", str(tmp_path / "data"))  # the hall of fame goes here
    monkeypatch.delenv("HORIZON_HALL_OF_FAME", raising=False)


def play_the_fight_by_ai(screen: BattleScreen) -> None:
    battle = screen.battle
    while not battle.over:
        if needs_input(battle):
            ai.take_turn(battle, battle.current)
        run_ai(battle)
    screen._schedule_ai()  # noqa: SLF001 - as the screen does after every turn: the battle is over


async def wait_for(pilot, kind, limit: int = 400):  # 20 s: the machine may be busy
    for _ in range(limit):
        if isinstance(pilot.app.screen, kind):
            return pilot.app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"{kind.__name__} never came; on {type(pilot.app.screen).__name__}")


async def test_a_run_from_the_menu_to_the_hall_of_fame(saves, catalogue, iriel, tmp_path):
    app = create_app(saves, catalogue)
    # As `horizon run --seed 2`: New run opens with it. (With seed 1 a skeleton spearman frightens
    # Iriel and she flees the battlefield, R-10 fear: the run ends at its first fight.)
    app.run_start = {"seed": 2}
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, NewRunScreen)
        k = keeper(app)
        k.run_rules = attrs.evolve(k.run_rules, estimate_runs=3)  # the win chances: few battles, quickly
        await pilot.press("ctrl+s")
        depth = await wait_for(pilot, DepthScreen)
        assert depth.run.depth == 1 and len(depth.offers) in (2, 3)
        for _ in range(600):  # the win chances arrive from the background
            if len(depth.odds) == len(depth.offers):
                break
            await pilot.pause(0.05)
        assert all(not isinstance(o, str) for o in depth.odds.values())
        await pilot.press("r")  # no rest before the first fight: said, nothing changes
        assert app.screen is depth
        await pilot.press("enter")
        battle = await wait_for(pilot, BattleScreen)
        assert records.battles_of(saves).exists(f"records/runs/{depth.run.id}.battle.json")  # its journal
        play_the_fight_by_ai(battle)
        await pilot.pause()
        await pilot.press("enter")  # the summary
        after = await wait_for(pilot, DepthScreen)
        run = after.run
        assert not run.over, "seed 2: Iriel wins the first fight"
        assert run.depth == 2 and len(run.fights) == 1
        iriel_state = run.members[0].state
        line = str(app.screen.query_one("#run-party-line").render())
        assert f"{iriel_state['hp']}/{iriel_state['max_hp']}" in line  # the health the fight left
        await pilot.press("escape")  # the run is kept
        menu = await wait_for(pilot, MainMenuScreen)
        for _ in range(100):  # the menu looks for runs in progress once it is drawn
            if str(menu.query_one("#menu").get_option_at_index(0).prompt) == "Continue":
                break
            await pilot.pause(0.05)
        assert str(menu.query_one("#menu").get_option_at_index(0).prompt) == "Continue"
        about = menu.query_one("#about")  # at 80x24 the saves' folder was cut off behind the welcome
        rows = about.parent.region.bottom - about.content_region.y  # its rows on screen
        shown = "".join(about.render_line(y).text.strip() for y in range(min(rows, about.size.height)))
        # (the test's own folder is a long temp path, longer under xdist: its head is enough)
        assert "Continue: Iriel's run" in shown and f"Saves:{str(saves)[:40]}" in shown, shown
        await pilot.press("c")
        again = await wait_for(pilot, DepthScreen)
        assert again.run == run
        await pilot.press("r")
        await pilot.press("enter")  # the rest screen's question
        rested = await wait_for(pilot, DepthScreen)
        for _ in range(100):
            if rested.run.rested:
                break
            await pilot.pause(0.05)
            rested = app.screen
        assert rested.run.rested
        assert rested.run.members[0].state["hp"] >= iriel_state["hp"]
        await pilot.press("g", "y")  # give up, asked first
        over = await wait_for(pilot, RunOverScreen)
        assert "Cause of death: given up." in str(over.query_one("#morgue").query("Static").last().render())
        assert (saves / "records" / "runs" / f"{run.id}.morgue.txt").exists()
        assert (saves / "records" / "runs" / f"{run.id}.morgue.json").exists()
        await pilot.press("enter")
        scores = await wait_for(pilot, HallOfFameScreen)
        table = scores.query_one("#scores")
        assert table.row_count == 1
        assert (tmp_path / "data" / "hall_of_fame.json").exists()


async def test_new_run_reads_its_choices_without_colour_and_down_then_space_picks_the_second(
        saves, catalogue, iriel):
    """Every pick showed "▐X▌" whether picked or not, and the first ↓ only lit the first row: ↓,
    space took Iriel off instead of adding the second character."""
    write(saves, "morwen.toml", IRIEL.replace('name = "Iriel"', 'name = "Morwen"'))
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("u")
        screen = await wait_for(pilot, NewRunScreen)
        party = screen.query_one("#run-party", SelectionList)
        assert len(party.selected) == 1
        await pilot.press("down", "space")
        assert len(party.selected) == 2  # both now: the second was added
        drawn = "\n".join("".join(s.text for s in party.render_line(y)) for y in range(party.size.height))
        assert drawn.count("[✓]") == 2 and "▐X▌" not in drawn
        assert str(screen.query_one("#run-practice").label).startswith("Practice: off")
        assert "(•)" in str(screen.query_one("#run-pace").query("RadioButton").first().render())


async def test_a_new_run_with_no_characters_says_to_make_one_and_ctrl_s_says_it_again(tmp_path):
    """Found by hand: with no characters, New run showed an empty list and "Picked: no one yet"
    (the hint to make one was written, then overwritten), and ctrl+s asked to pick with space."""
    app = create_app(tmp_path / "saves")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, MainMenuScreen)
        await pilot.press("u")
        screen = await wait_for(pilot, NewRunScreen)
        assert "No characters yet: make one first" in str(screen.query_one("#run-permadeath").render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert any("No characters yet" in str(n.message) for n in app._notifications)  # noqa: SLF001


async def test_the_key_bar_offers_continue_only_while_something_is_in_progress(tmp_path):
    """Found by hand: `c Continue` stood in the main menu's key bar with nothing to continue."""
    app = create_app(tmp_path / "saves")
    async with app.run_test(size=(80, 24)) as pilot:
        menu = await wait_for(pilot, MainMenuScreen)
        await pilot.pause(0.2)  # the menu looks for runs and battles once it is drawn
        shown = [binding.action for _n, binding, _e, _t in menu.active_bindings.values()]
        assert "continue_game" not in shown
        assert "c Continue" not in app.screen.query_one("KeyBar").render().plain


async def test_a_run_played_in_another_window_opens_read_only_with_a_banner_and_can_be_taken_over(
        saves, catalogue, iriel, tmp_path):
    app = create_app(saves, catalogue)
    app.run_start = {"seed": 2}
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, NewRunScreen)
        k = keeper(app)
        k.run_rules = attrs.evolve(k.run_rules, estimate_runs=3)
        await pilot.press("ctrl+s")
        depth = await wait_for(pilot, DepthScreen)
        run_id = depth.run.id
        await pilot.press("escape")  # kept, and let go
        menu = await wait_for(pilot, MainMenuScreen)
        other = HeldRuns(FileRuns(saves), saves, "window B", SaveLock)  # another window plays it now
        other.hold(run_id)
        for _ in range(100):
            if str(menu.query_one("#menu").get_option_at_index(0).prompt) == "Continue":
                break
            await pilot.pause(0.05)
        await pilot.press("c")
        await wait_for(pilot, ChoiceDialog)
        await pilot.press("enter")  # "Open it read-only"
        read_only = await wait_for(pilot, DepthScreen)
        banner = str(read_only.query_one("#run-read-only").render())
        assert "READ-ONLY" in banner and "window B" in banner and "t takes it over" in banner
        await pilot.press("enter")  # fight: refused, nothing written
        await pilot.pause()
        assert app.screen is read_only and not records.battles_of(saves).exists(f"records/runs/{run_id}.battle.json")
        await pilot.press("t")
        for _ in range(100):
            if isinstance(app.screen, DepthScreen) and app.screen is not read_only:
                break
            await pilot.pause(0.05)
        assert app.screen.held_by == "" and not app.screen.query("#run-read-only")
        with pytest.raises(LockLost):  # the other window's next save writes nothing
            other.save_run({"id": run_id, "depth": 99})
        assert FileRuns(saves).load_run(run_id)["depth"] == 1
        other.hold(run_id, take_over=True)  # and back: this window's fight doesn't start, it turns read-only
        await pilot.press("enter")
        for _ in range(100):
            if app.screen.query("#run-read-only"):
                break
            await pilot.pause(0.05)
        assert "window B" in str(app.screen.query_one("#run-read-only").render())
        assert not records.battles_of(saves).exists(f"records/runs/{run_id}.battle.json")
        other.let_go()


async def test_the_run_seed_is_taken_whole_or_refused_with_its_range(saves, catalogue, iriel, monkeypatch):
    """By hand: the seed field dropped every digit past the tenth without a word."""
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("u")
        screen = await wait_for(pilot, NewRunScreen)
        asked = []

        def new(keeper, members, *, seed=None, **_):
            asked.append(seed)
            raise ValueError("not this time")  # only the seed is under test: no run starts

        monkeypatch.setattr(type(keeper(app)), "new", new)
        screen.query_one("#run-seed", Input).focus()
        await pilot.press(*"123456789012")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert asked == [123456789012]  # all twelve digits
        screen.query_one("#run-seed", Input).value = "9" * 30
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert asked == [123456789012] and app.screen is screen  # refused before the run
        assert any("0…9223372036854775807" in n.message for n in app._notifications)  # noqa: SLF001


async def test_the_hall_of_fame_fits_80_columns_and_shows_the_highlighted_run_whole(saves, catalogue, tmp_path):
    """A run's table row is what ranks it and how it ended, with no scrollbar at 80x24 (a long
    party is cut, not scrolled); every cell of the highlighted run is under the table."""
    party = ["Iriel", "Brakka", "Morwen", "Sefa", "Aliya Stormborn", "Tamsin"]
    runs = [{"id": "20261205-aaaaaa", "account": "alice", "party": party, "levels": [3, 3, 2, 2, 2, 2], "depth": 7,
             "score": 1840, "won": False, "seed": 2718281828, "pace": "standard", "ended": "2026-12-05T11:42:10",
             "cause": "defeated by Wolf Alpha"},
            {"id": "20261205-bbbbbb", "account": "", "party": ["Sefa"], "levels": [2], "depth": 3, "score": 410,
             "won": False, "seed": 42, "pace": "standard", "ended": "2026-12-04T20:02:55", "cause": "given up"}]
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "hall_of_fame.json").write_text(json.dumps({"runs": runs}), encoding="utf-8")
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_hall_of_fame()
        scores = await wait_for(pilot, HallOfFameScreen)
        await pilot.pause()
        table = scores.query_one("#scores", DataTable)
        assert table.row_count == 2 and not table.scrollbars_enabled[1]  # no horizontal scrollbar
        detail = str(scores.query_one("#scores-detail", Static).render())
        assert "defeated by Wolf Alpha" in detail and "seed 2718281828" in detail and "account alice" in detail
        assert "Aliya Stormborn" in detail and "ended 2026-12-05T11:42" in detail
        await pilot.press("down")
        detail = str(scores.query_one("#scores-detail", Static).render())
        assert "Sefa (levels 2): depth 3, score 410, given up." in detail and "account" not in detail
