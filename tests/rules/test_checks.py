"""R-7 difficulty checks and R-12 dialogue checks, with seeded random sources."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import attrs
import pytest

from horizon_tui.content.models import Difficulty
from horizon_tui.rules.checks import (
    DialogueRoll,
    Failure,
    dialogue_check,
    dialogue_score,
    dialogue_success_chance,
    difficulty_check_chance,
    failure_outcome,
    roll_chance,
)
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.progression import needs_difficulty_check
from horizon_tui.rules.stats import derived_stats

F = Fraction
ATTACK = F("90.55")  # the worked example's lowest normal attack


# --- R-7 -----------------------------------------------------------------------------------------


def test_r7_chance_is_attack_over_threshold(rules):
    """R-7 [H]: attack 90.55 vs difficulty III (threshold 150) at level 2 -> 90.55/150."""
    assert difficulty_check_chance(ATTACK, Difficulty.III, 2, rules) == F("90.55") / 150
    assert difficulty_check_chance(ATTACK, Difficulty.II, 1, rules) == F("90.55") / 100
    assert difficulty_check_chance(ATTACK, Difficulty.VI, 5, rules) == F("90.55") / 400


def test_r7_chance_is_capped_at_1(rules):
    """R-7: min(1, attack ÷ threshold): 250 against II's 100 is a certainty, not 2.5."""
    assert difficulty_check_chance(F(250), Difficulty.II, 1, rules) == 1


@pytest.mark.parametrize("difficulty", list(Difficulty))
def test_r7_check_dropped_once_level_reaches_the_table(difficulty, rules):
    """R-7: chance 1 (no check) once level >= check_dropped_at; a real check one level below."""
    dropped = rules.difficulty(difficulty).check_dropped_at
    assert difficulty_check_chance(ATTACK, difficulty, dropped, rules) == 1
    assert difficulty_check_chance(ATTACK, difficulty, dropped + 5, rules) == 1
    assert not needs_difficulty_check(difficulty, dropped, rules)
    if dropped > 1:
        assert needs_difficulty_check(difficulty, dropped - 1, rules)
        assert difficulty_check_chance(ATTACK, difficulty, dropped - 1, rules) < 1


def test_r7_failure_outcome_is_60_20_20(rules):
    """R-7 [S]: a failed check does nothing 60%, hits its user 20%, a random character 20%."""
    rng = random.Random(2024)
    trials = 20_000
    counts = Counter(failure_outcome(rng, rules.checks) for _ in range(trials))
    assert set(counts) == set(Failure)
    assert abs(counts[Failure.fizzle] / trials - 0.6) < 0.015
    assert abs(counts[Failure.self] / trials - 0.2) < 0.015
    assert abs(counts[Failure.random] / trials - 0.2) < 0.015


def test_r7_failure_outcome_replays_from_its_seed(rules):
    """R-7 / all randomness seeded: the same seed gives the same outcomes."""
    first = [failure_outcome(random.Random(7), rules.checks) for _ in range(3)]
    a, b = random.Random(99), random.Random(99)
    assert [failure_outcome(a, rules.checks) for _ in range(200)] == [failure_outcome(b, rules.checks) for _ in range(200)]
    assert len(set(first)) == 1


def test_r7_roll_chance_is_exact_at_the_ends_and_fair_between():
    """R-7: one roll against the chance; 0 never succeeds, 1 always, 90.55/150 about 60.4% of the time."""
    rng = random.Random(5)
    assert not any(roll_chance(F(0), rng) for _ in range(500))
    assert all(roll_chance(F(1), rng) for _ in range(500))
    chance = F("90.55") / 150
    hits = sum(roll_chance(chance, rng) for _ in range(20_000))
    assert abs(hits / 20_000 - float(chance)) < 0.015


# --- R-12 ----------------------------------------------------------------------------------------


def _twin_dice(seed: int, dialogue) -> tuple[int, int]:
    """The two d20s a dialogue check draws from `random.Random(seed)`: attacker's, then target's."""
    die = parse_dice(dialogue.die)
    twin = random.Random(seed)
    return die.roll(twin), die.roll(twin)


