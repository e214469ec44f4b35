"""The one app: `HorizonApp` holding one host (`ui.app_contract.AppHost`). `horizon` gives it a
saves folder (`ui.player.app.SavesFolder`), `horizon gm` a campaign (`ui.gm.app.CampaignHost`);
the character screens (sheet, level-up, abilities, loadout, the creation wizard, the load list)
run on either, reading `app.session`, `app.rules` and `app.catalogue` (the host's) and saving
through `app.commit` (the host's way). The app holds what both share: the keys every screen has,
notices, pastes, help, the screens' stylesheet, the live tables a player is invited to.

All state lives on the app and its host, never in module globals: several SSH players share one
process. Start-up is kept to what the main menu shows (at most 1.3x a bare Textual app): this
module imports only Textual and the few light modules below; each host imports its screens.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding, BindingsMap
from textual.reactive import Reactive
from textual.widgets import Input

from horizon_tui.ui import key_order  # noqa: F401 - installs itself (keys in a field in order)
from horizon_tui.ui.app_contract import AppHost
from horizon_tui.ui.crash_screen import CrashGuard
from horizon_tui.ui.player.palette import HorizonCommands
from horizon_tui.ui.widgets.paste import fit_paste

if TYPE_CHECKING:
    from horizon_tui.campaign.model import Campaign
    from horizon_tui.content.catalogue import Catalogue
    from horizon_tui.content.models import Character
    from horizon_tui.content.ruleset import Ruleset
    from horizon_tui.play.library import CharacterLibrary, OpenCharacter

# screens.tcss: every screen past the main menu; read at the first push (`HorizonApp.push_screen`)
SCREENS_CSS = Path(__file__).resolve().parent / "player" / "screens.tcss"
TABLE_POLL_S = 2.0  # how often the app looks for a live table it is invited to


class HorizonApp(CrashGuard, App[None]):
    """Horizon of Darkness: a player's characters and battles, or a GM's campaign (its host's)."""

    COMMANDS = App.COMMANDS | {HorizonCommands}
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

    def __init__(self, host: AppHost):
        """`host`: where the characters live and what the app opens first (`ui.app_contract`)."""
        super().__init__(css_path=host.css_paths)
        self.host = host
        self.title = host.title
        if host.horizontal_breakpoints is not None:  # read by every screen as it is laid out
            self.HORIZONTAL_BREAKPOINTS = host.horizontal_breakpoints
        if host.bindings:
            self._bindings = BindingsMap.merge([self._bindings, BindingsMap(host.bindings)])
        self.saves_dir = host.saves_dir
        self.data_problems_seen: list = []  # the data folder's problems, printed by the CLI on exit
        # keymap.toml [options] (play.keymap): Tab's auto-fight stop; None: the battle's own default
        self.auto_fight_stop: float | None = None
        self.run_keeper = None  # runs and the hall of fame (`ui.player.screens.runs.keeper`), made when first needed
        self.hosting = None  # a hosted game's status for the host (`play.hosting.attach`; None: played here)
        self.run_start: dict | None = None  # `horizon run`: open New run with this seed, daily switch and pace
        self.table_invites: list = []  # the live tables this account is seated at (`watch_for_tables`)
        self._invited: set[str] = set()
        self._shown_notes: dict[tuple, float] = {}  # notices on screen now, until when (`notify`)
        host.attach(self)

    def get_driver_class(self):
        """Textual's driver; on a POSIX terminal with its input held back while the app is behind
        (`ui.input_driver`: a flood of typed keys must not pile up in memory)."""
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver" and driver.__name__ == "LinuxDriver":
            # the POSIX driver's module, which Windows can't import
            from horizon_tui.ui.input_driver import PacedInputDriver

            return PacedInputDriver
        return driver

    def action_next_field(self, step: int = 1) -> None:
        if not isinstance(self.focused, Input):
            raise SkipAction()
        if step > 0:
            self.screen.focus_next()
        else:
            self.screen.focus_previous()

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Textual's, less repeats: the same words while they are still on screen add no second toast.
        By hand: 30 `>` at a full attribute (keys arriving together) stacked 30 toasts."""
        key = (str(message), title, severity)
        now = time.monotonic()
        shown = self._shown_notes
        if shown.get(key, 0.0) > now:
            return
        if len(shown) > 100:  # expired ones go
            for old in [k for k, until in shown.items() if until <= now]:
                del shown[old]
        shown[key] = now + (timeout if timeout is not None else self.NOTIFICATION_TIMEOUT)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def clear_notifications(self) -> None:
        """Textual's; once cleared, the same words may show again at once."""
        self._shown_notes.clear()
        super().clear_notifications()

    # --- the host's data (`ui.app_contract`): a saves folder's, or a campaign's ------------------

    @property
    def catalogue(self) -> Catalogue:
        """The rules data in force; DataError if it has problems."""
        return self.host.catalogue

    @property
    def rules(self) -> Ruleset:
        return self.host.rules

    @property
    def session(self) -> OpenCharacter | None:
        """The character the screens show."""
        return self.host.session

    @session.setter
    def session(self, value: OpenCharacter | None) -> None:
        self.host.session = value

    @property
    def campaign(self) -> Campaign | None:
        return self.host.campaign

    @property
    def player_files(self) -> bool:
        return self.host.player_files

    def enemies(self) -> dict:
        return self.host.enemies()

    @property
    def who(self) -> str:
        """How this window names itself in a save's lock (`storage.lock`)."""
        return self.host.who

    @property
    def read_only(self) -> bool:
        return self.host.read_only

    @property
    def overrides_allowed(self) -> bool:
        """R-6 [H]: may an ability's multiplier, range or critical rule be set by hand? A player
        only if the house rules allow it; the GM's tool always (it is the GM approving)."""
        return self.host.overrides_allowed

    @property
    def library(self) -> CharacterLibrary:
        return self.host.library

    def data_problems(self) -> list:
        """The data folder's problems (none once the catalogue has loaded), also shown to the
        player: every screen past the main menu needs the rules data."""
        from horizon_tui.errors import DataError  # start-up: attrs only once the data is needed

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

    # --- what the host does its own way ------------------------------------------------------

    def commit(self, character: Character) -> bool:
        """Save the character shown (its save, or the campaign): False, said on screen, if not."""
        return self.host.commit(character)

    def open_character(self, path: Path, character: Character | None = None, *, then_battle: bool = False) -> None:
        self.host.open_character(path, character, then_battle=then_battle)

    def start_battle(self, encounter_path: Path, character: Character, party: list | None = None) -> None:
        self.host.start_battle(encounter_path, character, party)

    def leave_to_menu(self, then=None, index: int = 0) -> None:
        self.host.leave_to_menu(then, index)

    def get_default_screen(self):
        return self.host.default_screen()

    def on_mount(self) -> None:
        self._exit_on_signals()
        self.host.start()

    def on_unmount(self) -> None:
        self.host.close()

    def save_before_crash(self) -> list[str]:
        """Before the crash screen: a battle in progress, and what the host holds, saved."""
        # start-up: the battlefield's modules only once there is something to save
        from horizon_tui.ui.battle.screen import BattleScreen

        saved = []
        for screen in self.screen_stack:
            if isinstance(screen, BattleScreen) and screen.driver.save(screen.session):
                saved.append("the battle in progress")
        return saved + self.host.save_before_crash()

    async def action_quit(self) -> None:
        self.host.quit()

    def action_main_menu(self) -> None:
        self.host.main_menu()

    def action_sheet(self) -> None:
        self.host.character_screen("sheet")

    def action_level_up(self) -> None:
        self.host.character_screen("level_up")

    def action_abilities(self) -> None:
        self.host.character_screen("abilities")

    def action_loadout(self) -> None:
        self.host.character_screen("loadout")

    def action_new_character(self) -> None:
        self.host.new_character()

    def action_load_character(self) -> None:
        self.host.load_character()

    def action_battle(self) -> Awaitable[None] | None:
        """The host's battle picker (the GM's looks for a live table first: awaited by Textual)."""
        return self.host.battle()

    def action_rules(self) -> None:
        self.host.rules_screen()

    def action_host(self, name: str) -> Awaitable[None] | None:
        """An action only this app's host has (`AppHost.host_actions`), e.g. the GM's undo; what it
        returns to await, Textual awaits."""
        action = self.host.host_actions.get(name)
        if action is None:
            raise SkipAction()
        return action()

    # --- screens -----------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        """A paste goes to the focused field as much as fits it, saying what was cut (ui.widgets.paste)."""
        if isinstance(event, events.Paste) and not event.is_forwarded and isinstance(self.focused, Input):
            text, cut = fit_paste(self.focused, event.text)
            if cut:
                self.notify(cut, title="Paste cut", severity="warning", timeout=6, markup=False)
            if text != event.text:
                event = events.Paste(text)
        await super().on_event(event)

    def _exit_on_signals(self) -> None:
        """SIGTERM (the SSH host ending a session, a shutdown) and SIGHUP (the terminal gone)
        close the app the normal way, so screens save on their way out (a battle in progress
        is saved by its screen when it unmounts; characters are saved on every change)."""
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
        if not self.stylesheet.has_source(str(SCREENS_CSS)):
            self.stylesheet.read(SCREENS_CSS)

    def to_menu(self) -> None:
        """Every screen over the first closed, asking nothing."""
        while len(self.screen_stack) > 1:
            self.pop_screen()

    def unsaved_above(self, index: int = 0) -> list[str]:
        """What the screens over screen `index` (0: the main menu) hold that is not saved (their
        `unsaved_work()`)."""
        return [what for screen in self.screen_stack[index + 1:]
                if callable(getattr(screen, "unsaved_work", None)) and (what := screen.unsaved_work())]

    def watch_for_tables(self) -> None:
        """A notice on any screen, every few seconds, when a GM seats this account at a live table."""
        self.set_interval(TABLE_POLL_S, self._poll_tables)

    def _poll_tables(self) -> None:
        from horizon_tui.table.lobby import invites_for, my_seat_place  # start-up: the engine, when polled

        account, tables = my_seat_place()
        invites = invites_for(tables, account) if tables.is_dir() else []
        for invite in invites:  # the GM opened the table themselves: F2 finds it again if they drop
            if invite.table not in self._invited and invite.role != "gm" and not invite.over:
                self.notify(f"Your GM opened the table {invite.table!r} for you: press F2 to join.",
                            title="Join the table", timeout=12)
        self._invited = {i.table for i in invites}
        self.table_invites = invites

    def action_join_table(self) -> None:
        # start-up: the join screen and the battlefield's modules only once F2 is pressed
        from horizon_tui.ui.battle.screen import BattleScreen
        from horizon_tui.ui.battle.table_screen import TableControls
        from horizon_tui.ui.player.joining import JoinTableScreen

        if isinstance(self.screen, JoinTableScreen) or isinstance(self.screen, BattleScreen) \
                and self.screen.part(TableControls) is not None:
            return
        self.push_screen(JoinTableScreen())

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

    def action_help(self) -> None:
        from horizon_tui.ui.dialogs.help import HelpScreen, help_groups

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self.push_screen(HelpScreen(help_groups(self.screen), self.screen.title or self.title))

    def open_character_screen(self, name: str) -> None:
        """The sheet (closing the screens over it if it is open), or one of the other character
        screens over the sheet (the sheet over the menu first if it is not open)."""
        # start-up: the character screens (and the content models) only once one is opened
        from horizon_tui.ui.player.screens import abilities, level_up, loadout, sheet

        if name == "sheet":
            for index, screen in enumerate(self.screen_stack):
                if isinstance(screen, sheet.SheetScreen):
                    self.leave_to_menu(index=index)
                    return
        if self.session is None:
            self.notify("Load or create a character first", severity="warning")
            return
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
