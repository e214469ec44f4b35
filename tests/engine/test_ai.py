"""AI as data: each behaviour profile of data/ai.toml doing its job in a small scripted
battle on a drawn map; target choice as data; no cheating on sight; the profiles file's errors."""

from __future__ import annotations

from dataclasses import replace

import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from engine_kit import EXAMPLE, GRUNT, ability, character, enemy_def, events, give_turn
from horizon_tui.content.ai_profiles import load_ai_profiles, profiles_from_dict, profiles_path
from horizon_tui.content.encounters import AI_PROFILES, EnemyDef
from horizon_tui.engine import ai
from horizon_tui.engine.battle import check_chance, comp, effects, hp, pos, put
from horizon_tui.engine.components import Controller, Health, Memory, Presence
from horizon_tui.engine.effects import deal_damage
from horizon_tui.errors import DataError
from horizon_tui.rules.ranges import distance
from horizon_tui.content.models import Difficulty
from horizon_tui.tools.validate import validate_paths

DATA = Path(__file__).resolve().parents[2] / "data"
ROD = {"name": "Rod", "kind": "wand", "damage": "1d1+39", "range": 10}  # normal attack 129.55
MEND = ability("Mend", "II", kind="effect", target="ally", effects=[{"effect": "heal", "magnitude": 100}])
BLESS = ability("Bless", "II", kind="effect", target="ally",
                effects=[{"effect": "buff", "duration": 3, "magnitude": 5, "stat": "evasion"}])


def enemy(enemy_id: str, name: str, profile: str, *, weapon="longsword", attributes=GRUNT, abilities=(),
          level=1, targeting="nearest", flee_below=None) -> EnemyDef:
    char = character(name, weapon=weapon, attributes=attributes, abilities=abilities)
    return EnemyDef(enemy_id, char, level, 20, profile, targeting, enemy_id[0], flee_below)


def turn(battle, who: str) -> list:
    """Give `who` its turn and let its AI play it; the events of that turn."""
    e = give_turn(battle, who)
    start = len(battle.log)
    ai.take_turn(battle, e)
    assert battle.current is not e or battle.over  # the turn always ends
    return battle.log[start:]


def acts(log, who: str) -> list[str]:
    return [e.type for e in log if getattr(e, "actor", None) == who and e.type in ("move", "attack", "ability")]


def hurt(battle, who: str, share: Fraction) -> None:
    e = battle[who]
    put(e, Health, Health(int(hp(e).max_hp * share), hp(e).max_hp))


def with_profiles(battle, text: str):
    battle.ai_profiles = profiles_from_dict(tomllib.loads(text), "<test>")
    return battle


# --- the shipped profiles -------------------------------------------------------------------------


def test_the_shipped_profiles_file_has_every_profile_enemies_use():
    profiles = load_ai_profiles(profiles_path(None))
    assert set(profiles.names()) >= set(AI_PROFILES)
    assert all(profiles[name].rules for name in AI_PROFILES)


def test_brute_closes_in_then_strikes(new_battle):
    battle = new_battle(party=[(character("Hero"), (1, 2), "player")], enemies=[(enemy_def(), (7, 2))])
    log = turn(battle, "grunt")
    assert acts(log, "grunt") == ["move"] and pos(battle["grunt"]) == (4, 2)  # speed 3.3: three cells
    log = turn(battle, "grunt")
    assert acts(log, "grunt") == ["move", "attack"] and distance(pos(battle["grunt"]), (1, 2)) == 0
    assert events(battle, "attack")[-1].target == "hero"


def test_archer_steps_back_from_an_adjacent_enemy_to_its_range_and_shoots(new_battle):
    archer = enemy("archer", "Archer", "archer", weapon="shortbow")
    battle = new_battle(["." * 12] * 5, party=[(character("Hero"), (4, 2), "player")], enemies=[(archer, (5, 2))])
    log = turn(battle, "archer")
    assert acts(log, "archer") == ["move", "attack"]
    assert distance(pos(battle["archer"]), (4, 2)) == 3  # `min = 3` in data/ai.toml, reached in 3 cells