@pytest.mark.parametrize("seed", [1, 2, 3, 42])
def test_r12_roll_is_d20_plus_twice_score_plus_modifier_vs_d20_plus_half_willpower(seed, rules, example_attributes):
    """R-12 [H]: 1d20 + 2×physical + modifier against 1d20 + willpower ÷ 2 (intimidation)."""
    stats = derived_stats(example_attributes)
    roll = dialogue_check("intimidation", example_attributes, stats, F("36.2"), 3, random.Random(seed), rules.dialogue)
    a, d = _twin_dice(seed, rules.dialogue)
    assert (roll.attacker_die, roll.defender_die) == (a, d)
    assert roll.score_name == "physical" and roll.score == 20
    assert roll.attacker_total == a + 20 + 3
    assert roll.defender_total == d + F("18.1")
    assert roll.success == (a + 23 >= d + F("18.1"))


def test_r12_every_type_uses_its_score(rules, example_attributes):
    """R-12: intimidation physical, charm beauty, persuasion cognition (each ×2)."""
    stats = derived_stats(example_attributes)
    for kind, name, score in (("intimidation", "physical", 20), ("charm", "beauty", 2), ("persuasion", "cognition", 12)):
        assert dialogue_score(kind, example_attributes, stats, rules.dialogue) == (name, score)


def test_r12_trickery_takes_the_better_of_agility_x2_and_accuracy_x1(rules):
    """R-12: trickery = max(2 × agility, 1 × accuracy)."""
    d = rules.dialogue
    assert dialogue_score("trickery", {"agility": 10}, {"accuracy": F(25)}, d) == ("accuracy", 25)
    assert dialogue_score("trickery", {"agility": 15}, {"accuracy": F(20)}, d) == ("agility", 30)
    assert dialogue_score("trickery", {"agility": 10}, {"accuracy": F("20.5")}, d) == ("accuracy", F("20.5"))


def test_r12_ties_succeed():
    """R-12: success if the first total is higher or equal."""
    tie = DialogueRoll("charm", "beauty", F(2), 0, 10, F(12), 2, F(12))
    assert tie.success
    short = DialogueRoll("charm", "beauty", F(2), 0, 10, F(12), 3, F(13))
    assert not short.success


def test_r12_a_seeded_tie_succeeds(rules):
    """R-12: with scores that can tie (score 10, willpower 20 -> both sides 1d20 + 10), a tied roll succeeds."""
    ties = 0
    for seed in range(200):
        roll = dialogue_check("intimidation", {"physical": 5}, {}, F(20), 0, random.Random(seed), rules.dialogue)
        if roll.attacker_die == roll.defender_die:
            ties += 1
            assert roll.attacker_total == roll.defender_total and roll.success
        else:
            assert roll.success == (roll.attacker_die > roll.defender_die)
    assert ties > 0


@pytest.mark.parametrize("modifier", [-5, 5, 10])
def test_r12_modifier_outside_minus_4_to_4_is_refused(modifier, rules):
    """R-12: the GM's roleplay modifier is −4 … +4."""
    with pytest.raises(ValueError, match="modifier"):
        dialogue_check("charm", {"beauty": 3}, {}, F(10), modifier, random.Random(1), rules.dialogue)


@pytest.mark.parametrize("modifier", [-4, 0, 4])
def test_r12_modifier_within_bounds_is_added(modifier, rules):
    """R-12: −4 and +4 are allowed and added to the first total."""
    roll = dialogue_check("charm", {"beauty": 3}, {}, F(10), modifier, random.Random(1), rules.dialogue)
    assert roll.attacker_total == roll.attacker_die + 6 + modifier


def test_r12_unknown_check_type_is_refused(rules):
    with pytest.raises(ValueError, match="unknown check type"):
        dialogue_check("bribery", {"beauty": 3}, {}, F(10), 0, random.Random(1), rules.dialogue)


