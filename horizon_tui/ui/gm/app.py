"""`horizon gm`: the game master's tool. One factory (`create_gm_app`) for the CLI and the tests.

The one app (`ui.app.HorizonApp`) holding a campaign (`CampaignHost`, one of the two hosts of
`ui.app_contract`) instead of a saves folder: the character screens (sheet, level-up, abilities,
loadout, the creation wizard, the load list) run unchanged, reading `app.session`, `app.rules`
and `app.catalogue` (the host's) and saving through `app.commit`, which here changes the open
campaign. The GM's screens ask the host (`app.host`) for the campaign (`gm`, `store`) and act
through `act`, so every GM action is saved at once and `ctrl+z` can take it back.
"""

from __future__ import annotations

import gc
import getpass
import socket
from collections.abc import Callable
from pathlib import Path

from textual.binding import Binding
from textual.screen import ModalScreen

from horizon_tui.campaign import changes as campaign_changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.model import Campaign
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.models import Character
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.paths import default_saves_dir
from horizon_tui.play.library import CharacterLibrary, OpenCharacter
from horizon_tui.rules.validation import checked_catalogue
from horizon_tui.storage.host_wiring import save_lock_class
from horizon_tui.storage.lock import LockLost, SaveInUse
from horizon_tui.table.lobby import my_seat_place, offers_for
from horizon_tui.tools.validate_encounters import checked_enemies
from horizon_tui.ui.app import SCREENS_CSS, HorizonApp
from horizon_tui.ui.app_contract import AppContract
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.ui.dialogs.confirm import ConfirmDialog, QuitDialog
from horizon_tui.ui.gm.screens.campaigns import CampaignsScreen
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dice import DiceScreen
from horizon_tui.ui.gm.screens.encounter import open_battle
from horizon_tui.ui.gm.screens.rules_editor import RulesEditorScreen
from horizon_tui.ui.gm.screens.table import rejoin_table
from horizon_tui.ui.player.screens.load import LoadScreen
from horizon_tui.ui.player.screens.sheet import SheetScreen
from horizon_tui.ui.player.screens.wizard import CreationWizard

TUI_CSS = Path(__file__).resolve().parent.parent / "player" / "horizon.tcss"
GM_CSS = Path(__file__).resolve().parent / "gm.tcss"
# Seconds after a GM action's frame before the idle full collection (`_collect_when_idle`): past
# the frames that follow the action's own, well before the GM's next key.
IDLE_COLLECTION_DELAY = 0.1


class OfferedLibrary(CharacterLibrary):
    """The GM's own saved characters, and those the players offered this GM (over SSH
    a GM can't reach the players' saves; `table.lobby.offer_character`). Read as any save."""

    def files(self) -> list[Path]:
        account, tables = my_seat_place()
        return super().files() + offers_for(tables, account)


