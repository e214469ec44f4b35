"""The player app: one factory (`create_app`) for the CLI, the tests and the SSH host.

All state lives on the `HorizonApp` instance (the library of saves, the character being played),
never in module globals: several SSH players share one process.

Start-up is kept to what the main menu shows (at most 1.3x a bare Textual app): this
module imports only Textual; screens are imported when first opened; the catalogue (and with it
the content models, attrs and cattrs) is loaded the first time something needs it, which for a
player with no saves yet is the first screen they open.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.reactive import Reactive
from textual.widgets import Input

from horizon_tui.ui import key_order  # noqa: F401 - installs itself (keys in a field in order)
from horizon_tui.ui.crash_screen import CrashGuard
from horizon_tui.ui.widgets.paste import fit_paste

if TYPE_CHECKING:
    from horizon_tui.content.catalogue import Catalogue
    from horizon_tui.content.models import Character
    from horizon_tui.content.ruleset import Ruleset
    from horizon_tui.play.library import CharacterLibrary, OpenCharacter


def _commands_provider():
    from horizon_tui.ui.player.palette import HorizonCommands

    return HorizonCommands


# Start screens `create_app(screen=...)` knows; the character screens open the newest save.
START_SCREENS = ("menu", "new", "load", "battle", "rules", "sheet", "level-up", "abilities", "loadout")


TABLE_POLL_S = 2.0  # how often the app looks for a live table it is invited to


class HorizonApp(CrashGuard, App[None]):
    """Horizon of Darkness, the player's side: characters, abilities, loadouts, battles."""

    CSS_PATH = "horizon.tcss"
    PLAYER_FILES = True  # the Load screen imports and exports character files (not in the GM tool)
    TITLE = "Horizon of Darkness"
    COMMANDS = App.COMMANDS | {_commands_provider}
    # The default theme as the class default, not set in __init__: setting it there makes Textual
    # parse every stylesheet a second time as the app starts (~7 ms of the main menu's start-up).
    theme: Reactive[str] = Reactive("gruvbox")
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False, id="app.quit",
                tooltip="Quit Horizon from any screen"),
        Binding("question_mark,f1", "help", "Help", id="app.help",
                tooltip="The keys of this screen"),
        Binding("f2", "join_table", "Join the table", show=False, id="app.join_table",
                tooltip="Join a live table your GM seated you at"),
        # in a text field, tab moves on as the app takes the key (a priority binding), before it
        # hands on the next: keys typed after tab land in the next field even when they arrive
        # together (a paste, one SSH packet); elsewhere tab is what the screen makes it
        Binding("tab", "next_field", show=False, priority=True, id="app.next_field"),
        Binding("shift+tab", "next_field(-1)", show=False, priority=True, id="app.previous_field"),
    ]

    def get_driver_class(self):
        """Textual's driver; on a POSIX terminal with its input held back while the app is behind
        (`ui.input_driver`: a flood of typed keys must not pile up in memory). Imported here, not
        at the top: it is the POSIX driver's, which Windows can't import."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            from horizon_tui.ui.input_driver import PacedInputDriver

            return PacedInputDriver
        return driver

    def action_next_field(self, step: int = 1) -> None:
        from textual.actions import SkipAction
        from textual.widgets import Input

        if not isinstance(self.focused, Input):
            raise SkipAction()
        if step > 0:
            self.screen.focus_next()
        else:
            self.screen.focus_previous()

    async def action_quit(self) -> None:
        """ctrl+q from any screen. A screen holding work not yet saved (a character being made, an
        ability being edited, points not confirmed) says so through `unsaved_work()`, and quitting
        asks first, as esc on that screen does; ctrl+q again on the question quits."""
        from horizon_tui.ui.dialogs.confirm import QuitDialog

        if isinstance(self.screen, QuitDialog):
            self.exit()
            return
        lost = [what for screen in self.screen_stack
                if callable(getattr(screen, "unsaved_work", None)) and (what := screen.unsaved_work())]
        if not lost:
            self.exit()
            return
        question = f"Not saved: {'; '.join(lost)}. Quit and lose {'it' if len(lost) == 1 else 'them'}?"
        self.push_screen(QuitDialog(question, yes="Quit", no="Stay", title="Quit?"),
                         lambda quit_now: self.exit() if quit_now else None)

    def __init__(self, saves_dir: Path, catalogue: Catalogue | None = None, *, start: str | None = None):
        super().__init__()
        self.saves_dir = Path(saves_dir)
        self._catalogue = catalogue
        self._library: CharacterLibrary | None = None
        self.data_problems_seen: list = []  # the data folder's problems, printed by the CLI on exit
        self.session: OpenCharacter | None = None
        self._start = start
        self._lock = None  # the SaveLock of the character being played (None: none or read-only)
        self.read_only = False
        self._after_open = None  # what to do once a character asked about is opened (resume_kept)
        self.run_start: dict | None = None  # `horizon run`: open New run with this seed, daily switch and pace

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Textual's, less repeats: the same words while they are still on screen add no second toast.
        By hand: 30 `>` at a full attribute (keys arriving together) stacked 30 toasts."""
        import time

        key = (str(message), title, severity)
        now = time.monotonic()
        shown = self.__dict__.setdefault("_shown_notes", {})
        if shown.get(key, 0.0) > now:
            return
        if len(shown) > 100:  # expired ones go
            for old in [k for k, until in shown.items() if until <= now]:
                del shown[old]
        shown[key] = now + (timeout if timeout is not None else self.NOTIFICATION_TIMEOUT)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def clear_notifications(self) -> None:
        """Textual's; once cleared, the same words may show again at once."""
        self.__dict__.get("_shown_notes", {}).clear()
        super().clear_notifications()

    # --- data, loaded when first needed -------------------------------------------------------

    @property
    def catalogue(self) -> Catalogue:
        """The rules data (the shipped `data/` unless one was given); DataError if it has problems."""
        if self._catalogue is None:
            from horizon_tui.rules.validation import checked_catalogue

            # checked as `horizon validate` checks it: a house rule such as diagonal_cost = -1 is
            # named with its file and line here, not met as an internal error in the first turn
            self._catalogue = checked_catalogue()
        return self._catalogue

    @property
    def rules(self) -> Ruleset:
        return self.catalogue.rules

    @property
    def who(self) -> str:
        """How this window names itself in a character's lock (`storage.lock`)."""
        return _who()

    @property
    def overrides_allowed(self) -> bool:
        """R-6 [H]: may this player set an ability's multiplier, range or critical rule? Only if the
        house rules allow player overrides; the GM's tool always may (it is the GM approving)."""
        return self.rules.abilities.player_overrides

    @property
    def library(self) -> CharacterLibrary:
        if self._library is None:
            from horizon_tui.play.library import CharacterLibrary

            self._library = CharacterLibrary(self.saves_dir, self.catalogue)
        return self._library

    def data_problems(self) -> list:
        """The data folder's problems (none once the catalogue has loaded), also shown to the
        player: every screen past the main menu needs the rules data."""
        from horizon_tui.errors import DataError

        try:
            _ = self.catalogue  # the property loads the data folder (once)
        except DataError as exc:
            first = exc.problems[0]
            others = len(exc.problems) - 1
            more = f" (and {others} more: quit to see them all)" if others else ""
            self.notify(f"{first}{more}", title="The rules data can't be loaded", severity="error",
                        timeout=15)
            self.data_problems_seen = list(exc.problems)
            return self.data_problems_seen
        return []

    # --- screens -----------------------------------------------------------------------------

    def get_default_screen(self):
        from horizon_tui.ui.player.screens.main_menu import MainMenuScreen

        return MainMenuScreen()

    async def on_event(self, event: events.Event) -> None:
        """A paste goes to the focused field as much as fits it, saying what was cut (ui.widgets.paste)."""
        if isinstance(event, events.Paste) and not event.is_forwarded and isinstance(self.focused, Input):
            text, cut = fit_paste(self.focused, event.text)
            if cut:
                self.notify(cut, title="Paste cut", severity="warning", timeout=6, markup=False)
            if text != event.text:
                event = events.Paste(text)
        await super().on_event(event)

    def on_mount(self) -> None:
        self._exit_on_signals()
        self.table_invites: list = []
        self._invited: set[str] = set()
        self.set_interval(TABLE_POLL_S, self._poll_tables)
        from horizon_tui.paths import user_data_dir

        if (user_data_dir() / "keymap.toml").exists():  # only then: the menu comes up without attrs
            from horizon_tui.play.keymap import apply_user_keymap

            apply_user_keymap(self)  # the battlefield's keys, rebound by id (tui/keymap.py)
        start = self._start
        if self.run_start is not None:
            if not self.data_problems():
                self.action_new_run()
            return
        if start in (None, "menu"):
            return
        if self.data_problems():
            return
        if start in ("sheet", "level-up", "abilities", "loadout"):
            entry = next((e for e in self.library.entries() if e.openable), None)
            if entry is None:
                self.notify("No character to open yet", severity="warning")
                return
            self.open_character(entry.path, entry.character)
            if start != "sheet":
                getattr(self, f"action_{start.replace('-', '_')}")()
            return
        action = {"new": "new_character", "load": "load_character", "battle": "battle", "rules": "rules"}
        if start in action:
            getattr(self, f"action_{action[start]}")()

    def _exit_on_signals(self) -> None:
        """SIGTERM (the SSH host ending a session, a shutdown) and SIGHUP (the terminal gone)
        close the app the normal way, so screens save on their way out (a battle in progress
        is saved by its screen when it unmounts; characters are saved on every change)."""
        import asyncio
        import signal

        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(signum, self.exit)
            except (NotImplementedError, RuntimeError, ValueError):
                pass  # not the main thread (tests) or no signals here

    def push_screen(self, screen, *args, **kwargs):
        """Every screen past the main menu is pushed: the first push adds their stylesheet."""
        self._use_screens_css()
        return super().push_screen(screen, *args, **kwargs)

    def _use_screens_css(self) -> None:
        """screens.tcss as one more source: Textual parses only the new source (the others are
        cached) when it next styles a widget; parsing it at start-up cost the menu ~15 ms."""
        path = Path(__file__).with_name("screens.tcss")
        if not self.stylesheet.has_source(str(path)):
            self.stylesheet.read(path)

    def _to_menu(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def _poll_tables(self) -> None:
        """A notice on any screen when a GM seats this account at a live table."""
        from horizon_tui.table.lobby import invites_for, my_seat_place

        account, tables = my_seat_place()
        invites = invites_for(tables, account) if tables.is_dir() else []
        for invite in invites:  # the GM opened the table themselves: F2 finds it again if they drop
            if invite.table not in self._invited and invite.role != "gm" and not invite.over:
                self.notify(f"Your GM opened the table {invite.table!r} for you: press F2 to join.",
                            title="Join the table", timeout=12)
        self._invited = {i.table for i in invites}
        self.table_invites = invites

    def action_join_table(self) -> None:
        from horizon_tui.ui.player.joining import JoinTableScreen
        from horizon_tui.ui.battle.table_screen import TableBattleScreen

        if isinstance(self.screen, (JoinTableScreen, TableBattleScreen)):
            return
        self.push_screen(JoinTableScreen())

    def unsaved_above(self, index: int = 0) -> list[str]:
        """What the screens over screen `index` (0: the main menu) hold that is not saved (their
        `unsaved_work()`)."""
        return [what for screen in self.screen_stack[index + 1:]
                if callable(getattr(screen, "unsaved_work", None)) and (what := screen.unsaved_work())]

    def leave_to_menu(self, then=None, index: int = 0) -> None:
        """Back to the main menu (or screen `index`), then `then()`, by any path (the palette's
        Main menu, New character, Load character, New run, Character sheet): a form not yet saved
        is named and asked about first, as esc and ctrl+q ask. Nothing changes on "Stay"."""
        def go(yes: bool | None = True) -> None:
            if yes:
                while len(self.screen_stack) > index + 1:
                    self.pop_screen()
                if then is not None:
                    then()

        lost = self.unsaved_above(index)
        if not lost:
            go()
            return
        from horizon_tui.ui.dialogs.confirm import ConfirmDialog

        self.push_screen(ConfirmDialog(f"Not saved: {'; '.join(lost)}. Leave and lose "
                                       f"{'it' if len(lost) == 1 else 'them'}?", yes="Leave", no="Stay",
                                       title="Leave without saving?"), go)

    def action_main_menu(self) -> None:
        self.leave_to_menu()

    def action_new_character(self) -> None:
        if self.data_problems():
            return
        from horizon_tui.ui.player.screens.wizard import CreationWizard

        self.leave_to_menu(lambda: self.push_screen(CreationWizard()))

    def action_load_character(self) -> None:
        if self.data_problems():
            return
        from horizon_tui.ui.player.screens.load import LoadScreen

        self.leave_to_menu(lambda: self.push_screen(LoadScreen()))

    def action_battle(self) -> None:
        if self.data_problems():
            return
        from horizon_tui.ui.player.screens.battle import EncounterPickerScreen

        if not isinstance(self.screen, EncounterPickerScreen):
            self.push_screen(EncounterPickerScreen())

    def action_new_run(self) -> None:
        if self.data_problems():
            return
        from horizon_tui.ui.player.screens.runs import NewRunScreen

        start, self.run_start = self.run_start or {}, None
        self.leave_to_menu(lambda: self.push_screen(NewRunScreen(**start)))

    def action_hall_of_fame(self) -> None:
        if self.data_problems():
            return
        from horizon_tui.ui.player.screens.runs import HallOfFameScreen

        if not isinstance(self.screen, HallOfFameScreen):
            self.push_screen(HallOfFameScreen())

    def action_rules(self) -> None:
        if self.data_problems():
            return
        from horizon_tui.ui.player.screens.rules import RulesScreen

        if not isinstance(self.screen, RulesScreen):
            self.push_screen(RulesScreen())

    def action_help(self) -> None:
        from horizon_tui.ui.dialogs.help import HelpScreen, help_groups

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self.push_screen(HelpScreen(help_groups(self.screen), self.screen.title or self.title))

    # --- the character being played ----------------------------------------------------------

    def _character_screen(self, name: str):
        if self.session is None:
            self.notify("Load or create a character first", severity="warning")
            return
        from horizon_tui.ui.player.screens import abilities
        from horizon_tui.ui.player.screens import level_up
        from horizon_tui.ui.player.screens import loadout
        from horizon_tui.ui.player.screens import sheet

        screens = {
            "sheet": sheet.SheetScreen,
            "level_up": level_up.LevelUpScreen,
            "abilities": abilities.AbilitiesScreen,
            "loadout": loadout.LoadoutScreen,
        }
        cls = screens[name]
        if isinstance(self.screen, cls):
            return
        if name != "sheet" and not any(isinstance(s, sheet.SheetScreen) for s in self.screen_stack):
            self.leave_to_menu(lambda: (self.push_screen(sheet.SheetScreen()), self.push_screen(cls())))
            return
        self.push_screen(cls())

    def action_sheet(self) -> None:
        from horizon_tui.ui.player.screens.sheet import SheetScreen

        for index, screen in enumerate(self.screen_stack):
            if isinstance(screen, SheetScreen):
                self.leave_to_menu(index=index)
                return
        self._character_screen("sheet")

    def action_level_up(self) -> None:
        self._character_screen("level_up")

    def action_abilities(self) -> None:
        self._character_screen("abilities")

    def action_loadout(self) -> None:
        self._character_screen("loadout")

    def open_character(self, path: Path, character: Character | None = None, *, then_battle: bool = False,
                       take_over: bool | None = None) -> None:
        """Make `path` the character being played and show its sheet (over the main menu); with
        `then_battle`, the encounter list over the sheet (loaded from there to fight).

        One window writes a character (`storage.lock.SaveLock`; across hosts sharing a database,
        `storage.host_locks.SharedSaveLock`): if another window or session holds
        it, the player is asked to open it read-only, take it over, or cancel. `take_over`
        answers that question beforehand (False: read-only)."""
        from horizon_tui.errors import DataError, HorizonError
        from horizon_tui.storage.host_wiring import save_lock_class
        from horizon_tui.storage.lock import SaveInUse

        path = Path(path)
        if character is None:
            try:
                character = self.library.load(path)
            except DataError as exc:
                self.notify(str(exc.problems[0]), title="Can't open this save", severity="error")
                return
        if self._lock is not None and self._lock.path == path and self._lock.holds():
            self._show_character(path, character, self._lock, then_battle)  # already ours
            return
        if take_over is False:
            self._show_character(path, character, None, then_battle)
            return
        try:
            lock = save_lock_class().acquire(path, self.who, take_over=bool(take_over))
        except SaveInUse as exc:
            self._ask_in_use(path, character, exc, then_battle)
            return
        except (HorizonError, OSError) as exc:
            self.notify(f"{exc}. Opened read-only.", title=path.name, severity="warning", timeout=10)
            lock = None
        self._show_character(path, character, lock, then_battle)

    def close_character(self) -> None:
        """No character being played (its lock released): a run's permadeath moves its file."""
        if self._lock is not None:
            self._lock.release()
        self._lock = None
        self.session = None

    def _ask_in_use(self, path: Path, character: Character, exc, then_battle: bool) -> None:
        from horizon_tui.ui.dialogs.question import QuestionDialog

        def answered(answer: str | None) -> None:
            if answer is not None:
                self.open_character(path, character, then_battle=then_battle, take_over=answer == "take")

        self.push_screen(QuestionDialog(
            f"{character.name} is open in another session ({exc.holder.describe()}). Open it read-only "
            "(nothing you do is saved), or take it over (the other window stops saving it and says so)?",
            [("read", "Open read-only", "o"), ("take", "Take over", "t")],
            title="Open in another session"), answered)

    def _show_character(self, path: Path, character: Character, lock, then_battle: bool) -> None:
        from horizon_tui.play.library import OpenCharacter
        from horizon_tui.ui.player.screens.sheet import SheetScreen

        if self._lock is not None and self._lock is not lock:
            self._lock.release()
        self._lock = lock
        self.read_only = lock is None
        self.session = OpenCharacter(path, character)
        self._to_menu()
        self.push_screen(SheetScreen())
        if self.read_only:
            self.notify("Read-only: changes are not saved.", title=character.name, severity="warning")
        after, self._after_open = self._after_open, None
        if after is not None and not self.read_only:
            self.call_after_refresh(after)
        if then_battle:  # once the list it was loaded from is gone (one screen of an id at a time)
            self.call_after_refresh(self.action_battle)

    def release_character(self) -> None:
        """Let go of the character's lock (another window may then open it to write)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def on_unmount(self) -> None:
        self.release_character()

    def save_guard(self):
        """The character's lock's `guard()`, for writing beside it (its battle in progress);
        HorizonError in a read-only window, LockLost if another session took the save over."""
        from horizon_tui.errors import HorizonError

        if self._lock is None:
            raise HorizonError("this window is read-only")
        return self._lock.guard()

    def commit(self, character: Character) -> bool:
        """Save the character being played, under its lock. A save that went unreadable on disk,
        a read-only window or a save another session took over is left alone and reported;
        nothing is lost in memory."""
        from horizon_tui.errors import DataError
        from horizon_tui.storage.lock import LockLost

        if self.session is None:
            return False
        if self.read_only or self._lock is None:
            self.notify(f"{self.session.path.name} is open read-only here: not saved.", title="Not saved",
                        severity="error", timeout=10)
            return False
        try:
            with self._lock.guard():
                self.library.save(self.session.path, character)
        except LockLost as exc:
            self._lock, self.read_only = None, True
            self.notify(f"{exc}. This change was not saved; the window is read-only now.",
                        title="Not saved", severity="error", timeout=15)
            return False
        except (DataError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.notify(message, title="Not saved", severity="error", timeout=10)
            return False
        self.session.character = character
        return True

    def save_before_crash(self) -> list[str]:
        """Before the crash screen, a battle in progress and the character are saved."""
        from horizon_tui.ui.battle.screen import BattleScreen

        saved = []
        for screen in self.screen_stack:
            if isinstance(screen, BattleScreen) and screen.driver.save(screen.session):
                saved.append("the battle in progress")
        if self.session is not None and type(self) is HorizonApp and self._lock is not None and not self.read_only:
            with self._lock.guard():  # never over a save another session took over
                self.library.save(self.session.path, self.session.character)
            saved.append(f"{self.session.character.name} ({self.session.path.name})")
        return saved

    def start_battle(self, encounter_path: Path, character: Character, party: list | None = None) -> None:
        """Fight `encounter_path` as the character being played (with `party`, `PartyMember`s, if
        given). A battle left unfinished is asked about first: resume it, start the new one and
        keep the old aside (Load ▸ Battles lists it), or cancel (Esc): nothing changes."""
        from horizon_tui.ui.battle import flow

        if self.read_only:
            self.notify(f"{character.name} is open read-only here, so a battle couldn't be saved. "
                        "Load it again and take it over to fight.", severity="warning", timeout=10)
            return
        saved = flow.saved_battle(self)
        if saved is None:
            flow.start(self, encounter_path, party=party)
            return
        from horizon_tui.ui.dialogs.question import QuestionDialog

        from horizon_tui.storage.records import encounter_name

        picked = encounter_name(encounter_path)
        old = _battle_encounter(saved)

        def answered(answer: str | None) -> None:
            if answer == "resume":
                flow.resume(self, fresh=lambda: flow.start(self, encounter_path, party=party))
            elif answer == "new":
                session = flow.form(self, encounter_path, party=party)
                if session is None:
                    return  # it can't start (said): the battle in progress stays where it was
                moved, kept = self._put_aside("Not started")
                if not moved:
                    return
                if kept is not None:
                    self.notify(f"The battle against {old} is kept as {kept.name}: Load ▸ Battles resumes it.",
                                title="Battle kept")
                flow.open_session(self, session)
            # None (Esc, Cancel): the battle in progress and the picked encounter stay as they are

        if old is None:  # nothing to resume: say so, and offer only to keep the file aside
            self.push_screen(QuestionDialog(
                f"{character.name}'s battle in progress can't be read ({_battle_problem(saved)}). Start "
                f"{picked} and keep the old file aside (Load ▸ Battles lists it, never deleted)?",
                [("new", "Start the new one", "s")], title="A damaged battle"), answered)
            return
        self.push_screen(QuestionDialog(
            f"{character.name} has a battle in progress ({old}). Resume it, or start {picked} and keep "
            f"the old one under a name Load ▸ Battles lists?",
            [("resume", "Resume", "r"), ("new", "Start the new one", "s")],
            title="Resume it?"), answered)

    def _put_aside(self, refused: str) -> tuple[bool, Path | None]:
        """The battle in progress put aside (`flow.put_aside`): (True, where it was kept, or None if
        there was none). A window taken over puts nothing aside (the battle there is the other
        window's): it says so under the title `refused`, turns read-only, and gives (False, None)."""
        from horizon_tui.errors import HorizonError
        from horizon_tui.ui.battle import flow

        try:
            return True, flow.put_aside(self)
        except HorizonError as exc:
            self._lock, self.read_only = None, True
            self.notify(f"{exc}. Nothing was moved; the window is read-only now.", title=refused,
                        severity="error", timeout=15)
            return False, None

    def resume_kept(self, kept: Path) -> None:
        """Resume a battle kept aside (Load ▸ Battles): open its character (under its lock), put
        the character's battle in progress aside if there is one (asked first), then replay it."""
        from horizon_tui.storage.records import stem_of

        path = self._playing_for(kept, stem_of(kept), lambda: self.resume_kept(kept))
        if path is None:
            return
        from horizon_tui.ui.battle import flow
        from horizon_tui.storage.records import bring_back

        def swap(answer: str | None = "swap") -> None:
            if answer is None:
                return
            if flow.saved_battle(self) is not None:
                moved, aside = self._put_aside("Not resumed")
                if not moved:
                    return
                self.notify(f"The battle in progress is kept as {aside.name}.", title="Battle kept")
            bring_back(kept, flow.battle_save_path(self, path))
            flow.resume(self)

        current = flow.saved_battle(self)
        if current is None:
            swap()
            return
        from horizon_tui.ui.dialogs.question import QuestionDialog

        self.push_screen(QuestionDialog(
            f"{self.session.character.name} has a battle in progress ({_battle_encounter(current) or UNREADABLE}). "
            f"Keep it aside and resume {_battle_encounter(kept) or UNREADABLE}?",
            [("swap", "Resume the kept one", "s")], title="Resume a kept battle"), swap)

    def resume_in_progress(self, save: Path) -> None:
        """Resume a character's battle in progress (Load ▸ Battles): open the character (under its
        lock), then replay the battle."""
        from horizon_tui.ui.battle import flow

        if self._playing_for(save, save.stem, lambda: flow.resume(self)) is not None:
            flow.resume(self)

    def _playing_for(self, battle: Path, stem: str, then) -> Path | None:
        """The character file `stem` of a battle's, if it is the one being played (writable);
        otherwise it is opened (asked about if another session holds it), `then` runs once it
        is, and None is returned. None too, said, if there is no such character."""
        path = next((p for p in self.library.files() if p.stem == stem), None)
        if path is None:
            self.notify(f"{battle.name}: its character ({stem}) is not in {self.library.characters_dir}. "
                        "The battle is kept as it is.", severity="error", timeout=10)
            return None
        if self.session is None or self.session.path != path or self.read_only:
            self._after_open = then
            self.open_character(path)
            return None
        return path

    def give_xp(self, name: str, gained: int) -> None:
        """Add a battle's XP (R-14) to a party member other than the character being played: its
        save, found by name, is written under its own lock. Anything that stops it is said."""
        if not gained:
            return
        import attrs

        from horizon_tui.errors import DataError, HorizonError
        from horizon_tui.storage.host_wiring import save_lock_class

        matches = [e for e in self.library.entries() if e.character is not None and e.character.name == name]
        if len(matches) != 1:
            self.notify(f"{name}'s {gained} XP wasn't added: {len(matches)} saves are called {name}.",
                        severity="warning", timeout=10)
            return
        entry = matches[0]
        try:
            with save_lock_class().acquire(entry.path, self.who) as lock, lock.guard():
                character = self.library.load(entry.path)
                self.library.save(entry.path, attrs.evolve(character, xp=character.xp + gained))
        except (DataError, HorizonError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.notify(f"{name}'s {gained} XP wasn't added: {message}", severity="warning", timeout=10)
            return
        self.notify(f"{name} gains {gained} XP.", title="Experience")


def _who() -> str:
    """Who holds a save, as another window shows it: the user and where."""
    import getpass
    import os

    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "someone"
    where = os.environ.get("SSH_CONNECTION") and "over SSH" or "the player app"
    return f"{user} in {where}"


UNREADABLE = "a save that can't be read"


def _battle_problem(save: Path) -> str:
    """Why a battle save can't be read, shortly, with its file's name."""
    from horizon_tui.content.guard import read_json_object
    from horizon_tui.errors import DataError
    from horizon_tui.play.library import short_problem

    try:
        data = read_json_object(save)
        str(data["encounter"])
    except DataError as exc:
        return f"{save.name}: {short_problem(exc.problems[0])}"
    except (OSError, KeyError, TypeError, ValueError) as exc:
        return f"{save.name}: {exc}"
    return save.name


def _battle_encounter(save: Path) -> str | None:
    """The encounter a saved battle is fought in, by its name, for the questions; None if the save
    can't be read."""
    from horizon_tui.content.guard import read_json_object
    from horizon_tui.errors import DataError
    from horizon_tui.storage.records import encounter_name

    try:
        return encounter_name(str(read_json_object(save)["encounter"]))
    except (DataError, OSError, ValueError, KeyError, TypeError):
        return None  # it can't be read: nothing to resume


def create_app(
    saves_dir: Path | None = None, catalogue: Catalogue | None = None, *, screen: str | None = None
) -> HorizonApp:
    """The player app over a saves folder (default: `horizon_tui.paths.default_saves_dir()`, in the
    user data folder) and a catalogue (default: the shipped data, loaded when first needed).
    `screen` opens a start screen: one of START_SCREENS."""
    if screen is not None and screen not in START_SCREENS:
        raise ValueError(f"unknown start screen {screen!r}; one of {', '.join(START_SCREENS)}")
    if saves_dir is None:
        from horizon_tui.paths import default_saves_dir

        saves_dir = default_saves_dir()
    return HorizonApp(Path(saves_dir), catalogue, start=screen)
