"""The title line and the key line that replace Textual's Header and Footer (one widget each)."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from horizon_tui.ui.widgets.bars import HELP_BINDING, KeyBar, TitleBar


class Keys(Screen):
    TITLE = "Keys"
    BINDINGS = [
        Binding("n", "note('new')", "New"),
        Binding("h", "hidden", "Hidden", show=False),
        *[Binding(str(n), f"note('tab{n}')", f"Tab {n}", group=Binding.Group("Switch tab")) for n in (1, 2, 3)],
        Binding("x", "note('x')", "Off"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[str] = []

    def compose(self):
        yield TitleBar()
        yield Static("body")
        yield KeyBar()

    def action_note(self, what: str) -> None:
        self.notes.append(what)
        self.sub_title = what

    def check_action(self, action: str, parameters) -> bool | None:
        return None if parameters == ("x",) else True  # None: shown, dimmed, not run


class BarsApp(App):
    def on_mount(self) -> None:
        self.push_screen(Keys())


def line(widget) -> str:
    return "".join(segment.text for segment in widget.render_line(0))


async def test_the_key_line_shows_shown_keys_in_order_groups_and_the_palette_and_clicks_press_them():
    app = BarsApp()
    async with app.run_test(size=(100, 5)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        text = line(bar)
        assert text.startswith(" n New  1  2  3 Switch tab  x Off ")
        assert "Hidden" not in text and "Tab 1" not in text
        assert text.rstrip().endswith("^p palette")
        assert len(text) == 100
        await pilot.click(KeyBar, offset=(1, 0))  # on " n "
        await pilot.click(KeyBar, offset=(10, 0))  # on " 2 "
        await pilot.click(KeyBar, offset=(30, 0))  # past the keys: nothing
        assert app.screen.notes == ["new", "tab2"]


async def test_the_title_line_follows_the_screen_title_and_sub_title():
    app = BarsApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        title = app.screen.query_one(TitleBar)
        assert line(title).strip() == "Keys"
        await pilot.press("n")
        await pilot.pause()
        assert line(title).strip() == "Keys — new"


class Crowded(Screen):
    BINDINGS = [Binding(key, f"note('{key}')", f"Word{key * 6}") for key in "abcdefgh"]

    def compose(self):
        yield KeyBar()

    def action_note(self, key: str) -> None:
        pass


class CrowdedApp(App):
    BINDINGS = [Binding("question_mark", "help_wanted", "Help", id=HELP_BINDING)]

    def __init__(self) -> None:
        super().__init__()
        self.helped = 0

    def on_mount(self) -> None:
        self.push_screen(Crowded())

    def action_help_wanted(self) -> None:
        self.helped += 1


async def test_a_narrow_key_line_keeps_the_help_key_in_view_after_the_keys_that_fit():
    # By hand at 80 columns: the Load screen's and the battle's key lines ended "? H…", the help
    # key (which lists every key) cut off behind the ellipsis.
    app = CrowdedApp()
    async with app.run_test(size=(60, 5)) as pilot:
        await pilot.pause()
        text = line(app.screen.query_one(KeyBar))
        assert text.rstrip().endswith("? Help"), text
        assert text.startswith(" a Wordaaaaaa  b Wordbbbbbb ") and "…" not in text and len(text.rstrip()) <= 60
        assert "h Wordhhhhhh" not in text  # what doesn't fit is left out whole (the help screen lists it)
        await pilot.click(KeyBar, offset=(len(text.rstrip()) - 6, 0))  # on the "?"
        assert app.helped == 1
