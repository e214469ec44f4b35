"""What a GM broke by hand with hostile input: pastes far longer than any file may hold, typed
where the GM tool takes a few words."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from horizon_tui.engine.battle import hp, ident, team
from horizon_tui.engine.persist import session_to_dict
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dialogs import PromptDialog
from tests.gm.test_gm_battle import SIZE, start_goblin_ambush


async def test_a_huge_paste_in_a_reason_never_leaves_the_fight_ahead_of_its_file(session, catalogue):
    """By hand: D on a combatant, a 150,000-character paste as the reason, ctrl+s. The damage was
    dealt on screen but "Not saved" (a text longer than a campaign file holds), and every input
    after it failed to save as well: the rest of the fight was lost on quitting."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        enemy = next(e for e in screen.battle.active.values() if team(e) == "enemies")
        hand(screen).selected = ident(enemy).id
        before = hp(enemy).hp
        await pilot.press("D", "5", "tab")
        dialog = app.screen
        assert isinstance(dialog, PromptDialog)
        reason = dialog.query_one("#prompt-reason", Input)
        reason.post_message(events.Paste("x" * 150_000))
        await pilot.pause()
        assert len(reason.value) <= 500  # a reason is a few words: the paste is refused
        await pilot.press(*"pit", "ctrl+s")
        await pilot.pause()
        assert hp(enemy).hp == before - 5
        saved = app.campaign.battle["inputs"]
        assert saved == session_to_dict(screen.session, app.host.store.catalogue)["inputs"]
        assert saved[-1]["action"]["reason"] == "pit"


# --- damaged campaign files -------------------------------------------------------------------

import json  # noqa: E402

import pytest  # noqa: E402

from horizon_tui.errors import DataError  # noqa: E402
from horizon_tui.campaign.campaign_files import CampaignStore, decode, encode  # noqa: E402
from tests.gm.conftest import current, legacy_file, stored  # noqa: E402
from tests.gm.battle_parts import hand, is_gm_fight  # noqa: E402


