"""The XP award is offered at every fight's end: a defeat, or a fight whose foes were worth 0 XP
(an NPC's default), too; a foe worth 0 is valued by R-4's guide (`changes.guide_xp`)."""

from __future__ import annotations

from horizon_tui.campaign import changes
from horizon_tui.campaign.model import Npc
from horizon_tui.rules.rating import guide_xp
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import ident, is_active, team
from horizon_tui.ui.battle.dialogs import BattleSummary
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.experience import ExperienceScreen

from tests.gm.test_tracker import SIZE, start
from tests.gm.battle_parts import hand

CATALOGUE_XP = {1: [20, 20, 20], 2: [80, 80, 80], 3: [180, 180], 8: [1280]}


def test_r4s_guide_values_a_foe_by_the_catalogue_of_its_level(catalogue):
    rules = catalogue.rules
    assert guide_xp(2, CATALOGUE_XP, rules) == 80
    # none at level 9: level 8's 1280 × (112 ÷ 102)² guide points (R-4: 42 + 10·(L−2)) = 1543.3
    assert guide_xp(9, CATALOGUE_XP, rules) == 1543
    assert guide_xp(2, {}, rules) == 0
    shares, notes = changes.award_suggestion([("Grukk", 2, 0), ("Wolf", 1, 20)], ["A", "B"], CATALOGUE_XP, rules)
    assert shares == {"A": 50, "B": 50}  # (80 + 20) ÷ 2, R-14
    assert notes == ["Grukk (level 2) gave 0 XP; R-4's guide puts it at 80 XP"]


async def finish(app, pilot, screen, side: str) -> None:
    foes = tuple(ident(e).id for e in screen.battle.active.values() if team(e) == side)
    hand(screen).route(ov.Damage(foes, 100_000, "the roof"), "the roof falls", None)
    await pilot.pause()
    assert screen.battle.over and isinstance(app.screen, BattleSummary)
    await pilot.press("enter")
    await pilot.pause()


async def test_a_defeat_offers_the_award(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        await finish(app, pilot, screen, "party")
        assert screen.battle.result.winner == "enemies"
        assert isinstance(app.screen, ExperienceScreen)  # skipped before: every share was 0
        assert set(app.screen.preset) == {m.name for m in app.campaign.party[:len(app.screen.preset)]}
        await pilot.press("escape")  # nothing to award: it leaves at once
        await pilot.pause()
        assert not isinstance(app.screen, ExperienceScreen)


async def test_an_npc_worth_0_xp_is_offered_at_r4s_guide(session, catalogue):
    session.apply(lambda c: changes.save_npc(c, None, Npc("Toll-taker", level=2, attitude="hostile")), "npc")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        hand(screen).selected = None
        # the toll-taker joins the enemies mid-fight, then every enemy falls
        from horizon_tui.campaign import battles

        npc = app.campaign.npc("Toll-taker")
        definition = battles.npc_enemy(npc, app.catalogue, app.enemies())
        assert hand(screen).reinforce(definition.id, definition, 1, "enemies", False, "Toll-taker")
        goblins = [ident(e).xp_value for e in screen.battle.active.values() if team(e) == "enemies"]
        await finish(app, pilot, screen, "enemies")
        xp_screen = app.screen
        assert isinstance(xp_screen, ExperienceScreen)
        standing = [ident(e).name for e in screen.battle.combatants() if ident(e).kind == "character" and is_active(e)]
        worth = guide_xp(2, {d.level: [x.xp for x in app.enemies().values() if x.level == d.level]
                                     for d in app.enemies().values()}, app.rules)
        assert worth == 80  # the catalogue's level-2 enemies
        total = sum(goblins)  # the toll-taker's 0 among them, valued at 80 instead
        assert sum(xp_screen.preset.values()) == (total + worth) // len(standing) * len(standing)
        assert "R-4's guide puts it at 80 XP" in str(xp_screen.query_one("#xp-preview").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "ConfirmDialog"  # offered XP not given: asked
