"""R-9 over 500 seeded small battles: every `check` event of kind `accuracy` is against a mobile
target or from range — never a melee weapon within its reach against a stunned or knocked-down
target. Battles lean on stuns and knockdowns and melee weapons so the case comes up often."""

from __future__ import annotations

import random

from engine_kit import ability, character, enemy_def, make_battle, rules_with
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.engine import events as ev
from horizon_tui.engine import runner
from horizon_tui.engine.battle import gear, is_immobile, pos
from horizon_tui.rules.ranges import distance, is_melee

WEAPONS = ["longsword", "greatsword", "spear", "halberd", "dagger", "longbow", "javelin"]
ABILITIES = [
    ability("Daze", "II", kind="effect", target="enemy", effects=[{"effect": "stun", "chance": 0.6, "duration": 2}]),
    ability("Trip", "II", kind="effect", target="enemy", effects=[{"effect": "knockdown", "duration": 1}]),
    ability("Sweep", "II", target="area", radius=1, effects=[{"effect": "knockdown", "chance": 0.5, "duration": 1}]),
    ability("Lunge", "V", target="enemy"),
    ability("Cleave", "II", target="enemy"),
]
RULES = rules_with(default_catalogue(), round_cap=12)


def _battle(seed: int):
    rng = random.Random(seed)
    width, height = rng.randint(5, 8), rng.randint(3, 5)
    cells = rng.sample([(x, y) for x in range(width) for y in range(height)], 4)

    def fighter(name):
        picked = rng.sample(ABILITIES, 2)
        return character(name, weapon=rng.choice(WEAPONS), abilities=picked, catalogue=RULES)

    party = [(fighter(f"Hero {n}"), cells[n]) for n in range(2)]
    enemies = [(enemy_def(f"foe{n}", fighter(f"Foe {n}")), cells[2 + n]) for n in range(2)]
    return make_battle(["." * width] * height, party, enemies, seed=seed, catalogue=RULES)


def test_r9_no_accuracy_check_in_melee_against_an_immobile_target_over_500_battles():
    checked = immobile_seen = 0
    for seed in range(500):
        battle = _battle(seed)
        wrong = []

        def look(event, battle=battle, wrong=wrong, seed=seed):
            nonlocal checked, immobile_seen
            if not (isinstance(event, ev.Check) and event.kind == "accuracy"):
                return
            checked += 1
            attacker, target = battle[event.actor], battle[event.target]
            if is_immobile(target):
                immobile_seen += 1
                if is_melee(gear(attacker).weapon, distance(pos(attacker), pos(target)), battle.rules):
                    wrong.append((seed, event.seq, event.actor, event.target))

        battle.listeners.append(look)
        runner.begin(battle)
        runner.run_ai(battle)
        assert battle.over and not wrong, wrong
    assert checked > 1000 and immobile_seen > 20  # the property was put to the test: ranged checks on the immobile
