"""Battle: pick an encounter from the data folder's `encounters/` and the party to fight it with.

Each encounter shows its size, enemies and XP as the engine loads it (or why it can't be fought)
and, once `horizon sweep --rate` has measured it, the party level and size it recommends. The
highlighted encounter's win chance for the chosen party comes from a quick background simulation
(`tools.simulate.estimate`, the AI playing the party) with a progress bar and a ± figure: the
difficulty shown always accounts for the party. No label that ignores the party ("normal") is shown.

The party: the character being played and up to five more of the player's characters,
each played by the player (hot-seat) or by its AI. Choosing an encounter calls `app.start_battle`;
the battlefield is `ui.battle.screen.BattleScreen`.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, ProgressBar, Static
from textual.worker import get_current_worker

from horizon_tui.engine.forming import PartyMember
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.play.encounter_details import encounter_details
from horizon_tui.play.library import EncounterEntry, encounters_dir, list_encounters, short_problem
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import solo_character
from horizon_tui.tools.simulate import encounter_rating, estimate
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.ui.battle.flow import _enemies
from horizon_tui.ui.player.screens.load import LoadScreen
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.lists import RowList

MAX_PARTY = 6  # "fight with up to six of your characters"
ESTIMATE_RUNS = 400  # battles per win-chance estimate: ± about 5 points at 95 %, a few seconds
ESTIMATE_SEED = 1  # so the figure shown is `horizon simulate ENC --party … --runs 400 --seed 1`'s
CONTROLLERS = {"player": "you", "ai": "AI"}


@attrs.frozen
class PartySlot:
    """One of the party: a saved character and who plays it (`player`: you, hot-seat; `ai`)."""

    path: Path
    character: object  # content.models.Character
    controller: str = "player"
    level: int = 2


def party_members(party: list[PartySlot], rules, overrides_allowed: bool) -> list:
    """The engine's `PartyMember`s for `party`; without a GM, abilities as solo play uses them
    (R-6: `rules.creation.solo_character`)."""
    return [PartyMember(m.character if overrides_allowed else solo_character(m.character, rules), m.controller)
            for m in party]


def party_words(party: list[PartySlot]) -> str:
    return " · ".join(f"{m.character.name} (L{m.level}, {CONTROLLERS[m.controller]})" for m in party)


def recommended_words(rating) -> str:
    return f"level {rating.party_level}, party of {rating.party_size}" if rating is not None else ""


def odds_words(estimate) -> str:
    """"62% ± 5 · 400 battles": the win rate and half its 95 % (Wilson) interval, in points."""
    half = (estimate.ci_high - estimate.ci_low) / 2 * 100
    spread = f"{half:.0f}" if half >= 1 else f"{half:.1f}"
    return f"{estimate.win_rate:.0%} ± {spread} · {estimate.runs} battle{'s' if estimate.runs != 1 else ''}"


class EncounterPickerScreen(Screen):
    TITLE = "Battle"
    AUTO_FOCUS = "#encounters"
    DEFAULT_CSS = """
    #odds-row { height: 1; padding: 0 1; }
    #odds { width: 1fr; height: 1; }
    #odds-bar { width: 24; }
    """
    BINDINGS = [
        Binding("enter", "fight", "Fight", id="battle.fight"),
        Binding("p", "party", "Party", id="battle.party", tooltip="Choose who fights and who plays them"),
        Binding("l", "load", "Load character", id="battle.load"),
        Binding("escape", "app.pop_screen", "Back", id="battle.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="battle")
        self.encounters: list[EncounterEntry] = []
        self.ratings: dict[Path, object] = {}
        self.party: list[PartySlot] = []
        self.odds: dict[tuple, object] = {}  # (encounter path, party paths) -> WinEstimate | problem str
        self._odds_for: tuple | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="fighter", markup=False)
        with Vertical(id="encounter-box", classes="panel"):
            yield RowList(id="encounters", cursor_type="row", zebra_stripes=True)
        yield Static(id="encounter-detail", classes="panel")
        with Horizontal(id="odds-row"):
            yield Static(id="odds", markup=False)
            yield ProgressBar(id="odds-bar", total=ESTIMATE_RUNS, show_eta=False)
        yield KeyBar()

    def on_mount(self) -> None:
        folder = encounters_dir(self.app.catalogue)
        self.query_one("#encounter-box").border_title = "Encounters"
        self.query_one("#encounter-box").border_subtitle = "enter fights · p: party"
        self.query_one("#encounter-detail").border_title = "Description"
        self.query_one("#odds-bar").display = False
        session = self.app.session
        if session is not None:
            self.party = [self._member(session.path, session.character, "player")]
        self.show_party()
        table = self.query_one("#encounters", DataTable)
        for label, key in (("Encounter", "name"), ("Recommended", "rating"), ("Size", "size"),
                           ("Enemies", "enemies"), ("XP", "xp")):
            table.add_column(label, key=key)
        self.encounters = list_encounters(folder)
        self.fill_table()
        self.show_detail(0 if self.encounters else None, folder)
        if self.encounters:
            self.load_details()

    def _member(self, path: Path, character, controller: str) -> PartySlot:
        return PartySlot(Path(path), character, controller, build(character, self.app.rules).level)

    # --- the party ----------------------------------------------------------------------------

    def show_party(self) -> None:
        fighter = self.query_one("#fighter", Static)
        if not self.party:
            fighter.update(Text.assemble(
                ("No character loaded. ", "bold yellow"),
                "Press l to load one, or go back and choose New character.",
            ))
            return
        fighter.update(Text.assemble((f"Party {len(self.party)}/{MAX_PARTY}: ", "dim"),
                                     (party_words(self.party), "bold"), ("  p: party", "dim")))

    def action_party(self) -> None:
        if not self.party:
            self.app.notify("Load or create a character first (l loads one)", severity="warning")
            return

        def chosen(party: list[PartySlot] | None) -> None:
            if party:
                self.party = party
                self.show_party()
                self.start_odds()

        self.app.push_screen(PartyDialog(self.party), chosen)

    # --- the encounters -----------------------------------------------------------------------

    def fill_table(self) -> None:
        table = self.query_one("#encounters", DataTable)
        row = table.cursor_row
        table.clear()
        for index, e in enumerate(self.encounters):
            style = "red" if e.problem else ""
            rating = self.ratings.get(e.path)
            table.add_row(
                Text(("⚠ " if e.problem else "") + e.name, style=f"bold {style}".strip()),
                Text(f"lvl {rating.party_level} ×{rating.party_size}" if rating else "—", style="" if rating else "dim"),
                Text(e.size or "—"),
                Text("…" if e.enemies is None and not e.problem else str(e.enemies or "—"), justify="right"),
                Text("…" if e.xp is None and not e.problem else str(e.xp or "—"), justify="right"),
                key=str(index),
            )
        if self.encounters:
            table.move_cursor(row=min(row, len(self.encounters) - 1))

    @work(thread=True, exclusive=True, group="details")
    def load_details(self) -> None:
        """XP, enemies and ratings as the engine reads the encounters; slow imports, so off the UI
        thread."""
        paths = [e.path for e in self.encounters]
        details = encounter_details(paths, self.app.catalogue)
        ratings = {}
        for path in paths:
            try:
                ratings[path] = encounter_rating(path)
            except Exception:  # noqa: BLE001 - a rating that can't be read is shown as none
                ratings[path] = None
        self.app.call_from_thread(self.show_details, details, ratings)

    def show_details(self, details: dict, ratings: dict | None = None) -> None:
        self.ratings.update({p: r for p, r in (ratings or {}).items() if r is not None})
        for index, e in enumerate(self.encounters):
            found = details.get(e.path)
            if isinstance(found, str):
                self.encounters[index] = attrs.evolve(e, problem=f"can't be fought: {found}")
            elif found is not None:
                self.encounters[index] = attrs.evolve(e, xp=found[0], enemies=found[1])
            else:
                # not looked up (a file added since the list was read): what the file says
                self.encounters[index] = attrs.evolve(e, xp=e.xp or 0, enemies=e.enemies or 0)
        self.fill_table()
        table = self.query_one("#encounters", DataTable)
        self.show_detail(table.cursor_row if self.encounters else None)

    def show_detail(self, index: int | None, folder=None) -> None:
        detail = self.query_one("#encounter-detail", Static)
        if index is None:
            detail.update(Text.assemble(
                ("No encounters yet in ", "dim"), (str(folder or encounters_dir(self.app.catalogue)), "bold"),
                (".\nEncounters are TOML files there, with a name and a description.", "dim"),
            ))
            self.query_one("#odds", Static).update("")
            return
        e = self.encounters[index]
        if e.problem:
            detail.update(Text(f"{e.path.name}: {e.problem}", style="red"))
            self.query_one("#odds", Static).update("")
            return
        facts = [f for f in (e.size and f"{e.size} cells",
                             e.enemies and f"{e.enemies} enem{'y' if e.enemies == 1 else 'ies'}",
                             e.xp and f"{e.xp} XP") if f]
        rating = self.ratings.get(e.path)
        recommended = (f"\nRecommended: {recommended_words(rating)} (the AI wins {rating.measured_win_rate:.0%} "
                       f"of {rating.runs} battles there)") if rating else ""
        detail.update(Text.assemble((e.name, "bold"), (f"  {' · '.join(facts)}", "dim"), "\n",
                                    _reflow(e.description) or "(no description)", (recommended, "bold")))
        self.start_odds()

    # --- the win chance -----------------------------------------------------------------------

    def _current(self) -> EncounterEntry | None:
        if not self.encounters:
            return None
        e = self.encounters[min(self.query_one("#encounters", DataTable).cursor_row, len(self.encounters) - 1)]
        return None if e.problem or e.enemies is None else e

    def start_odds(self) -> None:
        """The highlighted encounter's win chance for the party: known, or simulated now."""
        e = self._current()
        odds = self.query_one("#odds", Static)
        if e is None or not self.party:
            odds.update("" if self.party else "Win chance: load a character to see it.")
            return
        key = (e.path, tuple(m.path for m in self.party))
        self._odds_for = key
        if key in self.odds:
            self.show_odds(key, self.odds[key])
            return
        odds.update(Text.assemble(("Win chance for this party: ", "dim"), "simulating…"))
        bar = self.query_one("#odds-bar", ProgressBar)
        bar.update(total=ESTIMATE_RUNS, progress=0)
        bar.display = True
        self.estimate(key, e.path, list(self.party))

    @work(thread=True, exclusive=True, group="odds")
    def estimate(self, key: tuple, encounter: Path, party: list[PartySlot]) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if done % 10 == 0 or done == total:
                self.app.call_from_thread(self._progress, key, done, total)

        members = [attrs.evolve(m, controller="ai") for m in party]
        try:
            result = estimate(encounter, party_members(members, self.app.rules, self.app.overrides_allowed),
                              runs=ESTIMATE_RUNS, seed=ESTIMATE_SEED, on_progress=progress,
                              should_stop=lambda: worker.is_cancelled, catalogue=self.app.catalogue,
                              enemies=_enemies(self.app))
        except DataError as exc:  # without the encounter's path: the list names it, the line is short
            result = short_problem(exc.problems[0])
        except (HorizonError, ValueError) as exc:
            result = str(exc)
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self.show_odds, key, result)

    def _progress(self, key: tuple, done: int, total: int) -> None:
        if key == self._odds_for:
            self.query_one("#odds-bar", ProgressBar).update(total=total, progress=done)

    def show_odds(self, key: tuple, result) -> None:
        self.odds[key] = result
        if key != self._odds_for:
            return
        self.query_one("#odds-bar").display = False
        odds = self.query_one("#odds", Static)
        if isinstance(result, str):
            odds.update(Text.assemble(("Win chance: ", "dim"), (f"can't be simulated: {result}", "red")))
            return
        odds.update(Text.assemble(("Win chance (the AI playing your party): ", "dim"),
                                  (odds_words(result), "bold")))

    # --- leaving ------------------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.show_detail(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_fight()

    def action_load(self) -> None:
        """Load a character and come back here to pick its fight (over its sheet)."""
        if self.app.data_problems():
            return

        self.app.push_screen(LoadScreen(then_battle=True))

    def action_fight(self) -> None:
        if not self.encounters:
            self.app.notify("There is no encounter to fight yet", severity="warning")
            return
        encounter = self.encounters[self.query_one("#encounters", DataTable).cursor_row]
        if encounter.problem:
            self.app.notify(f"{encounter.path.name}: {encounter.problem}", severity="error")
            return
        if self.app.session is None:
            self.app.notify("Load or create a character first (l loads one)", severity="warning")
            return
        if len(self.party) == 1 and self.party[0].controller == "player":
            self.app.start_battle(encounter.path, self.app.session.character)  # the party of one, as always
            return
        self.app.start_battle(encounter.path, self.app.session.character,
                              party_members(self.party, self.app.rules, self.app.overrides_allowed))


