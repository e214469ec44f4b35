"""R-11 ranges: cells between attacker and target (0 = adjacent), by weapon kind and difficulty;
line of sight for ranged attacks; the mage's 50 cells; a bow's shot at a fled target."""

from __future__ import annotations

from fractions import Fraction

from engine_kit import ability, character, enemy_def, events, give_turn
from horizon_tui.engine.actions import Attack, Impossible, Move, Success, UseAbility, perform
from horizon_tui.engine.battle import comp
from horizon_tui.engine.components import Memory, Presence

VETERAN = {"physical": 20, "agility": 20, "perception": 20, "cognition": 11, "faith": 10, "beauty": 1}  # level 6
WIDE = ["." * 45] * 3


def test_r11_normal_attack_out_of_range_is_refused_with_the_reason(new_battle):
    battle = new_battle(party=[(character("Hero"), (2, 2)), (character("Lancer", weapon="spear"), (2, 0))],
                        enemies=[(enemy_def(), (4, 2))])
    give_turn(battle, "hero")
    # one cell between (2 squares as a player counts them), a sword reaches 0 (adjacent)
    assert perform(battle, Attack("hero", "grunt")) == Impossible("Grunt is out of range: 2 squares away, reach adjacent")
    give_turn(battle, "lancer")  # a polearm reaches 1 cell between: (2,0) → (4,2) is 1 away
    assert isinstance(perform(battle, Attack("lancer", "grunt")), Success)


def test_r11_ranged_attack_needs_line_of_sight(new_battle):
    rows = [".........", "....#....", "........."]
    battle = new_battle(rows, party=[(character("Archer", weapon="longbow"), (1, 1))], enemies=[(enemy_def(), (7, 1))])
    give_turn(battle, "archer")
    assert perform(battle, Attack("archer", "grunt")) == Impossible("no line of sight to Grunt")
    perform(battle, Move("archer", (1, 0)), auto_end=False)
    assert isinstance(perform(battle, Attack("archer", "grunt")), Success)  # around the pillar


def test_r11_difficulty_v_and_vi_abilities_use_the_strong_range(new_battle):
    hero = character("Lancer", weapon="spear", abilities=[ability("Skewer", "V"), ability("Jab", "II")])
    battle = new_battle(party=[(hero, (2, 2))], enemies=[(enemy_def(), (5, 2))])  # 2 cells between
    give_turn(battle, "lancer")
    assert perform(battle, Attack("lancer", "grunt")) == Impossible("Grunt is out of range: 3 squares away, reach 2 squares")
    assert perform(battle, UseAbility("lancer", "Jab", target="grunt")) == Impossible(
        "Grunt is out of range: 3 squares away, reach 2 squares")
    assert isinstance(perform(battle, UseAbility("lancer", "Skewer", target="grunt")), Success)  # polearm V: 2


def test_r11_mage_non_damaging_ability_reaches_50_cells_on_a_target_seen_once(new_battle):
    hex_ = ability("Hex", "II", kind="effect", effects=[{"effect": "slow", "duration": 2, "magnitude": 30}])
    bolt = ability("Bolt", "II")
    cloud = ability("Cloud", "II", kind="effect", target="area", radius=1,
                    effects=[{"effect": "slow", "duration": 2, "magnitude": 30}])
    mage = character("Mage", weapon="quarterstaff", abilities=[hex_, bolt, cloud])
    battle = new_battle(WIDE, party=[(mage, (1, 1))], enemies=[(enemy_def(), (40, 1))])  # 38 cells between
    give_turn(battle, "mage")
    assert "grunt" in comp(battle["mage"], Memory).seen
    assert perform(battle, UseAbility("mage", "Bolt", target="grunt")) == Impossible(
        "Grunt is out of range: 39 squares away, reach 11 squares")  # damaging: the staff's 10
    assert perform(battle, UseAbility("mage", "Cloud", at=(40, 1))) == Impossible(
        "that cell is out of range: 39 squares away, reach 11 squares")  # an area: no 50 cells
    assert isinstance(perform(battle, UseAbility("mage", "Hex", target="grunt")), Success)


def test_r11_mage_long_range_needs_the_target_seen(new_battle):
    hex_ = ability("Hex", "II", kind="effect", effects=[{"effect": "slow", "duration": 2, "magnitude": 30}])
    rows = ["." * 20 + "#" + "." * 24] * 3  # a wall from edge to edge: never seen
    battle = new_battle(rows, party=[(character("Mage", weapon="quarterstaff", abilities=[hex_]), (1, 1))],
                        enemies=[(enemy_def(), (40, 1))])
    give_turn(battle, "mage")
    assert "grunt" not in comp(battle["mage"], Memory).seen
    assert perform(battle, UseAbility("mage", "Hex", target="grunt")) == Impossible(
        "Grunt is out of range: 39 squares away, reach 11 squares")


def test_r11_bow_difficulty_vi_ability_hits_a_fled_target_at_half_the_hit_chance(new_battle):
    arrow = ability("Last Arrow", "VI")
    archer = character("Archer", weapon="longbow", attributes=VETERAN, abilities=[arrow])
    gunner = character("Gunner", weapon="heavy_crossbow", attributes=VETERAN, abilities=[arrow])
    battle = new_battle(party=[(archer, (1, 2)), (gunner, (1, 4))],
                        enemies=[(enemy_def(), (8, 2), "Grunt 1"), (enemy_def(), (7, 4), "Grunt 2")])
    give_turn(battle, "archer")  # sees both grunts
    give_turn(battle, "gunner")
    give_turn(battle, "grunt-1")
    perform(battle, Move("grunt-1", (9, 2)))
    assert comp(battle["grunt-1"], Presence) is Presence.fled

    give_turn(battle, "gunner")
    assert perform(battle, UseAbility("gunner", "Last Arrow", target="grunt-1")) == Impossible(
        "Grunt 1 is out of the battle")  # a crossbow can't
    give_turn(battle, "archer")
    assert perform(battle, Attack("archer", "grunt-1")) == Impossible("Grunt 1 is out of the battle")
    start = len(battle.log)
    assert isinstance(perform(battle, UseAbility("archer", "Last Arrow", target="grunt-1")), Success)
    assert not [c for c in events(battle, "check", start) if c.kind == "difficulty"]  # level 6: dropped
    (check,) = [c for c in events(battle, "check", start) if c.kind == "accuracy"]
    # accuracy 39.5 against evasion 11.4: 0.7 + 0.02 × 28.1 → capped at 0.95; halved for the fled
    assert check.target == "grunt-1" and check.chance == float(Fraction("0.95") / 2)
