"""The GM's field dialogs (ui.gm.screens.dialogs.PromptDialog) with keys that arrive together, as a
paste or one SSH packet brings them: each character lands in the field it was typed in."""

from __future__ import annotations

from textual import events
from textual.app import App

from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog


class Host(App):
    def __init__(self):
        super().__init__()
        self.answer = "unanswered"

    def on_mount(self) -> None:
        fields = [Field("amount", "Amount"), Field("reason", "Reason")]
        self.push_screen(PromptDialog("Damage", fields), lambda values: setattr(self, "answer", values))


def _key(name: str) -> events.Key:
    return events.Key(name, None if name == "enter" else (" " if name == "space" else name))


async def test_keys_arriving_together_land_in_the_field_they_were_typed_in():
    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        for name in ["7", "enter", "a", "space", "r", "o", "c", "k", "enter"]:  # all queued at once
            app.post_message(_key(name))
        await pilot.pause(0.2)
        assert app.answer == {"amount": "7", "reason": "a rock"}


async def test_enter_in_a_field_goes_on_and_enter_in_the_last_answers():
    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("1", "2", "enter")
        assert isinstance(app.screen, PromptDialog) and app.answer == "unanswered"
        await pilot.press("w", "h", "y", "enter")
        assert app.answer == {"amount": "12", "reason": "why"}


async def _npc_editor_fields(session, catalogue, keys: list[str]) -> tuple[list, object]:
    """The GM's NPC editor with `keys` all queued at once (as one SSH packet brings them): its
    text fields afterwards, and the field focused."""
    from textual.widgets import Input

    from horizon_tui.ui.gm.app import create_gm_app
    from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, NpcEditorScreen)
        fields = list(app.screen.query(Input))
        assert app.focused is fields[0] and fields[2].value == "1"  # name, species, level
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause(0.2)
        return fields, app.focused


async def test_keys_after_tab_arriving_together_land_in_the_next_field(session, catalogue):
    fields, focused = await _npc_editor_fields(session, catalogue,
                                               ["T", "o", "m", "tab", "e", "l", "f", "tab", "shift+tab"])
    assert fields[0].value == "Tom" and fields[1].value == "elf" and focused is fields[1]


async def test_editing_keys_arriving_together_keep_their_order_among_the_characters(session, catalogue):
    fields, _ = await _npc_editor_fields(session, catalogue,
                                         ["A", "b", "left", "c", "end", "d", "tab", "tab", "end", "backspace", "4"])
    assert fields[0].value == "Acbd" and fields[2].value == "4"


async def test_a_name_field_takes_no_more_than_a_file_may_hold(session, catalogue):
    # by hand: a 300-character name was typed, saved, and the file then refused to open
    from textual.widgets import Input

    from horizon_tui.ui.gm.app import create_gm_app

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        name = app.screen.query_one("#npc-name", Input)
        await pilot.press(*("N" * 70))
        assert name.value == "N" * 64  # files.name_length in data/limits.toml
