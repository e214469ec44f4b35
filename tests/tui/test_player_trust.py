"""The player app around the battlefield: the "Resume it?" question, parties and the win
chance, override multipliers without a GM, battle records, and one writer per character."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
from textual.widgets import DataTable, Input, Static

from horizon_tui.content.characters import load_character
from horizon_tui.paths import ENV_SHARED_SAVES
from horizon_tui.rules.creation import ability_multiplier, solo_ability, solo_character
from horizon_tui.storage.lock import SaveLock, read_holder
from horizon_tui.storage import host_shared, records
from horizon_tui.storage.database import DATABASE_FILE
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.dialogs.question import QuestionDialog
from horizon_tui.ui.player.screens import battle as picker
from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen
from horizon_tui.ui.player.screens.sheet import SheetScreen

from .conftest import IRIEL, write
from .test_battle_flow import CHAMPION, _fight

DATA = Path(__file__).resolve().parents[2] / "data" / "encounters"


async def _until(pilot, check, what: str, tries: int = 200):
    for _ in range(tries):
        if check():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never: {what}")


async def _battle(pilot, app) -> BattleScreen:
    await _until(pilot, lambda: isinstance(app.screen, BattleScreen), "a battle screen")
    await pilot.pause()  # mounted
    return app.screen


async def _a_battle_left_in_progress(pilot, app, path: Path, encounter: str = "crypt.toml") -> Path:
    app.open_character(path)
    await pilot.pause()
    app.start_battle(DATA / encounter, app.session.character)
    screen = await _battle(pilot, app)
    await pilot.press("x")
    if screen.me is not None:
        await pilot.press("full_stop")
    app.pop_screen()  # leave it (as quitting does): saved on the way out
    await pilot.pause()
    save = app.saves_dir / "battles" / f"{path.stem}.json"
    assert records.has_battle(app.saves_dir, save) and not save.exists()  # in the journal, not a file
    return save


def stored(saves: Path, save: Path) -> dict:
    """The battle kept as `save`, as a save file holds it (storage.records.read_battle)."""
    return records.read_battle(saves, save)


def tampered(saves: Path, save: Path, **columns) -> None:
    """The stored battle's row changed by hand (`setup`: its header, `checks`)."""
    from horizon_tui.storage import schema

    battles = records.battles_of(saves)
    with battles.database.writing() as conn:
        conn.execute(schema.battles.update().where(schema.battles.c.slot == records.battle_slot(saves, save))
                     .values(**columns))


# --- "Resume it?" ------------------------------------------------------------------------------


async def test_esc_at_resume_it_keeps_the_battle_and_starts_nothing(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, path)
        before = stored(saves, save)
        app.start_battle(DATA / "wolves.toml", app.session.character)
        await pilot.pause()
        assert isinstance(app.screen, QuestionDialog)
        question = str(app.screen.query_one(".question", Static).render())
        assert "Crypt" in question and "Wolves at Dusk" in question  # the old battle and the picked one, both named
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen)  # no battle started, nothing moved
    assert stored(saves, save) == before
    assert records.kept_battles(saves) == []


async def test_start_the_new_one_keeps_the_old_where_load_lists_it_and_it_resumes(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, path)
        old = stored(saves, save)
        app.start_battle(DATA / "wolves.toml", app.session.character)
        await pilot.pause()
        await pilot.press("s")  # start the new one
        screen = await _battle(pilot, app)
        assert Path(screen.session.encounter).name == "wolves.toml"  # the picked encounter, not ignored
        [kept] = records.kept_battles(saves)
        assert (kept.character_stem, kept.encounter_name, kept.party) == (
            "champion", "The Crypt Under the Chapel", ("Champion",))
        assert stored(saves, kept.path)["inputs"] == old["inputs"]  # the old battle, whole
        app.pop_screen()
        await pilot.pause()
        # the kept battle comes back: the wolves are put aside in turn, nothing lost
        app.host.resume_kept(kept.path)
        await pilot.pause()
        assert isinstance(app.screen, QuestionDialog)
        await pilot.press("s")
        screen = await _battle(pilot, app)
        assert screen.session.encounter == "crypt"  # resumed: named by id
        assert [b.encounter_name for b in records.kept_battles(saves)] == ["Wolves at Dusk"]


async def test_resume_it_resumes(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, path)
        inputs = stored(saves, save)["inputs"]
        app.start_battle(DATA / "wolves.toml", app.session.character)
        await pilot.pause()
        await pilot.press("r")
        screen = await _battle(pilot, app)
        assert screen.session.encounter == "crypt" and len(screen.session.inputs) == len(inputs)  # by id, not path


