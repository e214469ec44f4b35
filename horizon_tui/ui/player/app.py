"""`horizon`: the one app (`ui.app.HorizonApp`) over a saves folder (`SavesFolder`, one of the two
hosts of `ui.app_contract`). One factory (`create_app`) for the CLI, the tests and the SSH host.

All state lives on the app and its host, never in module globals: several SSH players share one
process. Start-up is kept to what the main menu shows (at most 1.3x a bare Textual app): this
module imports only Textual and the app; screens are imported when first opened; the catalogue
(and with it the content models, attrs and cattrs) is loaded the first time something needs it,
which for a player with no saves yet is the first screen they open.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from horizon_tui.paths import default_saves_dir, user_data_dir
from horizon_tui.ui.app import HorizonApp
from horizon_tui.ui.app_contract import AppContract
from horizon_tui.ui.dialogs.confirm import ConfirmDialog, QuitDialog
from horizon_tui.ui.dialogs.question import QuestionDialog
from horizon_tui.ui.player.screens.main_menu import MainMenuScreen

if TYPE_CHECKING:
    from textual.binding import Binding

    from horizon_tui.content.catalogue import Catalogue
    from horizon_tui.content.models import Character
    from horizon_tui.content.ruleset import Ruleset
    from horizon_tui.play.library import CharacterLibrary, OpenCharacter

# Start screens `create_app(screen=...)` knows; the character screens open the newest save.
START_SCREENS = ("menu", "new", "load", "battle", "rules", "sheet", "level-up", "abilities", "loadout")
HERE = Path(__file__).resolve().parent


class SavesFolder:
    """The player app's host (`ui.app_contract.AppHost`): characters in a saves folder, each
    written by one window at a time (its lock), the shipped rules data (loaded and checked the
    first time it is needed: start-up shows the menu first)."""

    title = "Horizon of Darkness"
    css_paths = [HERE / "horizon.tcss"]  # screens.tcss joins at the first push (`HorizonApp.push_screen`)
    bindings: list[Binding] = []
    horizontal_breakpoints: list[tuple[int, str]] | None = None
    host_actions: dict = {}
    player_files = True
    campaign = None

    def __init__(self, saves_dir: Path, catalogue: Catalogue | None = None, *, start: str | None = None) -> None:
        """`start`: one of START_SCREENS, opened once the app is up (None: the main menu)."""
        self.saves_dir = Path(saves_dir)
        self._catalogue = catalogue
        self._library: CharacterLibrary | None = None
        self._enemies: dict | None = None
        self.session: OpenCharacter | None = None
        self._start = start
        self._lock = None  # the SaveLock of the character being played (None: none or read-only)
        self.read_only = False
        self._after_open = None  # what to do once a character asked about is opened (resume_kept)
        self.app: AppContract

    def attach(self, app: AppContract) -> None:
        self.app = app

    # --- the data, loaded when first needed -----------------------------------------------------

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
    def overrides_allowed(self) -> bool:
        """R-6 [H]: only if the house rules allow player overrides."""
        return self.rules.abilities.player_overrides

    @property
    def library(self) -> CharacterLibrary:
        if self._library is None:
            from horizon_tui.play.library import CharacterLibrary

            self._library = CharacterLibrary(self.saves_dir, self.catalogue)
        return self._library

    def enemies(self) -> dict:
        if self._enemies is None:
            from horizon_tui.tools.validate_encounters import checked_enemies

            self._enemies = checked_enemies(self.catalogue)
        return self._enemies

    @property
    def who(self) -> str:
        """How this window names itself in a character's lock (`storage.lock`)."""
        return _who()

    # --- start and end --------------------------------------------------------------------------

    def default_screen(self):
        return MainMenuScreen()

    def start(self) -> None:
        app = self.app
        app.watch_for_tables()
        if (user_data_dir() / "keymap.toml").exists():  # only then: the menu comes up without attrs
            from horizon_tui.play.keymap import apply_user_keymap

            apply_user_keymap(app)  # the battlefield's keys, rebound by id (play/keymap.py)
        start = self._start
        if app.run_start is not None:
            if not app.data_problems():
                app.action_new_run()
            return
        if start in (None, "menu"):
            return
        if app.data_problems():
            return
        if start in ("sheet", "level-up", "abilities", "loadout"):
            entry = next((e for e in self.library.entries() if e.openable), None)
            if entry is None:
                app.notify("No character to open yet", severity="warning")
                return
            self.open_character(entry.path, entry.character)
            if start != "sheet":
                self.character_screen(start.replace("-", "_"))
            return
        if start == "new":
            self.new_character()
        elif start == "load":
            self.load_character()
        elif start == "battle":
            self.battle()
        elif start == "rules":
            self.rules_screen()

    def close(self) -> None:
        self.release_character()

    def save_before_crash(self) -> list[str]:
        """The character being played, saved under its lock."""
        if self.session is None or self._lock is None or self.read_only:
            return []
        with self._lock.guard():  # never over a save another session took over
            self.library.save(self.session.path, self.session.character)
        return [f"{self.session.character.name} ({self.session.path.name})"]

    def quit(self) -> None:
        """ctrl+q from any screen. A screen holding work not yet saved (a character being made, an
        ability being edited, points not confirmed) says so through `unsaved_work()`, and quitting
        asks first, as esc on that screen does; ctrl+q again on the question quits."""
        app = self.app
        if isinstance(app.screen, QuitDialog):
            app.exit()
            return
        lost = [what for screen in app.screen_stack
                if callable(unsaved_work := getattr(screen, "unsaved_work", None)) and (what := unsaved_work())]
        if not lost:
            app.exit()
            return
        question = f"Not saved: {'; '.join(lost)}. Quit and lose {'it' if len(lost) == 1 else 'them'}?"
        app.push_screen(QuitDialog(question, yes="Quit", no="Stay", title="Quit?"),
                        lambda quit_now: app.exit() if quit_now else None)

    # --- the app's actions, the player's way ----------------------------------------------------

    def leave_to_menu(self, then: Callable[[], object] | None = None, index: int = 0) -> None:
        """Back to the main menu (or screen `index`), then `then()`, by any path (the palette's
        Main menu, New character, Load character, New run, Character sheet): a form not yet saved
        is named and asked about first, as esc and ctrl+q ask. Nothing changes on "Stay"."""
        app = self.app

        def go(yes: bool | None = True) -> None:
            if yes:
                while len(app.screen_stack) > index + 1:
                    app.pop_screen()
                if then is not None:
                    then()

        lost = app.unsaved_above(index)
        if not lost:
            go()
            return
        app.push_screen(ConfirmDialog(f"Not saved: {'; '.join(lost)}. Leave and lose "
                                      f"{'it' if len(lost) == 1 else 'them'}?", yes="Leave", no="Stay",
                                      title="Leave without saving?"), go)

    def main_menu(self) -> None:
        self.leave_to_menu()

    def character_screen(self, name: str) -> None:
        self.app.open_character_screen(name)

    def new_character(self) -> None:
        if self.app.data_problems():
            return
        from horizon_tui.ui.player.screens.wizard import CreationWizard

        self.leave_to_menu(lambda: self.app.push_screen(CreationWizard()))

    def load_character(self) -> None:
        if self.app.data_problems():
            return
        from horizon_tui.ui.player.screens.load import LoadScreen

        self.leave_to_menu(lambda: self.app.push_screen(LoadScreen()))

    def battle(self) -> None:
        if self.app.data_problems():
            return
        from horizon_tui.ui.player.screens.battle import EncounterPickerScreen

        if not isinstance(self.app.screen, EncounterPickerScreen):
            self.app.push_screen(EncounterPickerScreen())

    def rules_screen(self) -> None:
        if self.app.data_problems():
            return
        from horizon_tui.ui.player.screens.rules import RulesScreen

        if not isinstance(self.app.screen, RulesScreen):
            self.app.push_screen(RulesScreen())

    # --- the character being played ----------------------------------------------------------

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
                self.app.notify(str(exc.problems[0]), title="Can't open this save", severity="error")
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
            self.app.notify(f"{exc}. Opened read-only.", title=path.name, severity="warning", timeout=10)
            lock = None
        self._show_character(path, character, lock, then_battle)

    def close_character(self) -> None:
        """No character being played (its lock released): a run's permadeath moves its file."""
        if self._lock is not None:
            self._lock.release()
        self._lock = None
        self.session = None

    def _ask_in_use(self, path: Path, character: Character, exc, then_battle: bool) -> None:
        def answered(answer: str | None) -> None:
            if answer is not None:
                self.open_character(path, character, then_battle=then_battle, take_over=answer == "take")

        self.app.push_screen(QuestionDialog(
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
        self.app.to_menu()
        self.app.push_screen(SheetScreen())
        if self.read_only:
            self.app.notify("Read-only: changes are not saved.", title=character.name, severity="warning")
        after, self._after_open = self._after_open, None
        if after is not None and not self.read_only:
            self.app.call_after_refresh(after)
        if then_battle:  # once the list it was loaded from is gone (one screen of an id at a time)
            self.app.call_after_refresh(self.app.action_battle)

    def release_character(self) -> None:
        """Let go of the character's lock (another window may then open it to write)."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

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
            self.app.notify(f"{self.session.path.name} is open read-only here: not saved.", title="Not saved",
                            severity="error", timeout=10)
            return False
        try:
            with self._lock.guard():
                self.library.save(self.session.path, character)
        except LockLost as exc:
            self._lock, self.read_only = None, True
            self.app.notify(f"{exc}. This change was not saved; the window is read-only now.",
                            title="Not saved", severity="error", timeout=15)
            return False
        except (DataError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.app.notify(message, title="Not saved", severity="error", timeout=10)
            return False
        self.session.character = character
        return True

    def start_battle(self, encounter_path: Path, character: Character, party: list | None = None) -> None:
        """Fight `encounter_path` as the character being played (with `party`, `PartyMember`s, if
        given). A battle left unfinished is asked about first: resume it, start the new one and
        keep the old aside (Load ▸ Battles lists it), or cancel (Esc): nothing changes."""
        from horizon_tui.ui.battle import flow

        if self.read_only:
            self.app.notify(f"{character.name} is open read-only here, so a battle couldn't be saved. "
                            "Load it again and take it over to fight.", severity="warning", timeout=10)
            return
        saved = flow.saved_battle(self.app)
        if saved is None:
            flow.start(self.app, encounter_path, party=party)
            return
        from horizon_tui.storage.records import encounter_name

        picked = encounter_name(encounter_path)
        old = _battle_encounter(self.saves_dir, saved)

        def answered(answer: str | None) -> None:
            if answer == "resume":
                flow.resume(self.app, fresh=lambda: flow.start(self.app, encounter_path, party=party))
            elif answer == "new":
                session = flow.form(self.app, encounter_path, party=party)
                if session is None:
                    return  # it can't start (said): the battle in progress stays where it was
                moved, kept = self._put_aside("Not started")
                if not moved:
                    return
                if kept is not None:
                    self.app.notify(f"The battle against {old} is kept as {kept.name}: Load ▸ Battles resumes it.",
                                    title="Battle kept")
                flow.open_session(self.app, session)
            # None (Esc, Cancel): the battle in progress and the picked encounter stay as they are

        if old is None:  # nothing to resume: say so, and offer only to keep the file aside
            self.app.push_screen(QuestionDialog(
                f"{character.name}'s battle in progress can't be read ({_battle_problem(self.saves_dir, saved)}). Start "
                f"{picked} and keep the old file aside (Load ▸ Battles lists it, never deleted)?",
                [("new", "Start the new one", "s")], title="A damaged battle"), answered)
            return
        self.app.push_screen(QuestionDialog(
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
            return True, flow.put_aside(self.app)
        except HorizonError as exc:
            self._lock, self.read_only = None, True
            self.app.notify(f"{exc}. Nothing was moved; the window is read-only now.", title=refused,
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
            if flow.saved_battle(self.app) is not None:
                moved, aside = self._put_aside("Not resumed")
                if not moved:
                    return
                if aside is not None:  # (None: it went meanwhile, nothing to keep)
                    self.app.notify(f"The battle in progress is kept as {aside.name}.", title="Battle kept")
            bring_back(kept, flow.battle_save_path(self.app, path), self.saves_dir)
            flow.resume(self.app)

        current = flow.saved_battle(self.app)
        if current is None:
            swap()
            return
        assert self.session is not None  # `path` is the character being played's (`_playing_for`)
        self.app.push_screen(QuestionDialog(
            f"{self.session.character.name} has a battle in progress ({_battle_encounter(self.saves_dir, current) or UNREADABLE}). "
            f"Keep it aside and resume {_battle_encounter(self.saves_dir, kept) or UNREADABLE}?",
            [("swap", "Resume the kept one", "s")], title="Resume a kept battle"), swap)

    def resume_in_progress(self, save: Path) -> None:
        """Resume a character's battle in progress (Load ▸ Battles): open the character (under its
        lock), then replay the battle."""
        from horizon_tui.ui.battle import flow

        if self._playing_for(save, save.stem, lambda: flow.resume(self.app)) is not None:
            flow.resume(self.app)

    def _playing_for(self, battle: Path, stem: str, then) -> Path | None:
        """The character file `stem` of a battle's, if it is the one being played (writable);
        otherwise it is opened (asked about if another session holds it), `then` runs once it
        is, and None is returned. None too, said, if there is no such character."""
        path = next((p for p in self.library.files() if p.stem == stem), None)
        if path is None:
            self.app.notify(f"{battle.name}: its character ({stem}) is not in {self.library.characters_dir}. "
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
            self.app.notify(f"{name}'s {gained} XP wasn't added: {len(matches)} saves are called {name}.",
                            severity="warning", timeout=10)
            return
        entry = matches[0]
        try:
            with save_lock_class().acquire(entry.path, self.who) as lock, lock.guard():
                character = self.library.load(entry.path)
                self.library.save(entry.path, attrs.evolve(character, xp=character.xp + gained))
        except (DataError, HorizonError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.app.notify(f"{name}'s {gained} XP wasn't added: {message}", severity="warning", timeout=10)
            return
        self.app.notify(f"{name} gains {gained} XP.", title="Experience")




def _who() -> str:
    """Who holds a save, as another window shows it: the user and where."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "someone"
    where = os.environ.get("SSH_CONNECTION") and "over SSH" or "the player app"
    return f"{user} in {where}"


UNREADABLE = "a save that can't be read"


def _battle_problem(saves_dir: Path, save: Path) -> str:
    """Why a battle save can't be read, shortly, with its file's name."""
    from horizon_tui.errors import DataError, HorizonError
    from horizon_tui.play.library import short_problem
    from horizon_tui.storage.records import read_battle

    try:
        data = read_battle(saves_dir, save)
        str(data["encounter"])
    except DataError as exc:
        return f"{save.name}: {short_problem(exc.problems[0])}"
    except (OSError, KeyError, TypeError, ValueError, HorizonError) as exc:
        return f"{save.name}: {exc}"
    return save.name


def _battle_encounter(saves_dir: Path, save: Path) -> str | None:
    """The encounter a saved battle is fought in, by its name, for the questions; None if the save
    can't be read."""
    from horizon_tui.errors import HorizonError
    from horizon_tui.storage.records import encounter_name, read_battle

    try:
        return encounter_name(str(read_battle(saves_dir, save)["encounter"]))
    except (HorizonError, OSError, ValueError, KeyError, TypeError):
        return None  # it can't be read: nothing to resume


def create_app(
    saves_dir: Path | None = None, catalogue: Catalogue | None = None, *, screen: str | None = None
) -> HorizonApp:
    """The app over a saves folder (default: `horizon_tui.paths.default_saves_dir()`, in the
    user data folder) and a catalogue (default: the shipped data, loaded when first needed).
    `screen` opens a start screen: one of START_SCREENS."""
    if screen is not None and screen not in START_SCREENS:
        raise ValueError(f"unknown start screen {screen!r}; one of {', '.join(START_SCREENS)}")
    if saves_dir is None:
        saves_dir = default_saves_dir()
    return HorizonApp(SavesFolder(Path(saves_dir), catalogue, start=screen))