def test_archer_that_keeps_its_range_doesnt_move(new_battle):
    archer = enemy("archer", "Archer", "archer", weapon="shortbow")
    battle = new_battle(["." * 12] * 5, party=[(character("Hero"), (2, 2), "player")], enemies=[(archer, (9, 2))])
    assert acts(turn(battle, "archer"), "archer") == ["attack"]
    assert pos(battle["archer"]) == (9, 2)


def test_archer_steps_back_only_where_it_keeps_line_of_sight(new_battle):
    rows = ["............",
            "......##....",
            "......#.....",
            "......##....",
            "............"]
    archer = enemy("archer", "Archer", "archer", weapon="shortbow")
    battle = new_battle(rows, party=[(character("Hero"), (4, 2), "player")], enemies=[(archer, (5, 2))])
    field = battle.battlefield
    assert not field.line_of_sight((7, 0), (4, 2))  # more room behind the wall, but no shot from there
    log = turn(battle, "archer")
    assert acts(log, "archer") == ["move", "attack"]
    here = pos(battle["archer"])
    assert distance(here, (4, 2)) > 0 and field.line_of_sight(here, (4, 2))
    # The way there was read off the distance map it chose from: a cheapest one.
    move = next(e for e in log if e.type == "move")
    steps = [tuple(xy) for xy in move.path]
    best = field.distance_map([(5, 2)], [(4, 2)], difficult_cost=battle.rules.turns.difficult_cost)
    assert steps[-1] == here and move.cost == best[here[1], here[0]] == field.path_cost(steps, 2)
    assert all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1 for a, b in zip([(5, 2), *steps], steps))


def test_coward_flees_off_the_nearest_edge_below_its_threshold(new_battle):
    rat = enemy("rat", "Rat", "coward", weapon="dagger")
    battle = new_battle(party=[(character("Hero"), (6, 2), "player")], enemies=[(rat, (2, 2))])
    hurt(battle, "rat", Fraction(3, 10))  # data/ai.toml: flees below 0.4
    log = turn(battle, "rat")
    assert [e.target for e in log if e.type == "fled"] == ["rat"]
    moves = [e.path for e in log if e.type == "move"]
    assert moves[0][-1] == [0, 0] and len(moves) == 2  # two cells to the corner, then one off the map
    assert comp(battle["rat"], Presence) is Presence.fled and battle.result.winner == "party"


def test_coward_fights_while_healthy_enough(new_battle):
    rat = enemy("rat", "Rat", "coward", weapon="dagger")
    battle = new_battle(party=[(character("Hero"), (6, 2), "player")], enemies=[(rat, (2, 2))])
    hurt(battle, "rat", Fraction(1, 2))
    log = turn(battle, "rat")
    assert not [e for e in log if e.type == "fled"] and acts(log, "rat")[0] == "move"
    assert distance(pos(battle["rat"]), (6, 2)) < 3


def test_an_enemy_files_flee_below_overrides_the_profiles_threshold(new_battle):
    rat = enemy("rat", "Rat", "coward", weapon="dagger", flee_below=0.2)
    battle = new_battle(party=[(character("Hero"), (6, 2), "player")], enemies=[(rat, (2, 2))])
    hurt(battle, "rat", Fraction(3, 10))
    assert not [e for e in turn(battle, "rat") if e.type == "fled"]
    hurt(battle, "rat", Fraction(15, 100))
    assert [e.target for e in turn(battle, "rat") if e.type == "fled"] == ["rat"]


