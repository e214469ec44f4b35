"""R-9 attacks and damage: accuracy, auto-hits, criticals, armor, the damage pipeline."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from engine_kit import EXAMPLE_ATTACK_BASE, ability, character, enemy_def, events, give_turn, make_battle
from horizon_tui.engine.actions import Attack, Success, UseAbility, perform
from horizon_tui.engine.attacks import strike
from horizon_tui.engine.battle import comp, gear, hp, is_downed, is_immobile, stats
from horizon_tui.engine.components import Presence
from horizon_tui.engine.effects import apply_effect, deal_damage
from horizon_tui.rules.combat import armor_reduction, damage
from horizon_tui.rules.numbers import round_half_up

CLUB = {"name": "Test club", "kind": "one_handed", "damage": "1d1+3"}  # always rolls 4
TANK = {"physical": 5000, "agility": 16, "perception": 1, "cognition": 1, "faith": 1, "beauty": 0}


def armored_foe(armor="cuir_bouilli", **keys):
    return enemy_def("foe", character("Foe", armor=armor, **keys))


def test_r9_armor_class_8_reduces_100_damage_to_85(catalogue):
    rules = catalogue.rules
    reduction = armor_reduction(catalogue.armor["cuir_bouilli"], rules)
    assert reduction == Fraction("0.15")
    assert damage(Fraction(100), armor=reduction, attack=rules.attack) == 85
    # the whole order: × multiplier → × critical → × (1 − armor) → half up
    assert damage(Fraction(100), multiplier=Fraction("1.5"), critical=True, armor=reduction, attack=rules.attack) == 255
    assert damage(Fraction("0.4"), armor=Fraction("0.55"), attack=rules.attack) == 1  # at least 1 for a hit


def test_r9_damage_event_equals_the_pipeline_by_hand(new_battle):
    """A constant weapon: normal attack 4 + 89.55 = 93.55; × 0.85 (class 8) = 79.5175 → 80."""
    battle = new_battle(party=[(character("Hero", weapon=CLUB), (3, 2))], enemies=[(armored_foe(), (4, 2))])
    for seed in range(6):
        battle.rng.seed(seed)
        give_turn(battle, "hero")
        start = len(battle.log)
        perform(battle, Attack("hero", "foe"))
        (attack,) = events(battle, "attack", start)
        assert not attack.crit  # a club can't crit
        assert [d.amount for d in events(battle, "damage", start)] == ([80] if attack.hit else [])


def test_r9_knocked_down_target_takes_a_guaranteed_crit_for_a_seeded_roll(new_battle):
    battle = new_battle(party=[(character("Hero"), (3, 2))], enemies=[(armored_foe(), (4, 2))], seed=7)
    foe = battle["foe"]
    apply_effect(battle, foe, "knockdown", duration=1, magnitude=Fraction(0), source=battle["hero"])
    assert is_downed(foe) and is_immobile(foe)
    give_turn(battle, "hero")
    state = battle.rng.getstate()
    start = len(battle.log)
    perform(battle, Attack("hero", "foe"))
    # melee on an immobile target: no accuracy roll, and the crit is certain, so the weapon
    # roll is the attack's first draw from the battle's random source
    roll = gear(battle["hero"]).weapon_dice.roll(_at(state))
    by_hand = int(round_half_up((roll + EXAMPLE_ATTACK_BASE) * 2 * Fraction("0.85")))
    assert not events(battle, "check", start)
    (attack,) = events(battle, "attack", start)
    assert attack.hit and attack.crit
    (hurt,) = events(battle, "damage", start)
    assert hurt.amount == by_hand and hurt.hp == hp(foe).max_hp - by_hand


def _at(state) -> random.Random:
    rng = random.Random()
    rng.setstate(state)
    return rng


def test_r9_knockdown_crit_with_an_ability_worked_numbers(new_battle):
    """Difficulty II (×1.5), critical (×2), class 8: 93.55 × 1.5 × 2 × 0.85 = 238.5525 → 239."""
    hero = character("Hero", weapon=CLUB, abilities=[ability("Cleave", "II")])
    battle = new_battle(party=[(hero, (3, 2))], enemies=[(armored_foe(), (4, 2))])
    apply_effect(battle, battle["foe"], "knockdown", duration=1, magnitude=Fraction(0), source=None)
    give_turn(battle, "hero")
    start = len(battle.log)
    perform(battle, UseAbility("hero", "Cleave", target="foe"))
    (attack,) = events(battle, "attack", start)
    assert attack.crit and attack.ability == "Cleave" and attack.difficulty == "II"
    assert [d.amount for d in events(battle, "damage", start)] == [239]


def test_r9_crit_immune_target_takes_no_crit_even_when_down(new_battle):
    stoneborn = {"name": "Stoneborn", "features": {"crit_immune": True}}
    foe = enemy_def("foe", character("Foe", species=stoneborn, armor="cuir_bouilli"))
    battle = new_battle(party=[(character("Hero", weapon=CLUB), (3, 2))], enemies=[(foe, (4, 2))])
    apply_effect(battle, battle["foe"], "knockdown", duration=1, magnitude=Fraction(0), source=None)
    give_turn(battle, "hero")
    start = len(battle.log)
    perform(battle, Attack("hero", "foe"))
    (attack,) = events(battle, "attack", start)
    assert attack.hit and not attack.crit
    assert [d.amount for d in events(battle, "damage", start)] == [80]


def test_r9_melee_auto_hits_a_stunned_or_knocked_down_target_without_a_check(new_battle):
    for effect in ("stun", "knockdown"):
        battle = new_battle(party=[(character("Hero"), (3, 2))], enemies=[(enemy_def(), (4, 2))])
        apply_effect(battle, battle["grunt"], effect, duration=2, magnitude=Fraction(0), source=None)
        give_turn(battle, "hero")
        start = len(battle.log)
        perform(battle, Attack("hero", "grunt"))
        assert not [c for c in events(battle, "check", start) if c.kind == "accuracy"], effect
        assert events(battle, "attack", start)[0].hit


# each melee kind, its reach as melee (normal, and strong for V–VI): one- and two-handed
# 0 and 1, polearm 1 and 2 (0 = adjacent).
MELEE_REACH = {"longsword": 1, "greatsword": 1, "spear": 2}


@pytest.mark.parametrize("effect", ["stun", "knockdown"])
@pytest.mark.parametrize("weapon", sorted(MELEE_REACH))
def test_r9_every_melee_kind_skips_the_check_against_an_immobile_target_within_its_reach(new_battle, weapon, effect):
    for cells in range(MELEE_REACH[weapon] + 2):  # every distance within reach, then one beyond
        battle = new_battle(party=[(character("Hero", weapon=weapon), (1, 2))],
                            enemies=[(enemy_def(), (2 + cells, 2))])
        apply_effect(battle, battle["grunt"], effect, duration=2, magnitude=Fraction(0), source=None)
        start = len(battle.log)
        strike(battle, battle["hero"], battle["grunt"])
        checks = [c for c in events(battle, "check", start) if c.kind == "accuracy"]
        if cells <= MELEE_REACH[weapon]:
            assert checks == [] and events(battle, "attack", start)[0].hit, (weapon, cells)
        else:
            # beyond its melee reach it is no melee: accuracy 20 against evasion 11.4 → 0.872
            assert [c.chance for c in checks] == [float(Fraction("0.872"))], (weapon, cells)


def test_r9_a_polearm_at_its_reach_hits_a_stunned_target_without_a_check_through_the_attack(new_battle):
    battle = new_battle(party=[(character("Hero", weapon="spear"), (2, 2))], enemies=[(enemy_def(), (4, 2))])
    apply_effect(battle, battle["grunt"], "stun", duration=2, magnitude=Fraction(0), source=None)
    give_turn(battle, "hero")
    start = len(battle.log)
    assert isinstance(perform(battle, Attack("hero", "grunt")), Success)  # 1 cell between: the spear's reach
    assert not [c for c in events(battle, "check", start) if c.kind == "accuracy"]
    assert events(battle, "attack", start)[0].hit


def test_r9_a_ranged_weapon_adjacent_to_a_stunned_target_still_checks(new_battle):
    battle = new_battle(party=[(character("Hero", weapon="longbow"), (3, 2))], enemies=[(enemy_def(), (4, 2))])
    apply_effect(battle, battle["grunt"], "stun", duration=2, magnitude=Fraction(0), source=None)
    start = len(battle.log)
    strike(battle, battle["hero"], battle["grunt"])
    assert [c.kind for c in events(battle, "check", start)] == ["accuracy"]


def test_r9_short_blade_crit_chance_is_half_the_accuracy_in_percent_at_most_40(new_battle):
    sharp = {"physical": 6, "agility": 6, "perception": 60, "cognition": 1, "faith": 1, "beauty": 0}
    battle = new_battle(party=[(character("Ann", weapon="dagger"), (3, 1)),
                               (character("Eagle", weapon="dagger", attributes=sharp), (3, 3)),
                               (character("Bo", weapon="longsword"), (5, 1)),
                               (character("Cy", weapon="longsword", abilities=[ability("Lunge", "II", crit=True)]),
                                (5, 3))],
                        enemies=[(enemy_def("grunt", character("Grunt", attributes=TANK)), (4, 2))])
    crit_chances = {}
    for who, action in (("ann", Attack("ann", "grunt")), ("eagle", Attack("eagle", "grunt")),
                        ("bo", Attack("bo", "grunt")), ("cy", UseAbility("cy", "Lunge", target="grunt"))):
        for _ in range(8):  # until the blow lands: crits are rolled on a hit
            give_turn(battle, who)
            start = len(battle.log)
            perform(battle, action)
            if events(battle, "attack", start)[0].hit:
                break
        crit_chances[who] = [c.chance for c in events(battle, "check", start) if c.kind == "crit"]
    assert stats(battle["eagle"])["accuracy"] == Fraction("91.7")
    assert crit_chances == {
        "ann": [0.1],  # accuracy 20 → 10%
        "eagle": [0.4],  # 45.85% capped at 40%
        "bo": [],  # a longsword never crits with a normal attack
        "cy": [0.1],  # an ability granting crits, in the short blade's terms
    }


def test_r9_a_hit_deals_at_least_one_damage(new_battle):
    feeble = character("Feeble", attack_formula="weapon * 0")  # a special feature's formula
    battle = new_battle(party=[(feeble, (3, 2))], enemies=[(armored_foe("full_plate"), (4, 2))])
    apply_effect(battle, battle["foe"], "stun", duration=1, magnitude=Fraction(0), source=None)  # sure hit
    give_turn(battle, "feeble")
    start = len(battle.log)
    perform(battle, Attack("feeble", "foe"))
    assert [d.amount for d in events(battle, "damage", start)] == [1]


def test_r9_at_zero_health_an_enemy_dies_and_a_character_falls_unconscious(new_battle):
    battle = new_battle(party=[(character("Hero"), (3, 2)), (character("Pal"), (1, 1))],
                        enemies=[(enemy_def(), (7, 2), "Grunt 1"), (enemy_def(), (7, 4), "Grunt 2")])
    deal_damage(battle, battle["grunt-1"], 10_000, "test")
    deal_damage(battle, battle["hero"], 690, "test")
    assert [(d.target, d.state) for d in events(battle, "defeated")] == [("grunt-1", "dead"), ("hero", "unconscious")]
    assert comp(battle["grunt-1"], Presence) is Presence.dead
    assert comp(battle["hero"], Presence) is Presence.unconscious
    assert (7, 2) not in battle.occupancy and (3, 2) not in battle.occupancy


def test_r9_statistical_hit_rate_matches_the_stated_chance():
    """2000 normal attacks through `strike`: accuracy 20 against evasion 24.5 hits at
    0.7 + 0.02 × (20 − 24.5) = 0.61; the count is within 3 sigma."""
    battle = make_battle(party=[(character("Hero"), (3, 2))],
                         enemies=[(enemy_def("tank", character("Tank", attributes=TANK)), (4, 2))], seed=99)
    hero, tank = battle["hero"], battle["tank"]
    assert stats(tank)["evasion"] == Fraction("24.5")
    trials = 2000
    start = len(battle.log)
    hits = sum(strike(battle, hero, tank) for _ in range(trials))
    checks = events(battle, "check", start)
    assert len(checks) == trials and {c.chance for c in checks} == {0.61}
    assert sum(c.success for c in checks) == hits
    assert abs(hits - trials * 0.61) <= 3 * math.sqrt(trials * 0.61 * 0.39), hits
    assert comp(tank, Presence) is Presence.active


def test_r9_area_abilities_skip_the_accuracy_check(new_battle):
    blast = ability("Blast", "II", target="area", radius=1)
    battle = new_battle(party=[(character("Hero", weapon=CLUB, abilities=[blast]), (3, 2))],
                        enemies=[(enemy_def(), (4, 2), "Grunt 1"), (enemy_def(), (5, 3), "Grunt 2"),
                                 (enemy_def(), (7, 2), "Grunt 3")])
    give_turn(battle, "hero")
    start = len(battle.log)
    assert isinstance(perform(battle, UseAbility("hero", "Blast", at=(4, 2))), Success)
    assert not events(battle, "check", start)
    attacks = events(battle, "attack", start)
    assert sorted(a.target for a in attacks) == ["grunt-1", "grunt-2"]  # radius 1 around (4, 2); not the hero
    assert all(a.hit and a.at == [4, 2] for a in attacks)
    # 93.55 × 1.5 = 140.325 → 140 on each, no armor
    assert [d.amount for d in events(battle, "damage", start)] == [140, 140]


def test_r6_r9_the_engine_and_the_ai_take_the_ability_multiplier_from_the_rules(catalogue):
    """R-6/R-9: one multiplier for the damage pipeline, the AI's weighing and the creation
    preview (`rules.creation.ability_multiplier`): the difficulty's (R-5: III ×2) unless a GM
    set one (×4 here); a normal attack is ×1."""
    from horizon_tui.content.models import Ability, AbilityKind, Difficulty
    from horizon_tui.engine.ai import Harm
    from horizon_tui.engine.attacks import strike_multiplier
    from horizon_tui.rules.creation import ability_multiplier

    battle = make_battle(["....."], [(character("Hero"), (0, 0))], [(enemy_def("foe", character("Foe")), (4, 0))])
    hero = next(iter(battle.combatants()))
    plain = Ability("Bolt", Difficulty.III, AbilityKind.damage)
    override = Ability("Doom", Difficulty.III, AbilityKind.damage, multiplier=Fraction(4))
    assert strike_multiplier(battle, None) == 1
    for spell, expected in ((plain, 2), (override, 4)):
        assert ability_multiplier(spell, battle.rules) == expected
        assert strike_multiplier(battle, spell) == expected
        assert Harm(battle, hero, spell).multiplier == expected