# --- records (morgue files) --------------------------------------------------------------------


async def test_a_finished_battle_leaves_a_record_with_its_log_that_is_listed(saves, catalogue, won_by_the_champion):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(100, 32)) as pilot:
        app.open_character(path)
        await pilot.pause()
        app.start_battle(DATA / "goblin_ambush.toml", app.session.character)
        battle = (await _battle(pilot, app)).battle
        await _fight(pilot, app)
        assert battle.result is not None and battle.result.winner == "party"
        await pilot.press("enter")
        await pilot.pause()
    [record] = records.records(saves)
    assert record.kind == "record" and record.character_stem == "champion" and record.party == ("Champion",)
    assert record.headline.startswith("Victory!")
    text = record.path.read_text()
    assert "Log" in text and "The battle begins" in text and "Goblin" in text
    assert json.loads(record.path.with_suffix(".json").read_text())["seed"] == battle.seed  # replayable


# --- parties and the win chance ------------------------------------------------------------------


async def _picker(pilot, app, character: Path):
    """The Battle screen, opened for `character`."""
    app.open_character(character)
    await pilot.pause()
    app.action_battle()
    await pilot.pause()
    assert isinstance(app.screen, picker.EncounterPickerScreen)
    return app.screen


async def test_a_party_of_three_fights_hot_seat_and_each_is_played_as_chosen(saves, catalogue, iriel):
    brakka = Path(__file__).resolve().parents[2] / "examples" / "party" / "brakka.toml"
    write(saves, "brakka.toml", brakka.read_text())
    write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _picker(pilot, app, iriel)
        await pilot.press("p")
        dialog = app.screen
        assert isinstance(dialog, picker.PartyDialog)
        for _ in range(2):
            await pilot.press("a")
            await pilot.pause()
            await pilot.press("enter")  # the first character offered
            await pilot.pause()
        assert [m.controller for m in dialog.party] == ["player", "ai", "ai"]
        await pilot.press("c")  # the last one added: played by you
        await pilot.press("enter")
        await pilot.pause()
        assert [m.controller for m in screen.party] == ["player", "ai", "player"]
        assert "Party 3/6" in str(screen.query_one("#fighter", Static).render())
        table = screen.query_one("#encounters", DataTable)
        table.move_cursor(row=[e.path.name for e in screen.encounters].index("goblin_ambush.toml"))
        await pilot.press("enter")
        fight = await _battle(pilot, app)
        battle = fight.session
        assert [(m.character.name, m.controller) for m in battle.party] == [
            ("Iriel", "player"), (screen.party[1].character.name, "ai"), (screen.party[2].character.name, "player")]
        # two played by hand at one keyboard: the status line names whose turn it is
        await _until(pilot, lambda: fight.me is not None, "a turn played by hand", tries=400)
        from horizon_tui.engine.battle import ident

        assert str(fight.status_text()).startswith(f"{ident(fight.me).name}'s turn: ")  # noqa: SLF001


async def test_the_win_chance_is_the_estimate_for_the_chosen_party_with_a_spread(saves, catalogue, iriel,
                                                                                monkeypatch):
    from horizon_tui.tools.simulate import encounter_rating, estimate

    monkeypatch.setattr(picker, "ESTIMATE_RUNS", 60)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _picker(pilot, app, iriel)
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = screen.query_one("#encounters", DataTable)
        table.move_cursor(row=[e.path.name for e in screen.encounters].index("wolves.toml"))
        await pilot.pause()
        key = (DATA / "wolves.toml", (iriel,))
        await _until(pilot, lambda: key in screen.odds, "the estimate", tries=1200)
        shown = str(screen.query_one("#odds", Static).render())
        detail = str(screen.query_one("#encounter-detail", Static).render())
        rating = encounter_rating(DATA / "wolves.toml")  # written by `horizon sweep --rate`, if it was
        assert (f"Recommended: {picker.recommended_words(rating)}" in detail) if rating else ("Recommended" not in detail)
    character = solo_character(load_character(iriel, catalogue), catalogue.rules)
    expected = estimate(DATA / "wolves.toml", [character], runs=60, seed=picker.ESTIMATE_SEED, catalogue=catalogue)
    assert screen.odds[key].wins == expected.wins
    assert picker.odds_words(expected) in shown and "±" in shown and "60 battles" in shown


