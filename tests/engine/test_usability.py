"""R-6 "can this be used now" (`engine.usability`): one check for the actions, the AI and the
screens, and a cooldown count that is the one enforced."""

from __future__ import annotations

from engine_kit import ability, character, enemy_def, give_turn, next_turn_of
from horizon_tui.engine.actions import FreeAction, Impossible, Success, UseAbility, Wait, perform
from horizon_tui.content.models import Difficulty
from horizon_tui.engine.battle import comp, gear, hp, put
from horizon_tui.engine.components import Charges, FreeActions, Health
from horizon_tui.engine.targeting import ability_preview
from horizon_tui.engine.usability import ability_refusal, cooldown_left, free_action_refusal

BASH = ability("Bash", "III", target="enemy")  # R-5: III has a cooldown of 2 own turns, 2 charges at level 2
MEND = ability("Mend", "II", kind="effect", target="self", effects=[{"effect": "heal", "magnitude": 30}])


def _battle(new_battle, *abilities):
    return new_battle(party=[(character("Hero", abilities=list(abilities)), (3, 2))],
                      enemies=[(enemy_def(), (4, 2))])


def test_r6_cooldown_left_counts_the_turns_refused_as_enforced(new_battle):
    battle = _battle(new_battle, BASH)
    hero = give_turn(battle, "hero")
    assert ability_refusal(battle, hero, "Bash") is None and cooldown_left(battle, hero, "Bash") == 0
    assert isinstance(perform(battle, UseAbility("hero", "Bash", target="grunt"), auto_end=False), Success)
    # Used on this turn (its action now spent): refused on the next 2 own turns, so 2 left, not 3.
    assert cooldown_left(battle, hero, "Bash") == 2
    assert ability_refusal(battle, hero, "Bash") == "already acted this turn"
    perform(battle, Wait("hero"))
    assert cooldown_left(battle, hero, "Bash") == 2  # between turns: the next two
    refused = []
    for _ in range(3):
        next_turn_of(battle, "hero")
        refused.append((cooldown_left(battle, hero, "Bash"), ability_refusal(battle, hero, "Bash")))
        if refused[-1][1] is None:
            break
        assert perform(battle, UseAbility("hero", "Bash", target="grunt")) == Impossible(refused[-1][1])
        perform(battle, Wait("hero"))
    assert refused == [(2, "cooling down: 2 turns left"), (1, "cooling down: 1 turn left"), (0, None)]


def test_r6_charges_and_slots_refused_in_words(new_battle):
    battle = _battle(new_battle, BASH)
    hero = give_turn(battle, "hero")
    put(hero, Charges, Charges({**comp(hero, Charges).pools, Difficulty.III: 0}))
    assert ability_refusal(battle, hero, "Bash") == "no charges of III left"
    assert ability_refusal(battle, hero, "Nope") == "doesn't know 'Nope'"
    # the targeting preview (the player's screen) says the same words
    bash = gear(hero).character.ability("Bash")
    assert ability_preview(battle, hero, bash, (4, 2)).problem == "no charges of III left"


def test_r6_a_heal_at_full_health_is_refused(new_battle):
    battle = _battle(new_battle, MEND)
    hero = give_turn(battle, "hero")
    assert ability_refusal(battle, hero, "Mend") == "full health: nothing to heal"
    assert perform(battle, UseAbility("hero", "Mend")) == Impossible("full health: nothing to heal")
    h = hp(hero)
    put(hero, Health, Health(h.hp - 50, h.max_hp))
    assert ability_refusal(battle, hero, "Mend") is None


def test_r13_free_action_refusal(new_battle):
    battle = _battle(new_battle)
    hero = give_turn(battle, "hero")
    assert free_action_refusal(battle, hero) is None
    put(hero, FreeActions, FreeActions(0))
    assert free_action_refusal(battle, hero) == "no free-action points left"
    assert perform(battle, FreeAction("hero", stock="shove", target="grunt")) == Impossible("no free-action points left")


def test_r6_a_gms_cooldown_of_2_refuses_exactly_2_own_turns(new_battle):
    from horizon_tui.engine import overrides as ov
    from horizon_tui.engine.runner import override

    battle = _battle(new_battle, BASH)
    hero = battle["hero"]
    assert not isinstance(override(battle, ov.SetCooldown("hero", "Bash", 2)), Impossible)
    assert cooldown_left(battle, hero, "Bash") == 2  # between its turns: the next two
    refused = []
    for _ in range(3):
        next_turn_of(battle, "hero")
        refused.append(ability_refusal(battle, hero, "Bash"))
        perform(battle, Wait("hero"))
    assert refused == ["cooling down: 2 turns left", "cooling down: 1 turn left", None]