@pytest.mark.parametrize(("change", "key", "said"), [
    (lambda d: d.update(rests="a"), "rests", "a whole number"),
    (lambda d: d.update(day="x"), "day", "a whole number"),
    (lambda d: d.update(seed="x"), "seed", "a whole number"),
    (lambda d: d.update(party={"a": 1}), "party", "a list"),
    (lambda d: d.update(npcs="Oswin"), "npcs", "a list"),
    (lambda d: d.update(log=["x"]), "log.0", "a table"),
    (lambda d: d["log"][0].update(day="abc"), "log.0.day", "a whole number"),
    (lambda d: d["log"][0].update(data=[1, 2]), "log.0.data", "a table"),
    (lambda d: d.update(rules=[1]), "rules", "a table"),
    (lambda d: d["party"][0].pop("character"), "party.0.character", "missing"),
    (lambda d: d.update(name=None), "name", "a text"),
])
def test_a_campaign_of_the_wrong_shape_names_the_key_and_what_it_should_be(session, change, key, said):
    """By hand, the campaign list said "invalid literal for int() with base 10: 'a: missing or of
    the wrong type" for `"rests": "a"`: Python's words where the key should be, and no key."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    change(data)
    with pytest.raises(DataError) as caught:
        decode(json.dumps(data).encode(), session.store.catalogue, "c.json")
    problem = caught.value.problems[0]
    assert problem.key == key and said in problem.message, problem
    assert "invalid literal" not in problem.message and "indices" not in problem.message


# --- house rules no screen can draw ---------------------------------------------------------------


def test_a_level_table_of_a_billion_slots_is_refused_with_what_is_allowed(session):
    """By hand: the rules editor took 8+ slots = 1,000,000,000 (said "these rules hold together"),
    saved it, and the loadout of a level-8 character then hung the app filling gigabytes."""
    from horizon_tui.campaign import house_rules

    data = house_rules.set_cell(session.defaults, ("levels", 7, "slots"), "1000000000")
    problems = house_rules.problems(data)
    assert problems and "levels.8.slots" in problems[0] and "ranges.slots" in problems[0], problems
    charges = house_rules.set_cell(session.defaults, ("levels", 7, "charges", "II"), "1000000000")
    assert any("ranges.slots" in p for p in house_rules.problems(charges))
    assert house_rules.problems(house_rules.set_cell(session.defaults, ("levels", 7, "slots"), "40")) == []


@pytest.mark.parametrize("rules", [{"levels": "x"}, {"levels": [{"level": 1, "slots": 10**9, "charges": {},
                                                                 "free_action_points": 1}]}])
async def test_a_campaign_whose_house_rules_do_not_hold_is_listed_as_damaged_not_a_crash(session, catalogue, rules):
    """By hand: a campaign whose rules had 10^9 slots (or a level table that was a text) opened, then
    the first screen that read its rules crashed the app (exit 70, a crash report)."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    data["rules"] = rules
    saves = session.store.saves_dir.parent / "old-saves"
    legacy_file(saves, data)
    store = CampaignStore(saves, catalogue)
    with pytest.raises(DataError) as caught:
        store.load("lantern-road")
    assert "rules" in str(caught.value) and "levels" in str(caught.value)
    [entry] = store.entries()
    assert entry.problem and "levels" in entry.problem
    store.close()
    app = create_gm_app(saves, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.host.gm is None  # not opened: the campaign list says why
    assert app.return_code in (None, 0)


@pytest.mark.parametrize(("field", "value", "key"), [
    ("level", 0, "npcs.0.level"), ("attributes", {"physical": -5}, "npcs.0.attributes.physical"),
    ("xp", -1, "npcs.0.xp"), ("earned_xp", -3, "npcs.0.earned_xp"),
])
def test_an_npc_in_a_file_is_held_to_the_ranges_its_editor_is(session, field, value, key):
    """By hand: a campaign file with an NPC of level 0 or physical -5 opened (the editor refuses
    both), and showed "level 0" on the dashboard."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    data["npcs"][0][field] = value
    with pytest.raises(DataError) as caught:
        decode(json.dumps(data).encode(), session.store.catalogue, "c.json")
    assert caught.value.problems[0].key == key and "allowed" in caught.value.problems[0].message


async def test_a_damaged_campaign_can_be_set_aside_from_the_list(session, catalogue):
    """INTERFACES: damaged files are listed with the reason and can be moved to damaged/ beside
    them. By hand the campaign list had no key for it: a truncated campaign stayed in the list, and
    its name could not be used again."""
    from horizon_tui.ui.gm.screens.campaigns import CampaignsScreen
    from horizon_tui.ui.dialogs.confirm import ConfirmDialog

    text = current(session).decode()
    broken = legacy_file(session.store.saves_dir, text[: len(text) // 2], "broken.json")
    app = create_gm_app(session.store.saves_dir, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CampaignsScreen)
        names = [e.slug for e in screen.entries]
        good, bad = names.index("lantern-road"), names.index("broken")
        screen.query_one("#campaigns").move_cursor(row=good)
        await pilot.press("m")
        assert app.screen is screen and stored(session) == current(session)  # a good one is never moved
        screen.query_one("#campaigns").move_cursor(row=bad)
        await pilot.press("m")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")
        assert broken.exists()
        await pilot.press("m")
        await pilot.press("y")
        await pilot.pause()
        assert not broken.exists() and (broken.parent / "damaged" / "broken.json").exists()
        assert [e.slug for e in screen.entries] == ["lantern-road"]


@pytest.mark.parametrize(("state", "key"), [
    ({"hp": "x", "max_hp": 10, "presence": "active"}, "carried.Sefa.hp"),
    ({"hp": 3, "max_hp": 10, "presence": "asleep"}, "carried.Sefa.presence"),
    ({"hp": 3, "max_hp": 10, "presence": "active", "charges": {"IX": 1}}, "carried.Sefa.charges"),
    ({"hp": 3, "max_hp": 10, "presence": "active", "effects": [{"effect": "stun", "turns": "two"}]},
     "carried.Sefa.effects.0.turns"),
    ({"hp": 3, "max_hp": 10, "presence": "active", "cooldowns": {"Volley": []}}, "carried.Sefa.cooldowns.Volley"),
])
async def test_what_the_last_fight_left_is_read_with_its_types(session, catalogue, state, key):
    """By hand: a campaign file whose `carried` had "hp": "x" opened, and the dashboard crashed the
    app (exit 70: '<' not supported between 'str' and 'int')."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    data["carried"] = {"Sefa": state}
    with pytest.raises(DataError) as caught:
        decode(json.dumps(data).encode(), session.store.catalogue, "c.json")
    assert caught.value.problems[0].key.startswith(key), caught.value.problems[0]
    good = {"hp": 3, "max_hp": 10, "presence": "active", "charges": {"II": 1}, "cooldowns": {"Volley": 2},
            "effects": [{"effect": "bleeding", "turns": 2, "magnitude": "5", "stat": None}]}
    data["carried"] = {"Sefa": good}
    assert decode(json.dumps(data).encode(), session.store.catalogue, "c.json").carried == {"Sefa": good}


@pytest.mark.parametrize(("roster", "key"), [("party", "party.4"), ("npcs", "npcs.2")])
def test_two_of_one_name_in_a_roster_are_refused_on_read(session, roster, key):
    """By hand: a campaign file with Sefa twice in the party opened with five members; every
    change to one Sefa (XP, a level-up, remove) went to both, or to the first only."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    data[roster].append(data[roster][0])
    with pytest.raises(DataError) as caught:
        decode(json.dumps(data).encode(), session.store.catalogue, "c.json")
    assert caught.value.problems[0].key == key and "already" in caught.value.problems[0].message


async def test_export_all_goes_over_the_days_the_log_has_not_every_number_up_to_today(session, catalogue):
    """By hand: a campaign file at day 10^39 opened, and the session log's M (export all) hung the
    app building a list of every day from 1."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    data["day"] = 10**39
    saves = session.store.saves_dir.parent / "old-saves"
    legacy_file(saves, data)
    app = create_gm_app(saves, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l")
        await pilot.press("M")
        await pilot.pause()
        [path] = (saves / "campaigns").glob("*all-days*.md")
        assert path.read_text().startswith("# Lantern Road") and "Iriel" in path.read_text()


# --- quitting with work not yet saved -----------------------------------------------------------------


async def test_quitting_or_leaving_an_npc_half_typed_asks_first(session, catalogue):
    """By hand: n (new NPC), a name and notes typed, then esc (or ctrl+q): the NPC was gone
    without a question, where the level-up and the rules editor ask before forgetting."""
    from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen
    from horizon_tui.ui.dialogs.confirm import ConfirmDialog

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, NpcEditorScreen)
        await pilot.press("escape")  # nothing typed: leaves at once
        assert not isinstance(app.screen, NpcEditorScreen)
        await pilot.press("n", *"Bram")
        editor = app.screen
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmDialog) and "Bram" in app.screen.question
        await pilot.press("n")  # keep editing
        assert app.screen is editor
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmDialog) and "NPC" in app.screen.question
        await pilot.press("n")
        assert app.screen is editor and app.is_running
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.campaign.npc("Bram") is not None
        await pilot.press("ctrl+q")  # nothing unsaved: quits at once
        await pilot.pause()
    assert app.return_code in (None, 0)


