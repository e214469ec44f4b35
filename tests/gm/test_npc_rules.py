"""An NPC's attribute minimums come from the rules data (R-1, data/rules.toml's
[creation] minimums), and its sheet shows the health a battle starts it with — rules.character.build
over the NPC as a battle fields it, `derived_stats.health_scale` (R-2 [H]) included."""

from __future__ import annotations

import gc
import shutil
import sys
import weakref
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from textual.widgets import Input, Static

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_kit import OPEN, character, make_battle  # noqa: E402 - the engine tests' battle maker, from their folder

from horizon_tui.content.catalogue import data_dir, default_catalogue  # noqa: E402
from horizon_tui.engine.battle import hp, ident  # noqa: E402
from horizon_tui.campaign import battles  # noqa: E402
from horizon_tui.ui.gm.app import create_gm_app  # noqa: E402
from horizon_tui.campaign import model  # noqa: E402
from horizon_tui.campaign.model import Npc  # noqa: E402
from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen  # noqa: E402

# Mayor Oswin of tests/gm/conftest.py, a human: R-2 health 3×40 + 4×10 + 3×8 + 5×5 + 6×15 + 5×5 = 324.
OSWIN = Npc("Mayor Oswin", level=3, attributes={"physical": 3, "agility": 4, "perception": 3, "cognition": 5,
                                                 "faith": 6, "beauty": 5})


def paced(health_scale: str):
    catalogue = default_catalogue()
    rules = catalogue.rules
    return catalogue.with_rules(attrs.evolve(rules, derived_stats=attrs.evolve(
        rules.derived_stats, health_scale=Fraction(health_scale))))


def test_r1_an_npc_made_without_attributes_starts_at_the_rules_minimums():
    assert Npc("Villager").attributes == {"physical": 1, "agility": 1, "perception": 1, "cognition": 1,
                                          "faith": 1, "beauty": 0}


def test_r1_the_npc_minimums_are_read_from_the_rules_data(tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(data_dir(), data)
    rules = data / "rules.toml"
    text = rules.read_text(encoding="utf-8")
    assert "minimums = { physical = 1," in text
    rules.write_text(text.replace("minimums = { physical = 1,", "minimums = { physical = 3,"), encoding="utf-8")
    monkeypatch.setenv("HORIZON_DATA", str(data))
    assert Npc("Villager").attributes["physical"] == 3
    # The quick stat line's beauty (not a fighting attribute) sits at the rules' minimum too.
    beauty_one = default_catalogue().with_rules(attrs.evolve(default_catalogue().rules, creation=attrs.evolve(
        default_catalogue().rules.creation, beauty_from_one=True)))
    quick = battles.quick_enemy("Bandit", 2, 30, "dagger", beauty_one)
    assert quick.character.attributes["beauty"] == 1


async def test_the_npc_editor_starts_a_new_npc_at_the_campaigns_minimums(session, catalogue):
    session.apply(lambda c: attrs.evolve(c, rules={"creation": {"beauty_from_one": True}}), "rules")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NpcEditorScreen)
        assert app.screen.query_one("#npc-beauty", Input).value == "1"  # R-1 [H] beauty_from_one
        assert app.screen.query_one("#npc-physical", Input).value == "1"


def test_r2_the_npc_sheet_health_is_the_battles_with_health_scale():
    for scale, health in (("1", 324), ("0.5", 162), ("1.5", 486)):
        catalogue = paced(scale)
        assert OSWIN.effective_health(catalogue) == health, scale
        battle = make_battle(OPEN, [(character("Hero", catalogue=catalogue), (0, 2))],
                             [(battles.npc_enemy(OSWIN, catalogue), (8, 2))], catalogue=catalogue)
        [fighter] = [e for e in battle.combatants() if ident(e).name == "Mayor Oswin"]
        assert hp(fighter).max_hp == health, scale
    # Health set by hand is what the battle starts with, whatever the scale.
    assert attrs.evolve(OSWIN, health=50).effective_health(paced("0.5")) == 50


def test_an_npcs_numbers_kept_for_the_dashboard_go_with_it_and_never_answer_for_another():
    """Npc.stats is kept per NPC object (each takes ~0.25 ms to work out; the dashboard asks every
    NPC's twice a roster change). Nothing keeps the NPC alive for it, and a later NPC given a dead
    one's id, or a later catalogue, gets its own numbers."""
    catalogue = default_catalogue()
    strong = attrs.evolve(OSWIN, name="Strong", attributes={**OSWIN.attributes, "physical": 9})
    assert strong.effective_health(catalogue) > 324
    gone, key = weakref.ref(strong), id(strong)
    del strong
    gc.collect()
    assert gone() is None and key not in model._npc_stats  # its numbers went with it
    held = []  # NPCs made until one is given the dead one's id (CPython reuses it at once, mostly)
    for _ in range(1000):
        later = attrs.evolve(OSWIN)
        if id(later) == key:
            break
        held.append(later)
    assert later.effective_health(catalogue) == 324  # its own, not Strong's
    for scale, health in (("1", 324), ("0.5", 162), ("1", 324), ("1.5", 486)):  # a catalogue each, dropped after
        assert later.effective_health(paced(scale)) == health, scale


async def test_the_npc_editor_shows_the_scaled_health(session, catalogue):
    session.apply(lambda c: attrs.evolve(c, rules={"derived_stats": {"health_scale": 0.5}}), "rules")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        editor = app.screen
        assert isinstance(editor, NpcEditorScreen)
        for attribute, value in OSWIN.attributes.items():
            editor.query_one(f"#npc-{attribute}", Input).value = str(value)
        await pilot.pause()
        preview = str(editor.query_one("#npc-preview", Static).render())
        assert "health 162 (R-2: 162)" in preview, preview


def test_r4_a_quick_combatant_has_the_guides_points():
    """R-4 [H]'s guide: a level-1 enemy has 32 attribute points and a level-4 one 62, spread over
    the five fighting attributes (rules.rating.guide_points: one place, no floor of its own)."""
    catalogue = default_catalogue()
    fighting = ("physical", "agility", "perception", "cognition", "faith")
    for level, points in ((1, 32), (4, 62)):
        quick = battles.quick_enemy("Bandit", level, 30, "dagger", catalogue)
        assert sum(quick.character.attributes[a] for a in fighting) == points
    few = catalogue.with_rules(attrs.evolve(catalogue.rules, creation=attrs.evolve(catalogue.rules.creation,
                                                                                     starting_points=3)))
    with pytest.raises(ValueError, match="R-4's guide gives a level-2 enemy 3 attribute points"):
        battles.quick_enemy("Bandit", 2, 30, "dagger", few)
