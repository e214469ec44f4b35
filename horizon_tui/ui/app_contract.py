"""What a screen may ask of the app it runs in (`AppContract`), and where the characters it
shows live (`CharacterHost`): a saves folder (`SavesFolder`, the player app) or a campaign
(`ui.gm.app.CampaignHost`, the GM tool). The app holds one host and answers the host's
questions through it; a screen asks the app only for what is named here, never probing it.

No Textual here, and nothing heavy at import: the player app's start-up imports this module.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from horizon_tui.campaign.model import Campaign
    from horizon_tui.content.catalogue import Catalogue
    from horizon_tui.content.models import Character
    from horizon_tui.content.ruleset import Ruleset
    from horizon_tui.play.library import CharacterLibrary, OpenCharacter


class CharacterHost(Protocol):
    """Where the characters live, and the data they are read with."""

    session: OpenCharacter | None  # the character the player app's screens show (None: none)

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


class AppContract(CharacterHost, Protocol):
    """What a screen may ask of its app: the host's data (the app answers through its host), and
    the app's own doings — saving the character shown, opening one, starting a battle, going back
    to the menu."""

    host: CharacterHost
    saves_dir: Path
    read_only: bool  # the character shown is open read-only here: nothing is saved
    auto_fight_stop: float | None  # keymap.toml [options]: Tab's auto-fight stop (None: the default)
    run_keeper: Any  # a `play.runs.keeper.RunKeeper`, made when first needed (`ui.player.screens.runs`)
    hosting: Any  # a hosted game's `play.hosting.Hosting` (None: played here)

    def commit(self, character: Character) -> bool:
        """Save the character shown (its save, or the campaign): False, said on screen, if not."""
        ...

    def open_character(self, path: Path, character: Character | None = None, *, then_battle: bool = False) -> None:
        ...

    def start_battle(self, encounter_path: Path, character: Character, party: list | None = None) -> None:
        ...

    def leave_to_menu(self, then: Callable[[], object] | None = None, index: int = 0) -> None:
        ...

    def data_problems(self) -> list:
        ...


class SavesFolder:
    """The player app's host: characters in a saves folder, the shipped rules data (loaded and
    checked the first time it is needed: start-up shows the menu first)."""

    player_files = True
    campaign = None

    def __init__(self, saves_dir: Path, catalogue: Catalogue | None = None) -> None:
        self.saves_dir = Path(saves_dir)
        self._catalogue = catalogue
        self._library: CharacterLibrary | None = None
        self._enemies: dict[str, Any] | None = None
        self.session: OpenCharacter | None = None

    @property
    def catalogue(self) -> Catalogue:
        """The rules data (the shipped `data/` unless one was given); DataError if it has problems."""
        if self._catalogue is None:
            from horizon_tui.rules.validation import checked_catalogue  # start-up: loaded when first needed

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
            from horizon_tui.play.library import CharacterLibrary  # start-up: loaded when first needed

            self._library = CharacterLibrary(self.saves_dir, self.catalogue)
        return self._library

    def enemies(self) -> dict[str, Any]:
        if self._enemies is None:
            from horizon_tui.tools.validate_encounters import checked_enemies  # start-up, as above

            self._enemies = checked_enemies(self.catalogue)
        return self._enemies
