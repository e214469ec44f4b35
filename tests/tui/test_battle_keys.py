"""The battle screen through its keys (Pilot): the targeting panel's numbers are the engine's
(R-7, R-9), refusals come at the key before any cursor, the log scrolls back and searches, the
keymap file rebinds keys by id and reports bad entries, `?` lists the battlefield's keys, and a
changed ability form asks before esc throws it away."""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import replace

from horizon_tui.engine import odds
from horizon_tui.engine.battle import cid, pos
from horizon_tui.engine.sideview import targetable
from horizon_tui.paths import user_data_dir
from horizon_tui.storage import records
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.battle.dialogs import ChoiceDialog, MessageLog
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.dialogs.help import HelpScreen

from .conftest import write
from .test_battle_flow import CHAMPION, _open_battle


def _text(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def _my_turn_in_sight(pilot, screen: BattleScreen) -> None:
    """Skip the enemies' turns until it is the champion's turn with a foe in sight."""
    for _ in range(30):
        if screen.me is not None and targetable(screen.battle, screen.me):
            return
        await pilot.press("x" if screen.me is None else "full_stop")
    raise AssertionError("no foe came into sight")


@asynccontextmanager
async def champion_in_sight(saves, catalogue, size=(120, 40)):
    """The champion's turn in the goblins' ambush with a foe in sight: (pilot, app, screen)."""
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=size) as pilot:
        screen = await _open_battle(pilot, app, path, "goblin_ambush.toml")
        await _my_turn_in_sight(pilot, screen)
        yield pilot, app, screen


async def test_r9_the_targeting_panel_shows_the_engines_hit_chance_and_damage_range(saves, catalogue):
    async with champion_in_sight(saves, catalogue) as (pilot, app, screen):
        me = screen.me
        await pilot.press("a")
        assert screen.mode == "target"
        foe = screen.battle.at(screen.cursor)
        o = odds.attack_odds(screen.battle, me, foe)
        panel = _text(screen, "#unit")
        # hit = clamp(70% + 2% × (accuracy − evasion), 10%, 95%); the range over the longbow's dice
        assert f"hit {float(o.hit) * 100:.0f}%" in panel
        assert f"dmg {o.damage[0]}–{o.damage[1]}" in panel
        assert "reach 45" in _text(screen, "#status")  # a longbow's reach for this archer
        await pilot.press("enter")
        assert screen.mode == "move"
        assert any(e.type == "attack" and e.actor == "champion" for e in screen.battle.log)


async def test_a_free_action_after_acting_is_refused_at_the_key(saves, catalogue):
    async with champion_in_sight(saves, catalogue) as (pilot, app, screen):
        await pilot.press("a", "enter")  # the attack spends the action
        if screen.me is None or screen.battle.over:
            return  # the shot ended the fight or the turn: nothing left to refuse
        before = len(screen.battle.log)
        await pilot.press("f")
        assert not isinstance(app.screen, ChoiceDialog)  # no menu opened
        assert _text(screen, "#status") == "Free action: already acted this turn"
        await pilot.press("a")
        assert screen.mode == "move" and "already acted" in _text(screen, "#status")
        assert len(screen.battle.log) == before  # nothing spent


async def test_the_log_scrolls_back_and_searches(saves, catalogue):
    async with champion_in_sight(saves, catalogue, size=(80, 24)) as (pilot, app, screen):
        await pilot.press("m")
        log = app.screen
        assert isinstance(log, MessageLog) and log.lines == screen.log_lines()
        assert log.lines[0].startswith("The battle begins")
        await pilot.press("slash", *"round")
        shown = log.query_one("#log-all").lines
        assert shown and all("round" in "".join(s.text for s in line).lower() for line in shown)
        assert "match" in str(log.query_one("Vertical").border_title)
        await pilot.press("escape", "escape")  # out of the search, then out of the log
        assert app.screen is screen


async def test_the_keymap_file_rebinds_by_id_and_reports_bad_entries(saves, catalogue):
    folder = user_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keymap.toml").write_text('[battle]\nlook = "v"\nup = "nosuchkey"\nlok = "q"\n', encoding="utf-8")
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    notes = []
    app.notify = lambda message, **kw: notes.append((message, kw))  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_battle(pilot, app, path, "wolves.toml")
        warned = "\n".join(m for m, _ in notes)
        assert "keymap.toml:3: battle.up: 'nosuchkey': unknown key name" in warned
        assert "battle.lok: no such key command" in warned and "did you mean 'battle.look'" in warned
        await pilot.press("x")
        await pilot.press("semicolon")
        assert screen.mode == "move"  # ; no longer looks
        await pilot.press("v")
        assert screen.mode == "look"
        start = screen.cursor
        await pilot.press("up")  # the bad entry for "up" left its default keys in place
        assert screen.cursor == (start[0], max(0, start[1] - 1))


