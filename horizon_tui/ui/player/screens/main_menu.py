"""The main menu: New character, Load character, Battle, Rules, Quit, and the recent characters."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from horizon_tui.play import hosting
from horizon_tui.paths import ENV_SHARED_SAVES
from horizon_tui.storage.character_files import character_files
from horizon_tui.ui.app_contract import player_host
from horizon_tui.ui.widgets.bars import KeyBar

if TYPE_CHECKING:
    from horizon_tui.play.library import SaveEntry
    from horizon_tui.storage.records import BattleFile
    from horizon_tui.ui.app_contract import AppContract

# What Continue opens: a run (its data) or a character's battle in progress (its file).
InProgress = tuple[Literal["run"], dict[str, Any]] | tuple[Literal["battle"], "BattleFile"]

BANNER = (
    "╻ ╻ ┏━┓ ┏━┓ ╻ ╺━┓ ┏━┓ ┏┓╻\n"
    "┣━┫ ┃ ┃ ┣┳┛ ┃ ┏━┛ ┃ ┃ ┃┗┫\n"
    "╹ ╹ ┗━┛ ╹┗╸ ╹ ┗━╸ ┗━┛ ╹ ╹\n"
    "o f   d a r k n e s s"
)

# (option id, the words on the menu (the hotkey underlined: HOTKEYS, else the first letter), app action)
MENU = (
    ("run", "New run", "new_run"),
    ("new", "New character", "new_character"),
    ("load", "Load character", "load_character"),
    ("battle", "Battle", "battle"),
    ("scores", "Hall of fame", "hall_of_fame"),
    ("rules", "Rules", "rules"),
    ("quit", "Quit", "quit"),
)
HOTKEYS = {"run": "u"}
CONTINUE = ("continue", "Continue", "continue_game")  # first, whenever a run or a battle is in progress
RECENT = 8
ABOUT = (
    "Make a character of any species, invent abilities, fill your slots and fight.\n"
    "? lists the keys; ctrl+p finds any action."
)


def shown_path(path) -> str:
    """A folder as the menu shows it: under the home folder as `~/…` (shorter, still exact)."""
    path, home = Path(path), Path.home()
    if path.is_absolute() and path.is_relative_to(home) and path != home:
        return f"~/{path.relative_to(home)}"
    return str(path)


def hotkey_words(words: str, key: str | None = None) -> Content:
    at = words.find(key) if key else 0
    at = max(at, 0)
    return Content.assemble(words[:at], (words[at], "underline"), words[at + 1:])


def recent_prompt(entry: SaveEntry) -> Content:
    if entry.broken:
        return Content.assemble(("⚠ ", "$error"), (entry.path.name, "bold"), ("  can't be read", "$error"))
    mark = ("⚠ ", "$warning") if entry.problems else ("  ", "")
    return Content.assemble(mark, (entry.title, "bold"), (f"  {entry.summary}", "dim"))


class MainMenuScreen(Screen):
    app: AppContract  # the player app's (`ui.app_contract`)
    TITLE = "Main menu"
    AUTO_FOCUS = "#menu"
    BINDINGS = [
        Binding("c", "continue_game", "Continue", id="menu.continue", tooltip="The run or battle in progress"),
        Binding("u", "app.new_run", "New run", id="menu.run", tooltip="Fights from depth 1 until the party falls"),
        Binding("n", "app.new_character", "New", id="menu.new", tooltip="New character"),
        Binding("l", "app.load_character", "Load", id="menu.load", tooltip="Load character"),
        Binding("b", "app.battle", "Battle", id="menu.battle"),
        Binding("h", "app.hall_of_fame", "Hall of fame", id="menu.scores", show=False),
        Binding("r", "app.rules", "Rules", id="menu.rules"),
        Binding("q", "app.quit", "Quit", id="menu.quit"),
        Binding("w", "watch_game", "Watch", show=False, id="menu.watch", tooltip="Watch a game (hosted)"),
        Binding("o", "toggle_watchers", "Others may watch", show=False, id="menu.watchers"),
        Binding("tab", "switch_list", "Menu ⇄ recent", show=False, id="menu.switch"),
    ]

    def __init__(self) -> None:
        super().__init__(id="main-menu")
        self._recent: list[SaveEntry] = []
        self._in_progress: InProgress | None = None
        self._told_not_imported: str | None = None  # what the player was told of their saves of before

    def compose(self) -> ComposeResult:
        # Few widgets on purpose: this is the first screen (the start-up target of bench/bench_tui.py).
        yield Static(BANNER, id="banner", markup=False)  # the banner is the title: no TitleBar
        with Horizontal(id="menu-row"):
            with Vertical(id="menu-column"):
                yield OptionList(*self._menu_options(), id="menu")
                yield Static(ABOUT, id="about", markup=False)
            yield OptionList(id="recent")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#menu").border_title = "Menu"
        served = hosting.attach(self.app)  # over SSH: status for `who`/`watch`, the watcher count
        if served is not None:
            served.on_watchers(lambda n: setattr(self.query_one("#menu"), "border_subtitle",
                                                 hosting.watchers_subtitle(n)))
        recent = self.query_one("#recent")
        recent.border_title = "Recent characters"
        recent.border_subtitle = "enter opens"
        self.query_one("#about", Static).update(f"{ABOUT}\n\nSaves: {shown_path(self.app.saves_dir)}")

    def _character_files(self) -> list[Path]:
        """The characters to list; on a host with a shared database (`serve-ssh --database`) its
        rows come into the folder first. Imported here for start-up time: the menu comes up before
        the content models and SQLAlchemy are loaded (tests/tui/test_app.py)."""
        if os.environ.get("HORIZON_DATABASE"):
            from horizon_tui.storage.host_wiring import listed_character_files

            return listed_character_files(self.app.saves_dir)
        return character_files(self.app.saves_dir)

    def _entries(self) -> tuple:
        entries = hosting.menu_entries(MENU)
        return (CONTINUE, *entries) if self._in_progress is not None else entries

    def _tell_not_imported(self, saves: Path) -> None:
        """The saves folder's own database that the host's shared one couldn't take in (damaged,
        not SQLite, from a newer Horizon), said once: its file, why, and that it is left as it is."""
        from horizon_tui.storage.host_shared import not_imported

        problem = not_imported(saves)
        if problem is not None and problem != self._told_not_imported:
            self._told_not_imported = problem
            self.app.notify(f"{problem}. What it holds was not brought into the host's database; the file is "
                            "left as it is, and the next start tries again.", title="Saves of before not imported",
                            severity="warning", timeout=20)

    def _menu_options(self) -> list[Option]:
        return [Option(hotkey_words(words, HOTKEYS.get(key)), id=key) for key, words, _ in self._entries()]

    def check_in_progress(self) -> None:
        """Continue heads the menu whenever a run or a battle is in progress (the newest run first)."""
        found: InProgress | None = None
        saves = self.app.saves_dir
        # the folders' names as storage.runs and storage.records have them: with neither there (a
        # first start), nothing heavy is imported for the menu (the start-up test counts modules)
        # (an SSH host with a shared database keeps them there: storage.host_shared)
        shared = bool(os.environ.get(ENV_SHARED_SAVES))
        if (saves / "records" / "runs").is_dir() or shared:
            from horizon_tui.errors import HorizonError
            from horizon_tui.storage.host_wiring import run_store

            try:
                runs = [r for r in run_store(saves).runs_in_progress() if not r.get("damaged")]
            except HorizonError:
                runs = []  # the database can't be reached: New run says why
            if runs:
                found = ("run", runs[0])
            if shared:
                self._tell_not_imported(saves)
        # battles are journals in the folder's database (storage.database.DATABASE_FILE); files of
        # older versions in battles/ are imported when listed
        if found is None and ((saves / "battles").is_dir() or (saves / "horizon.sqlite3").exists() or shared):
            from horizon_tui.errors import HorizonError
            from horizon_tui.storage.records import in_progress

            try:
                battles = in_progress(saves)
            except HorizonError:
                battles = []  # the database can't be opened: the Battles screen says why
            if battles:
                found = ("battle", battles[0])
        changed = (found is None) != (self._in_progress is None)
        self._in_progress = found
        if changed:
            self.refresh_bindings()
            menu = self.query_one("#menu", OptionList)
            menu.clear_options()
            menu.add_options(self._menu_options())
            menu.highlighted = 0
        self._about()

    def _about(self) -> None:
        """What the menu is for and where the saves are; with something in progress, what
        Continue opens and the saves first, the welcome last (at 80x24 the box's last lines are
        cut: the saves' folder was, behind the welcome a returning player has read)."""
        saves = f"Saves: {shown_path(self.app.saves_dir)}"
        lines = [ABOUT, "", saves]
        if self._in_progress is not None:
            if self._in_progress[0] == "run":
                run = self._in_progress[1]
                names = ", ".join(str(m.get("character", {}).get("name", "?")) for m in run.get("members", []))
                going = f"Continue: {names}'s run, depth {run.get('depth', '?')}."
            else:
                going = f"Continue: the battle {self._in_progress[1].path.stem} is in progress."
            lines = [going, saves, "", ABOUT]
        self.query_one("#about", Static).update("\n".join(lines))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`c Continue` is in the key bar only while a run or a battle is in progress."""
        return self._in_progress is not None if action == "continue_game" else True

    def action_continue_game(self) -> None:
        if self._in_progress is None or self.app.data_problems():
            return
        if self._in_progress[0] == "run":
            from horizon_tui.ui.player.screens.runs import continue_run

            continue_run(self.app, self._in_progress[1])
        else:
            player_host(self.app).resume_in_progress(self._in_progress[1].path)

    def on_screen_resume(self) -> None:
        """Every time the menu shows. The saves are read after the menu is drawn (reading them
        loads the rules data, ~0.1 s the first time), so the menu is there at once."""
        self.call_after_refresh(self.check_in_progress)
        recent = self.query_one("#recent", OptionList)
        if not self._character_files():
            self._recent = []
            recent.clear_options()
            recent.add_option(Option(Text("No characters yet: choose New character.", style="dim"), disabled=True))
            return
        if not self._recent:
            recent.clear_options()
            recent.add_option(Option(Text("reading the saves…", style="dim"), disabled=True))
        self.call_after_refresh(self.refresh_recent)

    def refresh_recent(self) -> None:
        if self.app.data_problems():
            return
        self._recent = self.app.library.entries(limit=RECENT)
        recent = self.query_one("#recent", OptionList)
        recent.clear_options()
        if self._recent:
            recent.add_options(Option(recent_prompt(e), id=str(i)) for i, e in enumerate(self._recent))
            recent.highlighted = 0
        else:
            recent.add_option(Option(Text("No characters yet: choose New character.", style="dim"), disabled=True))

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_list.id == "menu":
            action = {key: action for key, _, action in self._entries()}[event.option.id]
            if event.option.id in (hosting.WATCH_ENTRY[0], hosting.WATCHERS_ENTRY[0], CONTINUE[0]):
                await self.run_action(action)
                return
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

    def action_watch_game(self) -> None:
        if hosting.watching_offered():
            hosting.watch_a_game(self.app)

    def action_toggle_watchers(self) -> None:
        served = hosting.of(self.app)
        if served is None or not hosting.watching_offered():
            return
        allowed = served.toggle_watchers()
        self.query_one("#menu", OptionList).replace_option_prompt(
            hosting.WATCHERS_ENTRY[0], hotkey_words(hosting.watchers_words(allowed)))
        self.app.notify("Others may watch your game" if allowed else "No one may watch your game now",
                        timeout=3)

    def action_switch_list(self) -> None:
        target = "#recent" if self.focused is self.query_one("#menu") else "#menu"
        self.query_one(target).focus()