async def test_quitting_with_house_rules_not_saved_asks_first(session, catalogue):
    from horizon_tui.ui.gm.screens.rules_editor import RulesEditorScreen
    from horizon_tui.ui.dialogs.confirm import ConfirmDialog

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, RulesEditorScreen)
        await pilot.press("plus")  # a level added: a draft not saved
        await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmDialog) and "house rules" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


def test_the_rules_editor_names_a_level_row_by_its_level_not_its_index(session):
    """By hand: editing the row shown as level 2, the edit bar said `levels.1.slots =` and a bad
    8+ row was reported as `levels.7.slots`, while the Changes tab and the log said levels.8."""
    from horizon_tui.campaign import house_rules

    data = house_rules.set_cell(session.defaults, ("levels", 7, "slots"), "1000")
    assert house_rules.problems(data)[0].startswith("levels.8.slots:")
    assert house_rules.diff(session.defaults, data)[0][0] == "levels.8.slots"
    assert house_rules.shown_key(data, ("levels", 1, "charges", "II")) == "levels.2.charges.II"
    assert house_rules.shown_key(data, ("turns", "min_move")) == "turns.min_move"


async def test_the_house_rules_export_as_a_rules_file_horizon_rules_reads(session, catalogue):
    """By hand: house rules edited in the GM tool could not be seen with `horizon rules` (its
    --rules-file reads a rules.toml; the campaign keeps them inside its JSON). x in the rules
    editor writes the campaign's rules as one, beside the campaign."""
    from horizon_tui.content.catalogue import load_ruleset
    from horizon_tui.campaign import house_rules
    from horizon_tui.campaign import changes as campaign_changes

    data = house_rules.set_cell(session.defaults, ("levels", 7, "slots"), "12")
    changes = house_rules.diff(session.defaults, data)
    session.apply(lambda c: campaign_changes.set_rules(c, house_rules.overrides(session.defaults, data), changes), "rules")
    session.close()
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "x")
        await pilot.pause()
        path = session.store.folder / "lantern-road" / "rules.toml"
        assert path.exists()
        rules = load_ruleset(path)
        assert rules == app.host.gm.rules and rules.levels[7].slots == 12
        from horizon_tui.tools.validate import validate_paths

        problems, count = validate_paths([session.store.saves_dir])
        assert problems == [] and count >= 2  # `horizon validate SAVES` reads it as a rules file


