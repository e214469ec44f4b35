"""A battle placed by hand: a generated map, two party members and a hostile NPC put on their cells
with the cursor (a wall refused with the reason), the fight started, saved and rebuilt the same."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input, SelectionList, Static

from horizon_tui.engine import mapgen
from horizon_tui.engine.battle import comp, ident, pos, team
from horizon_tui.engine.components import Controller
from horizon_tui.campaign import battles
from horizon_tui.campaign import changes
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.campaign.model import Npc
from horizon_tui.ui.gm.screens.dialogs import PromptDialog
from horizon_tui.ui.gm.screens.encounter import GMEncounterPickerScreen
from horizon_tui.ui.gm.screens.placement import PickDialog, PlacementScreen
from tests.gm.battle_parts import is_gm_fight

SIZE = (120, 40)
SPEC = {"generator": "rooms", "width": 12, "height": 12, "seed": 7}


def cells():
    field = mapgen.generate(SPEC["generator"], SPEC["width"], SPEC["height"], SPEC["seed"])
    every = [(x, y) for y in range(12) for x in range(12)]
    floor = [c for c in every if field.is_walkable(c)]
    wall = next(c for c in every if not field.is_walkable(c))
    return floor, wall


async def go(pilot, screen: PlacementScreen, cell):
    x, y = screen.cursor
    keys = (["right"] * (cell[0] - x) + ["left"] * (x - cell[0]) + ["down"] * (cell[1] - y) + ["up"] * (y - cell[1]))
    if keys:
        await pilot.press(*keys)
    assert screen.cursor == cell


async def test_place_two_members_and_a_hostile_npc_then_fight_save_and_rebuild(session, catalogue):
    party = [m.name for m in session.campaign.party]
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    floor, wall = cells()
    targets = [floor[0], floor[1], floor[-1]]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        picker = app.screen
        assert isinstance(picker, GMEncounterPickerScreen)
        fighters = picker.query_one("#gm-fighters", SelectionList)
        for name in party[2:]:
            fighters.deselect(name)
        picker.query_one("#gm-seed", Input).value = "42"
        await pilot.press("p")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, PromptDialog)
        for key, value in (("map", "rooms"), ("width", "12"), ("height", "12"), ("seed", "7")):
            dialog.query_one(f"#prompt-{key}", Input).value = value
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PickDialog)  # the NPCs are picked from the roster, not typed
        await pilot.press("down", "space", "enter")  # Grukk (after Mayor Oswin)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlacementScreen)
        assert [u.name for u in screen.units] == [*party[:2], "Grukk"]

        # a wall is refused, with the reason; nothing is placed
        await go(pilot, screen, wall)
        await pilot.press("enter")
        message = str(screen.query_one("#gm-place-message", Static).render())
        assert "can't stand there" in message and "is a wall" in message
        assert screen.units[0].at is None and screen.current == 0

        for target in targets:  # enter places and goes on to the next unit
            await go(pilot, screen, target)
            await pilot.press("enter")
        # an occupied cell is refused too (tab round to the first unit, onto Grukk's cell)
        assert screen.current == 2
        await pilot.press("tab")
        assert screen.current == 0
        await go(pilot, screen, targets[2])
        await pilot.press("enter")
        assert "is taken by Grukk" in str(screen.query_one("#gm-place-message", Static).render())
        assert [u.at for u in screen.units] == targets

        await pilot.press("ctrl+s")
        await pilot.pause()
        battle_screen = app.screen
        assert is_gm_fight(battle_screen)
        battle = battle_screen.battle
        where = {ident(e).name: (pos(e), team(e)) for e in battle.combatants()}
        assert where == {party[0]: (targets[0], "party"), party[1]: (targets[1], "party"),
                         "Grukk": (targets[2], "enemies")}
        record = app.campaign.battle
        assert record["placed"]["map"] == SPEC
        log = [e.to_json() for e in battle.log]

    # saved: the campaign as stored rebuilds the same battle, with no encounter file behind it
    campaign = session.store.load(session.slug).campaign
    rebuilt = battles.session_from_record(campaign.battle, catalogue, app.host.gm.rules_for, app.enemies())
    assert [e.to_json() for e in rebuilt.battle.log] == log

    # and reopening the app resumes it
    again = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with again.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        assert is_gm_fight(again.screen)
        assert [e.to_json() for e in again.screen.battle.log][:len(log)] == log


def fight_npcs(session, catalogue, npcs, seed=3):
    """Save `npcs` into the campaign and start a placed battle: the first party member, then the
    NPCs on the map's free cells (the first NPC beside the member, the rest from the far end).
    (campaign, session, {name: entity}, enemies, rules_for)."""
    from horizon_tui.content.encounters import load_enemies

    enemies = load_enemies(catalogue)
    rules_for = lambda overrides: catalogue.rules  # noqa: E731
    campaign = session.campaign
    for npc in npcs:
        campaign = changes.save_npc(campaign, None, npc)
    floor, _ = cells()
    spots = [floor[1], floor[-1], floor[-2], floor[-3]]
    placements = [("member", campaign.party[0].name, floor[0])] + [
        ("npc", npc.name, cell) for npc, cell in zip(npcs, spots)]
    campaign, made = battles.start_placed_battle(campaign, SPEC, placements, catalogue, rules_for, enemies, seed=seed)
    return campaign, made, {ident(e).name: e for e in made.battle.combatants()}, enemies, rules_for


def test_npcs_join_on_either_side_and_old_npcs_load_with_defaults(session, catalogue):
    ally = Npc("Sister Ama", level=2, attitude="ally", weapon="quarterstaff")
    boss = Npc("Toll-taker", level=3, attitude="neutral", controller="gm", weapon="longsword", armor="cuir_bouilli")
    campaign, made, by_name, enemies, rules_for = fight_npcs(session, catalogue, [ally, boss])
    assert team(by_name["Sister Ama"]) == "party" and comp(by_name["Sister Ama"], Controller).kind == "gm"
    assert team(by_name["Toll-taker"]) == "enemies" and comp(by_name["Toll-taker"], Controller).kind == "gm"
    rebuilt = battles.session_from_record(campaign.battle, catalogue, rules_for, enemies)
    assert comp(rebuilt.battle[ident(by_name["Toll-taker"]).id], Controller).kind == "gm"

    # a wall, or a bad fighting field, is refused with the reason
    _, wall = cells()
    with pytest.raises(ValueError, match="is a wall"):
        battles.start_placed_battle(session.campaign, SPEC, [("member", campaign.party[0].name, wall)], catalogue,
                                    rules_for, enemies)
    with pytest.raises(ValueError, match="weapon"):
        changes.save_npc(session.campaign, None, Npc("Nobody", weapon=""))
    with pytest.raises(ValueError, match="side"):
        changes.save_npc(session.campaign, None, Npc("Nobody", side="middle"))

    # an NPC written before these fields existed loads with the defaults
    from horizon_tui.content.convert import structure

    old = structure({"name": "Old", "level": 2, "attitude": "hostile"}, Npc, "<old>")
    assert (old.weapon, old.race, old.side, old.controller, old.combat_side()) == ("dagger", "human", "auto", "ai", "enemies")


def test_an_npcs_hand_set_health_and_willpower_go_into_battle_and_survive_a_rebuild(session, catalogue):
    """The NPC editor lets a GM set health or willpower outright (R-2's numbers overridden); the NPC
    fights with them: a boss at 300 health starts at 300/300, an ally at 40 at 40/40, and the saved
    battle rebuilds to the same numbers. Disease still moves them (the hand-set part is a bonus
    on top of the derived stats, fixed at the start)."""
    from fractions import Fraction

    from horizon_tui.engine.battle import hp, stats
    from horizon_tui.engine.effects import apply_effect

    ally = Npc("Sister Ama", level=2, attitude="ally", weapon="quarterstaff", health=40)
    boss = Npc("Toll-taker", level=3, attitude="hostile", weapon="longsword", health=300, willpower=Fraction(27, 2))
    plain = Npc("Footpad", level=1, attitude="hostile")
    campaign, made, by_name, enemies, rules_for = fight_npcs(session, catalogue, [ally, boss, plain])
    assert (hp(by_name["Toll-taker"]).hp, hp(by_name["Toll-taker"]).max_hp) == (300, 300)
    assert stats(by_name["Toll-taker"])["willpower"] == Fraction(27, 2)
    assert (hp(by_name["Sister Ama"]).hp, hp(by_name["Sister Ama"]).max_hp) == (40, 40)
    footpad = hp(by_name["Footpad"]).max_hp
    assert footpad == int(plain.effective_health())  # nothing set: R-2 from its attributes
    start = made.battle.log[0]
    assert {c["name"]: c["max_hp"] for c in start.combatants}["Toll-taker"] == 300

    rebuilt = battles.session_from_record(json.loads(json.dumps(campaign.battle)), catalogue, rules_for, enemies)
    again = {ident(e).name: e for e in rebuilt.battle.combatants()}
    assert hp(again["Toll-taker"]).max_hp == 300 and hp(again["Sister Ama"]).max_hp == 40

    # R-10 disease lowers physical, which lowers health (R-2: 10 per point) under the hand-set number
    toll = by_name["Toll-taker"]
    apply_effect(made.battle, toll, "disease", duration=3, magnitude=Fraction(2), source=by_name["Footpad"])
    assert hp(toll).max_hp < 300


def test_an_npc_fights_with_the_abilities_of_an_enemy_type_at_its_own_level(session, catalogue):
    """`abilities_from` gives an NPC an enemy type's abilities and loadout (R-6), fitted to the NPC's
    level: a hexer-taught NPC at level 3 has the hexer's four slotted abilities and level 3's
    charges; at level 1 (fewer slots) the battle is refused with the reason; an unknown type is
    named. An allied NPC fights at its own level too (its charges are level 3's, not level 1's)."""
    from horizon_tui.engine.components import Charges, Loadout
    from horizon_tui.rules import progression

    friend = Npc("Brother Tam", level=3, attitude="ally", weapon="quarterstaff", abilities_from="goblin_hexer")
    witch = Npc("Old Mag", level=3, attitude="hostile", weapon="quarterstaff", abilities_from="goblin_hexer")
    campaign, made, by_name, enemies, rules_for = fight_npcs(session, catalogue, [friend, witch], seed=5)
    hexer = enemies["goblin_hexer"]
    level3, level1 = progression.charges(3, catalogue.rules), progression.charges(1, catalogue.rules)
    passives = [a.difficulty for a in hexer.character.abilities if a.name in hexer.character.loadout and a.is_passive]
    for name in ("Old Mag", "Brother Tam"):
        assert comp(by_name[name], Loadout).slotted == tuple(hexer.character.loadout)
        pools = comp(by_name[name], Charges).pools
        for d, count in level3.items():  # level 3's charges, less what its passives hold (R-6)
            assert count - passives.count(d) <= pools.get(d, 0) <= count
        assert any(pools.get(d, 0) > level1.get(d, 0) for d in level3)
        assert ident(by_name[name]).level == 3
    rebuilt = battles.session_from_record(json.loads(json.dumps(campaign.battle)), catalogue, rules_for, enemies)
    assert [e.to_json() for e in rebuilt.battle.log] == [e.to_json() for e in made.battle.log]

    slots = progression.slots(1, catalogue.rules)
    assert slots < len(hexer.character.loadout)
    with pytest.raises(ValueError, match=f"level 1 has {slots} slots"):
        battles.npc_character(Npc("Apprentice", level=1, abilities_from="goblin_hexer"), catalogue, enemies)
    with pytest.raises(ValueError, match="no enemy type 'lich'"):
        battles.npc_character(Npc("Nobody", abilities_from="lich"), catalogue, enemies)


def test_a_placed_battle_record_with_bad_hand_set_stats_is_refused_with_the_key(session, catalogue):
    """A campaign file edited by hand: hand-set stats that aren't numbers name the record's key;
    nothing crashes, and the campaign's battle record is left as it was."""
    from horizon_tui.errors import DataError

    boss = Npc("Toll-taker", level=3, attitude="hostile", weapon="longsword", health=300)
    campaign, _, _, enemies, rules_for = fight_npcs(session, catalogue, [boss])
    for bad in ({"health": "lots"}, 7, {"health": "1/0"}):
        record = json.loads(json.dumps(campaign.battle))
        record["placed"]["enemies"][0]["hand_set"] = bad
        with pytest.raises(DataError) as caught:
            battles.session_from_record(record, catalogue, rules_for, enemies)
        assert caught.value.problems[0].key == "battle.placed"
    assert campaign.battle["placed"]["enemies"][0]["hand_set"] == {"health": "300"}
