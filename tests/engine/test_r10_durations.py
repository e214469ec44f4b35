"""R-10's one duration model: a duration N covers exactly the affected combatant's next N own
turns, whatever the effect does (blocks actions, deals damage, changes stats); the log and the
screens say "N turns left" by the count the engine keeps. Each of the nine negative and four
positive effects, for durations 1, 2 and 3."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine_kit import ability, character, enemy_def, events, own_turn
from horizon_tui.engine.actions import Attack, Impossible, Success, UseAbility, Wait, perform
from horizon_tui.engine.battle import comp, current_attributes, effects, hp, stats, team
from horizon_tui.engine.components import TurnState
from horizon_tui.engine.effects import apply_effect, deal_damage
from horizon_tui.engine.narrate import describe
from horizon_tui.engine.sideview import side_view

# What each effect does on a turn it covers, seen from inside that turn (`during`), and what its
# turn's events show. The hero: RULES.md R-2's example (evasion 19.1, speed 5.5, 690 health).
KEYS = {"disease": {"stat": "physical"}, "buff": {"stat": "evasion"}}
MAGNITUDE = {"bleeding": 20, "poison": 15, "disease": 2, "slow": 50, "regeneration": 30, "buff": 5,
             "heal": 40}


def _in_force(battle, effect, start, e) -> bool:
    """Whether `effect` governs the turn in progress (started at log position `start`)."""
    turn_events = battle.log[start:]
    if effect in ("bleeding", "poison"):
        return any(x.type == "damage" and x.target == "hero" and x.source == "grunt" for x in turn_events)
    if effect == "regeneration":
        return any(x.type == "heal" and x.target == "hero" for x in turn_events)
    if effect == "disease":
        return current_attributes(e)["physical"] == 8
    if effect == "buff":
        return stats(e)["evasion"] == Fraction("24.1")
    if effect == "slow":
        return [x.movement for x in turn_events if x.type == "turn"][0] == 2
    if effect == "stun":
        return any(x.type == "wait" and x.reason == "stunned" for x in turn_events)
    if effect == "knockdown":
        return any(x.type in ("get_up", "wait") and x.actor == "hero" and (x.type == "get_up" or x.reason == "down")
                   for x in turn_events)
    if effect == "blindness":
        return any(x.type == "move" and x.reason == "blind" for x in turn_events)
    if effect == "fear":
        return perform(battle, Attack("hero", "grunt")) == Impossible("afraid: it can only flee towards the nearest edge, hide or wait")
    if effect == "domination":
        return team(e) == "enemies"
    raise AssertionError(effect)


LASTING = ["bleeding", "poison", "disease", "stun", "blindness", "slow", "fear", "domination", "knockdown",
           "regeneration", "buff"]


@pytest.mark.parametrize("duration", [1, 2, 3])
@pytest.mark.parametrize("effect", LASTING)
def test_r10_a_duration_covers_exactly_the_next_n_own_turns(new_battle, effect, duration):
    battle = new_battle(party=[(character("Hero"), (3, 2)), (character("Pal"), (1, 1))],
                        enemies=[(enemy_def(), (6, 2))])
    hero = battle["hero"]
    if effect == "regeneration":
        deal_damage(battle, hero, 200, "grunt")
    source = battle["pal"] if effect in ("regeneration", "buff") else battle["grunt"]
    apply_effect(battle, hero, effect, duration=duration, magnitude=Fraction(MAGNITUDE.get(effect, 0)),
                 source=source, **KEYS.get(effect, {}))
    (applied,) = [x for x in events(battle, "effect") if x.effect == effect]
    assert applied.duration == duration
    assert f"({duration} turn{'s' if duration != 1 else ''} left)" in describe(battle, applied)  # the log
    covered, shown = [], []
    for _ in range(duration + 1):
        start = len(battle.log)

        def during(e, start=start):
            fx = effects(e).get(effect)
            unit = side_view(battle, "party").unit("hero") or side_view(battle, None).unit("hero")
            shown.append([f.turns_left for f in unit.effects if f.name == effect])  # what the screens show
            assert (fx.turns_left if fx else None) == (shown[-1][0] if shown[-1] else None)
            return _in_force(battle, effect, start, e)

        covered.append(own_turn(battle, "hero", during))
    assert covered == [True] * duration + [False]
    assert shown == [[duration - k] for k in range(duration)] + [[]]  # N, N−1, … 1 turns left, then gone
    assert [x.effect for x in events(battle, "effect") if x.ended] == [effect]


@pytest.mark.parametrize("duration", [1, 2, 3])
def test_r10_heal_and_cleanse_act_at_once_whatever_the_duration(new_battle, duration):
    battle = new_battle(party=[(character("Hero"), (3, 2)), (character("Pal"), (1, 1))],
                        enemies=[(enemy_def(), (6, 2))])
    hero, pal = battle["hero"], battle["pal"]
    deal_damage(battle, hero, 100, "grunt")
    apply_effect(battle, hero, "heal", duration=duration, magnitude=Fraction(40), source=pal)
    assert hp(hero).hp == 630 and not effects(hero).active  # 590 + 40, nothing lasting
    apply_effect(battle, hero, "poison", duration=3, magnitude=Fraction(10), source=battle["grunt"])
    apply_effect(battle, hero, "cleanse", duration=duration, magnitude=Fraction(0), source=pal)
    assert not effects(hero).active
    heals = []
    for _ in range(3):
        start = len(battle.log)
        own_turn(battle, "hero")
        heals += [x for x in events(battle, "heal", start) if x.target == "hero"]
    assert heals == [] and hp(hero).hp == 630


@pytest.mark.parametrize("duration", [1, 2, 3])
def test_r10_a_self_buff_used_on_its_own_turn_covers_the_next_n(new_battle, duration):
    """The issue's case: a buff of duration 1 must be in force on its holder's next turn."""
    focus = ability("Focus", "II", kind="effect", target="self",
                    effects=[{"effect": "buff", "stat": "accuracy", "magnitude": 10, "duration": duration}])
    battle = new_battle(party=[(character("Hero", abilities=[focus]), (3, 2))], enemies=[(enemy_def(), (6, 2))])

    def use(e):
        assert isinstance(perform(battle, UseAbility("hero", "Focus"), auto_end=False), Success)
        return stats(e)["accuracy"]

    assert own_turn(battle, "hero", use) == 30  # 20 + 10 from now on
    seen = [own_turn(battle, "hero", lambda e: (stats(e)["accuracy"], effects(e).get("buff") and
                                                effects(e).get("buff").turns_left))
            for _ in range(duration + 1)]
    assert seen == [(30, duration - k) for k in range(duration)] + [(20, None)]
    assert comp(battle["hero"], TurnState).own_turns == duration + 2
    perform(battle, Wait("hero"))