def test_odds_words_give_the_rate_and_half_the_interval():
    from horizon_tui.tools.sweep.summary import WinEstimate

    assert picker.odds_words(WinEstimate(248, 400, 0.62, 0.572, 0.666, 9)) == "62% ± 5 · 400 battles"
    assert picker.odds_words(WinEstimate(0, 400, 0.0, 0.0, 0.0095, 4)) == "0% ± 0.5 · 400 battles"


def test_a_rating_reads_as_a_recommended_level_and_size():
    from horizon_tui.content.encounters import Rating

    assert picker.recommended_words(Rating(4, 3, 0.6, 0.61, 400, 1)) == "level 4, party of 3"
    assert picker.recommended_words(None) == ""


# --- overrides need the GM ----------------------------------------------------------------

GREEDY = IRIEL.replace('difficulty = "III"\nkind = "damage"\ntarget = "enemy"',
                       'difficulty = "III"\nkind = "damage"\ntarget = "enemy"\nmultiplier = 50\nrange = 40', 1)


def test_r6_solo_play_uses_the_rules_multiplier_unless_the_house_rules_allow_overrides(catalogue, tmp_path):
    path = tmp_path / "greedy.toml"
    path.write_text(GREEDY)
    lash = load_character(path, catalogue).ability("Ember Lash")
    assert lash.multiplier == 50 and lash.range == 40
    solo = solo_ability(lash, catalogue.rules)
    assert ability_multiplier(solo, catalogue.rules) == 2  # difficulty III is ×2.0
    assert solo.range is None
    allowing = attrs.evolve(catalogue.rules, abilities=attrs.evolve(catalogue.rules.abilities, player_overrides=True))
    assert ability_multiplier(solo_ability(lash, allowing), allowing) == 50


async def test_r6_the_form_refuses_a_players_override_and_the_battle_uses_the_rules(saves, catalogue):
    path = write(saves, "greedy.toml", GREEDY)
    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("home", "e")  # Ember Lash
        form = app.screen
        assert isinstance(form, AbilityFormScreen)
        assert form.query_one("#ab-multiplier", Input).disabled and form.query_one("#ab-range", Input).disabled
        assert "Damage 194 – 208" in str(form.query_one("#ability-preview", Static).render())  # 97–104 × 2.0
        await pilot.press("escape")
        await pilot.pause()
        assert "needs the GM" in str(app.screen.query_one("#ability-detail", Static).render())
        app.start_battle(DATA / "wolves.toml", app.session.character)
        session = (await _battle(pilot, app)).session
        fought = session.party[0].character.ability("Ember Lash")
        assert fought.multiplier is None and fought.range is None
    assert load_character(path, catalogue).ability("Ember Lash").multiplier == 50  # the file keeps the GM's note


async def test_r6_a_campaign_that_allows_overrides_keeps_them(saves, catalogue):
    write(saves, "greedy.toml", GREEDY)
    rules = attrs.evolve(catalogue.rules, abilities=attrs.evolve(catalogue.rules.abilities, player_overrides=True))
    app = create_app(saves, attrs.evolve(catalogue, rules=rules), screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("home", "e")
        form = app.screen
        assert not form.query_one("#ab-multiplier", Input).disabled
        assert "Damage 4852 – 5202" in str(form.query_one("#ability-preview", Static).render())  # 97.04…–104.04… × 50


# --- one writer per character -------------------------------------------------------------------


async def test_a_character_open_elsewhere_asks_read_only_or_take_over(saves, catalogue, iriel):
    other = SaveLock.acquire(iriel, "bob in the player app")  # the other window
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await pilot.pause()
        assert isinstance(app.screen, QuestionDialog)
        assert "open in another session (bob in the player app since" in str(
            app.screen.query_one(".question", Static).render())
        await pilot.press("o")  # read-only
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen) and app.read_only
        character = app.session.character
        assert not app.commit(attrs.evolve(character, xp=1))  # refused, said, the file untouched
        assert load_character(iriel, catalogue).xp == 400
        assert read_holder(iriel).token == other.holder.token

        app.open_character(iriel)
        await pilot.pause()
        await pilot.press("t")  # take over
        await pilot.pause()
        assert not app.read_only and app.commit(attrs.evolve(character, xp=401))
        assert load_character(iriel, catalogue).xp == 401
        assert not other.holds()  # the other window's next save raises LockLost instead of writing

        app.open_character(iriel)
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen)  # our own lock: no question


async def test_esc_at_the_in_use_question_opens_nothing(saves, catalogue, iriel):
    SaveLock.acquire(iriel, "bob")
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.session is None