async def test_leaving_a_battles_xp_award_unawarded_asks_first(session, catalogue):
    """By hand: at the end of a fight the XP screen opened with the R-14 shares, and one esc (as
    after every other screen) left it: the battle's XP was never awarded, without a word."""
    from horizon_tui.ui.gm.screens.experience import ExperienceScreen
    from horizon_tui.ui.dialogs.confirm import ConfirmDialog

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.push_screen(ExperienceScreen({"Iriel": 10, "Brakka": 10}, "Battle: Goblin Ambush"))
        await pilot.pause()
        award = app.screen
        await pilot.press("escape")
        assert isinstance(app.screen, ConfirmDialog) and "Iriel 10" in app.screen.question
        await pilot.press("n")
        assert app.screen is award
        await pilot.press("ctrl+u")  # level-up leaves for the sheet: not before the award is given
        assert app.screen is award
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.campaign.member("Iriel").character.xp == 10
        await pilot.press("escape")  # awarded: leaves at once
        assert not isinstance(app.screen, (ExperienceScreen, ConfirmDialog))
        await pilot.press("x", "escape")  # an award typed by hand: nothing preset, nothing asked
        assert not isinstance(app.screen, (ExperienceScreen, ConfirmDialog))


def test_the_largest_battlefield_is_held_to_the_limits_a_map_side_is(session):
    """By hand: turns.max_size = 1,000,000,000 passed the rules editor ('these rules hold
    together'), and the encounter builder and placement then offered maps of that side."""
    from horizon_tui.campaign import house_rules

    data = house_rules.set_cell(session.defaults, ("turns", "max_size"), "1000000000")
    assert any("turns.max_size" in p and "ranges.field_side" in p for p in house_rules.problems(data))
    assert house_rules.problems(house_rules.set_cell(session.defaults, ("turns", "max_size"), "80")) == []


async def test_the_next_day_from_the_dialogue_screen_asks_as_the_dashboard_does(session, catalogue):
    """By hand: ctrl+n on the dialogue screen ended the day at once (a night's rest for the party,
    the daily limits reset), where t on the dashboard asks first."""
    from horizon_tui.ui.gm.screens.dialogue import DialogueScreen
    from horizon_tui.ui.dialogs.confirm import ConfirmDialog

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        assert isinstance(app.screen, DialogueScreen)
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, ConfirmDialog) and "day 2" in app.screen.question
        await pilot.press("n")
        assert app.campaign.day == 1 and isinstance(app.screen, DialogueScreen)
        await pilot.press("ctrl+n", "y")
        await pilot.pause()
        assert app.campaign.day == 2 and isinstance(app.screen, DialogueScreen)