async def test_help_lists_the_battlefield_keys_and_keeps_H(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_battle(pilot, app, path, "wolves.toml")
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = [k for g in app.screen.groups for k in g.keys]
        described = {k.description: k.keys for k in rows}
        assert "Move / cursor ↖" in described and "Look" in described and "End turn" in described
        assert described["Overview of the whole battlefield"] == "X"
        note = str(app.screen.query_one(".help-note").render())
        assert "[H]" in note and "keymap.toml" in note


async def test_X_shows_the_whole_field_as_the_viewer_knows_it_and_esc_closes_it(saves, catalogue):
    from horizon_tui.ui.battle.overview import BattleOverview

    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_battle(pilot, app, path, "sunken_temple.toml")  # 50×50
        known = screen.known()
        shown = {u.id for u in known.units}
        unseen = [e for e in screen.battle.combatants() if cid(e) not in shown]
        await pilot.press("X")
        overview = app.screen
        assert isinstance(overview, BattleOverview)
        sx, sy = overview.step
        rows = overview.query_one("#overview-map").text().splitlines()
        assert len(rows) <= 24 - 3 and all(len(r) <= 80 - 2 for r in rows)  # fitted at 80×24
        assert sx == 1 and len(rows) == -(-50 // sy)  # one column per cell; rows condensed
        assert overview.query_one("#overview-map").region.bottom <= 24
        assert "wall" in str(overview.query_one("#overview-legend").render())
        for u in known.units:  # every unit it may know is drawn (a foe over a friend in a block)
            x, y = u.position
            assert rows[y // sy][x // sx] != " "
        assert unseen, "the temple hides someone at the start"
        for e in unseen:  # nobody unseen: its block shows no unit glyph unless a known one is there
            x, y = pos(e)
            here = [u for u in known.units if (u.position[0] // sx, u.position[1] // sy) == (x // sx, y // sy)]
            assert rows[y // sy][x // sx] in " .#," or here
        units = {(u.position[0] // sx, u.position[1] // sy) for u in known.units}
        assert sum(ch not in " .#," for row in rows for ch in row) == len(units)  # nothing else drawn
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("X", "X")  # X closes it too
        assert app.screen is screen


async def test_esc_on_a_changed_ability_form_asks(saves, catalogue, iriel):
    from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen

    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, AbilityFormScreen)
        await pilot.press("escape")  # nothing typed: it just closes
        assert not isinstance(app.screen, AbilityFormScreen)
        await pilot.press("n")
        form = app.screen
        await pilot.press(*"Dusk Step", "escape")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # keep editing
        assert app.screen is form
        await pilot.press("escape", "y")
        await pilot.pause()
        assert not isinstance(app.screen, (AbilityFormScreen, ConfirmDialog))


async def test_the_battle_opens_with_the_character_in_view_on_a_50x50_map(saves, catalogue):
    from horizon_tui.ui.battle.widget import BattlefieldView

    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_battle(pilot, app, path, "sunken_temple.toml")
        await pilot.pause()
        view = screen.query_one("#map", BattlefieldView)
        # nothing focused takes a move key (a focused scroller once took the arrows, PgUp, Home)
        assert screen.focused is None
        assert all(screen.active_bindings[k].node is screen for k in ("up", "home", "pageup", "end", "8", "l"))
        me = screen.battle["champion"]
        x, y, w, h = view.visible_region()
        assert x <= pos(me)[0] < x + w and y <= pos(me)[1] < y + h
        for _ in range(12):  # walk down-right: the view follows, never scrolls by itself
            if screen.me is None:
                await pilot.press("x")
            await pilot.press("n")
            x, y, w, h = view.visible_region()
            assert x <= pos(me)[0] < x + w and y <= pos(me)[1] < y + h


async def test_more_holds_the_enemies_until_a_key_when_a_turn_overflows_the_log(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_battle(pilot, app, path, "goblin_warren.toml")
        await pilot.pause()
        screen.query_one("#log").styles.height = 2  # room for one line: any enemy turn overflows it
        screen.speed = 3
        for _ in range(200):
            if screen.more:
                break
            if screen.me is not None:
                await pilot.press("full_stop")
            await pilot.pause(0.05)
        assert screen.more and "--more--" in _text(screen, "#status")
        held = (screen.battle.current, len(screen.battle.log))
        await pilot.pause(0.3)  # the enemies wait while --more-- is up
        assert (screen.battle.current, len(screen.battle.log)) == held
        where = pos(screen.battle["champion"])
        screen.speed = 0  # the next enemy turn comes 0.8 s later: not before the checks below
        await pilot.press("right")  # only lets the log go on
        assert not screen.more and pos(screen.battle["champion"]) == where
        screen.speed = 3
        for _ in range(400):  # and a key bound to nothing, space, goes on too
            if screen.more:
                break
            if screen.me is not None:
                await pilot.press("full_stop")
            await pilot.pause(0.05)
        assert screen.more
        screen.speed = 0
        await pilot.press("m")  # the log's key opens the log (and lets it go on)
        await pilot.pause()
        assert type(app.screen).__name__ == "MessageLog"
        await pilot.press("escape")
        await pilot.pause()
        screen.speed = 3
        for _ in range(400):
            if screen.more:
                break
            if screen.me is not None:
                await pilot.press("full_stop")
            await pilot.pause(0.05)
        assert screen.more
        screen.speed = 0
        await pilot.press("space")
        assert not screen.more


async def test_z_lists_the_slots_with_reasons_and_a_digit_picks_one(saves, catalogue, iriel):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_battle(pilot, app, iriel, "wolves.toml")
        await pilot.pause()
        for _ in range(10):
            if screen.me is not None:
                break
            await pilot.press("x")
        await pilot.press("z")
        menu = app.screen
        assert isinstance(menu, ChoiceDialog)
        labels = [label for _, label in menu.options]
        stone = next(label for label in labels if "Stone Skin" in label)
        assert "✗" in stone and "passive" in stone  # why it can't be used, before choosing
        await pilot.press(str(labels.index(stone) + 1))  # in the menu a digit picks, it doesn't move
        assert app.screen is screen
        assert "Stone Skin" in _text(screen, "#status") and "passive" in _text(screen, "#status")


async def test_a_key_pressed_as_the_turn_changes_hands_is_dropped_and_said(saves, catalogue):
    """Type-ahead: an attack that ends the turn by itself (no movement left), then at once `.`:
    the `.` must not end the next turn. Checked in the battle's inputs, as it is saved."""

    from horizon_tui.engine.actions import Wait
    from horizon_tui.engine.battle import comp, put
    from horizon_tui.engine.components import TurnState
    from horizon_tui.ui.battle.typeahead import GUARD_S

    async with champion_in_sight(saves, catalogue) as (pilot, app, screen):
        me = screen.me
        put(me, TurnState, replace(comp(me, TurnState), movement_left=0))
        first_round = screen.battle.round
        await pilot.press("a", "enter", "full_stop")  # the attack ends the turn; the `.` comes right after
        for _ in range(200):
            if screen.me is not None and screen.battle.round > first_round:
                break
            await pilot.pause(0.05)
        assert screen.me is not None, "the champion's next turn"
        given = len(screen.session.inputs)
        await pilot.press("full_stop")  # at once, as a habit: dropped
        assert len(screen.session.inputs) == given
        assert "dropped" in _text(screen, "#status")
        await pilot.pause(GUARD_S + 0.1)
        await pilot.press("full_stop")  # a moment later: it ends the turn
        assert len(screen.session.inputs) == given + 1
        assert isinstance(screen.session.inputs[-1].action, Wait)


async def test_leaving_a_battle_is_in_the_footer_and_help_and_asks(saves, catalogue):
    """Leaving was only in ctrl+p: now ctrl+l (the footer and `?` list it), asked first; the
    battle is saved as it stands. Tab's auto-fight is listed in `?` too."""
    from horizon_tui.ui.dialogs.help import help_groups
    from horizon_tui.ui.player.screens.main_menu import MainMenuScreen

    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_battle(pilot, app, path, "goblin_ambush.toml")
        await pilot.pause()
        assert "Leave" in _text(screen, "KeyBar")
        described = [str(key) for group in help_groups(screen) for key in group.keys]
        assert any("Leave" in d for d in described) and any("Auto-fight" in d for d in described)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # stay
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.press("y")
        for _ in range(40):
            if isinstance(app.screen, MainMenuScreen):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, MainMenuScreen)
        assert records.has_battle(saves, saves / "battles" / "champion.json")  # kept as it stands



async def test_the_targeting_hint_fits_at_80_columns_after_an_abilitys_and_a_foes_name(saves, catalogue):
    """By hand: "(enter confirm, tab next, esc cancel)" was cut at 80 columns."""
    async with champion_in_sight(saves, catalogue, size=(80, 24)) as (pilot, app, screen):
        await pilot.press("a")
        screen.input.label = "Ember Lash of Dusk"  # as an ability of that name aims
        status = screen.battle_status().plain
        assert status.startswith("Ember Lash of Dusk · Goblin Archer · reach 45")
        assert status.endswith("enter ok · tab next · esc cancel")
        assert len(status) <= screen.query_one("#status").content_region.width == 80
