"""After a bug in a handler the app shows the crash screen and keeps going — escape goes
back to the screen that failed, which still takes keys (Textual alone would stop that screen's
message loop, and with it every key: `ui.crash_screen.keep_pumps_alive`)."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.crash_screen import CrashScreen


class Buggy(Screen):
    BINDINGS = [Binding("k", "bug", "bug"), Binding("j", "fine", "fine")]

    def __init__(self) -> None:
        super().__init__()
        self.fine = 0

    def compose(self):
        yield Static("a screen with a bug on k")

    def action_bug(self) -> None:
        raise ZeroDivisionError("a bug in a handler")

    def action_fine(self) -> None:
        self.fine += 1


async def test_after_the_crash_screen_the_app_and_the_failed_screen_still_take_keys(tmp_path):
    app = create_app(tmp_path / "saves")
    async with app.run_test(size=(80, 24)) as pilot:
        buggy = Buggy()
        app.push_screen(buggy)
        await pilot.press("j")
        await pilot.press("k")
        await pilot.pause()
        assert isinstance(app.screen, CrashScreen) and len(app.crash_reports) == 1
        await pilot.press("escape")
        assert app.screen is buggy
        await pilot.press("j", "j")
        assert buggy.fine == 3
        await pilot.press("k")  # the same bug again: reported again, the app still up
        await pilot.pause()
        assert isinstance(app.screen, CrashScreen) and len(app.crash_reports) == 2
        await pilot.press("escape")
        assert app.screen is buggy
        app._exception = None  # the two crashes were meant: the pilot should not re-raise them
    assert app.return_code in (0, None)
