"""The tracker as a Foundry or Improved Initiative user expects, by keys at 80×24: d holds the
acting combatant and brings it back after the next turn; the selected row stays where the GM put
it and every key acts on it alone; p, g, I hand it to a player, the GM, the AI, C the whole
party to the AI; + and − change its health; every act is logged with what it changed."""

from __future__ import annotations

from textual.widgets import Static

from horizon_tui.engine.battle import comp, hp, ident, team
from horizon_tui.engine.components import Controller
from horizon_tui.engine.overrides import held
from horizon_tui.ui.gm.app import create_gm_app

from tests.gm.test_tracker import SIZE, start
from tests.gm.battle_parts import hand


def last_act(app) -> str:
    """The label the last GM act is undone by (ctrl+z names it), with the battle's name."""
    return app.host.gm.history[-1].label


def last_gm_line(battle) -> str:
    """The battle log's line for the last override (the GM's log and the battle log show it)."""
    from horizon_tui.engine.narrate import describe

    return describe(battle, next(e for e in reversed(battle.log) if e.type == "override"))


def tracker(screen) -> str:
    return str(screen.query_one("#gm-tracker", Static).render())


def party(battle):
    return [ident(e).id for e in battle.active.values() if team(e) == "party"]


async def opened(session, catalogue, pilot, app):
    screen = await start(app, pilot)
    await pilot.pause()
    return screen


async def test_d_holds_the_acting_combatant_and_brings_it_back_after_the_next_turn(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(session, catalogue, pilot, app)
        battle = screen.battle
        acting = ident(battle.current).id
        name = ident(battle.current).name
        hand(screen).selected = acting
        await pilot.press("d")
        await pilot.pause()
        assert held(battle) == [acting] and acting not in battle.order
        assert ident(battle.current).id != acting or battle.over  # the turn passed on
        shown = tracker(screen)
        assert "held (d re-enters after this turn)" in shown and "‖" in shown
        place = f"{battle.order.index(acting) + 1 if acting in battle.order else 1}"
        assert f"{name}: hold {place}" in last_act(app) and "→ held" in last_act(app)
        assert last_gm_line(battle).startswith(f"GM: hold on {name} (") and "→ held)" in last_gm_line(battle)
        assert hand(screen).selected == acting  # the selection stays on the held row
        now = ident(battle.current).id
        await pilot.press("d")  # back in, right after the turn in progress
        await pilot.pause()
        assert held(battle) == [] and battle.order[battle.order.index(now) + 1] == acting
        assert app.campaign.battle["inputs"][-1]["action"]["type"] == "ReEnter"
        assert f"{name}: re-enter held → " in last_act(app)


async def test_c_on_a_selected_row_changes_that_row_only_and_the_selection_stays(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(session, catalogue, pilot, app)
        battle = screen.battle
        acting = ident(battle.current).id
        other = next(c for c in battle.order if c != acting)
        hand(screen).selected = other
        before = {c: comp(battle[c], Controller).kind for c in battle.by_id}
        await pilot.press("c")
        await pilot.pause()
        after = {c: comp(battle[c], Controller).kind for c in battle.by_id}
        assert [c for c in after if after[c] != before[c]] == [other]
        assert hand(screen).selected == other
        shown = tracker(screen)
        assert f"» keys on: {ident(battle[other]).name}"[:30] in shown
        assert "▶ acting: " in shown
        label = last_act(app)  # "Goblin Ambush: Goblin Archer: controller AI → player"
        assert f"{ident(battle[other]).name}: controller" in label and "→" in label


async def test_a_key_for_each_controller_and_one_for_the_whole_party(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(session, catalogue, pilot, app)
        battle = screen.battle
        member = party(battle)[0]
        hand(screen).selected = member
        for key, kind in (("g", "gm"), ("I", "ai"), ("p", "player")):
            await pilot.press(key)
            await pilot.pause()
            assert comp(battle[member], Controller).kind == kind
        await pilot.press("p")  # already the player's: refused, nothing logged
        await pilot.pause()
        assert "already" in screen.prompt
        await pilot.press("C")
        await pilot.pause()
        assert {comp(battle[c], Controller).kind for c in party(battle)} == {"ai"}


async def test_plus_and_minus_change_the_selected_ones_health_in_the_row(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(session, catalogue, pilot, app)
        battle = screen.battle
        foe = next(c for c in battle.order if team(battle[c]) == "enemies")
        hand(screen).selected = foe
        top = hp(battle[foe]).max_hp
        await pilot.press("minus", "minus")
        await pilot.pause()
        assert hp(battle[foe]).hp == top - 2
        assert f"{top - 2}/{top}" in tracker(screen)
        await pilot.press("plus")
        await pilot.pause()
        assert hp(battle[foe]).hp == top - 1
        assert f"health {top - 2} → {top - 1}" in last_act(app)
        assert last_gm_line(battle) == f"GM: health on {ident(battle[foe]).name} ({top - 2} → {top - 1})."