def test_two_campaign_names_of_one_file_name_are_two_campaigns(store):
    """By hand: a campaign named "🐉" (file campaign.json), then one named "🦄": refused with
    "a campaign called '🦄' exists already (campaign.json)", which was not so. Names that make the
    same file name (emoji, accents, punctuation) get a file of their own; only the same name is refused."""
    first, _ = store.create("🐉", seed=1)
    second, _ = store.create("🦄", seed=2)
    assert (first, second) == ("campaign", "campaign-2")
    assert {e.name for e in store.entries()} == {"🐉", "🦄"}
    assert store.find("🦄") == second
    with pytest.raises(ValueError, match="exists already"):
        store.create("🦄 ")
    third, _ = store.create("Iron Coast!", seed=3)
    fourth, _ = store.create("iron coast?", seed=4)
    assert (third, fourth) == ("iron-coast", "iron-coast-2")


async def test_a_fight_without_a_map_walks_no_one_on_the_hidden_map(session, catalogue):
    """By hand: in a fight without a map (m), the status line said "arrows/hjklyubn/numpad move",
    arrows walked the character on the map no one could see (spending its move), and t (travel)
    said "pick a cell" with no cell shown. Now those keys say why not, and the line names the keys
    that work there."""
    from horizon_tui.engine.battle import pos
    from tests.gm.test_tracker import start

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, key="m")
        await pilot.press("x")
        await pilot.pause()
        me = screen.me
        assert me is not None and hand(screen).mapless
        assert "move" not in str(screen.status_text()) and "D" in str(screen.status_text())
        where = pos(me)
        await pilot.press("left", "down", "l")
        assert pos(me) == where and "without a map" in screen.prompt
        screen.prompt = ""
        await pilot.press("t")
        assert screen.mode == "move" and "without a map" in screen.prompt
        screen.prompt = ""
        await pilot.press("a")  # attacks still pick from a list (tab), or say who is out of reach
        assert "without a map" not in screen.prompt


def test_the_undo_history_of_a_long_campaign_keeps_its_steps_small(session):
    """Measured: a campaign of 20,000 log lines is a 3.3 MB file, and undo kept the whole file's
    bytes for each of its 500 steps: 1.6 GB for one evening's battle inputs. The steps are kept
    compressed now, and undo still puts the file back byte for byte."""
    import attrs

    from horizon_tui.campaign import changes as campaign_changes
    from horizon_tui.campaign.model import LogEntry

    lines = tuple(LogEntry(1, "roll", f"1d20 = {i}", {"expr": "1d20", "total": i}) for i in range(3000))
    session.apply(lambda c: attrs.evolve(c, log=c.log + lines), "a long log")
    before = stored(session)
    session.apply(lambda c: campaign_changes.roll_dice(c, "1d20")[0], "roll")
    row = session.store.repository.change(session.slug, session.history[-1].seq)
    assert len(row.to_json()) < 300 < len(before) // 100  # the roll's row: its line and the draw count
    session.undo()
    assert stored(session) == before == current(session)


async def test_ctrl_z_with_a_form_half_filled_neither_drops_it_nor_undoes_behind_it(session, catalogue):
    """By hand: ctrl+z in the NPC editor (to take back a typo) closed the editor, the NPC typed so
    far gone, and undid the campaign's last action (the NPC before). In the rules editor it threw the
    draft away. Now ctrl+z there says to save or leave the form first."""
    from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen
    from horizon_tui.ui.gm.screens.rules_editor import RulesEditorScreen

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t", "y")  # something to undo
        await pilot.pause()
        assert app.campaign.day == 2
        await pilot.press("n", *"Bram", "ctrl+z")
        await pilot.pause()
        assert isinstance(app.screen, NpcEditorScreen) and app.campaign.day == 2
        await pilot.press("escape", "y")
        await pilot.press("g", "plus", "ctrl+z")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, RulesEditorScreen) and editor.draft != editor.saved and app.campaign.day == 2
        await pilot.press("escape", "y")
        await pilot.pause()
        await pilot.press("ctrl+z")  # from the dashboard it undoes as ever
        await pilot.pause()
        assert app.campaign.day == 1