def test_support_heals_the_hurt_ally(new_battle):
    priest = enemy("priest", "Priest", "support", weapon=ROD, abilities=[MEND, BLESS])
    battle = new_battle(party=[(character("Hero"), (0, 2), "player")],
                        enemies=[(priest, (8, 4)), (enemy_def(), (4, 2))])
    hurt(battle, "grunt", Fraction(3, 10))
    before = hp(battle["grunt"]).hp
    log = turn(battle, "priest")
    assert [(e.target, e.source) for e in log if e.type == "heal"] == [("grunt", "priest")]
    assert hp(battle["grunt"]).hp == before + 100


def test_support_blesses_the_ally_at_the_front_when_nobody_is_hurt(new_battle):
    priest = enemy("priest", "Priest", "support", weapon=ROD, abilities=[MEND, BLESS])
    back = enemy("back", "Back", "brute")
    battle = new_battle(party=[(character("Hero"), (0, 2), "player")],
                        enemies=[(priest, (8, 4)), (enemy_def(), (3, 2)), (back, (7, 0))])
    turn(battle, "priest")
    assert effects(battle["grunt"]).has("buff") and not effects(battle["back"]).has("buff")


def test_support_keeps_away_from_the_front(new_battle):
    priest = enemy("priest", "Priest", "support", weapon="mace", abilities=[MEND])
    battle = new_battle(["." * 12] * 5, party=[(character("Hero"), (4, 2), "player")],
                        enemies=[(priest, (5, 2)), (enemy_def(), (4, 4))])
    log = turn(battle, "priest")
    assert acts(log, "priest") == ["move"] and distance(pos(battle["priest"]), (4, 2)) >= 3


def test_skirmisher_moves_away_after_attacking(new_battle):
    goblin = enemy("goblin", "Goblin", "skirmisher", weapon="dagger")
    battle = new_battle(party=[(character("Hero"), (2, 2), "player")], enemies=[(goblin, (5, 2))])
    log = turn(battle, "goblin")
    assert acts(log, "goblin") == ["move", "attack", "move"]  # two cells in, strike, the third cell out
    assert distance(pos(battle["goblin"]), (2, 2)) == 1


def test_caster_uses_the_ability_worth_most_among_those_it_will_likely_pass(new_battle):
    # A level-1 caster checks every difficulty; normal attack 129.55:
    # II 100% × 1.5 = 1.5, III 86% × 2 = 1.73, IV 59% × 4 (a GM's multiplier) = 2.36 but under 60%.
    spells = [ability("Spark", "II"), ability("Bolt", "III"), ability("Doom", "IV", multiplier=4)]
    caster = enemy("hexer", "Hexer", "caster", weapon=ROD, attributes=EXAMPLE, abilities=spells)

    def cast(**kw):
        battle = new_battle(party=[(character("Hero"), (1, 2), "player")], enemies=[(caster, (7, 2))], **kw)
        assert check_chance(battle["hexer"], Difficulty.IV, battle.rules) < Fraction(6, 10) < check_chance(
            battle["hexer"], Difficulty.III, battle.rules)
        return battle

    battle = cast()
    turn(battle, "hexer")
    assert [e.ability for e in events(battle, "ability")] == ["Bolt"]
    battle = with_profiles(cast(), '[caster]\nrules = [{ do = "use_best_ability", min_chance = 0.5 }]')
    turn(battle, "hexer")
    assert [e.ability for e in events(battle, "ability")] == ["Doom"]


def test_caster_saves_its_strong_abilities_for_strong_targets(new_battle):
    spells = [ability("Spark", "II"), ability("Cataclysm", "V")]
    caster = enemy("hexer", "Hexer", "caster", weapon=ROD, attributes=EXAMPLE, abilities=spells, level=6)
    used = []
    for share in (Fraction(4, 10), Fraction(1)):
        battle = new_battle(party=[(character("Hero"), (1, 2), "player")], enemies=[(caster, (7, 2))])
        hurt(battle, "hero", share)
        turn(battle, "hexer")
        used += [e.ability for e in events(battle, "ability")]
    assert used == ["Spark", "Cataclysm"]  # data/ai.toml: V and up only on targets above half health


