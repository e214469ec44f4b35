"""Level-up, loadout and the ability editor, driven by keys on a saved character."""

from __future__ import annotations

from fractions import Fraction

from textual.widgets import Checkbox, DataTable, Input, Select, Static

from horizon_tui.content.characters import load_character
from horizon_tui.content.models import AbilityKind, EffectSpec, Target
from horizon_tui.rules.character import build
from horizon_tui.rules.numbers import whole
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.screens.abilities import AbilitiesScreen
from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen
from horizon_tui.ui.player.screens.level_up import LevelUpScreen
from horizon_tui.ui.player.screens.sheet import SheetScreen


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_level_up_spends_xp_one_point_at_a_time_with_undo(saves, catalogue, iriel):
    app = create_app(saves, catalogue, screen="level-up")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LevelUpScreen)
        await pilot.press("plus", "plus", "plus")  # 10 + 15 + 20 XP
        assert screen.character.xp == 400 - 45 and screen.character.attributes["physical"] == 13
        await pilot.press("u")
        assert screen.character.xp == 400 - 25 and screen.pending == ["physical", "physical"]
        await pilot.press("down", *["plus"] * 8)  # ten points: 325 XP, level 3
        assert "Level 3 reached" in text_of(screen, "#levelup-status")
        await pilot.press("minus")  # takes back an agility point
        assert "Level 3 reached" not in text_of(screen, "#levelup-status")
        assert screen.pending.count("agility") == 7
        await pilot.press("plus", "plus", "plus")  # 10th 55, 11th 60; the 12th (65) is over the 15 left
        assert len(screen.pending) == 11 and screen.character.xp == 15
        assert load_character(iriel, catalogue).xp == 400  # nothing saved before confirming
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen)
    saved = load_character(iriel, catalogue)
    assert saved.xp == 15
    assert saved.attributes["physical"] == 12 and saved.attributes["agility"] == 19
    assert build(saved, catalogue.rules).level == 3


async def test_level_up_cancel_asks_and_keeps_the_file(saves, catalogue, iriel):
    before = iriel.read_bytes()
    app = create_app(saves, catalogue, screen="level-up")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("plus", "escape")
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen)
    assert iriel.read_bytes() == before


async def test_loadout_refuses_an_over_full_loadout_and_pinned_passives(saves, catalogue, iriel):
    app = create_app(saves, catalogue, screen="loadout")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        await pilot.press("down", "down", "space")  # Ward: 3 of 3 slots (Stone Skin is pinned)
        assert load_character(iriel, catalogue).loadout == ["Ember Lash", "Ward"]
        await pilot.press("down", "space")  # Frost Nova: a 4th ability
        assert "level 2 has 3 slots" in text_of(screen, "#loadout-problem")
        assert load_character(iriel, catalogue).loadout == ["Ember Lash", "Ward"]
        await pilot.press("up", "up", "space")  # Stone Skin can't be removed
        assert "non-replaceable" in text_of(screen, "#loadout-problem")
        await pilot.press("up", "space")  # unslot Ember Lash: always allowed
        assert load_character(iriel, catalogue).loadout == ["Ward"]
        await pilot.press("down", "down", "down", "space")  # now Frost Nova fits
        assert load_character(iriel, catalogue).loadout == ["Ward", "Frost Nova"]


async def test_ability_editor_creates_edits_and_deletes(saves, catalogue, iriel):
    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, AbilitiesScreen)
        await pilot.press("n")
        form = app.screen
        assert isinstance(form, AbilityFormScreen)
        await pilot.press(*"Ember Lash")
        assert "already called" in text_of(form, "#ability-problems")
        await pilot.press(*["backspace"] * 4, *"Step", "tab", *"Dusk")
        preview = text_of(form, "#ability-preview")
        assert "Damage 146 – 156" in preview  # 97.0–104.0 × 1.5 (II), the elf's attack
        assert "Cooldown 1" in preview and "Charges 3" in preview
        form.query_one("#ab-target", Select).value = Target.area
        await pilot.pause()
        await pilot.press("ctrl+s")  # refused: an area needs a radius
        assert app.screen is form and "radius" in text_of(form, "#ability-problems")
        form.query_one("#ab-target", Select).value = Target.enemy
        await pilot.press("ctrl+t")
        await pilot.press("ctrl+s")  # keep the default effect: bleeding, 100%, 3 turns
        await pilot.pause()
        assert form.effects and form.effects[0].effect == "bleeding"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, AbilitiesScreen)
        saved = load_character(iriel, catalogue)
        step = saved.ability("Ember Step")
        assert step is not None and step.description == "Dusk"
        assert [e.effect for e in step.effects] == ["bleeding"]

        await pilot.press("home", "e")  # rename Ember Lash: the loadout follows
        await pilot.press("end", *" II", "ctrl+s")
        await pilot.pause()
        assert load_character(iriel, catalogue).loadout == ["Ember Lash II"]

        await pilot.press("d", "y")
        await pilot.pause()
        saved = load_character(iriel, catalogue)
        assert saved.ability("Ember Lash II") is None and saved.loadout == []