async def test_the_tracker_shows_initiative_totals_to_one_decimal_not_cut_down(session, catalogue):
    """By hand: a fight without a map listed Iriel 15, Goblin Archer 15, Snikk 15, Morwen 15 in
    an order nothing on screen explained: the totals (initiative + 1d6, R-8) were cut to whole
    numbers (int(), so 15.7 showed 15). They show as R-2 shows numbers, one decimal, half up."""
    from fractions import Fraction

    from horizon_tui.engine import overrides as ov
    from horizon_tui.rules.numbers import one_decimal

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        values = ov.initiative_values(screen.battle)
        assert any(Fraction(str(v)).denominator != 1 for v in values.values()), "the test needs a fractional total"
        text = str(hand(screen).tracker_text(40))
        for cid, value in values.items():
            name = ident(screen.battle[cid]).name
            line = next(line for line in text.splitlines() if line[2:].startswith(name[:10]))
            assert f" {one_decimal(Fraction(str(value))):g} " in line, (line, value)


async def test_an_npc_the_campaign_cannot_hold_keeps_its_editor_open(session, catalogue):
    """By hand: an NPC whose notes were a 150,000-character paste passed the editor's checks, the
    editor closed, and the save was refused ("Not saved": longer than a campaign file holds): the
    whole NPC was gone. Now the editor stays open with the reason, and nothing is lost."""
    from textual.widgets import TextArea

    from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", *"Bram")
        editor = app.screen
        editor.query_one("#npc-notes", TextArea).text = "x" * 150_000
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is editor and isinstance(editor, NpcEditorScreen)
        assert app.campaign.npc("Bram") is None
        editor.query_one("#npc-notes", TextArea).text = "keeps the inn"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, NpcEditorScreen) and app.campaign.npc("Bram").notes == "keeps the inn"


async def test_every_dashboard_key_in_the_hint_shows_at_80_columns(session, catalogue):
    """By hand at 80×24: the dashboard's hint of keys wrapped its two long lines into four and
    showed three ('ctrl+z undo · q quit' cut off, 'a' for a table not named at all)."""
    from horizon_tui.ui.gm.screens.dashboard import KEYS

    lines = KEYS.splitlines()
    assert len(lines) <= 3 and all(len(line) <= 78 for line in lines), [len(line) for line in lines]
    for key in ("b battle", "a at the table", "x XP", "ctrl+z undo", "q quit", "i import", "o campaigns"):
        assert key in KEYS
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        hint = app.screen.query_one("#gm-keys")
        assert hint.region.height == len(lines)


def test_a_roll_whose_total_no_file_can_hold_says_so_in_the_dice_words(session):
    """By hand: r, 9999999999*… six times, enter: 'Not saved — iron-coast.json: (file): a number
    has 60 digits', a message about the file for a roll. The roll is refused with its own words."""
    from horizon_tui.campaign import changes as campaign_changes

    with pytest.raises(ValueError) as caught:
        campaign_changes.roll_dice(session.campaign, "*".join(["9999999999"] * 6))
    assert "60 digits" in str(caught.value) and "files.digits" in str(caught.value)
    campaign, total, _ = campaign_changes.roll_dice(session.campaign, "2d6+3")
    assert 5 <= total <= 15 and campaign.log[-1].kind == "roll"


async def test_a_fight_taken_over_by_another_window_stops_in_this_one(session, catalogue):
    """By hand, two GM windows: the second took the campaign over while the first was in a fight;
    the first went on playing it (its AI turns too), every input 'Not saved'. The fight now leaves
    this window at the first input it can't save, saying where it goes on."""
    from horizon_tui.storage.lock import SaveLock

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        other = SaveLock.acquire(session.path, "Ada's window", take_over=True)
        try:
            before = stored(session)
            await pilot.press(".")  # the turn's end can't be saved
            await pilot.pause()
            await pilot.pause()
            assert not is_gm_fight(app.screen) and app.host.gm.read_only
            assert screen._ai_timer is None
            assert stored(session) == before
        finally:
            other.release()