# --- target choice as data ------------------------------------------------------------------------


def test_targeting_modes_pick_their_target(new_battle):
    party = [
        (character("Near", weapon="dagger"), (3, 2), "player"),
        (character("Frail"), (0, 0), "player"),
        (character("Mighty", weapon="greatsword"), (0, 4), "player"),
    ]
    battle = new_battle(party=party, enemies=[(enemy_def(), (5, 2))])
    grunt = battle["grunt"]
    hurt(battle, "frail", Fraction(1, 5))
    deal_damage(battle, grunt, 1, "mighty")
    seen = ai.visible_enemies(battle, grunt)
    picks = {}
    for mode in ("nearest", "weakest", "dangerous", "last_attacker"):
        put(grunt, Controller, replace(comp(grunt, Controller), targeting=mode))
        picks[mode] = ai.choose_target(battle, grunt, seen).uid
    assert picks == {"nearest": "near", "weakest": "frail", "dangerous": "mighty", "last_attacker": "mighty"}


def test_targeting_drives_the_turn(new_battle):
    archer = enemy("archer", "Archer", "archer", weapon="shortbow", targeting="weakest")
    party = [(character("Near"), (6, 2), "player"), (character("Frail"), (0, 0), "player")]
    battle = new_battle(["." * 12] * 5, party=party, enemies=[(archer, (10, 2))])
    hurt(battle, "frail", Fraction(1, 5))
    turn(battle, "archer")
    assert [e.target for e in events(battle, "attack")] == ["frail"]


# --- no cheating on sight -------------------------------------------------------------------------

WALLED = ["....#....",
          "....#....",
          "....#....",
          "....#....",
          "........."]


def test_ai_never_targets_an_enemy_behind_a_wall(new_battle):
    archer = enemy("archer", "Archer", "archer", weapon="shortbow", targeting="weakest")
    party = [(character("Hidden"), (1, 1), "player"), (character("Open"), (8, 4), "player")]
    battle = new_battle(WALLED, party=party, enemies=[(archer, (7, 1))])
    hurt(battle, "hidden", Fraction(1, 10))  # the weakest by far, and in the bow's range
    assert [e.uid for e in ai.visible_enemies(battle, battle["archer"])] == ["open"]
    turn(battle, "archer")
    assert {e.target for e in events(battle, "attack")} == {"open"}
    assert "hidden" not in comp(battle["archer"], Memory).seen


def test_with_nobody_in_sight_it_heads_where_its_side_last_saw_one(new_battle):
    party = [(character("Hidden"), (1, 1), "player")]
    scout = enemy("scout", "Scout", "brute")

    def walk(last_known):
        battle = new_battle(WALLED, party=party, enemies=[(enemy_def(), (6, 1)), (scout, (8, 0))])
        put(battle["scout"], Memory, replace(comp(battle["scout"], Memory), last_known=last_known))
        assert ai.visible_enemies(battle, battle["grunt"]) == []
        assert not [e for e in turn(battle, "grunt") if e.type == "attack"]
        return pos(battle["grunt"])

    assert walk({}) == (4, 4)  # nothing known: across the field, toward the mirror of its start (2, 3)
    assert walk({"hidden": (8, 4)}) == (8, 3)  # the scout saw the hero at (8, 4) once: it goes to look


