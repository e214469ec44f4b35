"""A campaign that remembers: health, effects, charges (by house switch) and deaths carry
from fight to fight (campaign.carry); a rest and the next day reset them. Three fights and a rest."""

from __future__ import annotations


from horizon_tui.content.encounters import load_enemies
from horizon_tui.content.models import Difficulty
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import charge_left, effects, hp, ident, is_active, team
from horizon_tui.engine.runner import override
from horizon_tui.campaign import battles
from horizon_tui.campaign import changes
from horizon_tui.campaign.open_campaign import OpenCampaign


def fight(session: OpenCampaign, catalogue, members, during, seed=3):
    """One fight: `during(battle, by_name, inputs)` does the GM's part, then every enemy falls."""
    enemies = load_enemies(catalogue)
    campaign, live = battles.start_battle(session.campaign, "goblin_ambush", members, catalogue,
                                          session.rules_for, enemies, seed=seed)
    battle = live.battle
    by_name = {ident(e).name: e for e in battle.combatants()}
    during(battle, by_name, live.inputs)
    foes = tuple(ident(e).id for e in battle.active.values() if team(e) == "enemies")
    assert not isinstance(override(battle, ov.Damage(foes, 10_000, "the roof falls in"), live.inputs), ov.Impossible)
    assert battle.over
    session.apply(lambda c: battles.finish_battle(attrs_battle(c, campaign), live), "battle ends")
    return battle


def attrs_battle(current, started):
    import attrs

    return attrs.evolve(current, battle=started.battle, draws=started.draws)


def test_three_fights_and_a_rest_carry_health_effects_charges_and_reset(session, catalogue):
    session.apply(lambda c: changes.set_rules(c, {"campaign": {"carry_charges": True}},
                                               [("campaign.carry_charges", False, True)]), "house rules")
    seen = {}

    def first(battle, by_name, inputs):
        brakka, iriel = by_name["Brakka"], by_name["Iriel"]
        seen["max"] = hp(brakka).max_hp
        override(battle, ov.Damage((ident(brakka).id,), 9, "an arrow"), inputs)
        override(battle, ov.SetCharges(ident(iriel).id, "II", 1, "spent"), inputs)
        override(battle, ov.AddEffect(ident(brakka).id, "bleeding", 4, 0, None, "the arrow"), inputs)

    fight(session, catalogue, ["Brakka", "Iriel"], first)
    state = session.campaign.carried["Brakka"]
    assert state["hp"] == seen["max"] - 9 and state["effects"][0]["effect"] == "bleeding"

    def second(battle, by_name, inputs):
        brakka, iriel = by_name["Brakka"], by_name["Iriel"]
        assert hp(brakka).hp <= seen["max"] - 9  # carried in (and the bleeding goes on)
        assert effects(brakka).get("bleeding").turns_left == session.campaign.carried["Brakka"]["effects"][0]["turns"]
        assert charge_left(iriel, Difficulty.II) == 1  # carried, by the house switch
        seen["second"] = hp(brakka).hp
        override(battle, ov.SetHealth(ident(iriel).id, 0, "knocked out"), inputs)
        assert not is_active(iriel)

    fight(session, catalogue, ["Brakka", "Iriel"], second)
    assert session.campaign.carried["Iriel"]["presence"] == "unconscious"

    def third(battle, by_name, inputs):
        iriel = by_name["Iriel"]
        assert not is_active(iriel)  # she starts down: nobody raised her
        cell = ov.revive_cell(battle, ident(iriel).id)
        assert not isinstance(override(battle, ov.Revive(ident(iriel).id, 4, cell, "a potion"), inputs), ov.Impossible)
        assert is_active(iriel) and hp(iriel).hp == 4

    fight(session, catalogue, ["Brakka", "Iriel"], third)
    assert session.campaign.carried["Iriel"]["presence"] == "active"
    kinds = [e.kind for e in session.campaign.log]
    assert kinds.count("battle") == 3

    session.apply(changes.rest, "rest")
    assert session.campaign.carried == {} and session.campaign.rests == 1
    assert session.campaign.log[-1].kind == "rest" and "back to full health" in session.campaign.log[-1].text

    def fresh(battle, by_name, inputs):
        assert hp(by_name["Brakka"]).hp == hp(by_name["Brakka"]).max_hp
        assert effects(by_name["Brakka"]).get("bleeding") is None
        assert charge_left(by_name["Iriel"], Difficulty.II) > 1

    fight(session, catalogue, ["Brakka", "Iriel"], fresh)