class CampaignHost:
    """The GM tool's host (`ui.app_contract.AppHost`): the characters are the open campaign's
    party (the one shown: `member`), the rules data the campaign's, and every ability may be set
    by hand (R-6: it is the GM approving). Every GM action goes through `act`."""

    title = "Horizon GM"
    css_paths = [TUI_CSS, SCREENS_CSS, GM_CSS]
    bindings = [
        Binding("ctrl+z", "host('undo')", "Undo", id="gm.undo", tooltip="Take back the last GM action"),
        # r on the dashboard; from any screen f5 (a letter here fired from every table and list: a
        # stray r on the XP screen opened the dice)
        Binding("f5", "host('dice')", "Dice", id="gm.dice", show=False, tooltip="The dice roller, with its history"),
    ]
    # below 80 columns (60×20 is the smallest the GM tool is laid out for, gm.tcss) the screens
    # carry the class "-narrow": side panels give way to what the GM works on
    horizontal_breakpoints = [(0, "-narrow"), (80, "-normal")]
    player_files = False  # a campaign's characters: the GM tool's own import
    overrides_allowed = True
    read_only = False  # the character shown is the campaign's (a read-only campaign says so itself)

    def __init__(self, store: CampaignStore, *, campaign: str | None = None) -> None:
        """`campaign`: the campaign opened at start, by name (made if there is none)."""
        self.store = store
        self.saves_dir = store.saves_dir
        self.gm: OpenCampaign | None = None  # the campaign open here
        self.member: str | None = None  # the party member the character screens show
        self._enemies: dict | None = None
        self._campaign_name = campaign
        self._forget_confirmed = False  # the GM said to forget the forms' work: the action goes on
        self._unfreeze_at_close = False
        self._idle_collection = None  # the Timer of `_collect_when_idle`, while one is due
        self.app: AppContract

    def attach(self, app: AppContract) -> None:
        self.app = app

    @property
    def host_actions(self) -> dict[str, Callable]:
        return {"undo": self.undo, "dice": self.dice, "campaigns": self.campaigns}

    # --- the data ---------------------------------------------------------------------------------

    @property
    def campaign(self) -> Campaign | None:
        return self.gm.campaign if self.gm else None

    @property
    def rules(self) -> Ruleset:
        return self.gm.rules if self.gm else self.store.catalogue.rules

    @property
    def catalogue(self) -> Catalogue:
        """Always the campaign's: the shipped catalogue with the campaign's rules."""
        return self.gm.catalogue if self.gm else self.store.catalogue

    @property
    def library(self) -> CharacterLibrary:
        return OfferedLibrary(self.store.saves_dir, self.catalogue)

    @property
    def session(self) -> OpenCharacter | None:
        campaign = self.campaign
        member = campaign.member(self.member) if campaign and self.member else None
        return OpenCharacter(self.gm.path, member.character) if member else None

    @session.setter
    def session(self, value: OpenCharacter | None) -> None:
        self.member = value.character.name if value is not None else None

    def enemies(self) -> dict:
        if self._enemies is None:  # each enemy checked as `horizon validate` checks it
            self._enemies = checked_enemies(self.store.catalogue)
        return self._enemies

    @property
    def who(self) -> str:
        """How this window names itself in a campaign's lock (`storage.lock`)."""
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "someone"
        return f"{user}@{socket.gethostname()} (horizon gm)"

    # --- start and end --------------------------------------------------------------------------

    def default_screen(self) -> DashboardScreen:
        return DashboardScreen()

    def start(self) -> None:
        self._open_first()
        self.app.call_after_refresh(self._keep_for_the_evening)

    def _keep_for_the_evening(self) -> None:
        """Once the GM tool is up, what it holds all evening (Textual's widgets and styles, the
        rules data, the campaign) is set aside from the cyclic garbage collector (`gc.freeze`,
        after a collection so no garbage is kept): a full collection walked all of it, 100-200 ms
        of CPU that fell on every few GM actions (one new NPC in five took 140 ms,
        bench/bench_gm_evening.py p95); it now walks only what was made since. `close` gives it
        back, unless the process had frozen objects of its own (host/prefork's forked apps)."""
        self._unfreeze_at_close = gc.get_freeze_count() == 0
        gc.collect()
        gc.freeze()

    def _collect_when_idle(self) -> None:
        """Garbage is collected in full just after a GM action has reached the screen, while the
        GM reads it, rather than when the collector's own counts fall due, which was in the middle
        of the next action a few actions later (a new NPC's p95 at 20,000 log lines: 116 ms of CPU
        against a p50 of 34, bench/bench_gm_evening.py). A collection sets those counts back, so
        the collector rarely starts one itself during an action."""
        self.app.call_after_refresh(self._collect_soon)

    def _collect_soon(self) -> None:
        if self._idle_collection is not None:
            self._idle_collection.stop()
        self._idle_collection = self.app.set_timer(IDLE_COLLECTION_DELAY, self._collect)

    def _collect(self) -> None:
        self._idle_collection = None
        gc.collect()

    def _open_first(self) -> None:
        name = self._campaign_name
        if name:
            key = self.store.find(name)
            if key is None:
                try:
                    key, _ = self.store.create(name)
                except (ValueError, HorizonError) as exc:
                    self.app.notify(str(exc), severity="error")
                    key = None
            if key is not None and (self.open_campaign(key) or isinstance(self.app.screen, ModalScreen)):
                return  # open, or asking what to do since it is open elsewhere
        self.campaigns()

    def close(self) -> None:
        if self._unfreeze_at_close:  # what _keep_for_the_evening set aside is collected again
            gc.unfreeze()
        if self.gm is not None:
            self.gm.close()
        self.store.close()  # the database checkpoints and removes its -wal and -shm files

    def save_before_crash(self) -> list[str]:
        """The campaign is written after every change: said, nothing to do."""
        if self.gm is None:
            return []
        return [f"the campaign {self.gm.campaign.name} (written after every change)"]

    def quit(self) -> None:
        """ctrl+q (q on the dashboard). Every GM action is saved as it is made; what a GM screen
        holds not yet saved (house rules being edited, an NPC in its editor) is named and asked
        about first. ctrl+q again at that question quits."""
        app = self.app
        unsaved = [what for screen in app.screen_stack if (what := unsaved_work(screen))]
        if not unsaved or isinstance(app.screen, QuitDialog):
            app.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                app.exit()

        app.push_screen(QuitDialog(f"Quit and forget {' and '.join(unsaved)}?", yes="Quit", no="Stay",
                                   title="Not saved"), answer)

    # --- campaigns ------------------------------------------------------------------------------

    def open_campaign(self, key: str, *, read_only: bool = False, take_over: bool = False,
                      held_by: str = "") -> bool:
        """Open a campaign (by its slug) for writing: this window takes its lock. Open in another
        window, it is not opened; the GM is told who has it since when, and offered read-only."""
        app = self.app
        try:
            opened = self.store.load(key)
        except DataError as exc:
            app.notify(str(exc.problems[0]), title="Can't open this campaign", severity="error", timeout=10)
            return False
        campaign = opened.campaign
        path = self.store.lock_path(key)
        lock = None
        if not read_only:
            if self.gm is not None and self.gm.path == path and self.gm.lock is not None and self.gm.lock.holds():
                lock = self.gm.lock  # still ours: reopening reloads it (a lock taken over since is acquired anew)
                self.gm.lock = None
            else:
                try:
                    # across hosts sharing a PostgreSQL database, the holder is a row there (storage.host_locks)
                    lock = save_lock_class().acquire(path, self.who, take_over=take_over)
                except SaveInUse as exc:
                    self._offer_read_only(key, campaign.name, exc.holder.describe())
                    return False
                except HorizonError as exc:
                    app.notify(str(exc), title="Can't open this campaign", severity="error", timeout=10)
                    return False
        if self.gm is not None:
            self.gm.close()
        self.gm = OpenCampaign(self.store, key, campaign, opened.head, lock, read_only=read_only, held_by=held_by)
        self.gm.listeners.append(lambda session, label: self.refresh_screens())
        self.member = None
        app.sub_title = campaign.name + (" — READ-ONLY" if read_only else "")
        app.to_menu()
        self.refresh_screens()
        if read_only:
            app.notify(f"{campaign.name}: read-only — nothing you do here is saved", title="Campaign open",
                       severity="warning", timeout=6)
        else:
            app.notify(f"{campaign.name}, day {campaign.day}", title="Campaign open", timeout=3)
        return True

    def _offer_read_only(self, key: str, name: str, holder: str) -> None:
        def chosen(choice: str | None) -> None:
            if choice == "read":
                self.open_campaign(key, read_only=True, held_by=holder)
            elif choice == "take":
                self.open_campaign(key, take_over=True)
            elif self.gm is None:
                self.campaigns()

        self.app.push_screen(ChoiceDialog(f"{name} is already open: {holder}", [
            ("read", "Open it read-only (see everything, change nothing)"),
            ("take", "Take it over (the other window stops saving it)"),
            ("cancel", "Cancel"),
        ]), chosen)

    def refresh_screens(self) -> None:
        """Every screen in the stack that shows campaign data redraws (cheap: small tables)."""
        for screen in self.app.screen_stack:
            refresh = getattr(screen, "refresh_view", None)
            if refresh is not None and screen.is_mounted:
                refresh()

    def campaigns(self) -> None:
        if not isinstance(self.app.screen, CampaignsScreen):
            self.app.push_screen(CampaignsScreen())

    # --- the app's actions, the GM's way: a form not saved is asked about before it closes -------

    def asked_first(self, again: Callable[[], object], closing: list | None = None) -> bool:
        """Before an action that closes screens (`closing`; default every screen over the
        dashboard, as the palette's Main menu does): True when one of them holds work not saved
        (its `unsaved_work()`) and the GM is being asked; `again` runs if they say to forget it."""
        if self._forget_confirmed:
            self._forget_confirmed = False
            return False
        app = self.app
        closing = app.screen_stack[1:] if closing is None else closing
        unsaved = [what for screen in closing if (what := unsaved_work(screen))]
        if not unsaved:
            return False

        def answer(forget: bool | None) -> None:
            if forget:
                self._forget_confirmed = True
                app.call_later(again)

        app.push_screen(ConfirmDialog(f"Leave and forget {' and '.join(unsaved)}?", yes="Forget it", no="Stay",
                                      title="Not saved"), answer)
        return True

    def leave_to_menu(self, then: Callable[[], object] | None = None, index: int = 0) -> None:
        """Back to the dashboard, then `then()`. The player app's way asks about forms left
        unsaved; in the GM tool every action that leaves has asked already (`asked_first`), so a
        GM who said "Forget it" isn't asked twice."""
        self.app.to_menu()
        if then is not None:
            then()

    def _closed_by_character_screen(self, name: str) -> list:
        """The screens `HorizonApp.open_character_screen(name)` pops: those over the sheet for the
        sheet; every one over the dashboard when no sheet is open."""
        stack = self.app.screen_stack
        sheet = next((index for index, screen in enumerate(stack) if isinstance(screen, SheetScreen)), None)
        if name == "sheet":
            return stack[sheet + 1:] if sheet is not None else []
        return [] if sheet is not None else stack[1:]

    def main_menu(self) -> None:
        if not self.asked_first(self.main_menu):
            self.app.to_menu()

    def character_screen(self, name: str) -> None:
        if not self.asked_first(lambda: self.character_screen(name), self._closed_by_character_screen(name)):
            self.app.open_character_screen(name)

    def new_character(self) -> None:
        if self._need_campaign() and not self.asked_first(self.new_character):
            self.app.to_menu()
            self.app.push_screen(CreationWizard())

    def load_character(self) -> None:
        if self._need_campaign() and not self.asked_first(self.load_character):
            self.app.to_menu()
            self.app.push_screen(LoadScreen())

    async def battle(self) -> None:
        if self._need_campaign() and not await rejoin_table(self.app):  # a fight at a live table goes on there
            open_battle(self.app)

    def rules_screen(self) -> None:
        if self._need_campaign() and not isinstance(self.app.screen, RulesEditorScreen):
            self.app.push_screen(RulesEditorScreen())

    def dice(self) -> None:
        if self._need_campaign() and not isinstance(self.app.screen, DiceScreen):
            self.app.push_screen(DiceScreen())

    def _need_campaign(self) -> bool:
        if self.gm is None:
            self.app.notify("Open or create a campaign first", severity="warning")
            return False
        return True

    def start_battle(self, encounter_path: Path, character: Character, party: list | None = None) -> None:
        """The character screens' way into a fight: the GM's encounter picker (the campaign's
        party fights there, saved with the campaign)."""
        self.app.call_later(self.battle)

    # --- the party member shown in the character screens -----------------------------------

    def open_member(self, name: str, then: Callable[[], object] | None = None) -> None:
        """Show party member `name`'s sheet, then `then()` (e.g. the app's `action_level_up`)."""
        if self.campaign is None or self.campaign.member(name) is None:
            return
        if self.asked_first(lambda: self.open_member(name, then)):
            return
        self.member = name
        self.app.to_menu()
        self.app.push_screen(SheetScreen())
        if then is not None:
            then()

    def open_character(self, path: Path, character: Character | None = None, *, then_battle: bool = False) -> None:
        """The load list and the creation wizard end here: the character joins the party (a
        copy: the campaign keeps its own), and its sheet opens (then the battle picker, with
        `then_battle`, as in the player app)."""
        if self.gm is None:
            return
        then = (lambda: self.app.call_after_refresh(self.battle)) if then_battle else None
        if Path(path) == self.gm.path and character is not None:
            self.open_member(character.name, then)
            return
        if character is None:
            try:
                character = self.library.load(path)
            except DataError as exc:
                self.app.notify(str(exc.problems[0]), title="Can't open this save", severity="error")
                return
        if self.campaign.member(character.name) is None:
            if not self.act(lambda c: campaign_changes.add_member(c, character, str(path)), f"{character.name} joins"):
                return
        else:
            self.app.notify(f"{character.name} is in the party already: showing the campaign's copy", timeout=4)
        self.open_member(character.name, then)

    def commit(self, character: Character) -> bool:
        """The character screens save here: the change goes into the campaign (and its log)."""
        if self.gm is None or self.member is None:
            return False
        old = self.member
        ok = self.act(lambda c: campaign_changes.update_character(c, old, character, self.rules), f"{old}: sheet change")
        if ok:
            self.member = character.name
        return ok

    # --- one log for every GM action ------------------------------------------------------

    def act(self, change: Callable[[Campaign], Campaign], label: str) -> bool:
        """Apply one GM action to the campaign (saved at once, undoable). A refusal is shown
        with its reason and changes nothing."""
        app = self.app
        if self.gm is None:
            app.notify("Open or create a campaign first", severity="warning")
            return False
        try:
            self.gm.apply(change, label)
        except ValueError as exc:
            app.bell()
            app.notify(str(exc), title="Not done", severity="warning", timeout=6)
            return False
        except LockLost as exc:
            app.notify(str(exc), title="Not saved", severity="error", timeout=10)
            self.refresh_screens()  # the READ-ONLY banner
            # asked once the screen that acted has done with the refusal (a fight leaves itself)
            app.call_after_refresh(self._offer_take_back, self.gm.slug, self.gm.campaign.name, self.gm.held_by)
            return False
        except (DataError, HorizonError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            app.notify(message, title="Not saved", severity="error", timeout=10)
            return False
        self._collect_when_idle()
        return True

    def _offer_take_back(self, key: str, name: str, holder: str) -> None:
        """This window's campaign was taken over: it stays read-only unless the GM takes it back
        (reopened from storage, with what the other window saved)."""
        if isinstance(self.app.screen, ChoiceDialog):
            return  # asked already; the banner and `o` still offer it

        def chosen(choice: str | None) -> None:
            if choice == "take":
                self.open_campaign(key, take_over=True)

        self.app.push_screen(ChoiceDialog(f"{name} was taken over: {holder}", [
            ("read", "Stay read-only here (see everything, change nothing)"),
            ("take", "Take it back (reopen it with what the other window saved)"),
        ]), chosen)

    async def undo(self) -> None:
        app = self.app
        if self.gm is None:
            return
        if isinstance(app.screen, ModalScreen):
            app.notify("Close this dialog first (esc), then ctrl+z", timeout=3)
            return
        unsaved = None if getattr(app.screen, "UNDO_KEEPS_WORK", False) else unsaved_work(app.screen)
        if unsaved is not None:  # undo would close the form (or drop its draft) and step back behind it
            app.notify(f"ctrl+z takes back the campaign's last action: first save or leave {unsaved} "
                       "(ctrl+s, esc)", title="Not undone", severity="warning", timeout=6)
            return
        if not self.gm.can_undo:
            app.notify("Nothing to undo", timeout=2)
            return
        hook = getattr(app.screen, "before_undo", None)
        if hook is None and not getattr(app.screen, "GM_SCREEN", False):
            app.to_menu()  # a character screen would show a character that may be gone
        try:
            label = self.gm.undo()
        except (DataError, OSError, ValueError, HorizonError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            app.notify(message, title="Can't undo", severity="error")
            return
        after = getattr(app.screen, "after_undo", None)
        if after is not None:
            done = after()
            if done is not None:
                await done
        app.notify(f"Undone: {label}", timeout=3)
        self._collect_when_idle()


def unsaved_work(screen) -> str | None:
    """What a screen holds that is not saved yet, in words (its `unsaved_work()`), or None."""
    hook = getattr(screen, "unsaved_work", None)
    return hook() if callable(hook) and screen.is_mounted else None


def create_gm_app(saves_dir: Path | None = None, catalogue: Catalogue | None = None, *,
                  campaign: str | None = None) -> HorizonApp:
    """The GM tool over a saves folder (default: `horizon_tui.paths.default_saves_dir()`;
    campaigns in its `campaigns/`)."""
    if catalogue is None:
        catalogue = checked_catalogue()  # the data folder's rules sane, as `horizon validate` checks
    if saves_dir is None:
        saves_dir = default_saves_dir()
    store = CampaignStore(Path(saves_dir), catalogue)
    return HorizonApp(CampaignHost(store, campaign=campaign))