def test_crossing_the_field_goes_round_a_hidden_enemy_in_the_way(new_battle):
    """Crossing walks down the battlefield's kept map; a unit of the other side on this turn's
    part of it (unseen: hidden) sends it back to A*, which goes round the unit (R-8)."""
    from horizon_tui.engine.components import ActiveEffect, Effects

    hero = character("Hero")
    battle = new_battle(party=[(hero, (6, 2), "player")], enemies=[(enemy_def(), (8, 2))])
    put(battle["hero"], Effects, Effects((ActiveEffect("hidden", 3, Fraction(0)),)))
    assert ai.visible_enemies(battle, battle["grunt"]) == []
    field, rules = battle.battlefield, battle.rules
    straight = field.downhill((8, 2), (0, 2), difficult_cost=rules.turns.difficult_cost)
    assert straight[:3] == [(7, 2), (6, 2), (5, 2)]  # the way it would walk with nobody there
    grunt = give_turn(battle, "grunt")
    assert "hero" not in comp(grunt, Memory).last_known  # hidden: not seen, so it crosses the field
    start = len(battle.log)
    ai.take_turn(battle, grunt)
    move = next(e for e in battle.log[start:] if e.type == "move")
    assert len(move.path) >= 2 and (6, 2) not in [tuple(xy) for xy in move.path]  # past it, round it
    best = field.path((8, 2), tuple(move.path[-1]), [(6, 2)], difficult_cost=rules.turns.difficult_cost)
    assert move.cost == field.path_cost(best, rules.turns.difficult_cost)


def test_a_hidden_enemy_is_not_seen_moving_but_allies_still_see_it(new_battle):
    """R-13 hide: the other side learns nothing new of a hidden combatant (not where it went, not
    that it exists); its own side still sees it. Where it was seen before it hid stays known."""
    from horizon_tui.engine.components import ActiveEffect, Effects

    battle = new_battle(party=[(character("Hero"), (6, 2), "player"), (character("Friend"), (8, 4), "player")],
                        enemies=[(enemy_def(), (1, 2))])
    give_turn(battle, "grunt")
    assert comp(battle["grunt"], Memory).last_known["hero"] == (6, 2)
    put(battle["hero"], Effects, Effects((ActiveEffect("hidden", 3, Fraction(0)),)))
    battle.place(battle["hero"], (5, 1))
    give_turn(battle, "grunt")
    assert comp(battle["grunt"], Memory).last_known["hero"] == (6, 2)  # not where it went
    give_turn(battle, "friend")
    assert comp(battle["friend"], Memory).last_known["hero"] == (5, 1)


# --- rules as data ----------------------------------------------------------------------------------


def test_rules_run_in_order_and_a_move_hands_back_to_the_top(new_battle):
    battle = new_battle(party=[(character("Hero"), (1, 2), "player")], enemies=[(enemy_def(), (5, 2))])
    with_profiles(battle, '[brute]\nrules = [{ do = "attack" }, { do = "approach" }]')
    assert acts(turn(battle, "grunt"), "grunt") == ["move", "attack"]
    battle = new_battle(party=[(character("Hero"), (1, 2), "player")], enemies=[(enemy_def(), (5, 2))])
    with_profiles(battle, '[brute]\nrules = [{ do = "approach", stop_at = 2 }, { do = "attack" }]')
    assert acts(turn(battle, "grunt"), "grunt") == ["move"] and distance(pos(battle["grunt"]), (1, 2)) == 2


def test_an_approach_walks_a_cheapest_path_and_its_shortcut_is_no_input(new_battle):
    """The AI hands Move the path it found (a prefix of a cheapest path is a cheapest path, R-8),
    so the move costs what the distance map says; that path is not part of a saved input."""
    from horizon_tui.engine.actions import Move
    from horizon_tui.engine.runner import action_from_dict, action_to_dict

    rows = ["..........", "..........", ".......~~.", ".......~~.", ".........."]  # ~ difficult ground
    battle = new_battle(rows, party=[(character("Hero"), (0, 0), "player")], enemies=[(enemy_def(), (9, 4))])
    with_profiles(battle, '[brute]\nrules = [{ do = "approach" }]')
    start = pos(battle["grunt"])
    move = next(e for e in turn(battle, "grunt") if e.type == "move")
    end = tuple(move.path[-1])
    field = battle.battlefield
    best = field.distance_map([start], [], difficult_cost=battle.rules.turns.difficult_cost)[end[1], end[0]]
    assert move.cost == best and end != start
    data = action_to_dict(Move("grunt", (5, 0), partial=True, via=((7, 1), (6, 0), (5, 0))))
    assert "via" not in data and action_from_dict(data) == Move("grunt", (5, 0), partial=True)