async def test_a_window_taken_over_stops_saving_and_says_so(saves, catalogue, iriel):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_character(iriel)
        await pilot.pause()
        SaveLock.acquire(iriel, "the other window", take_over=True)
        said = []
        app.notify = lambda message, **kwargs: said.append(message)
        assert not app.commit(attrs.evolve(app.session.character, xp=5))
        assert "taken over" in said[0] and app.read_only
    assert load_character(iriel, catalogue).xp == 400


# --- Load: import, export, battles ----------------------------------------------------------------


async def test_load_imports_a_character_from_anywhere_and_the_examples_are_offered(saves, catalogue, tmp_path):
    from horizon_tui.ui.player.screens.load import LoadScreen
    from horizon_tui.ui.player.screens.transfer import PathDialog

    elsewhere = tmp_path / "elsewhere" / "champion.toml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(CHAMPION)
    (tmp_path / "bad.toml").write_text('name = "Bad"\nxp = [\n')
    app = create_app(saves, catalogue, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, LoadScreen)
        await pilot.press("i")
        dialog = app.screen
        assert isinstance(dialog, PathDialog) and any(p.name == "brakka.toml" for p in dialog.choices)
        dialog.query_one(Input).value = str(elsewhere)
        await pilot.press("enter")
        await pilot.pause()
        assert [e.title for e in app.screen.entries] == ["Champion"]
        await pilot.press("i")
        app.screen.query_one(Input).value = str(tmp_path / "bad.toml")
        await pilot.press("enter")  # refused with its problem, nothing written
        await pilot.pause()
        await pilot.press("i", "tab")  # to the examples
        await pilot.press("enter")  # the first one
        await pilot.pause()
        assert sorted(e.title for e in app.screen.entries) == ["Brakka", "Champion"]
        assert any("Nothing was imported" in n.message for n in app._notifications)
    assert (saves / "characters" / "champion.toml").exists() and elsewhere.read_text() == CHAMPION


async def test_load_exports_a_save_byte_for_byte_and_asks_before_replacing(saves, catalogue, iriel, tmp_path):
    target = tmp_path / "out" / "iriel-copy.toml"
    app = create_app(saves, catalogue, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("x")
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert target.read_bytes() == iriel.read_bytes()
        target.write_text("mine")
        await pilot.press("x")
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "ConfirmDialog"
        await pilot.press("n")  # keep mine
        await pilot.pause()
    assert target.read_text() == "mine"


async def test_load_lists_battles_kept_and_finished_and_a_record_reads_in_full(saves, catalogue, won_by_the_champion):
    from horizon_tui.ui.player.screens.transfer import BattlesScreen, RecordScreen

    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await _a_battle_left_in_progress(pilot, app, path)
        app.start_battle(DATA / "goblin_ambush.toml", app.session.character)
        await pilot.pause()
        await pilot.press("s")  # the crypt is kept aside; the goblins are fought to the end
        await _battle(pilot, app)
        await _fight(pilot, app)
        await pilot.press("enter")
        await pilot.pause()
        app.action_load_character()
        await pilot.pause()
        await pilot.press("b")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, BattlesScreen)
        assert [(b.kind, b.encounter_name) for b in screen.files] == [
            ("kept", "The Crypt Under the Chapel"), ("record", "Goblin Ambush")]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordScreen)
        assert "The battle begins" in str(app.screen.query_one("#record-text", Static).render())
        await pilot.press("escape", "up", "enter")  # the kept battle resumes
        screen = await _battle(pilot, app)
        assert screen.session.encounter == "crypt"  # resumed: named by id
        assert records.kept_battles(saves) == []


