"""Words: "1 round" not "1 rounds", "1 charge", no "(-86 left)", no "fear 0 turns"."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_kit import character, enemy_def, make_battle  # noqa: E402

from horizon_tui.engine import events as ev  # noqa: E402
from horizon_tui.engine.narrate import describe  # noqa: E402
from horizon_tui.rules.texts import counted  # noqa: E402
from horizon_tui.ui.battle.panels import effect_words  # noqa: E402
from horizon_tui.ui.battle.view import glyph_map  # noqa: E402


def test_counts_take_the_singular_only_for_one():
    assert [counted(n, "round") for n in (0, 1, 2)] == ["0 rounds", "1 round", "2 rounds"]
    assert counted(1, "charge") == "1 charge"


def test_the_log_never_shows_negative_health_or_1_rounds():
    battle = make_battle(party=[(character("Hero"), (1, 1))], enemies=[(enemy_def("foe"), (3, 1))])
    hit = describe(battle, ev.Damaged(target="grunt", amount=120, hp=-86, source="hero"))
    assert hit == "Grunt takes 120 damage (0 health left)."
    end = describe(battle, ev.Result(winner="party", rounds=1, xp={"Hero": 20}))
    assert end.startswith("The party wins after 1 round.")


def test_effects_say_turns_left_and_never_0_turns():
    assert effect_words("fear", 2) == "fear 2 turns left"
    assert effect_words("fear", 1) == "fear 1 turn left"
    assert "0 turn" not in effect_words("fear", 0)


def test_glyphs_differ_per_kind_and_are_never_terrain():
    same = enemy_def("twin", character("Twin"), glyph="B")
    other = enemy_def("brute", character("Brute"), glyph="B")
    dot = enemy_def("dot", character("Dot"), glyph=".")
    battle = make_battle(party=[(character("Hero"), (1, 1))],
                         enemies=[(same, (3, 1), "Twin 1"), (same, (4, 1), "Twin 2"), (other, (5, 1)), (dot, (6, 1))])
    glyphs = glyph_map(battle)
    assert glyphs["hero"] == "@"
    assert glyphs["twin-1"] == glyphs["twin-2"] == "B"  # one kind, one glyph
    assert glyphs["brute"] == "b"  # another kind that wanted "B" gets its other case
    assert glyphs["dot"] not in " .#," and len(set(glyphs.values())) == 4


def test_a_free_actions_line_ends_with_one_full_stop():
    """By hand: f ▸ hide wrote "…the best perception among the enemies.." (the stock action's
    description ends with its own full stop)."""
    battle = make_battle(party=[(character("Hero"), (1, 1))], enemies=[(enemy_def("foe"), (3, 1))])
    hide = describe(battle, ev.FreeActionEvent(actor="hero", description="Slip out of sight.", points_left=1))
    assert hide == "Hero: Slip out of sight."
    dirt = describe(battle, ev.FreeActionEvent(actor="hero", description="Dirt in its eyes.", points_left=1,
                                               target="grunt"))
    assert dirt == "Hero: Dirt in its eyes (Grunt)."
    asked = describe(battle, ev.FreeActionEvent(actor="hero", description="I kick sand", points_left=1))
    assert asked == "Hero: I kick sand."