async def test_the_ability_form_says_how_much_a_heal_restores_and_whether_its_switches_are_on(
        saves, catalogue, iriel):
    """Not "heal, 100% chance, 3 turns" and "Range 0 (adjacent)" with no amount; not two "▐X▌"
    told apart by colour alone."""

    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        form = app.screen
        await pilot.press(*"Mend")
        form.query_one("#ab-kind", Select).value = AbilityKind.effect
        form.query_one("#ab-target", Select).value = Target.ally
        form.effects = [EffectSpec(effect="heal")]
        form.refresh_effects()
        form.update_form()
        await pilot.pause()
        b = build(app.session.character, app.rules)
        low, high = whole(b.attack_min * Fraction(3, 2)), whole(b.attack_max * Fraction(3, 2))  # II ×1.5
        assert f"Heals {low} – {high} health at once" in text_of(form, "#ability-preview")
        row = str(form.query_one("#ab-effects", DataTable).get_row_at(0)[0])
        assert row == "heal normal attack × multiplier at once, 100% chance" and "turns" not in row
        crit = form.query_one("#ab-crit", Checkbox)
        assert str(crit.label).startswith("Own critical damage: off") and "[ ]" in str(crit.render())
        crit.value = True
        await pilot.pause()
        assert str(crit.label).startswith("Own critical damage: on") and "[✓]" in str(crit.render())
        assert str(form.query_one("#ab-replaceable", Checkbox).label).startswith("Replaceable: on")  # the default


async def test_tab_in_the_ability_form_lands_on_a_visible_field_and_typing_keeps_its_text(saves, catalogue, iriel):
    """By hand: tab went on to the form's scroll box, where typing showed nowhere; shift+tab back
    to the name and a key replaced the whole name (the field selected its text on focus)."""
    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        form = app.screen
        form.query_one("#ab-kind", Select).value = AbilityKind.passive  # the most fields open
        await pilot.press(*"Ember Step")
        seen = []
        for _ in range(12):
            await pilot.press("tab")
            await pilot.pause()
            focused = app.focused
            seen.append(focused.id)
            assert focused.id != "ability-form", seen
            visible = form.query_one("#ability-form").region
            assert visible.contains_region(focused.region), (focused.id, focused.region, visible)
        while app.focused.id != "ab-description":
            await pilot.press("tab")
        await pilot.press("shift+tab", *" II")
        await pilot.pause()
        assert form.query_one("#ab-name", Input).value == "Ember Step II"


async def test_the_effect_dialogs_gradual_switch_says_on_or_off(saves, catalogue, iriel):
    """By hand: "▐X▌ gradual" looked the same on and off; the ability form's switches say it."""
    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "ctrl+t")
        await pilot.pause()
        gradual = app.screen.query_one("#effect-gradual", Checkbox)
        assert str(gradual.label).startswith("Gradual: off") and "[ ]" in str(gradual.render())
        gradual.value = True
        await pilot.pause()
        assert str(gradual.label).startswith("Gradual: on") and "[✓]" in str(gradual.render())


async def test_the_effect_dialogs_chance_is_shown_and_read_as_a_percentage(saves, catalogue, iriel):
    from horizon_tui.ui.dialogs.effect import EffectDialog

    app = create_app(saves, catalogue, screen="abilities")
    async with app.run_test(size=(80, 24)) as pilot:
        answers = []
        app.push_screen(EffectDialog(EffectSpec(effect="bleeding", chance=Fraction(1, 2), duration=3)), answers.append)
        await pilot.pause()
        chance = app.screen.query_one("#effect-chance", Input)
        assert chance.value == "50"  # not "0.5" in a field where "2" means 2%
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert answers[-1].chance == Fraction(1, 2)  # kept as it was
        app.push_screen(EffectDialog(), answers.append)
        await pilot.pause()
        assert app.screen.query_one("#effect-chance", Input).value == "100"
        app.screen.query_one("#effect-chance", Input).value = "1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert answers[-1].chance == Fraction(1, 100)  # 1 is 1%, as 2 is 2%
