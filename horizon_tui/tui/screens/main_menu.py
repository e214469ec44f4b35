"""The main menu: New character, Load character, Battle, Rules, Quit, and the recent characters."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from horizon_tui.tui.library import SaveEntry

BANNER = (
    "╻ ╻ ┏━┓ ┏━┓ ╻ ╺━┓ ┏━┓ ┏┓╻\n"
    "┣━┫ ┃ ┃ ┣┳┛ ┃ ┏━┛ ┃ ┃ ┃┗┫\n"
    "╹ ╹ ┗━┛ ╹┗╸ ╹ ┗━╸ ┗━┛ ╹ ╹\n"
    "o f   d a r k n e s s"
)

# (option id, the words on the menu with the hotkey letter underlined, app action)
MENU = (
    ("new", "[u]N[/u]ew character", "new_character"),
    ("load", "[u]L[/u]oad character", "load_character"),
    ("battle", "[u]B[/u]attle", "battle"),
    ("rules", "[u]R[/u]ules", "rules"),
    ("quit", "[u]Q[/u]uit", "quit"),
)
RECENT = 8
ABOUT = (
    "Make a character of any species, invent abilities, fill your slots and fight.\n"
    "? lists the keys; ctrl+p finds any action."
)


def recent_prompt(entry: SaveEntry) -> Content:
    if entry.broken:
        return Content.assemble(("⚠ ", "$error"), (entry.path.name, "bold"), ("  can't be read", "$error"))
    mark = ("⚠ ", "$warning") if entry.problems else ("  ", "")
    return Content.assemble(mark, (entry.title, "bold"), (f"  {entry.summary}", "dim"))


class MainMenuScreen(Screen):
    TITLE = "Main menu"
    AUTO_FOCUS = "#menu"
    BINDINGS = [
        Binding("n", "app.new_character", "New", id="menu.new", tooltip="New character"),
        Binding("l", "app.load_character", "Load", id="menu.load", tooltip="Load character"),
        Binding("b", "app.battle", "Battle", id="menu.battle"),
        Binding("r", "app.rules", "Rules", id="menu.rules"),
        Binding("q", "app.quit", "Quit", id="menu.quit"),
        Binding("tab", "switch_list", "Menu ⇄ recent", show=False, id="menu.switch"),
    ]

    def __init__(self) -> None:
        super().__init__(id="main-menu")
        self._recent: list[SaveEntry] = []

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="title"):
            yield Static(BANNER, id="banner")
        with Horizontal(id="menu-row"):
            with Vertical(id="menu-column"):
                with Vertical(id="menu-box"):
                    yield OptionList(*[Option(words, id=key) for key, words, _ in MENU], id="menu")
                yield Static(ABOUT, id="about")
            with Vertical(id="recent-box"):
                yield OptionList(id="recent")
                yield Static(id="saves-where", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#menu-box").border_title = "Menu"
        self.query_one("#recent-box").border_title = "Recent characters"
        self.refresh_recent()

    def on_screen_resume(self) -> None:
        self.refresh_recent()

    def refresh_recent(self) -> None:
        library = self.app.library
        self._recent = library.entries(limit=RECENT)
        recent = self.query_one("#recent", OptionList)
        recent.clear_options()
        if self._recent:
            recent.add_options(Option(recent_prompt(e), id=str(i)) for i, e in enumerate(self._recent))
            recent.highlighted = 0
        else:
            recent.add_option(Option(Text("No characters yet: choose New character.", style="dim"), disabled=True))
        self.query_one("#saves-where", Static).update(f"saved in {library.characters_dir}")

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "menu":
            action = {key: action for key, _, action in MENU}[event.option.id]
            await self.app.run_action(action)
            return
        entry = self._recent[int(event.option.id)]
        if entry.openable:
            self.app.open_character(entry.path, entry.character)
        else:
            self.app.notify(
                f"{entry.path.name}: {entry.problem_text}. The file is left as it is.",
                title="Can't open this save", severity="error", timeout=10,
            )

    def action_switch_list(self) -> None:
        target = "#recent" if self.focused is self.query_one("#menu") else "#menu"
        self.query_one(target).focus()