# --- the profiles file's errors --------------------------------------------------------------------


def test_profiles_file_errors_name_the_file_the_key_and_the_line(tmp_path):
    path = tmp_path / "ai.toml"
    path.write_text(
        '[coward]\n'
        '[[coward.rules]]\n'
        'do = "fle"\n'
        '[[coward.rules]]\n'
        'do = "flee"\n'
        'when = "health_below"\n'
        'value = 4\n'
        '[[coward.rules]]\n'
        'do = "keep_range"\n'
        'mn = 3\n'
        '[archer]\n'
        'rules = [{ do = "attack", save_strong_for = { when = "target_health_abov", value = 0.5 } }]\n',
        encoding="utf-8",
    )
    with pytest.raises(DataError) as caught:
        load_ai_profiles(path)
    found = {p.key: p for p in caught.value.problems}
    assert set(found) == {"coward.rules.0.do", "coward.rules.1.value", "coward.rules.2.mn",
                          "archer.rules.0.save_strong_for", "archer.rules.0.save_strong_for.when"}
    assert all(p.file == str(path) for p in found.values())
    assert found["coward.rules.0.do"].suggestion == "flee" and found["coward.rules.0.do"].line == 3
    assert found["coward.rules.1.value"].line == 7 and "between 0 and 1" in found["coward.rules.1.value"].message
    assert found["coward.rules.2.mn"].suggestion == "min" and found["coward.rules.2.mn"].line == 10
    assert found["archer.rules.0.save_strong_for.when"].suggestion == "target_health_above"
    assert "only for use_best_ability" in found["archer.rules.0.save_strong_for"].message


def test_validate_checks_the_profiles_file_and_each_enemys_profile(tmp_path):
    (tmp_path / "ai.toml").write_text('[brute]\nrules = [{ do = "attack" }, { do = "huntt" }]\n', encoding="utf-8")
    (tmp_path / "enemies").mkdir()
    goblin = (DATA / "enemies" / "goblin.toml").read_text(encoding="utf-8")
    (tmp_path / "enemies" / "goblin.toml").write_text(goblin, encoding="utf-8")  # ai = "skirmisher"
    problems, _ = validate_paths([tmp_path / "ai.toml", tmp_path / "enemies" / "goblin.toml"])
    assert [(p.key, p.suggestion) for p in problems] == [
        ("brute.rules.1.do", "hunt"), ("ai", None)]
    assert "can't check the profile" in problems[1].message
    (tmp_path / "ai.toml").write_text('[brute]\nrules = [{ do = "attack" }]\n', encoding="utf-8")
    problems, _ = validate_paths([tmp_path / "enemies" / "goblin.toml"])
    assert [(p.key, p.line) for p in problems] == [("ai", 7)]
    assert "unknown AI profile 'skirmisher'; known: brute" in problems[0].message


# --- the speed-ups keep the answers -------------------------------------------------------------


def test_a_distance_map_cut_to_a_move_agrees_with_the_whole_map():
    import random

    import numpy as np

    from horizon_tui.engine.battlefield import UNREACHABLE, Battlefield

    rng = random.Random(4)
    for _ in range(150):
        w, h = rng.randint(3, 16), rng.randint(3, 16)
        field = Battlefield.from_rows(["".join(rng.choice("..,#") for _ in range(w)) for _ in range(h)])
        start = (rng.randrange(w), rng.randrange(h))
        blocked = [(rng.randrange(w), rng.randrange(h)) for _ in range(rng.randint(0, 6))]
        limit = rng.randint(0, 7)
        whole = field.distance_map([start], blocked, difficult_cost=2)
        cut = field.distance_map([start], blocked, difficult_cost=2, within=limit)
        assert (cut == np.where(whole <= limit, whole, UNREACHABLE)).all()
