"""The pace knobs: [H] `derived_stats.health_scale` (R-2) and `attack.damage_scale` (R-9)
in rules.toml, 1 by default (the source's numbers), each applied where its rule computes."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import attrs
import pytest

from engine_kit import EXAMPLE, GRUNT, OPEN, character, enemy_def, make_battle
from horizon_tui.cli import main
from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.rules.combat import damage
from horizon_tui.rules.stats import derived_stats

REPO = Path(__file__).resolve().parents[2]
PARTY = sorted(str(p) for p in (REPO / "examples" / "party").glob("*.toml"))


def paced(catalogue: Catalogue, *, health: str = "1", damage_scale: str = "1") -> Catalogue:
    rules = catalogue.rules
    return catalogue.with_rules(attrs.evolve(
        rules, attack=attrs.evolve(rules.attack, damage_scale=Fraction(damage_scale)),
        derived_stats=attrs.evolve(rules.derived_stats, health_scale=Fraction(health)),
    ))


def test_defaults_are_the_sources_numbers():
    rules = default_catalogue().rules
    assert rules.attack.damage_scale == 1 and rules.derived_stats.health_scale == 1


@pytest.mark.parametrize("scale, health", [("1", 690), ("0.5", 345), ("1.5", 1035), ("0.3", 207)])
def test_r2_health_scale_worked_numbers(scale, health):
    """R-2's worked example has health 690 (10×40 + 10×10 + 10×8 + 6×5 + 5×15 + 1×5); the scale
    multiplies it; the other stats don't move."""
    stats = derived_stats(EXAMPLE, health_scale=Fraction(scale))
    assert stats["health"] == health
    assert stats["strength"] == Fraction("20.5") and stats["willpower"] == Fraction("36.2")


def test_r2_scaled_health_stays_whole_rounding_half_up():
    odd = dict(EXAMPLE, beauty=2)  # 695 health: × 0.5 = 347.5 → 348
    assert derived_stats(odd, health_scale=Fraction("0.5"))["health"] == 348


def test_r2_health_scale_reaches_the_sheet_and_the_battle():
    from horizon_tui.rules.character import build

    catalogue = paced(default_catalogue(), health="0.5")
    hero = character("Hero", catalogue=catalogue)
    assert build(hero, catalogue.rules).stats["health"] == 345
    battle = make_battle(OPEN, [(hero, (0, 2))], [(enemy_def(char=character("Grunt", attributes=GRUNT)), (8, 2))],
                         catalogue=catalogue)
    from horizon_tui.engine.battle import hp

    assert hp(battle["hero"]).max_hp == 345 == hp(battle["hero"]).hp
    # Grunt: 6×40 + 6×10 + 6×8 + 3×5 + 3×15 = 408 → 204
    assert hp(battle["grunt"]).max_hp == 204


@pytest.mark.parametrize("scale, amount", [("1", 23), ("2", 45), ("0.5", 11), ("1.5", 34)])
def test_r9_damage_scale_worked_numbers(scale, amount):
    """R-9's order: 20 × 1.5 (difficulty II) = 30 → × (1 − 0.25 armor) = 22.5 → × scale → round
    half up: 22.5 → 23; × 2 = 45; × 0.5 = 11.25 → 11; × 1.5 = 33.75 → 34."""
    attack = attrs.evolve(default_catalogue().rules.attack, damage_scale=Fraction(scale))
    assert damage(Fraction(20), multiplier=Fraction("1.5"), armor=Fraction("0.25"), attack=attack) == amount


def test_r9_a_scaled_hit_still_does_at_least_one():
    attack = attrs.evolve(default_catalogue().rules.attack, damage_scale=Fraction("0.01"))
    assert damage(Fraction(20), attack=attack) == 1  # 0.2 → min_damage_on_hit


def test_r9_damage_scale_doubles_the_first_hit_of_the_same_battle():
    """Up to the first hit both battles draw the same numbers; its damage is then ×2 (±1 from
    rounding each to a whole number)."""
    from horizon_tui.engine.forming import create_battle
    from horizon_tui.tools.battle_command import prepare
    from horizon_tui.engine.runner import play_out

    first = []
    for scale in ("1", "2"):
        catalogue, enemies, setup, party = prepare("goblin_ambush", [Path(p) for p in PARTY], 0)
        battle = create_battle(setup, party, 5, paced(catalogue, damage_scale=scale), enemies)
        play_out(battle)
        first.append(next(e for e in battle.log if e.type == "damage"))
    one, two = first
    assert (one.target, one.source) == (two.target, two.source)
    assert two.amount in (2 * one.amount - 1, 2 * one.amount, 2 * one.amount + 1)


@pytest.mark.parametrize("key, line", [("damage_scale", "damage_scale = 0"), ("health_scale", "health_scale = -1")])
def test_validate_refuses_a_scale_of_zero_or_less(tmp_path, capsys, key, line):
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data)
    rules = data / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert f"{key} = 1.0" in text
    rules.write_text(text.replace(f"{key} = 1.0", line), encoding="utf-8")
    assert main(["validate", str(rules)]) == 1
    out = capsys.readouterr().out
    assert key in out and "above 0" in out


def test_rules_shows_the_pace_knobs_as_house_numbers(capsys):
    assert main(["rules", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"attack.damage_scale", "derived_stats.health_scale"} <= set(doc["house"])
    assert doc["attack"]["damage_scale"] == 1 and doc["derived_stats"]["health_scale"] == 1
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "attack.damage_scale" in out and "derived_stats.health_scale" in out
