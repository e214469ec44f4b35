"""Keys typed into a text field, or a text area, act in the order they were typed even when they
arrive together (one SSH packet, a paste without bracketed paste, tmux send-keys): the field's
own bindings (the arrows, end, backspace) keep their place among the characters
(`ui.key_order`); and a burst of keys that each meet the same refusal makes one toast."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input, TextArea

from horizon_tui.ui import key_order  # noqa: F401 - installs itself, as the apps import it
from horizon_tui.ui.crash_screen import CrashGuard


class Fields(CrashGuard, App):
    def compose(self) -> ComposeResult:
        yield Input(id="line")
        yield TextArea(id="notes")


def _queue(app: App, keys: list[str]) -> None:
    for key in keys:  # all queued at once, before any is handled
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_an_input_applies_arrows_and_backspace_in_order():
    app = Fields()
    async with app.run_test() as pilot:
        app.query_one("#line", Input).focus()
        await pilot.pause()
        _queue(app, ["A", "b", "left", "c", "end", "d", "backspace", "e"])
        await pilot.pause(0.2)
        assert app.query_one("#line", Input).value == "Acbe"


async def test_a_text_area_applies_arrows_and_backspace_in_order():
    # The GM's NPC notes and dialogue roleplay are text areas; a GM at a table types over SSH.
    app = Fields()
    async with app.run_test() as pilot:
        app.query_one("#notes", TextArea).focus()
        await pilot.pause()
        _queue(app, ["A", "b", "left", "c", "end", "d", "backspace", "e", "home", "Z"])
        await pilot.pause(0.2)
        assert app.query_one("#notes", TextArea).text == "ZAcbe"


async def test_keys_the_text_area_does_not_bind_still_reach_the_app():
    app = Fields()
    async with app.run_test() as pilot:
        app.query_one("#notes", TextArea).focus()
        await pilot.pause()
        _queue(app, ["x", "tab"])  # tab moves focus on (the app's binding), after the x
        await pilot.pause(0.2)
        assert app.query_one("#notes", TextArea).text == "x"


async def test_the_same_words_while_on_screen_make_one_toast_not_thirty(tmp_path, catalogue):
    # By hand: 30 `>` at a full attribute (keys arriving together) stacked 30 toasts.
    from horizon_tui.ui.player.app import create_app

    app = create_app(tmp_path / "saves", catalogue)
    async with app.run_test() as pilot:
        for _ in range(30):
            app.notify("No points left to place", severity="warning")
        app.notify("Something else")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["No points left to place", "Something else"]  # noqa: SLF001