class PartyDialog(ModalScreen[list[PartySlot] | None]):
    """Who fights: the character being played first, then up to five more saved characters, each
    played by you (hot-seat) or by its AI. Esc keeps the party as it was."""

    BINDINGS = [
        Binding("a", "add", "Add", id="party.add"),
        Binding("c,space", "control", "You / AI", id="party.control"),
        Binding("x,delete", "remove", "Remove", id="party.remove"),
        Binding("enter", "done", "Done", id="party.done", priority=True),
        Binding("escape", "cancel", "Cancel", id="party.cancel"),
    ]
    DEFAULT_CSS = """
    PartyDialog { align: center middle; }
    PartyDialog > Vertical { width: 72; max-width: 98%; height: auto; max-height: 90%;
                             border: round $accent; background: $surface; padding: 0 1; }
    PartyDialog DataTable { height: auto; max-height: 10; }
    """

    def __init__(self, party: list[PartySlot]) -> None:
        super().__init__()
        self.party = list(party)

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Party"
            yield Static(Text("a adds one of your characters · c: played by you or its AI · x removes · "
                              "enter: done · esc: cancel", style="dim"))
            yield RowList(id="party-table", cursor_type="row")
            yield Static(id="party-note", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in ("Character", "Level", "Played by", "File"):
            table.add_column(label)
        self.refresh_table()

    def refresh_table(self) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        for m in self.party:
            table.add_row(Text(m.character.name, style="bold"), str(m.level), CONTROLLERS[m.controller],
                          Text(m.path.name, style="dim"))
        table.move_cursor(row=min(row, len(self.party) - 1))
        self.query_one("#party-note", Static).update(
            f"{len(self.party)} of {MAX_PARTY}. The first is the character being played; its battle is "
            "saved with it.")

    def action_add(self) -> None:
        if len(self.party) >= MAX_PARTY:
            self.app.notify(f"A party has at most {MAX_PARTY} characters", severity="warning")
            return
        taken = {m.path for m in self.party}
        entries = [e for e in self.app.library.entries() if e.openable and e.path not in taken]
        if not entries:
            self.app.notify("No other character to add: create one first", severity="warning")
            return
        by_id = {str(i): e for i, e in enumerate(entries)}

        def picked(choice: str | None) -> None:
            if choice is None:
                return
            entry = by_id[choice]
            self.party.append(PartySlot(entry.path, entry.character, "ai", entry.level or 2))
            self.refresh_table()
            self.query_one(DataTable).move_cursor(row=len(self.party) - 1)

        self.app.push_screen(ChoiceDialog("Add to the party", [
            (i, f"{e.title} — {e.summary}") for i, e in by_id.items()]), picked)

    def action_control(self) -> None:
        index = self.query_one(DataTable).cursor_row
        m = self.party[index]
        self.party[index] = attrs.evolve(m, controller="ai" if m.controller == "player" else "player")
        self.refresh_table()

    def action_remove(self) -> None:
        index = self.query_one(DataTable).cursor_row
        if index == 0:
            self.app.notify("The character being played leads the party (load another to lead)", severity="warning")
            return
        del self.party[index]
        self.refresh_table()

    def action_done(self) -> None:
        self.dismiss(self.party)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _reflow(text: str) -> str:
    """Join the hard-wrapped lines of a TOML string; keep blank-line paragraphs."""
    return re.sub(r"(?<!\n)\n(?!\n)", " ", text.strip())