async def test_over_ssh_import_and_export_stay_in_the_players_own_folder(saves, catalogue, iriel, tmp_path,
                                                                          monkeypatch):
    """A hosted app runs as the host's user, so "anywhere" would be the host's files and
    the other players' saves. Over SSH a typed path must stay in the player's folder (HOME), and
    no server path is shown."""
    from horizon_tui.play.hosting import ENV_SESSION
    from horizon_tui.ui.player.screens.transfer import PathDialog

    home = saves.parent
    other = tmp_path.parent / f"{tmp_path.name}-bob" / "champion.toml"  # another player's save
    other.parent.mkdir()
    other.write_text(CHAMPION)
    monkeypatch.setenv(ENV_SESSION, str(tmp_path / "live.json"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    (home / "mine.toml").write_text(CHAMPION)
    app = create_app(saves, catalogue, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("i")
        dialog = app.screen
        assert isinstance(dialog, PathDialog) and dialog.query_one(Input).value == ""
        assert all("/" not in str(o.prompt) for o in dialog.query_one("#path-choices").options)
        for outside in (str(other), "../" * 6 + str(other).lstrip("/"), "~/../" + other.parent.name + "/champion.toml"):
            dialog.query_one(Input).value = outside
            await pilot.press("enter")
            await pilot.pause()
            assert any("only files in your own folder" in n.message for n in app._notifications)
            assert not (saves / "characters" / "champion.toml").exists()
            app._notifications.clear()
            await pilot.press("i")
            dialog = app.screen
        dialog.query_one(Input).value = "mine.toml"  # relative: from the player's own folder
        await pilot.press("enter")
        await pilot.pause()
        assert (saves / "characters" / "champion.toml").exists()
        await pilot.press("x")
        assert app.screen.query_one(Input).value in ("iriel.toml", "champion.toml")  # a name, no server path
        stolen = tmp_path.parent / f"{tmp_path.name}-stolen.toml"
        app.screen.query_one(Input).value = str(stolen)
        await pilot.press("enter")
        await pilot.pause()
        assert not stolen.exists()
        assert any("only files in your own folder" in n.message for n in app._notifications)
        assert all(str(saves) not in n.message for n in app._notifications)  # no server path


async def test_a_battle_save_that_cant_be_read_is_not_offered_to_resume(saves, catalogue):
    # Found by the player-app helper: 'Resume it?' was asked of an unreadable battle save, naming it
    # "(unreadable save)"; resuming could only fail.
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, path)
        tampered(saves, save, setup='{"kind": "horizon-battle", "encounter": ' + "[" * 5000)
        app.start_battle(DATA / "wolves.toml", app.session.character)
        await pilot.pause()
        assert isinstance(app.screen, QuestionDialog)
        question = str(app.screen.query_one(".question", Static).render())
        assert "can't be read" in question and "Wolves at Dusk" in question
        assert [a[0] for a in app.screen.answers] == ["new"]  # nothing to resume
        await pilot.press("s")  # the new one starts; the damaged battle is kept aside, not deleted
        screen = await _battle(pilot, app)
        assert Path(screen.session.encounter).name == "wolves.toml"
    [kept] = records.kept_battles(saves)
    assert kept.problem and kept.turns > 0  # listed with what is wrong, its inputs still there


async def test_a_saved_battle_that_no_longer_replays_is_reported_without_the_saves_folder(saves, catalogue):
    """Over SSH the saves folder is the host's: the player is told the save's name and what is
    wrong, never where the host keeps it."""
    from horizon_tui.ui.battle import flow

    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        save = await _a_battle_left_in_progress(pilot, app, path)
        data = stored(saves, save)
        tampered(saves, save, checks=json.dumps({k: data[k] for k in ("last_event", "log_sha256")}
                                                | {"log_length": data["log_length"] + 1000}))
        app.clear_notifications()
        flow.resume(app)
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert any(m.startswith("champion.json: log_length: the battle replays differently") for m in said), said
        assert not any(str(saves) in m for m in said)


async def test_the_player_is_told_when_their_saves_of_before_couldnt_go_into_the_hosts_database(
        tmp_path, sqlite_url, monkeypatch, catalogue):
    """A host sharing one database takes in what a player's folder kept before; a folder database
    it can't open (garbage named like it) is left as it is, and the menu says which file and why."""
    saves = tmp_path / "users" / "alice" / "saves"
    saves.mkdir(parents=True)
    (saves / DATABASE_FILE).write_bytes(b"\x00not a database\xff" * 64)
    monkeypatch.setenv(ENV_DATABASE, sqlite_url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    monkeypatch.setenv(ENV_SHARED_SAVES, str(saves))
    monkeypatch.setattr(host_shared, "_checked", set())
    monkeypatch.setattr(host_shared, "_not_imported", {})
    app = create_app(saves, catalogue)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            told = [n for n in app._notifications if n.title == "Saves of before not imported"]
            assert len(told) == 1, [n.message for n in app._notifications]
            assert str((saves / DATABASE_FILE).resolve()) in told[0].message
            assert "not an SQLite database" in told[0].message
            await pilot.press("h")  # another screen and back: said once
            await pilot.press("escape")
            await pilot.pause()
            assert len([n for n in app._notifications if n.title == "Saves of before not imported"]) == 1
    finally:
        host_shared.shared_database(sqlite_url).close()
        host_shared.shared_database.cache_clear()
