"""The one app and its two hosts, as types: what a screen may ask of the app it runs in
(`AppContract`), where the characters it shows live (`CharacterHost`), and what the app leaves to
its host (`AppHost`): a saves folder (`ui.player.app.SavesFolder`, `horizon`) or a campaign
(`ui.gm.app.CampaignHost`, `horizon gm`). The app (`ui.app.HorizonApp`) holds one host and
answers through it; a screen asks the app only for what is named here, never probing it, and a
screen that belongs to one host asks that host: the GM tool's `app.host`, a player's screen
`player_host(app)` (`PlayerHost`, the saves folder's ways with characters and their battles).

No Textual here, and nothing heavy at import: the player app's start-up imports this module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.screen import Screen

    from horizon_tui.campaign.model import Campaign
    from horizon_tui.content.catalogue import Catalogue
    from horizon_tui.content.models import Character
    from horizon_tui.content.ruleset import Ruleset
    from horizon_tui.play.library import CharacterLibrary, OpenCharacter

# The character screens a host opens by name (`AppHost.character_screen`).
CHARACTER_SCREENS = ("sheet", "level_up", "abilities", "loadout")


class CharacterHost(Protocol):
    """Where the characters live, and the data they are read with."""

    session: OpenCharacter | None  # the character the character screens show (None: none)

    @property
    def catalogue(self) -> Catalogue:
        """The rules data in force (a campaign's: the shipped data with its house rules)."""
        ...

    @property
    def rules(self) -> Ruleset:
        ...

    @property
    def library(self) -> CharacterLibrary:
        """The character saves a Load screen lists."""
        ...

    @property
    def overrides_allowed(self) -> bool:
        """R-6 [H]: may an ability's multiplier, range or critical rule be set by hand here?"""
        ...

    @property
    def campaign(self) -> Campaign | None:
        """The campaign open here (None: a saves folder)."""
        ...

    @property
    def player_files(self) -> bool:
        """Does the Load screen import, export and offer character files (a saves folder's)?"""
        ...

    def enemies(self) -> dict[str, Any]:
        """The enemy types, each checked as `horizon validate` checks it (loaded once)."""
        ...


class CharacterKeeping(Protocol):
    """What the app does with the character shown, the host's way (the app answers through its
    host): save it, open one, fight with it, go back to the menu."""

    @property
    def read_only(self) -> bool:
        """The character shown is open read-only here: nothing is saved."""
        ...

    @property
    def who(self) -> str:
        """How this window names itself in a save's lock (`storage.lock`)."""
        ...

    def commit(self, character: Character) -> bool:
        """Save the character shown (its save, or the campaign): False, said on screen, if not."""
        ...

    def open_character(self, path: Path, character: Character | None = None, *, then_battle: bool = False) -> None:
        ...

    def start_battle(self, encounter_path: Path, character: Character, party: list | None = None) -> None:
        ...

    def leave_to_menu(self, then: Callable[[], object] | None = None, index: int = 0) -> None:
        ...


class AppDoings(Protocol):
    """The Textual app's own doings that a screen's helpers and a host ask for (`textual.app.App`
    has them), as they are used here."""

    def notify(self, message: str, *, title: str = "", severity: Literal["information", "warning", "error"] = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        ...

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], object] | None = None) -> object:
        ...

    def pop_screen(self) -> object:
        ...

    def call_after_refresh(self, callback: Callable[..., object], *args: Any, **kwargs: Any) -> bool:
        ...

    @property
    def screen(self) -> Screen[Any]:
        """The screen on top."""
        ...

    @property
    def screen_stack(self) -> list[Screen[Any]]:
        ...

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        ...


