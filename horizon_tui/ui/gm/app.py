"""`horizon gm`: the game master's tool. One factory (`create_gm_app`) for the CLI and the tests.

`GMApp` is the player app (`HorizonApp`) holding a campaign (`CampaignHost`, one of the two
hosts of `ui.app_contract`) instead of a saves folder: the player app's character screens (sheet,
level-up, abilities, loadout, the creation wizard, the load list) run unchanged, reading
`app.session`, `app.rules` and `app.catalogue` (the host's) and saving through `app.commit`, which
here changes the open campaign. Every GM action goes through `act`, so it is
saved at once and `ctrl+z` can take it back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.binding import Binding
from textual.screen import ModalScreen

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.models import Character
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.campaign.model import Campaign
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.storage.host_wiring import save_lock_class
from horizon_tui.storage.lock import LockLost, SaveInUse
from horizon_tui.tools.validate_encounters import checked_enemies
from horizon_tui.ui.player.app import HorizonApp
from horizon_tui.ui.dialogs.confirm import ConfirmDialog, QuitDialog
from horizon_tui.play.library import CharacterLibrary, OpenCharacter

TUI_CSS = Path(__file__).resolve().parent.parent / "player" / "horizon.tcss"
TUI_SCREENS_CSS = TUI_CSS.with_name("screens.tcss")
GM_CSS = Path(__file__).resolve().parent / "gm.tcss"



class OfferedLibrary(CharacterLibrary):
    """The GM's own saved characters, and those the players offered this GM (over SSH
    a GM can't reach the players' saves; `table.lobby.offer_character`). Read as any save."""

    def files(self) -> list[Path]:
        from horizon_tui.table.lobby import my_seat_place, offers_for

        account, tables = my_seat_place()
        return super().files() + offers_for(tables, account)

class CampaignHost:
    """The GM tool's host (`ui.app_contract.CharacterHost`): the characters are the open
    campaign's party (the one shown: `member`), the rules data the campaign's, and every ability
    may be set by hand (R-6: it is the GM approving)."""

    player_files = False  # a campaign's characters: the GM tool's own import
    overrides_allowed = True

    def __init__(self, store: CampaignStore) -> None:
        self.store = store
        self.gm: OpenCampaign | None = None  # the campaign open here
        self.member: str | None = None  # the party member the player app's screens show
        self._enemies: dict | None = None

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


class GMApp(HorizonApp):
    """Horizon of Darkness, the game master's side: a campaign's party, NPCs, rules and fights."""

    CSS_PATH = [TUI_CSS, TUI_SCREENS_CSS, GM_CSS]
    TITLE = "Horizon GM"
    COMMANDS = HorizonApp.COMMANDS
    # below 80 columns (60×20 is the smallest the GM tool is laid out for, gm.tcss) the screens
    # carry the class "-narrow": side panels give way to what the GM works on
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-normal")]
    BINDINGS = [
        Binding("ctrl+z", "undo", "Undo", id="gm.undo", tooltip="Take back the last GM action"),
        # r on the dashboard; from any screen f5 (a letter here fired from every table and list: a
        # stray r on the XP screen opened the dice)
        Binding("f5", "dice", "Dice", id="gm.dice", show=False, tooltip="The dice roller, with its history"),
    ]

    def __init__(self, store: CampaignStore, *, campaign: str | None = None):
        self.store = store
        self.campaign_host = CampaignHost(store)
        super().__init__(store.saves_dir, store.catalogue, host=self.campaign_host)
        self._campaign_name = campaign
        self._forget_confirmed = False  # the GM said to forget the forms' work: the action goes on

    @property
    def gm(self) -> OpenCampaign | None:
        """The campaign open here (its host's)."""
        return self.campaign_host.gm

    def save_before_crash(self) -> list[str]:
        """A battle in progress is saved; the campaign is written after every change."""
        saved = super().save_before_crash()
        if self.gm is not None:
            saved.append(f"the campaign {self.gm.campaign.name} (written after every change)")
        return saved

    # --- screens ------------------------------------------------------------------------------

    def get_default_screen(self):
        from horizon_tui.ui.gm.screens.dashboard import DashboardScreen

        return DashboardScreen()

    def on_mount(self) -> None:
        self._exit_on_signals()
        name = self._campaign_name
        if name:
            key = self.store.find(name)
            if key is None:
                try:
                    key, _ = self.store.create(name)
                except (ValueError, HorizonError) as exc:
                    self.notify(str(exc), severity="error")
                    key = None
            if key is not None and (self.open_campaign(key) or isinstance(self.screen, ModalScreen)):
                return  # open, or asking what to do since it is open elsewhere
        self.action_campaigns()

    @property
    def who(self) -> str:
        """How this window names itself in a campaign's lock (`storage.lock`)."""
        import getpass
        import socket

        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = "someone"
        return f"{user}@{socket.gethostname()} (horizon gm)"

    def open_campaign(self, key: str, *, read_only: bool = False, take_over: bool = False,
                      held_by: str = "") -> bool:
        """Open a campaign (by its slug) for writing: this window takes its lock. Open in another
        window, it is not opened; the GM is told who has it since when, and offered read-only."""
        try:
            opened = self.store.load(key)
        except DataError as exc:
            self.notify(str(exc.problems[0]), title="Can't open this campaign", severity="error", timeout=10)
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
                    self.notify(str(exc), title="Can't open this campaign", severity="error", timeout=10)
                    return False
        if self.gm is not None:
            self.gm.close()
        self.campaign_host.gm = OpenCampaign(self.store, key, campaign, opened.head, lock, read_only=read_only, held_by=held_by)
        self.gm.listeners.append(lambda session, label: self.refresh_screens())
        self.campaign_host.member = None
        self.sub_title = campaign.name + (" — READ-ONLY" if read_only else "")
        self._to_menu()
        self.refresh_screens()
        if read_only:
            self.notify(f"{campaign.name}: read-only — nothing you do here is saved", title="Campaign open",
                        severity="warning", timeout=6)
        else:
            self.notify(f"{campaign.name}, day {campaign.day}", title="Campaign open", timeout=3)
        return True

    def _offer_read_only(self, key: str, name: str, holder: str) -> None:
        from horizon_tui.ui.battle.dialogs import ChoiceDialog

        def chosen(choice: str | None) -> None:
            if choice == "read":
                self.open_campaign(key, read_only=True, held_by=holder)
            elif choice == "take":
                self.open_campaign(key, take_over=True)
            elif self.gm is None:
                self.action_campaigns()

        self.push_screen(ChoiceDialog(f"{name} is already open: {holder}", [
            ("read", "Open it read-only (see everything, change nothing)"),
            ("take", "Take it over (the other window stops saving it)"),
            ("cancel", "Cancel"),
        ]), chosen)

    async def action_quit(self) -> None:
        """ctrl+q (q on the dashboard). Every GM action is saved as it is made; what a GM screen
        holds not yet saved (house rules being edited, an NPC in its editor) is named and asked
        about first. ctrl+q again at that question quits."""
        unsaved = [what for screen in self.screen_stack if (what := unsaved_work(screen))]
        if not unsaved or isinstance(self.screen, QuitDialog):
            self.exit()
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(QuitDialog(f"Quit and forget {' and '.join(unsaved)}?", yes="Quit", no="Stay",
                                    title="Not saved"), answer)

    def on_unmount(self) -> None:
        if self.gm is not None:
            self.gm.close()
        self.store.close()  # the database checkpoints and removes its -wal and -shm files

    def refresh_screens(self) -> None:
        """Every screen in the stack that shows campaign data redraws (cheap: small tables)."""
        for screen in self.screen_stack:
            refresh = getattr(screen, "refresh_view", None)
            if refresh is not None and screen.is_mounted:
                refresh()

    def action_campaigns(self) -> None:
        from horizon_tui.ui.gm.screens.campaigns import CampaignsScreen

        if not isinstance(self.screen, CampaignsScreen):
            self.push_screen(CampaignsScreen())

    def asked_first(self, again: Callable[[], object], closing: list | None = None) -> bool:
        """Before an action that closes screens (`closing`; default every screen over the
        dashboard, as the palette's Main menu does): True when one of them holds work not saved
        (its `unsaved_work()`) and the GM is being asked; `again` runs if they say to forget it."""
        if self._forget_confirmed:
            self._forget_confirmed = False
            return False
        closing = self.screen_stack[1:] if closing is None else closing
        unsaved = [what for screen in closing if (what := unsaved_work(screen))]
        if not unsaved:
            return False

        def answer(forget: bool | None) -> None:
            if forget:
                self._forget_confirmed = True
                self.call_later(again)

        self.push_screen(ConfirmDialog(f"Leave and forget {' and '.join(unsaved)}?", yes="Forget it", no="Stay",
                                       title="Not saved"), answer)
        return True

    def leave_to_menu(self, then=None, index: int = 0) -> None:
        """Back to the dashboard, then `then()`. The player app's version asks about forms left
        unsaved; in the GM tool every action that leaves has asked already (`asked_first`), so a
        GM who said "Forget it" isn't asked twice."""
        self._to_menu()
        if then is not None:
            then()

    def _closed_by_character_screen(self, name: str) -> list:
        """The screens the player app's `_character_screen(name)` (or its sheet action) pops: those
        over the sheet for the sheet; every one over the dashboard when no sheet is open."""
        from horizon_tui.ui.player.screens.sheet import SheetScreen

        stack = self.screen_stack
        sheet = next((index for index, screen in enumerate(stack) if isinstance(screen, SheetScreen)), None)
        if name == "sheet":
            return stack[sheet + 1:] if sheet is not None else []
        return [] if sheet is not None else stack[1:]

    def action_main_menu(self) -> None:
        if not self.asked_first(self.action_main_menu):
            self._to_menu()

    def action_sheet(self) -> None:
        if not self.asked_first(self.action_sheet, self._closed_by_character_screen("sheet")):
            super().action_sheet()

    def action_level_up(self) -> None:
        if not self.asked_first(self.action_level_up, self._closed_by_character_screen("level_up")):
            super().action_level_up()

    def action_abilities(self) -> None:
        if not self.asked_first(self.action_abilities, self._closed_by_character_screen("abilities")):
            super().action_abilities()

    def action_loadout(self) -> None:
        if not self.asked_first(self.action_loadout, self._closed_by_character_screen("loadout")):
            super().action_loadout()

    def action_new_character(self) -> None:
        from horizon_tui.ui.player.screens.wizard import CreationWizard

        if self._need_campaign() and not self.asked_first(self.action_new_character):
            self._to_menu()
            self.push_screen(CreationWizard())

    def action_load_character(self) -> None:
        from horizon_tui.ui.player.screens.load import LoadScreen

        if self._need_campaign() and not self.asked_first(self.action_load_character):
            self._to_menu()
            self.push_screen(LoadScreen())

    async def action_battle(self) -> None:
        from horizon_tui.ui.gm.screens.encounter import open_battle
        from horizon_tui.ui.gm.screens.table import rejoin_table

        if self._need_campaign() and not await rejoin_table(self):  # a fight at a live table goes on there
            open_battle(self)

    def action_rules(self) -> None:
        from horizon_tui.ui.gm.screens.rules_editor import RulesEditorScreen

        if self._need_campaign() and not isinstance(self.screen, RulesEditorScreen):
            self.push_screen(RulesEditorScreen())

    def action_dice(self) -> None:
        from horizon_tui.ui.gm.screens.dice import DiceScreen

        if self._need_campaign() and not isinstance(self.screen, DiceScreen):
            self.push_screen(DiceScreen())

    def _need_campaign(self) -> bool:
        if self.gm is None:
            self.notify("Open or create a campaign first", severity="warning")
            return False
        return True

    # --- the party member shown in the player app's screens -------------------------------

    def open_member(self, name: str, then: str | None = None) -> None:
        from horizon_tui.ui.player.screens.sheet import SheetScreen

        if self.campaign is None or self.campaign.member(name) is None:
            return
        if self.asked_first(lambda: self.open_member(name, then)):
            return
        self.campaign_host.member = name
        self._to_menu()
        self.push_screen(SheetScreen())
        if then:
            getattr(self, f"action_{then}")()

    def open_character(self, path: Path, character: Character | None = None, *, then_battle: bool = False) -> None:
        """The player app's load list and creation wizard end here: the character joins the
        party (a copy: the campaign keeps its own), and its sheet opens (then the battle
        picker, with `then_battle`, as in the player app)."""
        from horizon_tui.campaign import changes as campaign_changes

        if self.gm is None:
            return
        then = "battle" if then_battle else None
        if Path(path) == self.gm.path and character is not None:
            self.open_member(character.name, then)
            return
        if character is None:
            try:
                character = self.store_library_load(path)
            except DataError as exc:
                self.notify(str(exc.problems[0]), title="Can't open this save", severity="error")
                return
        if self.campaign.member(character.name) is None:
            if not self.act(lambda c: campaign_changes.add_member(c, character, str(path)), f"{character.name} joins"):
                return
        else:
            self.notify(f"{character.name} is in the party already: showing the campaign's copy", timeout=4)
        self.open_member(character.name, then)

    def store_library_load(self, path: Path) -> Character:
        return self.library.load(path)

    def commit(self, character: Character) -> bool:
        """The player app's screens save here: the change goes into the campaign (and its log)."""
        from horizon_tui.campaign import changes as campaign_changes

        if self.gm is None or self.campaign_host.member is None:
            return False
        old = self.campaign_host.member
        ok = self.act(lambda c: campaign_changes.update_character(c, old, character, self.rules), f"{old}: sheet change")
        if ok:
            self.campaign_host.member = character.name
        return ok

    # --- one log for every GM action ------------------------------------------------------

    def act(self, change: Callable[[Campaign], Campaign], label: str) -> bool:
        """Apply one GM action to the campaign (saved at once, undoable). A refusal is shown
        with its reason and changes nothing."""
        if self.gm is None:
            self.notify("Open or create a campaign first", severity="warning")
            return False
        try:
            self.gm.apply(change, label)
        except ValueError as exc:
            self.bell()
            self.notify(str(exc), title="Not done", severity="warning", timeout=6)
            return False
        except LockLost as exc:
            self.notify(str(exc), title="Not saved", severity="error", timeout=10)
            self.refresh_screens()  # the READ-ONLY banner
            # asked once the screen that acted has done with the refusal (a fight leaves itself)
            self.call_after_refresh(self._offer_take_back, self.gm.slug, self.gm.campaign.name, self.gm.held_by)
            return False
        except (DataError, HorizonError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.notify(message, title="Not saved", severity="error", timeout=10)
            return False
        return True

    def _offer_take_back(self, key: str, name: str, holder: str) -> None:
        """This window's campaign was taken over: it stays read-only unless the GM takes it back
        (reopened from storage, with what the other window saved)."""
        from horizon_tui.ui.battle.dialogs import ChoiceDialog

        if isinstance(self.screen, ChoiceDialog):
            return  # asked already; the banner and `o` still offer it

        def chosen(choice: str | None) -> None:
            if choice == "take":
                self.open_campaign(key, take_over=True)

        self.push_screen(ChoiceDialog(f"{name} was taken over: {holder}", [
            ("read", "Stay read-only here (see everything, change nothing)"),
            ("take", "Take it back (reopen it with what the other window saved)"),
        ]), chosen)

    async def action_undo(self) -> None:
        if self.gm is None:
            return
        if isinstance(self.screen, ModalScreen):
            self.notify("Close this dialog first (esc), then ctrl+z", timeout=3)
            return
        unsaved = None if getattr(self.screen, "UNDO_KEEPS_WORK", False) else unsaved_work(self.screen)
        if unsaved is not None:  # undo would close the form (or drop its draft) and step back behind it
            self.notify(f"ctrl+z takes back the campaign's last action: first save or leave {unsaved} "
                        "(ctrl+s, esc)", title="Not undone", severity="warning", timeout=6)
            return
        if not self.gm.can_undo:
            self.notify("Nothing to undo", timeout=2)
            return
        hook = getattr(self.screen, "before_undo", None)
        if hook is None and not getattr(self.screen, "GM_SCREEN", False):
            self._to_menu()  # a player-app screen would show a character that may be gone
        try:
            label = self.gm.undo()
        except (DataError, OSError, ValueError, HorizonError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.notify(message, title="Can't undo", severity="error")
            return
        after = getattr(self.screen, "after_undo", None)
        if after is not None:
            done = after()
            if done is not None:
                await done
        self.notify(f"Undone: {label}", timeout=3)


def unsaved_work(screen) -> str | None:
    """What a screen holds that is not saved yet, in words (its `unsaved_work()`), or None."""
    hook = getattr(screen, "unsaved_work", None)
    return hook() if callable(hook) and screen.is_mounted else None


def create_gm_app(saves_dir: Path | None = None, catalogue: Catalogue | None = None, *,
                  campaign: str | None = None) -> GMApp:
    """The GM tool over a saves folder (default: `horizon_tui.paths.default_saves_dir()`;
    campaigns in its `campaigns/`)."""
    if catalogue is None:
        from horizon_tui.rules.validation import checked_catalogue

        catalogue = checked_catalogue()  # the data folder's rules sane, as `horizon validate` checks
    if saves_dir is None:
        from horizon_tui.paths import default_saves_dir

        saves_dir = default_saves_dir()
    store = CampaignStore(Path(saves_dir), catalogue)
    return GMApp(store, campaign=campaign)