def test_by_default_charges_start_full_each_battle_as_r6_says(session, catalogue):
    """R-6 [S]: each battle starts with the level's charges (campaign.carry_charges = false)."""
    def spend(battle, by_name, inputs):
        override(battle, ov.SetCharges(ident(by_name["Iriel"]).id, "II", 0, "spent"), inputs)

    fight(session, catalogue, ["Iriel"], spend)
    assert session.campaign.carried["Iriel"]["charges"]["II"] == 0

    def full(battle, by_name, inputs):
        assert charge_left(by_name["Iriel"], Difficulty.II) > 0

    fight(session, catalogue, ["Iriel"], full)


def test_the_next_day_rests_and_logs_the_days_fights(session, catalogue):
    def hurt(battle, by_name, inputs):
        override(battle, ov.Damage((ident(by_name["Brakka"]).id,), 5, "a trap"), inputs)

    fight(session, catalogue, ["Brakka"], hurt)
    assert session.campaign.carried
    session.apply(changes.advance_day, "day")
    assert session.campaign.carried == {}
    day = session.campaign.log[-1]
    assert day.kind == "day" and "1 fight" in day.text and session.campaign.log[-2].kind == "rest"


def test_carried_state_rejects_a_bad_shape_with_its_key(store, session, tmp_path):
    import json

    from horizon_tui.campaign.campaign_files import CampaignStore, encode
    from tests.gm.conftest import legacy_file

    data = json.loads(encode(session.campaign, store.catalogue))
    data["carried"] = ["not", "a", "table"]
    legacy_file(tmp_path / "old", data)
    [entry] = CampaignStore(tmp_path / "old", store.catalogue).entries()
    assert "carried" in entry.problem and entry.file.exists()
    assert changes.describe_carried({}) == ""


def test_an_allied_npc_who_joins_takes_no_r14_share(session, catalogue):
    """R-14: the player characters still standing share the defeated enemies' XP equally; an
    allied NPC fighting beside them is not a player character and takes no share (it used to take
    one that the GM tool then dropped), and is not carried as a party member."""
    from horizon_tui.campaign.model import Npc

    session.apply(lambda c: changes.save_npc(c, None, Npc("Tamsin", level=2, attitude="ally")), "npc")

    def ally(battle, by_name, inputs):
        npc = session.campaign.npc("Tamsin")
        definition = battles.npc_enemy(npc, catalogue, load_enemies(catalogue))
        battle.enemy_defs[definition.id] = definition
        cell = ov.revive_cell(battle, ident(by_name["Brakka"]).id) or (0, 0)
        from horizon_tui.engine.turns import free_cell_near

        spot = free_cell_near(battle, cell)
        assert not isinstance(override(battle, ov.Reinforce(definition.id, spot, "party", "Tamsin"), inputs),
                              ov.Impossible)

    battle = fight(session, catalogue, ["Brakka"], ally)
    pool = sum(ident(e).xp_value for e in battle.combatants() if ident(e).base_team == "enemies")
    assert dict(battle.result.xp) == {"Brakka": pool} and pool > 0
    assert session.campaign.npc("Tamsin").earned_xp == 0
    assert "Tamsin" not in session.campaign.carried


def test_carried_health_is_not_a_blow_in_the_next_fight(session, catalogue):
    """The health a fight left is where the next one starts: no damage event, nothing tallied."""
    from horizon_tui.engine.battle import comp
    from horizon_tui.engine.components import Tally

    def hurt(battle, by_name, inputs):
        override(battle, ov.Damage((ident(by_name["Brakka"]).id,), 40, "a trap"), inputs)

    fight(session, catalogue, ["Brakka"], hurt)

    def next_fight(battle, by_name, inputs):
        brakka = by_name["Brakka"]
        assert hp(brakka).hp == hp(brakka).max_hp - 40
        assert comp(brakka, Tally).damage_taken == 0
        assert not [e for e in battle.log if e.type == "damage"]

    fight(session, catalogue, ["Brakka"], next_fight)
