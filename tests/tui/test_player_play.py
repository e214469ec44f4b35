"""What a player broke by hand in a real terminal (tmux, 80×24), each pinned here with the keys
that showed it: quitting with unsaved work, the import dialog's list, the effect dialog's numbers,
what the battle screen shows while someone else acts."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen
from horizon_tui.ui.player.screens.level_up import LevelUpScreen
from horizon_tui.ui.player.screens.wizard import CreationWizard


async def _until(pilot, check, what: str, tries: int = 200):
    for _ in range(tries):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never: {what}")


# --- ctrl+q with work not saved ------------------------------------------------------------------
# By hand: New character, three steps filled in, ctrl+q: the app was gone and the character with
# it, though esc on the same screen asks "Leave without saving this character?".


async def test_ctrl_q_in_the_creation_wizard_asks_before_the_character_is_lost(saves, catalogue):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await _until(pilot, lambda: isinstance(app.screen, CreationWizard), "the wizard")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and app.is_running
        assert app.screen.question == "Not saved: the new character. Quit and lose it?"
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, CreationWizard) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_q_twice_quits_at_once(saves, catalogue):
    app = create_app(saves, catalogue, screen="new")
    async with app.run_test(size=(80, 24)) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, CreationWizard), "the wizard")
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_q_with_nothing_unsaved_quits_without_a_question(saves, catalogue, iriel):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await pilot.pause()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
    assert app.return_code == 0


async def _new_ability_form(pilot, app, iriel) -> AbilityFormScreen:
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    app.open_character(iriel)
    await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
    await pilot.press("a")
    await pilot.pause()
    await pilot.press("n")
    await _until(pilot, lambda: isinstance(app.screen, AbilityFormScreen), "the ability form")
    await pilot.pause()
    return app.screen


async def test_ctrl_q_in_an_ability_form_asks_only_when_it_was_changed(saves, catalogue, iriel):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await _new_ability_form(pilot, app, iriel)
        await pilot.press("ctrl+q")  # nothing typed yet: nothing to lose
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDialog)
    assert app.return_code == 0
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await _new_ability_form(pilot, app, iriel)
        await pilot.press(*"Half")
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "new ability" in app.screen.question
        await pilot.press("escape")  # stay: the form as it was
        await pilot.pause()
        assert app.screen is form and form.query_one("#ab-name", Input).value == "Half"
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_q_with_points_bought_but_not_confirmed_asks(saves, catalogue, iriel):
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await pilot.press("u")
        await _until(pilot, lambda: isinstance(app.screen, LevelUpScreen), "the level-up screen")
        await pilot.press("right")  # one point bought (Iriel has 400 XP), not confirmed
        await pilot.pause()
        assert app.screen.pending
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "1 point bought" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
    assert app.return_code == 0


# --- while someone else acts -----------------------------------------------------------------------
# By hand: Toll on the King's Road, round 1, "No enemy in sight", and while a bandit took its turn
# the status line said "Bandit Crossbowman 1 is acting…" and the slots panel listed its Aimed Shot,
# Poisoned Bolt and Kneecapper with their charges: an unseen enemy, named, with its abilities.


async def test_an_unseen_enemys_turn_shows_neither_its_name_nor_its_abilities(saves, catalogue, iriel):
    from pathlib import Path

    from textual.widgets import Static

    from horizon_tui.engine.battle import comp, gear, ident, team
    from horizon_tui.engine.components import Loadout
    from horizon_tui.engine.sideview import side_view
    from horizon_tui.ui.battle.screen import BattleScreen

    encounter = Path(__file__).resolve().parents[2] / "data" / "encounters" / "bandit_road.toml"
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await pilot.pause()
        app.start_battle(encounter, app.session.character)
        await _until(pilot, lambda: isinstance(app.screen, BattleScreen), "the battle")
        await pilot.pause()  # mounted
        screen = app.screen
        battle = screen.battle
        screen.speed = 0  # the slowest enemy turns: time to look at each
        checked = 0
        for _ in range(400):
            if battle.over or checked >= 3:
                break
            current = battle.current
            if screen.me is not None:
                await pilot.press("full_stop")
                continue
            if (current is not None and team(current) == "enemies"
                    and side_view(battle, "party").unit(ident(current).id) is None):
                screen.refresh_all()
                slots = str(screen.query_one("#slots", Static).render())
                status = str(screen.query_one("#status", Static).render())
                assert ident(current).name not in status and "Someone unseen is acting" in status
                for name in comp(current, Loadout).slotted:
                    if gear(current).character.ability(name) is not None:
                        assert name not in slots, f"{name} of the unseen {ident(current).name} shown"
                assert "Ember Lash" in slots  # the player's own slots, as on their turn
                checked += 1
            await pilot.pause(0.05)
        assert checked, "no unseen enemy ever acted"


# --- Load ▸ Import: "or pick one (up/down, enter)" -------------------------------------------------
# By hand: i, down, down, enter: the highlight never left the first example (the path field had the
# keys) and enter imported the typed folder: "play: is not a plain file ... Nothing was imported".


async def test_the_import_dialogs_down_key_picks_from_the_examples(saves, catalogue):
    from horizon_tui.ui.player.screens.load import LoadScreen
    from horizon_tui.ui.player.screens.transfer import PathDialog

    app = create_app(saves, catalogue, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, LoadScreen), "the load screen")
        await pilot.press("i")
        await _until(pilot, lambda: isinstance(app.screen, PathDialog), "the import dialog")
        dialog = app.screen
        second = dialog.choices[1].name
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, PathDialog)
    assert (saves / "characters" / second).exists()


# --- the effect dialog's numbers -------------------------------------------------------------------
# By hand: Ability ▸ ctrl+t, Duration '²': "✗ invalid literal for int() with base 10: '²'"; '--5'
# the same; 5000 was kept (refused only when the ability was saved); Chance 1e400 or 150: the
# message offered "a number from -1000000000 to 1000000000", or "between 0 and 1" after "50%" was
# the hint.


async def _effect_problem(pilot, app, chance: str, duration: str) -> str | None:
    from textual.widgets import Static

    from horizon_tui.ui.dialogs.effect import EffectDialog

    answers = []
    app.push_screen(EffectDialog(), answers.append)
    await _until(pilot, lambda: isinstance(app.screen, EffectDialog), "the effect dialog")
    await pilot.pause()
    dialog = app.screen
    dialog.query_one("#effect-chance", Input).value = chance
    dialog.query_one("#effect-duration", Input).value = duration
    await pilot.press("ctrl+s")
    await pilot.pause()
    if answers:
        return None
    problem = str(dialog.query_one("#effect-problem", Static).render())
    dialog.dismiss(None)
    await pilot.pause()
    return problem


async def test_the_effect_dialog_says_what_a_duration_and_a_chance_may_be(saves, catalogue):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        for duration in ("²", "--5", "5000", "-3", "9" * 5000):
            problem = await _effect_problem(pilot, app, "50", duration)
            assert problem is not None and "duration" in problem, duration
            assert "invalid literal" not in problem and "int()" not in problem, problem
        assert "0 to 1000" in await _effect_problem(pilot, app, "50", "5000")
        for chance in ("1e400", "150", "-5", "nan", "200%", "0.5"):
            problem = await _effect_problem(pilot, app, chance, "3")
            assert problem is not None and "chance" in problem, chance
            assert "1000000000" not in problem and "1 to 100" in problem, problem
        assert await _effect_problem(pilot, app, "50%", "3") is None
        assert await _effect_problem(pilot, app, "25", "1000") is None


# --- a table's ruling: "Chance %" ------------------------------------------------------------------
# Reading the ruling dialog: 'Chance %' 1 went through parse_chance, which reads a number up to 1
# as a fraction: 1% became certain (chance None), and the player was told "certain".


async def test_a_rulings_chance_of_one_percent_is_one_percent_not_certain(saves, catalogue):
    from fractions import Fraction

    from horizon_tui.ui.player.table_dialogs import RequestDialog

    request = {"id": 1, "kind": "free_action", "combatant": "iriel", "target": "wolf",
               "text": "I throw a pebble at its eye", "number": 1}
    app = create_app(saves, catalogue)
    async with app.run_test(size=(100, 32)) as pilot:
        dialog = RequestDialog(request, {"iriel": "Iriel", "wolf": "Grey Wolf"})
        app.push_screen(dialog)
        await _until(pilot, lambda: app.screen is dialog, "the ruling dialog")
        await pilot.pause()
        answer = dialog.answer()
        assert answer.action["chance"] is not None and Fraction(str(answer.action["chance"])) == Fraction(1, 100)
        assert "1%" in answer.words and "certain" not in answer.words
        dialog.query_one("#req-chance", Input).value = "100"
        answer = dialog.answer()
        assert answer.action["chance"] is None and "certain" in answer.words


# --- level up with much XP -------------------------------------------------------------------------
# By hand (80×24, 10^8 XP): forty '>' bought 200 points, and "200 points waiting: physical,
# physical, …" filled the screen: the attribute table and the derived stats were pushed off it.


async def test_many_points_waiting_are_counted_and_the_table_stays_on_screen(saves, catalogue, write_save):
    from textual.widgets import DataTable, Static

    from horizon_tui.ui.player.screens.sheet import SheetScreen
    from .conftest import IRIEL

    path = write_save("rich.toml", IRIEL.replace("xp = 400", "xp = 100000000"))
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(path)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await pilot.press("u")
        await _until(pilot, lambda: isinstance(app.screen, LevelUpScreen), "the level-up screen")
        await pilot.pause()
        await pilot.press(*[">"] * 30, "down", *[">"] * 10)
        await pilot.pause()
        screen = app.screen
        assert len(screen.pending) == 200
        status = str(screen.query_one("#levelup-status", Static).render())
        assert "200 points waiting: physical +150, agility +50" in status
        table = screen.query(DataTable).first()
        assert table.region.bottom <= 24 and table.region.height > 0, table.region


# --- keymap.toml ---------------------------------------------------------------------------------
# By hand: `[battle] wait = ["ctrl+q"]` was applied without a word: ". End turn" left the key bar
# and the only key left for it, ctrl+q, quits the app (its binding comes first).


def test_a_keymap_entry_on_the_apps_own_keys_is_refused_and_the_default_stays():
    from horizon_tui.play.keymap import parse_keymap

    keymap, problems = parse_keymap('[battle]\nwait = ["ctrl+q"]\nlook = ["v", "ctrl+p"]\nlog = "g"\n',
                                    "keymap.toml")
    assert keymap == {"battle.log": "g"}
    said = [str(p) for p in problems]
    assert any("keymap.toml:2: battle.wait: 'ctrl+q'" in s and "quit" in s for s in said), said
    assert any("battle.look: 'ctrl+p'" in s for s in said), said


# By hand: a keymap.toml of 100,000 nested lists stopped the app at start with "Internal error"
# and a crash report (tomllib's RecursionError); one linked to /dev/zero would read for ever.


def test_a_hostile_keymap_file_is_a_problem_named_not_a_crash(tmp_path):
    import os

    from horizon_tui.play.keymap import load_keymap

    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 100_000 + "]" * 100_000, encoding="utf-8")
    huge = tmp_path / "huge.toml"
    huge.write_text("[battle]\nlook = 1" + "0" * 5000 + "\n", encoding="utf-8")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    device = tmp_path / "device.toml"
    os.symlink("/dev/zero", device)
    for path, words in ((deep, "nested too deeply"), (huge, "digits"), (binary, "UTF-8"),
                        (device, "not a plain file")):
        keymap, problems, _ = load_keymap(path)
        assert keymap == {} and problems, path
        assert str(path) in str(problems[0]) and words in str(problems[0]), problems


# --- Load ▸ Battles over damaged battle files ------------------------------------------------------
# By hand: battles/deep.json of 100,000 nested lists, then Load ▸ b: "Internal error" and a crash
# report (records read battle files with json.loads, past the guarded reader). A battle file naming
# /dev/zero as its encounter would hang the list and "Resume it?" reading the encounter's name.


@pytest.mark.timeout(60)
def test_the_battles_list_reads_damaged_battle_files_as_damaged(saves, tmp_path):
    import json
    import os

    from horizon_tui.storage import records

    folder = saves / "battles"
    folder.mkdir()
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (folder / "huge.json").write_text('{"seed": 1' + "0" * 5000 + "}", encoding="utf-8")
    os.mkfifo(folder / "pipe.json")  # as /dev/zero would be: never a file to read to its end
    os.mkfifo(tmp_path / "pipe.toml")
    (folder / "devzero.json").write_text(json.dumps({"encounter": str(tmp_path / "pipe.toml"),
                                                     "party": [], "inputs": []}))
    deep_encounter = tmp_path / "deep.toml"
    deep_encounter.write_text("x = " + "[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (folder / "deepenc.json").write_text(json.dumps({"encounter": str(deep_encounter), "party": [], "inputs": []}))
    found = {b.character_stem: b for b in records.in_progress(saves)}
    assert set(found) == {"deep", "huge", "pipe", "devzero", "deepenc"}
    for stem in ("deep", "huge", "pipe"):
        assert found[stem].problem, stem
    assert "nested too deeply" in found["deep"].problem and "plain file" in found["pipe"].problem
    assert found["devzero"].encounter_name == "pipe"  # the file's stem: the pipe is not read
    assert found["deepenc"].encounter_name == "deep"


@pytest.mark.timeout(60)
def test_resume_it_names_the_encounter_of_a_hostile_battle_save_without_reading_for_ever(saves, tmp_path):
    import json
    import os

    from horizon_tui.ui.player.app import _battle_encounter

    folder = saves / "battles"
    folder.mkdir()
    os.mkfifo(tmp_path / "pipe.toml")
    (folder / "iriel.json").write_text(json.dumps({"encounter": str(tmp_path / "pipe.toml")}))
    assert _battle_encounter(saves, folder / "iriel.json") == "pipe"
    (folder / "iriel.json").write_text("[" * 100_000 + "]" * 100_000)
    assert _battle_encounter(saves, folder / "iriel.json") is None  # nothing to resume


# --- a lock record that is not a file --------------------------------------------------------------
# By hand: characters/.iriel.toml.owner made a pipe (mkfifo), then Load ▸ Iriel: the whole app froze
# (blocked opening the pipe for the lock's holder record); a link to /dev/zero would read for ever.


@pytest.mark.timeout(30)
async def test_a_lock_record_that_is_a_pipe_neither_hangs_nor_stops_the_character_opening(saves, catalogue, iriel):
    import os

    from horizon_tui.storage.lock import read_holder
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    record = iriel.with_name(f".{iriel.name}.owner")
    os.mkfifo(record)
    assert read_holder(iriel) is None
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await pilot.pause()
        assert not app.read_only and read_holder(iriel) is not None  # held, its record rewritten


# By hand: records/x.txt made a pipe: Load ▸ b froze the app (each record's headline was read
# with read_text), as the record screen would on enter.


@pytest.mark.timeout(30)
async def test_a_record_that_is_a_pipe_is_listed_without_freezing_and_opens_as_a_problem(saves, catalogue):
    import os

    from textual.widgets import Static

    from horizon_tui.storage import records
    from horizon_tui.ui.player.screens.transfer import RecordScreen

    folder = saves / "records"
    folder.mkdir()
    os.mkfifo(folder / "iriel--20261204-200000.txt")
    listed = records.records(saves)
    assert [r.path.name for r in listed] == ["iriel--20261204-200000.txt"] and listed[0].headline == ""
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(RecordScreen(folder / "iriel--20261204-200000.txt"))
        await _until(pilot, lambda: isinstance(app.screen, RecordScreen), "the record")
        await pilot.pause()
        assert "not a plain file" in str(app.screen.query_one("#record-text", Static).render())


# --- a companion that doesn't exist ------------------------------------------------------------------
# By hand: an ability of kind companion naming 'dragon' was saved without a word; the battle then
# refused to start ("companion 'dragon' is not in the enemy catalogue") — and "Start the new one"
# had already put the battle in progress aside for a battle that never began.


async def test_the_ability_form_refuses_a_companion_the_enemy_catalogue_lacks(saves, catalogue, iriel):
    from textual.widgets import Select

    from horizon_tui.content.models import AbilityKind

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await _new_ability_form(pilot, app, iriel)
        form.query_one("#ab-name", Input).value = "Hound"
        form.query_one("#ab-kind", Select).value = AbilityKind.companion
        await pilot.pause()
        form.query_one("#ab-companion", Input).value = "wolff"
        await pilot.pause()
        _, errors = form.read()
        assert any("wolff" in e and "enemy" in e and "'wolf'" in e for e in errors), errors
        form.query_one("#ab-companion", Input).value = "wolf"
        await pilot.pause()
        assert form.read()[1] == []


async def test_starting_a_new_battle_that_cant_start_leaves_the_one_in_progress_where_it_was(
        saves, catalogue, iriel):
    from horizon_tui.ui.battle.screen import BattleScreen
    from horizon_tui.ui.dialogs.question import QuestionDialog

    from horizon_tui.storage import records

    from .test_player_trust import DATA, _a_battle_left_in_progress, stored

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, iriel)
        before = stored(saves, save)
        broken = saves.parent / "broken_encounter.toml"
        broken.write_text((DATA / "wolves.toml").read_text().replace('enemy = "wolf"', 'enemy = "no_such_enemy"'))
        app.start_battle(broken, app.session.character)
        await _until(pilot, lambda: isinstance(app.screen, QuestionDialog), "Resume it?")
        await pilot.press("s")  # start the new one: it can't start
        await pilot.pause()
        assert not isinstance(app.screen, BattleScreen)
        assert any("can't start" in (n.title or "") for n in app._notifications)
        assert stored(saves, save) == before  # still the battle in progress
        assert records.kept_battles(saves) == []


# --- a character saved by Windows Notepad ----------------------------------------------------------
# By hand: a character file with a UTF-8 byte-order mark (what Notepad writes) was listed as
# damaged: "line 1: can't be read: broken TOML: Invalid statement (column 1)" — nothing on the
# screen said why; the text is UTF-8 all the same.


def test_a_character_file_with_a_byte_order_mark_reads_as_any_other(saves, catalogue, iriel_text):
    from horizon_tui.content.characters import load_character

    path = saves / "characters" / "notepad.toml"
    path.write_bytes(b"\xef\xbb\xbf" + iriel_text.replace("\n", "\r\n").encode("utf-8"))
    assert load_character(path, catalogue).name == "Iriel"
    as_json = saves / "characters" / "notepad.json"
    as_json.write_bytes(b"\xef\xbb\xbf" + b'{"name": "Jay", "species": "human", "weapon": "dagger", '
                        b'"attributes": {"physical": 10, "agility": 10, "perception": 10, "cognition": 6, '
                        b'"faith": 5, "beauty": 1}}')
    assert load_character(as_json, catalogue).name == "Jay"


# --- Load ▸ m, one damaged save after another ------------------------------------------------------
# By hand: sixteen damaged saves listed; m, y on the first moved it aside and put the cursor back
# on the first row (a good save), so the next m said "is not damaged".


async def test_moving_a_damaged_save_aside_keeps_the_cursor_on_the_next_one(saves, catalogue, write_save, iriel_text):
    from textual.widgets import DataTable

    from horizon_tui.ui.player.screens.load import LoadScreen

    write_save("good.toml", iriel_text, mtime=2_000_000_000)
    for n in range(3):
        write_save(f"broken{n}.toml", 'name = "B\nxp = [\n', mtime=1_900_000_000 - n)
    app = create_app(saves, catalogue, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, LoadScreen), "the load screen")
        await pilot.pause()
        screen = app.screen
        assert [e.path.name for e in screen.entries] == ["good.toml", "broken0.toml", "broken1.toml", "broken2.toml"]
        await pilot.press("down", "m")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert screen.query_one("#saves", DataTable).cursor_row == 1
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert sorted(p.name for p in (saves / "characters" / "damaged").iterdir()) == ["broken0.toml", "broken1.toml"]


# --- a battle won in a window that was taken over ----------------------------------------------------
# Reading ui.battle.flow.finish while trying two windows on one character: the battle's end deletes
# battles/<stem>.json whoever holds the character; another window that took it over and saved a
# battle of its own there lost it when the first window's old battle ended.


async def test_a_battle_ending_in_a_window_taken_over_leaves_the_other_windows_battle_alone(saves, catalogue):
    from horizon_tui.storage import records
    from horizon_tui.storage.lock import SaveLock

    from .test_battle_flow import CHAMPION, _fight, _open_battle
    from .conftest import write

    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(100, 32)) as pilot:
        battle = (await _open_battle(pilot, app, path, "goblin_ambush.toml")).battle
        SaveLock.acquire(path, "the other window", take_over=True)
        battles, slot = records.battles_of(saves), "battles/champion.json"
        battles.save(slot, '{"the other window": "its own battle"}', 0, [], {})
        await _fight(pilot, app)
        assert battle.result is not None and battle.result.winner == "party"
        await pilot.press("enter")
        await pilot.pause()
    assert battles.load(slot) == {"the other window": "its own battle", "inputs": []}


async def test_start_the_new_one_in_a_window_taken_over_moves_nothing(saves, catalogue, iriel):
    from horizon_tui.storage.lock import SaveLock
    from horizon_tui.ui.battle.screen import BattleScreen
    from horizon_tui.ui.dialogs.question import QuestionDialog

    from horizon_tui.storage import records

    from .test_player_trust import DATA, _a_battle_left_in_progress, stored

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, iriel)
        SaveLock.acquire(iriel, "the other window", take_over=True)  # its battle is the one there now
        theirs = stored(saves, save)
        app.start_battle(DATA / "wolves.toml", app.session.character)
        await _until(pilot, lambda: isinstance(app.screen, QuestionDialog), "Resume it?")
        await pilot.press("s")
        await pilot.pause()
        assert not isinstance(app.screen, BattleScreen)
        assert any("taken over" in n.message for n in app._notifications)
    assert stored(saves, save) == theirs
    assert records.kept_battles(saves) == []


# --- brackets in names ---------------------------------------------------------------------------
# By hand (hostile text in every field): an ability named '[/]Open[b]ing Cut[/i]' — the form takes
# it — stopped the app with "Internal error" on the character sheet (its loadout row was read as
# markup: "closing tag '[/]' has nothing to close"), again in the battle's z menu, and a character
# so named in Load ▸ Battles.


async def test_names_with_brackets_are_shown_as_written_everywhere_a_player_meets_them(saves, catalogue, write_save,
                                                                                     iriel_text):
    from textual.widgets import DataTable

    from horizon_tui.ui.battle.dialogs import ChoiceDialog
    from horizon_tui.ui.battle.screen import BattleScreen
    from horizon_tui.ui.crash_screen import CrashScreen
    from horizon_tui.ui.player.screens.sheet import SheetScreen
    from horizon_tui.ui.player.screens.transfer import BattlesScreen

    from .test_player_trust import DATA

    path = write_save("brackets.toml", iriel_text.replace('"Ember Lash"', '"[/]Ember[b] Lash[/i]"')
                      .replace('name = "Iriel"', 'name = "[/]Iri[/b]el"'))
    app = create_app(saves, catalogue)

    async def fine(what: str) -> None:
        await pilot.pause()
        await pilot.pause()
        assert not any(isinstance(s, CrashScreen) for s in app.screen_stack), f"internal error at {what}"

    async with app.run_test(size=(100, 32)) as pilot:
        app.open_character(path)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await fine("the sheet")
        app.start_battle(DATA / "wolves.toml", app.session.character)
        await _until(pilot, lambda: isinstance(app.screen, BattleScreen), "the battle")
        await fine("the battle")
        for _ in range(50):
            if app.screen.me is not None:
                break
            await pilot.press("x")
        await pilot.press("z")
        await _until(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the abilities menu")
        await fine("the abilities menu")
        await pilot.press("escape")
        await pilot.pause()
        app.pop_screen()  # leave the battle (saved as on quitting)
        await pilot.pause()
        app.push_screen(BattlesScreen())
        await _until(pilot, lambda: isinstance(app.screen, BattlesScreen), "Load ▸ Battles")
        await fine("Load ▸ Battles")
        table = app.screen.query_one(DataTable)
        assert "[/]Iri[/b]el" in [str(c) for key in table.rows for c in table.get_row(key)]


# --- an edit that makes the loadout not fit ----------------------------------------------------------
# By hand: Ward and Stone Skin (both slotted passives) edited to difficulty VI: "Stone Skin saved",
# nothing more; the loadout screen's top line said "VI 1 (2 held)" and the next battle refused to
# start ("2 passives of difficulty VI each hold a charge, but level 2 has 1 charges of VI").


async def test_saving_an_ability_that_breaks_the_loadout_says_so_at_once(saves, catalogue, write_save, iriel_text):
    import attrs

    from horizon_tui.content.models import Difficulty
    from horizon_tui.ui.player.screens.abilities import AbilitiesScreen
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    path = write_save("warded.toml", iriel_text.replace('loadout = ["Ember Lash"]', 'loadout = ["Ember Lash", "Ward"]'))
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(path)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await pilot.press("a")
        await _until(pilot, lambda: isinstance(app.screen, AbilitiesScreen), "the abilities")
        await pilot.pause()
        screen = app.screen
        character = app.session.character
        for name in ("Ward", "Stone Skin"):
            index = next(i for i, a in enumerate(app.session.character.abilities) if a.name == name)
            screen._store(index, attrs.evolve(app.session.character.abilities[index], difficulty=Difficulty.VI))
            await pilot.pause()
        warned = [n.message for n in app._notifications if n.severity == "warning"]
        assert any("loadout" in w and "VI" in w for w in warned), [n.message for n in app._notifications]
        assert character is not app.session.character  # saved all the same: the edit is the player's


# By hand (80×24): with that loadout the encounter list said "Win chance: can't be simulated:
# /work/wt/play/data/encounters/wolves.toml:" and the line ended there: the reason was cut off
# behind the encounter's full path, which the list already names.


async def test_the_win_chance_line_says_why_it_cant_be_simulated_before_the_line_ends(saves, catalogue, write_save,
                                                                                     iriel_text):
    from textual.widgets import Static

    from horizon_tui.ui.player.screens.battle import EncounterPickerScreen
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    broken = iriel_text.replace('loadout = ["Ember Lash"]', 'loadout = ["Ember Lash", "Ward"]').replace(
        'name = "Ward"\ndifficulty = "II"', 'name = "Ward"\ndifficulty = "VI"').replace(
        'name = "Stone Skin"\ndescription = "Her skin hardens like river stone."\ndifficulty = "II"',
        'name = "Stone Skin"\ndescription = "Her skin hardens like river stone."\ndifficulty = "VI"')
    path = write_save("warded.toml", broken)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(path)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await pilot.press("b")
        await _until(pilot, lambda: isinstance(app.screen, EncounterPickerScreen), "the encounters")
        odds = app.screen.query_one("#odds", Static)
        await _until(pilot, lambda: "can't be simulated" in str(odds.render()), "the win chance's refusal")
        said = str(odds.render())
        assert "encounters/" not in said and said.index("loadout") < 80, said


# --- home and end in the lists -----------------------------------------------------------------------
# By hand: Battle, End, Enter: End did nothing (a DataTable's home/end scroll sideways), so Enter
# fought the first encounter, Toll on the King's Road, not the last one the player meant.


async def test_home_and_end_go_to_the_first_and_last_row_of_a_list(saves, catalogue, iriel):
    from textual.widgets import DataTable

    from horizon_tui.ui.player.screens.battle import EncounterPickerScreen
    from horizon_tui.ui.player.screens.sheet import SheetScreen

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await _until(pilot, lambda: isinstance(app.screen, SheetScreen), "the sheet")
        await pilot.press("b")
        await _until(pilot, lambda: isinstance(app.screen, EncounterPickerScreen), "the encounters")
        await pilot.pause()
        table = app.screen.query_one("#encounters", DataTable)
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1 > 0
        await pilot.press("home")
        assert table.cursor_row == 0


# --- an ability whose save is refused --------------------------------------------------------------
# Found by the GM-tool helper: the ability form closed before the save, so a save refused (a window
# taken over, a full disk, a file that would not open again) lost everything typed in it.


async def test_an_ability_form_stays_open_with_its_text_when_the_save_is_refused(saves, catalogue, iriel):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(100, 32)) as pilot:
        form = await _new_ability_form(pilot, app, iriel)
        refused = []
        real_commit = app.commit

        def no_room(character) -> bool:
            refused.append(character)
            return False  # as app.commit says after its own message (a save refused)

        app.commit = no_room
        await pilot.press(*"Ember")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert refused and app.screen is form and form.query_one("#ab-name", Input).value == "Ember"
        app.commit = real_commit
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is not form
        assert app.session.character.ability("Ember") is not None


@pytest.mark.parametrize("way_out", ["main_menu", "new_character", "load_character", "new_run", "sheet"])
async def test_every_way_out_of_a_changed_ability_form_asks(saves, catalogue, iriel, way_out):
    """The palette's Main menu, New character, Load character, New run and Character sheet popped
    the form without a word; now each names what would be lost and asks, and "Stay" keeps it."""
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        form = await _new_ability_form(pilot, app, iriel)
        await pilot.press(*"Half")
        app.call_later(app.run_action, way_out)  # as the palette runs it
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "new ability" in app.screen.question
        await pilot.press("n")  # stay
        await pilot.pause()
        assert app.screen is form and form.query_one("#ab-name", Input).value == "Half"
        app.call_later(app.run_action, way_out)  # as the palette runs it
        await pilot.pause()
        await pilot.press("y")  # leave
        await _until(pilot, lambda: form not in app.screen_stack, "the form closed")


async def test_a_character_being_made_is_asked_about_before_the_palette_leaves_it(saves, catalogue, iriel):
    from horizon_tui.ui.player.screens.wizard import CreationWizard

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await _until(pilot, lambda: isinstance(app.screen, CreationWizard), "the wizard")
        wizard = app.screen
        app.call_later(app.run_action, "load_character")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "the new character" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is wizard


async def test_nothing_unsaved_leaves_at_once(saves, catalogue, iriel):
    from horizon_tui.ui.player.screens.load import LoadScreen

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await _new_ability_form(pilot, app, iriel)
        app.call_later(app.run_action, "load_character")
        await _until(pilot, lambda: isinstance(app.screen, LoadScreen), "the Load screen")
