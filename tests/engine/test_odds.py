"""engine.odds: the numbers the targeting cursor shows, worked by hand from RULES.md (R-7, R-9,
R-10) — and the same numbers the actions then apply."""

from __future__ import annotations

from fractions import Fraction

from dataclasses import replace

from engine_kit import EXAMPLE_ATTACK_BASE, ability, character, enemy_def, events, give_turn
from horizon_tui.engine import odds
from horizon_tui.engine.actions import Attack, perform
from horizon_tui.engine.battle import gear, put
from horizon_tui.engine.components import Gear
from horizon_tui.engine.effects import apply_effect

CLUB = {"name": "Test club", "kind": "one_handed", "damage": "1d1+3"}  # always rolls 4


def _foe(armor="cuir_bouilli", **keys):
    return enemy_def("foe", character("Foe", armor=armor, **keys))


def test_r9_attack_odds_hit_chance_and_one_damage_for_a_constant_weapon(new_battle):
    """Normal attack 4 + 89.55 = 93.55; × (1 − 0.15) for class 8 = 79.5175 → 80 (R-9's order).
    Hit: 70% + 2% × (accuracy 20 − evasion 19.1) = 71.8%. A club can't crit."""
    battle = new_battle(party=[(character("Hero", weapon=CLUB), (3, 2))], enemies=[(_foe(), (4, 2))])
    o = odds.attack_odds(battle, battle["hero"], battle["foe"])
    assert EXAMPLE_ATTACK_BASE + 4 == Fraction("93.55")
    assert o.hit == Fraction("0.718")
    assert o.damage == (80, 80) and o.crit == 0 and o.crit_damage is None


def test_r9_a_dagger_shows_its_roll_range_and_its_crit(new_battle):
    """Dagger 1d8: 1 + 89.55 = 90.55 → ×0.85 = 76.97 → 77; 8 + 89.55 = 97.55 → 82.92 → 83.
    Crit (short blade): accuracy 20 ÷ 2 = 10%; ×2: 153.94 → 154 … 165.84 → 166."""
    battle = new_battle(party=[(character("Hero", weapon="dagger"), (3, 2))], enemies=[(_foe(), (4, 2))])
    o = odds.attack_odds(battle, battle["hero"], battle["foe"])
    assert o.damage == (77, 83)
    assert o.crit == Fraction(1, 10) and o.crit_damage == (154, 166)


def test_r9_a_knocked_down_target_is_hit_without_a_check_and_always_critically(new_battle):
    battle = new_battle(party=[(character("Hero", weapon=CLUB), (3, 2))], enemies=[(_foe(), (4, 2))])
    apply_effect(battle, battle["foe"], "knockdown", duration=1, magnitude=Fraction(0), source=battle["hero"])
    o = odds.attack_odds(battle, battle["hero"], battle["foe"])
    assert o.hit is None  # melee on an immobile target: no accuracy check
    assert o.crit == 1 and o.damage is None and o.crit_damage == (159, 159)  # 93.55 × 2 × 0.85 = 159.035


def test_r9_r10_ability_odds_multiplier_and_effect_chance(new_battle):
    """A difficulty-II damage ability (×1.5): 93.55 × 1.5 × 0.85 = 119.27 → 119; bleeding at 50%."""
    lash = ability("Lash", "II", "damage", target="enemy",
                   effects=[{"effect": "bleeding", "chance": 0.5, "duration": 3, "magnitude": 20}])
    battle = new_battle(party=[(character("Hero", weapon=CLUB, abilities=[lash]), (3, 2))],
                        enemies=[(_foe(), (4, 2))])
    hero = battle["hero"]
    o = odds.ability_odds(battle, hero, gear(hero).character.ability("Lash"), battle["foe"])
    assert o.hit == Fraction("0.718") and o.damage == (119, 119)
    (fx,) = o.effects
    assert (fx.effect, fx.chance, fx.duration, fx.immune) == ("bleeding", Fraction(1, 2), 3, False)


def test_r10_an_immune_target_shows_no_chance_for_that_effect(new_battle):
    stun = ability("Daze", "II", "effect", target="enemy", effects=[{"effect": "stun", "chance": 0.8, "duration": 1}])
    battle = new_battle(party=[(character("Hero", weapon=CLUB, abilities=[stun]), (3, 2))],
                        enemies=[(_foe(), (4, 2))])
    foe = battle["foe"]
    put(foe, Gear, replace(gear(foe), immunities=frozenset({"stun"})))
    (fx,) = odds.ability_odds(battle, battle["hero"], gear(battle["hero"]).character.ability("Daze"), foe).effects
    assert fx.immune and fx.chance == 0


def test_an_area_names_everyone_it_would_touch(new_battle):
    nova = ability("Nova", "II", "damage", target="area", radius=1)
    battle = new_battle(party=[(character("Hero", weapon=CLUB, abilities=[nova]), (1, 2))],
                        enemies=[(_foe(), (4, 2), "Foe A"), (_foe(), (5, 3), "Foe B"), (_foe(), (8, 4), "Foe C")])
    hero = battle["hero"]
    touched = odds.touched(battle, hero, gear(hero).character.ability("Nova"), (4, 3))
    assert sorted(e.uid for e in touched) == ["foe-a", "foe-b"]


def test_the_damage_shown_is_the_damage_dealt(new_battle):
    battle = new_battle(party=[(character("Hero", weapon=CLUB), (3, 2))], enemies=[(_foe(), (4, 2))])
    shown = odds.attack_odds(battle, battle["hero"], battle["foe"]).damage
    for seed in range(8):
        battle.rng.seed(seed)
        give_turn(battle, "hero")
        start = len(battle.log)
        perform(battle, Attack("hero", "foe"))
        for d in events(battle, "damage", start):
            assert shown[0] <= d.amount <= shown[1]