class AppHost(CharacterHost, CharacterKeeping, Protocol):
    """What the one app leaves to its host: how it looks (title, stylesheets, the keys only this
    host has), what it opens first, how it saves the character shown, and the app's actions whose
    way differs (the GM tool asks about a form not saved before it leaves; the player app asks as
    it leaves). The host is given its app once (`attach`) and acts on it."""

    saves_dir: Path
    title: str
    css_paths: list[Path]  # the stylesheets read at start
    bindings: list[Binding]  # app-wide keys only this host has (its actions: `host_actions`)
    # Textual's HORIZONTAL_BREAKPOINTS for every screen (None: Textual's default, none)
    horizontal_breakpoints: list[tuple[int, str]] | None

    @property
    def host_actions(self) -> Mapping[str, Callable[[], Awaitable[None] | None]]:
        """The actions only this host has, by name: `app.host('NAME')` in a binding runs one."""
        ...

    def attach(self, app: AppContract) -> None:
        """The app this host serves (one app, one host)."""
        ...

    def default_screen(self) -> Screen:
        ...

    def start(self) -> None:
        """The app is mounted: open what this host opens first."""
        ...

    def close(self) -> None:
        """The app is closing: let go of locks and storage."""
        ...

    def save_before_crash(self) -> list[str]:
        """Save what this host holds before the crash screen shows; what was saved, in words."""
        ...

    def quit(self) -> None:
        """ctrl+q: quit, asking first about work a screen holds that is not saved."""
        ...

    def main_menu(self) -> None:
        ...

    def character_screen(self, name: str) -> None:
        """Open one of CHARACTER_SCREENS for the character shown."""
        ...

    def new_character(self) -> None:
        ...

    def load_character(self) -> None:
        ...

    def battle(self) -> Awaitable[None] | None:
        ...

    def rules_screen(self) -> None:
        ...


@runtime_checkable
class PlayerHost(Protocol):
    """What a player's screens ask of their host beyond `AppHost`: the saves folder's ways with
    the character being played, its battles and its party (`ui.player.app.SavesFolder`). A
    player's screen reaches it through `player_host(app)`; the GM tool's host has none of it."""

    def save_guard(self) -> AbstractContextManager[None]:
        """Write beside the character being played (its battle in progress) inside this block:
        HorizonError in a read-only window, `storage.lock.LockLost` if another took it over."""
        ...

    def give_xp(self, name: str, gained: int) -> None:
        """Add a battle's XP (R-14) to a party member's save other than the one being played."""
        ...

    def close_character(self) -> None:
        """No character being played any more (its lock let go): its file is about to move."""
        ...

    def resume_kept(self, kept: Path) -> None:
        """Resume a battle kept aside (Load ▸ Battles), its character opened first."""
        ...

    def resume_in_progress(self, save: Path) -> None:
        """Resume a character's battle in progress, the character opened first."""
        ...


def player_host(app: AppContract) -> PlayerHost:
    """The host of a player's screen's app, as those screens may ask it. TypeError if the app's
    host is not a player's: a player's screen opened by a host it doesn't belong to."""
    host = app.host
    if not isinstance(host, PlayerHost):
        raise TypeError(f"a player's screen asked {type(host).__name__}, which is no player's host")
    return host


class AppContract(CharacterHost, CharacterKeeping, AppDoings, Protocol):
    """What a screen may ask of its app: the host's data and ways with the character shown (the
    app answers through its host), and the app's own doings."""

    host: AppHost
    saves_dir: Path
    auto_fight_stop: float | None  # keymap.toml [options]: Tab's auto-fight stop (None: the default)
    run_keeper: Any  # a `play.runs.keeper.RunKeeper`, made when first needed (`ui.player.screens.runs`)
    hosting: Any  # a hosted game's `play.hosting.Hosting` (None: played here)
    run_start: dict | None  # `horizon run`: New run opens with this seed, daily switch and pace

    def data_problems(self) -> list:
        ...

    def open_character_screen(self, name: str) -> None:
        """One of CHARACTER_SCREENS over the sheet (the sheet over the menu first if need be)."""
        ...

    def to_menu(self) -> None:
        """Close every screen over the first, asking nothing."""
        ...

    def unsaved_above(self, index: int = 0) -> list[str]:
        ...

    def watch_for_tables(self) -> None:
        """Look for live tables this account is seated at, every few seconds (F2 joins)."""
        ...

    def action_battle(self) -> Awaitable[None] | None:
        """Fight: the host's way (`AppHost.battle`)."""
        ...

    def action_new_run(self) -> None:
        ...
