"""R-10 heal in the ability's preview: how much it restores, not "heal, 100% chance, 3 turns"."""

from __future__ import annotations

from pathlib import Path

import attrs

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.models import EffectSpec
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import ability_preview, heal_range

MORWEN = Path(__file__).resolve().parents[2] / "examples" / "party" / "morwen.toml"


def test_r10_a_heal_without_magnitude_restores_the_normal_attack_times_the_multiplier():
    """Morwen's normal attack is 102.13–107.13; Mend is difficulty II (×1.5): 153.195 → 153 and
    160.695 → 161, whole half up as the battle lands it."""
    catalogue = default_catalogue()
    morwen = load_character(MORWEN, catalogue)
    b = build(morwen, catalogue.rules)
    assert (float(b.attack_min), float(b.attack_max)) == (102.13, 107.13)
    mend = morwen.ability("Mend")
    assert ability_preview(mend, b, catalogue.rules).heal == (153, 161)
    set_amount = attrs.evolve(mend, effects=[EffectSpec(effect="heal", magnitude=120)])
    assert heal_range(set_amount, b, catalogue.rules) == (120, 120)  # a magnitude is the amount
    assert ability_preview(morwen.ability("Ember Lash"), b, catalogue.rules).heal is None
