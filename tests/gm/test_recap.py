"""The players' recap tells the evening in the order it happened (a level-up between two fights
sits between them), titles a placed fight by its encounter or its foes and place, lists only the
party in a fight's XP line; the log screen's m exports what it shows."""

from __future__ import annotations

from horizon_tui.campaign import battles, changes
from horizon_tui.campaign.export import session_markdown
from horizon_tui.ui.gm.app import create_gm_app

SIZE = (80, 24)


def fight(campaign, name: str, xp: dict[str, int]):
    return campaign.logged("battle", f"Battle: {name}", name=name, winner="party", rounds=3, xp=xp,
                           defeated=["Grukk"], party={"Brakka": "40/988"})


def test_the_recap_is_told_in_time_order(session):
    """Day 2: a conversation, the first fight, a level-up, the second fight, a rest. Grouped by
    kind, the level-up came after both fights and the conversation before them."""
    session.apply(changes.advance_day, "day 2")
    session.apply(lambda c: fight(c, "Goblin Ambush", {"Brakka": 10, "Grukk": 0}), "fight 1")
    session.apply(lambda c: c.logged("points", "Brakka buys 4 points (level 3)"), "level-up")
    session.apply(lambda c: c.logged("check", "Iriel tries persuasion on Mayor Oswin", character="Iriel",
                                     npc="Mayor Oswin", kind="persuasion", score_name="beauty", success=True,
                                     text="The road is safe now."), "talk")
    session.apply(lambda c: fight(c, "Against Grukk in the caves", {"Brakka": 30}), "fight 2")
    recap = session_markdown(session.campaign)
    order = [recap.index(s) for s in ("### Goblin Ambush", "Brakka buys 4 points", "**Iriel → Mayor Oswin**",
                                      "### Against Grukk in the caves")]
    assert order == sorted(order), recap
    assert "XP earned (R-14): Brakka 10\n" in recap  # Grukk, an NPC, is not in the party's XP line
    assert "Grukk 0" not in recap


def test_a_placed_fight_is_titled_by_its_encounter_or_its_foes_and_place(catalogue):
    generated = {"generator": "caves", "width": 16, "height": 12, "seed": 1}
    assert battles.map_name(generated, ["Grukk", "Mayor Oswin"]) == "Against Grukk and Mayor Oswin in the caves"
    assert battles.map_name(generated) == "The caves, 16×12"
    assert battles.map_name({"encounter": "goblin_ambush"}, ["Grukk"], catalogue.root) == "Goblin Ambush"


async def test_m_on_the_log_exports_what_is_shown(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("l", "v", "m")  # the GM's view shown: m exports it
        await pilot.pause()
        assert (session.store.folder / "lantern-road-day-1-gm-log.md").exists()
        assert not (session.store.folder / "lantern-road-day-1.md").exists()
        await pilot.press("v", "m")
        await pilot.pause()
        assert (session.store.folder / "lantern-road-day-1.md").exists()
        footer = str(app.screen.query_one("KeyBar").render()) if app.screen.query("KeyBar") else ""
        assert "Export GM log" in footer or "g" in footer