def test_r12_success_chance_exact_for_small_cases(rules):
    """R-12: physical 5 (score 10) vs willpower 20 (10): P(a >= d) over 400 face pairs = 210/400;
    with +4 against willpower 48 (24): P(a >= d + 10) = 55/400."""
    d = rules.dialogue
    assert dialogue_success_chance("intimidation", {"physical": 5}, {}, F(20), 0, d) == F(21, 40)
    assert dialogue_success_chance("intimidation", {"physical": 5}, {}, F(48), 4, d) == F(11, 80)
    assert dialogue_success_chance("intimidation", {"physical": 50}, {}, F(0), 0, d) == 1
    assert dialogue_success_chance("intimidation", {"physical": 0}, {}, F(100), -4, d) == 0


def test_r12_success_chance_matches_seeded_rolls(rules):
    """R-12: the exact odds agree with the frequency of real seeded checks."""
    d = rules.dialogue
    exact = dialogue_success_chance("charm", {"beauty": 4}, {}, F(25), 1, d)
    rng = random.Random(11)
    trials = 10_000
    wins = sum(dialogue_check("charm", {"beauty": 4}, {}, F(25), 1, rng, d).success for _ in range(trials))
    assert abs(wins / trials - float(exact)) < 0.02


def test_r3_settlement_reactions_split_25_50_25_with_their_modifiers(rules):
    """R-3 [H]: over many seeded rolls the three reactions land near 25/50/25 (3 sigma), and
    each carries its modifier: −2, 0, +2."""
    import random

    from horizon_tui.rules.checks import settlement_reaction

    rng = random.Random(3)
    counts = {"ill-wisher": 0, "indifferent": 0, "admirer": 0}
    for _ in range(4000):
        reaction, modifier = settlement_reaction(rng, rules.species)
        counts[reaction] += 1
        assert modifier == {"ill-wisher": -2, "indifferent": 0, "admirer": 2}[reaction]
    for reaction, share in (("ill-wisher", 0.25), ("indifferent", 0.5), ("admirer", 0.25)):
        sigma = (4000 * share * (1 - share)) ** 0.5
        assert abs(counts[reaction] - 4000 * share) < 3 * sigma


def test_r13_contest_chance_is_own_over_own_plus_the_best_opposing():
    from horizon_tui.rules.checks import contest_chance

    # stealth 11.2 against perception 6: 11.2 ÷ 17.2 = 56/86 ≈ 0.651
    assert contest_chance(Fraction("11.2"), Fraction(6), Fraction(1, 2)) == Fraction(56, 86)
    assert contest_chance(Fraction(0), Fraction(0), Fraction(1, 3)) == Fraction(1, 3)  # nothing to weigh


def test_r12_the_target_adds_half_its_willpower(rules):
    """R-12 [H]: the defence is willpower ÷ 2 (the data's `willpower_divisor`): 35.3 → 17.65."""
    from horizon_tui.rules.checks import dialogue_defence

    assert dialogue_defence(Fraction("35.3"), rules.dialogue) == Fraction("17.65")
    halved = attrs.evolve(rules.dialogue, willpower_divisor=4)
    assert dialogue_defence(Fraction(20), halved) == 5


def test_r12_daily_limits_four_checks_a_day_and_one_per_npc(rules):
    """R-12 [S]: a character's fifth check of the day is refused, and so is a second on one NPC;
    with `per_npc_scope = "table"` the party's checks on the NPC count together."""
    import attrs

    from horizon_tui.rules.checks import dialogue_limit_refusal

    dialogue = rules.dialogue
    assert dialogue_limit_refusal("Iriel", "Marta", 3, 0, dialogue) is None
    assert "made 4 checks today; the limit is 4 per day (R-12)" in dialogue_limit_refusal("Iriel", "Marta", 4, 0,
                                                                                          dialogue)
    assert "already tried Marta today; the limit is 1 per NPC" in dialogue_limit_refusal("Iriel", "Marta", 1, 1,
                                                                                        dialogue)
    table = attrs.evolve(dialogue, per_npc_scope="table")
    assert "the party has already tried Marta 2 times today" in dialogue_limit_refusal("Iriel", "Marta", 0, 2, table)
