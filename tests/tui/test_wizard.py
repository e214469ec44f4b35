"""New character, the whole way through the wizard with keys only."""

from __future__ import annotations

from textual.widgets import Input, Static

from horizon_tui.content.characters import load_character
from horizon_tui.rules.character import build, sheet
from horizon_tui.rules.validation import check_character
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.screens.sheet import SheetScreen
from horizon_tui.ui.player.screens.wizard import CreationWizard
from horizon_tui.ui.widgets.character import AttributeTable

# Points to add on top of the minimums (1,1,1,1,1,0) for the RULES.md worked example 10/10/10/6/5/1.
WORKED_STEPS = (9, 9, 9, 5, 4, 1)


def keys_for(steps: tuple[int, ...]) -> list[str]:
    keys: list[str] = []
    for index, n in enumerate(steps):
        keys += ["greater_than_sign"] * (n // 5) + ["plus"] * (n % 5)
        if index < len(steps) - 1:
            keys.append("down")
    return keys


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_create_a_character_through_the_wizard(saves, catalogue):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        wizard = app.screen
        assert isinstance(wizard, CreationWizard)
        await pilot.press("enter")  # Human, highlighted first, goes on
        assert wizard.step == 1
        await pilot.press("ctrl+n")  # refused: 37 points left
        assert wizard.step == 1
        await pilot.press(*keys_for(WORKED_STEPS))
        assert "Points left 0" in text_of(wizard, "#points-left")
        await pilot.press("ctrl+n")
        assert wizard.step == 2
        await pilot.press("ctrl+n")  # refused: no name
        assert wizard.step == 2
        await pilot.press(*"Iriel", "tab", *"Ferry")
        await pilot.press("ctrl+n")
        assert wizard.step == 3
        await pilot.press("tab", "down", "down", "enter")  # armor: No armor → Padded → Leather
        assert wizard.draft.armor_id == "leather"
        await pilot.press("ctrl+n")
        assert wizard.step == 4
        assert "Ready" in text_of(wizard, "#review-status")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen)

    path = saves / "characters" / "iriel.toml"
    character = load_character(path, catalogue)
    assert check_character(character, catalogue, str(path)) == []
    assert character.attributes == {"physical": 10, "agility": 10, "perception": 10, "cognition": 6,
                                    "faith": 5, "beauty": 1}
    assert (character.species.id, character.weapon.id, character.armor.id) == ("human", "dagger", "leather")
    assert character.background.origin == "Ferry"
    data = sheet(build(character, catalogue.rules))
    assert data["stats"]["health"] == 690 and data["normal_attack"] == {"min": 90.6, "max": 97.6}


async def test_attribute_keys_flow_as_messages(saves, catalogue):
    """The attribute list only asks; the step applies the rule (Harlequin: assert on messages)."""
    asked, seen = [], []

    def hook(message):
        if isinstance(message, AttributeTable.Adjust) and all(message is not m for m in seen):
            seen.append(message)  # the hook sees a bubbling message at every level; count it once
            asked.append((message.attribute, message.steps))

    app = create_app(saves, catalogue, screen="new")
    async with app.run_test(size=(80, 24), message_hook=hook) as pilot:
        await pilot.press("enter", "plus", "down", "greater_than_sign", "minus", "minus")
        assert app.screen.draft.attributes["agility"] == 4  # 1 + 5 − 1 − 1
    assert asked == [("physical", 1), ("agility", 5), ("agility", -1), ("agility", -1)]


async def test_custom_species_over_budget_is_refused_with_the_reason(saves, catalogue):
    app = create_app(saves, catalogue, screen="new")
    async with app.run_test(size=(80, 24)) as pilot:
        wizard = app.screen
        await pilot.press("end", "enter")  # "Custom species…" then into its form
        await pilot.press(*"Giant", "tab", "tab", "tab")
        bonuses = wizard.query_one("#custom-bonuses", Input)
        bonuses.value = "physical +4"  # as if typed: the form hears Input.Changed
        await pilot.pause()
        assert "worth 4 attribute points" in text_of(wizard, "#custom-problem")
        await pilot.press("ctrl+n")
        assert wizard.step == 0
        await pilot.press("backspace", "backspace", "2")
        bonuses.value += ", evasion 1.5"
        await pilot.pause()
        assert text_of(wizard, "#custom-problem") == ""
        await pilot.press("ctrl+n")
        assert wizard.step == 1
        assert wizard.draft.species().name == "Giant"
        table = wizard.query_one(AttributeTable)
        assert str(table.get_cell("physical", "bonus")) == "+2"  # the species' points show at once
        assert str(table.get_cell("physical", "total")) == "3"


async def test_armor_too_heavy_is_refused(saves, catalogue):
    app = create_app(saves, catalogue, screen="new")
    async with app.run_test(size=(80, 24)) as pilot:
        wizard = app.screen
        await pilot.press("enter", "down", *keys_for((37,)))  # every point into agility: strength 2.1
        await pilot.press("ctrl+n", *"Feather", "ctrl+n")
        assert wizard.step == 3
        await pilot.press("tab", "down", "down", "enter")  # leather needs strength 3
        assert wizard.draft.armor_id is None
        assert "can't wear it" in text_of(wizard, "#equipment-detail")
        await pilot.press("up", "enter")  # padded cloth needs 2: fine
        assert wizard.draft.armor_id == "padded"


async def test_a_paste_longer_than_the_name_field_takes_what_fits_and_says_so(saves, catalogue):
    from textual import events

    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "enter", *keys_for(WORKED_STEPS), "ctrl+n")
        wizard = app.screen
        assert wizard.step == 2
        name = wizard.query_one("#bg-name", Input)
        name.focus()
        await pilot.pause()
        room = name.max_length
        for size in (1_000, 100_000):  # a 1 kB and a 100 kB bracketed paste
            name.value = ""
            app.post_message(events.Paste("Ab" * (size // 2)))
            await pilot.pause()
            assert name.value == ("Ab" * room)[:room]
            shown = [n.message for n in app._notifications]
            assert f"Pasted {room:,} of {size:,} characters: the rest was cut (this field holds {room:,})." in shown
        name.value = "Iri"
        app.post_message(events.Paste("el\nand a second line"))
        await pilot.pause()
        assert name.value == "Iriel"
        assert "Only the first line of the paste is taken: a field holds one line." in [
            n.message for n in app._notifications]
