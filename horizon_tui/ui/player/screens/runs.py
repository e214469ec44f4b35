"""A run's screens: New run (party, seed, pace, practice), the depth's choice of encounters with
each one's reward and win chance, the rest between fights, the run's end (its morgue) and the
hall of fame. The fights are the battle screen's (`ui.battle.screen.BattleScreen`); everything
the run does is `play.runs.keeper.RunKeeper`'s, kept after each step (Continue on the main menu
comes back to it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, TypeVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Checkbox, DataTable, Input, OptionList, RadioSet, SelectionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from horizon_tui import __version__
from horizon_tui.content.run_rules import load_run_rules
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.paths import user_data_dir
from horizon_tui.play.forms import parse_whole
from horizon_tui.play.runs.keeper import RunKeeper, bury
from horizon_tui.play.runs.run import RunMember, rest
from horizon_tui.play.runs.scores import COLUMNS, score_rows
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import solo_character
from horizon_tui.rules.numbers import percent_text
from horizon_tui.rules.texts import counted
from horizon_tui.storage.host_wiring import run_store, save_lock_class, score_table
from horizon_tui.storage.lock import LockLost, SaveInUse
from horizon_tui.storage.runs import FileRuns, FileScores, HeldRuns, hall_of_fame_path
from horizon_tui.table.lobby import my_seat_place
from horizon_tui.tools.sweep.policy import load_policy
from horizon_tui.ui.app_contract import player_host
from horizon_tui.ui.battle.dialogs import BattleSummary, ChoiceDialog
from horizon_tui.ui.battle.flow import summary_rows
from horizon_tui.ui.battle.roles import LocalEngine
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.onoff import CheckList, OnOffBox, OnOffRadio

if TYPE_CHECKING:
    from horizon_tui.play.runs.run import Offer, Run

T = TypeVar("T")  # what a saved change of the run gives back (`DepthScreen._saved`)
MAX_PARTY = 6


def keeper(app) -> RunKeeper:
    """The app's run keeper: runs under the saves' records/runs/, the hall of fame in the user data
    folder (an SSH host's shared one when it says so)."""
    found = app.run_keeper
    if found is None:
        path = hall_of_fame_path(user_data_dir())
        try:  # the host's shared database's, when it has one
            scores = score_table(path)
        except HorizonError:  # it can't be reached: this host's own file, said
            scores = FileScores(path)
            app.notify("The shared hall of fame can't be reached: runs ending now are entered in this host's.",
                       severity="warning", timeout=10)
        try:  # the host's shared database's, when it keeps this account's runs
            store = run_store(app.saves_dir)
        except HorizonError:  # it can't be reached: this host's own files, said
            store = FileRuns(app.saves_dir)
            app.notify("The shared database can't be reached: runs are kept on this host only for now.",
                       severity="warning", timeout=10)
        # one writer per run (across the hosts of a shared database too): storage.runs.HeldRuns
        store = HeldRuns(store, app.saves_dir, app.who, save_lock_class())
        found = RunKeeper(store, scores, app.catalogue,
                          app.enemies(), load_run_rules(), load_policy(), account=my_seat_place()[0],
                          version=__version__)
        app.run_keeper = found  # per app, not a module global
    return found


def health_line(run: Run, rules) -> Text:
    parts: list = []
    for m in run.members:
        if parts:
            parts.append("  ")
        if m.dead:
            parts.append((f"{m.name} dead", "red"))
            continue
        if m.state is None:
            full = build(m.character, rules)
            parts.append(f"{m.name} L{full.level} full health")
            continue
        style = "red" if m.down else ("yellow" if m.state["hp"] < m.state["max_hp"] else "")
        parts.append((f"{m.name} L{build(m.character, rules).level} {m.state['hp']}/{m.state['max_hp']}"
                      + (" down" if m.down else ""), style))
    return Text.assemble(*parts)


# --- New run ------------------------------------------------------------------------------------


# The most a typed seed may be: the largest whole number a TOML file (and a 64-bit database
# column) holds; a run draws its own below 2**31 (RunKeeper.new), so each can be typed again.
SEED_HIGH = 2**63 - 1

NO_CHARACTERS = "No characters yet: make one first (esc, then New character)."


class NewRunScreen(Screen):
    TITLE = "New run"
    DEFAULT_CSS = """
    NewRunScreen #run-party { height: auto; max-height: 8; }
    NewRunScreen .row { height: 3; }
    NewRunScreen .row .label { width: auto; padding: 1 1 0 0; }
    NewRunScreen #run-seed { width: 20; }
    NewRunScreen RadioSet { height: auto; width: 100%; }
    """
    BINDINGS = [
        Binding("ctrl+s", "start", "Start the run", id="run.start", priority=True),
        Binding("escape", "app.pop_screen", "Back", id="run.back"),
    ]

    def __init__(self, seed: int | None = None, daily: bool = False, pace: str = "source") -> None:
        super().__init__()
        self.seed, self.daily, self.pace = seed, daily, pace
        self._entries: list = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="new-run-form"):
            yield Static("Who goes (space picks, up to six):", classes="label")
            yield CheckList(id="run-party")
            with Horizontal(classes="row"):
                yield Static("Seed (blank: a new one)", classes="label")
                # no `restrict`: it dropped the 11th digit (and a longer paste) without a word;
                # ctrl+s says the allowed range instead
                yield Input(str(self.seed) if self.seed is not None else "", id="run-seed",
                            placeholder="e.g. 42")
            yield OnOffBox("Today's seed", self.daily, worded=True, hint="the same for everyone; its own hall of fame",
                           id="run-daily")
            yield Static("Pace:", classes="label")
            with RadioSet(id="run-pace"):
                for pace in keeper(self.app).run_rules.paces:
                    yield OnOffRadio(f"{pace.name}: {pace.description}", pace.name == self.pace, name=pace.name)
            yield OnOffBox("Practice", False, worded=True, hint="the characters are kept whatever happens",
                           id="run-practice")
            yield Static("", id="run-permadeath")
        yield KeyBar()

    def on_mount(self) -> None:
        self._entries = [e for e in self.app.library.entries() if e.openable]
        chooser = self.query_one("#run-party", SelectionList)
        current = self.app.session.path if self.app.session is not None else None
        for i, e in enumerate(self._entries):
            chooser.add_option((f"{e.title}  {e.summary}", i, e.path == current or (current is None and i == 0)))
        if self._entries:
            chooser.highlighted = 0  # ↓ goes to the second, space picks the first (a first ↓ only lit a row)
        self._explain()
        chooser.focus()

    def on_checkbox_changed(self, _event) -> None:
        self._explain()

    def on_selection_list_selected_changed(self, _event) -> None:
        self._explain()

    def _explain(self) -> None:
        if not self._entries:
            self.query_one("#run-permadeath", Static).update(Text(NO_CHARACTERS, style="yellow"))
            return
        practice = self.query_one("#run-practice", Checkbox).value
        chosen = self.query_one("#run-party", SelectionList).selected
        names = ", ".join(self._entries[i].title for i in chosen) or "no one yet"
        text = (f"Practice: whatever happens, the files stay as they are. Picked: {names}."
                if practice else
                f"Permadeath: when the party falls, its characters' files move to characters/fallen/ "
                f"(kept, never deleted). XP earned stays in the run. Picked: {names}.")
        self.query_one("#run-permadeath", Static).update(Text(text, style="dim" if practice else "yellow"))

    def action_start(self) -> None:
        chosen = self.query_one("#run-party", SelectionList).selected
        if not chosen:
            self.app.notify(NO_CHARACTERS if not self._entries else "Pick at least one character (space).",
                            title="No party", severity="warning")
            return
        if len(chosen) > MAX_PARTY:
            self.app.notify(f"At most {MAX_PARTY} characters; {len(chosen)} are picked.", title="Too many",
                            severity="warning")
            return

        rules = self.app.rules
        members = []
        for i in chosen:
            entry = self._entries[i]
            character = entry.character if self.app.overrides_allowed else solo_character(entry.character, rules)
            members.append(RunMember(character, "player", str(entry.path)))
        text = self.query_one("#run-seed", Input).value.strip()
        pressed = self.query_one("#run-pace", RadioSet).pressed_button
        try:
            seed = parse_whole(text, "the seed", "seed", low=0, high=SEED_HIGH) if text else None
        except ValueError as exc:
            self.app.notify(str(exc), title="The run can't start", severity="error", timeout=10)
            self.query_one("#run-seed", Input).focus()
            return
        try:
            run = keeper(self.app).new(members, seed=seed,
                                       daily=self.query_one("#run-daily", Checkbox).value,
                                       permadeath=not self.query_one("#run-practice", Checkbox).value,
                                       pace=pressed.name if pressed is not None and pressed.name else "source")
        except (ValueError, OSError, HorizonError) as exc:
            self.app.notify(str(exc), title="The run can't start", severity="error", timeout=10)
            return
        self.app.pop_screen()
        self.app.push_screen(DepthScreen(run))


# --- a depth ------------------------------------------------------------------------------------


def offer_words(offer: Offer, odds) -> Text:
    chance = ("win chance: simulating…", "dim") if odds is None else (
        (f"win chance: {odds}", "red") if isinstance(odds, str) else
        (f"win chance {percent_text(odds.win_rate)} ± {percent_text((odds.ci_high - odds.ci_low) / 2)}",
         "green" if odds.win_rate >= 0.75 else "yellow" if odds.win_rate >= 0.4 else "red"))
    return Text.assemble((offer.name, "bold"), f"  {counted(offer.enemies, 'foe')} · reward {offer.reward} XP · ", chance)


class DepthScreen(Screen):
    """The depth's choice: two or three encounters, each with its reward and the party's win chance
    as it is now (simulated in the background); rest first, or give the run up."""

    DEFAULT_CSS = """
    DepthScreen #run-offers { height: auto; max-height: 12; }
    DepthScreen #run-news, DepthScreen #run-party-line, DepthScreen #run-hint { height: auto; padding: 0 1; }
    DepthScreen #run-read-only { height: auto; padding: 0 1; background: $warning; color: $background; }
    """

    BINDINGS = [
        Binding("enter", "fight", "Fight it", id="run.fight", show=True, priority=True),
        Binding("r", "rest", "Rest", id="run.rest"),
        Binding("g", "give_up", "Give up", id="run.give_up"),
        Binding("escape", "leave", "Main menu (kept)", id="run.leave"),
        Binding("t", "take_over", "Take it over", id="run.take_over"),
    ]

    def __init__(self, run: Run, news: list[str] | None = None, *, held_by: str = "") -> None:
        super().__init__()
        self.run = run
        self.news = news or []
        self.held_by = held_by  # read-only: the run is played in another window (who, since when)
        self.offers: list[Offer] = []
        self.odds: dict[str, object] = {}

    @property
    def title_text(self) -> str:
        seed = f"daily {self.run.daily}" if self.run.daily else f"seed {self.run.seed}"
        return f"Run · depth {self.run.depth} · score {self.run.score} · {seed} · {self.run.pace}"

    def compose(self) -> ComposeResult:
        yield TitleBar()
        if self.held_by:
            yield Static(f"READ-ONLY: this run is being played in another session ({self.held_by}). Nothing "
                         "you do here is saved; t takes it over (the other window stops saving it).",
                         id="run-read-only", markup=False)
        with Vertical(id="run-body"):
            yield Static(id="run-party-line", markup=False)
            yield Static(id="run-news", markup=False)
            yield OptionList(id="run-offers")
            yield Static(id="run-hint", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.show(self.run, self.news)
        self.query_one("#run-offers", OptionList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "take_over":
            return bool(self.held_by)
        return True

    def _refused(self) -> bool:
        """A read-only window changes nothing: said, and True."""
        if self.held_by:
            self.app.notify(f"Read-only: the run is played in another session ({self.held_by}). t takes it over.",
                            title="Not saved", severity="warning", timeout=8)
        return bool(self.held_by)

    def _saved(self, change: Callable[[], T]) -> T | None:
        """`change()` (a rest, giving up), or None when it wasn't saved: the run taken over by another
        window (this one turns read-only, `_lost`) or the save refused, said either way."""
        try:
            return change()
        except LockLost as exc:
            self._lost(exc)
        except HorizonError as exc:
            self.app.notify(str(exc), title="Not saved", severity="error", timeout=10)
        return None

    def _lost(self, exc: LockLost) -> None:
        """Another window took the run over: nothing was written, and this one turns read-only,
        offering to take it back (t)."""
        self.app.notify(str(exc), title="Not saved", severity="error", timeout=10)
        self.workers.cancel_group(self, "run-odds")
        self.app.switch_screen(DepthScreen(self.run, self.news, held_by=exc.holder.describe() if exc.holder
                                           else "another window"))

    def action_take_over(self) -> None:
        """Take the run back from the other window: as it was last saved there, fight included."""
        data = _taken_over(self.app, self.run.id)
        if data is False:
            return
        self.app.pop_screen()
        if data is not None:
            continue_run(self.app, data)

    def show(self, run: Run, news: list[str]) -> None:
        """The run as it is now (after a rest, in place): its party, news, offers and their odds."""
        self.workers.cancel_group(self, "run-odds")
        self.run, self.news, self.odds = run, news, {}
        self.title = self.title_text
        k = keeper(self.app)
        self.query_one("#run-party-line", Static).update(health_line(self.run, k.catalogue(self.run).rules))
        self.query_one("#run-news", Static).update(Text("\n".join(self.news), style="green"))
        try:
            self.offers = k.offers(self.run)
        except Exception as exc:  # noqa: BLE001 - a data problem is said, the run stays as it is
            self.app.notify(str(exc), title="No encounters to offer", severity="error", timeout=10)
        self._fill()
        rest_words = ("r rests first (once between depths)" if self.run.fights and not self.run.rested
                      else "rested" if self.run.rested else "no rest before the first fight")
        self.query_one("#run-hint", Static).update(Text(
            f"enter fights the highlighted one · {rest_words} · g gives the run up · esc: main menu (the run is kept)",
            style="dim"))
        self.query_one("#run-offers", OptionList).border_title = f"Depth {self.run.depth}: choose the next fight"
        self.estimate()

    def _fill(self) -> None:
        offers = self.query_one("#run-offers", OptionList)
        highlighted = offers.highlighted
        offers.clear_options()
        offers.add_options(Option(offer_words(o, self.odds.get(o.encounter)), id=o.encounter) for o in self.offers)
        if self.offers:
            offers.highlighted = highlighted if highlighted is not None else 0

    @work(thread=True, exclusive=True, group="run-odds")
    def estimate(self) -> None:
        worker = get_current_worker()
        k = keeper(self.app)
        for offer in list(self.offers):
            try:
                result: object = k.odds(self.run, offer, should_stop=lambda: worker.is_cancelled)
            except Exception as exc:  # noqa: BLE001 - said on the line, the fight can still be chosen
                result = str(exc)
            if worker.is_cancelled:
                return
            self.app.call_from_thread(self._show_odds, offer.encounter, result)

    def _show_odds(self, encounter: str, result) -> None:
        self.odds[encounter] = result
        self._fill()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_fight()

    def action_fight(self) -> None:
        if self._refused():
            return
        offers = self.query_one("#run-offers", OptionList)
        if offers.highlighted is None or not self.offers:
            return
        offer = self.offers[offers.highlighted]
        self.workers.cancel_group(self, "run-odds")
        try:
            run, session = keeper(self.app).begin_fight(self.run, offer)
        except LockLost as exc:
            self._lost(exc)
            return
        except Exception as exc:  # noqa: BLE001 - a fight that can't form is said; the run is as it was
            self.app.notify(str(exc), title="This fight can't start", severity="error", timeout=10)
            return
        self.app.pop_screen()
        open_fight(self.app, run, session)

    def action_rest(self) -> None:
        if self._refused():
            return
        if not self.run.fights:
            self.app.notify("The party is fresh: rests come between fights.", title="No rest yet")
            return
        if self.run.rested:
            self.app.notify("The party has rested since the last fight: the next rest comes after the next one.",
                            title="Rested")
            return

        def answered(yes: bool | None) -> None:
            if yes and (rested := self._saved(lambda: keeper(self.app).rest(self.run))) is not None:
                run, news = rested
                self.show(run, news or ["The party rests; nothing changes."])

        self.app.push_screen(RestScreen(self.run), answered)

    def action_give_up(self) -> None:
        if self._refused():
            return

        def answered(yes: bool | None) -> None:
            if yes and (run := self._saved(lambda: keeper(self.app).abandon(self.run))) is not None:
                self.app.pop_screen()
                run_over(self.app, run)

        self.app.push_screen(ConfirmDialog(
            f"Give this run up at depth {self.run.depth}? It ends here and goes into the hall of fame as given up"
            + (" (permadeath: no one dies of it)." if self.run.permadeath else "."),
            yes="Give up", no="Keep going", title="Give the run up?"), answered)

    def action_leave(self) -> None:
        self.workers.cancel_group(self, "run-odds")
        if not self.held_by:
            keeper(self.app).store.let_go()  # another window may play it now
            self.app.notify("The run is kept: Continue on the main menu comes back to it.", title="Run kept")
        self.app.pop_screen()


class RestScreen(ModalScreen[bool]):
    """What a rest gives back, before it is taken: enter rests, esc doesn't."""

    BINDINGS = [
        Binding("enter,y", "answer(True)", "Rest", id="rest.yes", priority=True),
        Binding("escape,n", "answer(False)", "Not now", id="rest.no"),
    ]
    DEFAULT_CSS = """
    RestScreen { align: center middle; }
    RestScreen > Vertical { width: 72; max-width: 98%; height: auto; border: double $accent;
                            background: $surface; padding: 0 1; }
    """

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run

    def compose(self) -> ComposeResult:
        k = keeper(self.app)
        rules = k.run_rules
        after, news = rest(self.run, rules)
        lines = [f"A rest gives each member back {percent_text(rules.rest_health)} of its maximum health "
                 f"(one who is down gets up); {rules.rest_turns} turns pass for effects and cooldowns; "
                 "spent charges stay spent. One rest between two depths.", ""]
        lines += news or ["No one would gain anything."]
        with Vertical():
            yield Static(Text("Rest before the next fight?", style="bold"))
            yield Static(Text("\n".join(lines)))
            yield Static(Text("enter: rest · esc: not now", style="dim"))

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


# --- a fight, and after it ----------------------------------------------------------------------


def open_fight(app, run: Run, session) -> None:
    k = keeper(app)

    def autosave(s) -> None:
        k.save_battle(run, s)

    def ended(s) -> None:
        after_fight_screens(app, run, s)

    app.push_screen(BattleScreen(session, driver=LocalEngine(autosave=autosave, on_end=ended)))


def after_fight_screens(app, run: Run, session) -> None:
    try:
        after, news = keeper(app).end_fight(run, session)
    except OSError as exc:
        app.notify(f"The run wasn't saved: {exc}", severity="error", timeout=15)
        return
    result = session.battle.result
    headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
    headline += f"  {counted(result.rounds, 'round')}.  Depth {run.depth}."
    footer = "  ".join(f"{n} gains {xp} XP." for n, xp in result.xp.items() if xp) or "No XP."
    if news:
        footer += "  " + " ".join(news)
    hint = "enter: the run is over — its record" if after.over else "enter: on to the next depth"

    def done(_: None) -> None:
        app.pop_screen()  # the battle
        if after.over:
            run_over(app, after)
        else:
            app.push_screen(DepthScreen(after, news))

    app.push_screen(BattleSummary(headline, summary_rows(session), footer, hint=hint), done)


def run_over(app, run: Run) -> None:
    """The run's end: permadeath moves the dead's files aside (never deleted), then the morgue."""
    keeper(app).store.let_go()
    buried: list[str] = []
    if run.permadeath and not run.won:
        fallen = {m.source for m in run.members if m.down}
        if app.session is not None and str(app.session.path) in fallen:
            player_host(app).close_character()  # its file is about to move: this window stops playing it
        try:
            buried = bury(run)
        except OSError as exc:
            app.notify(f"A fallen character's file couldn't be moved: {exc}", severity="error", timeout=10)
    app.push_screen(RunOverScreen(run, buried))


class RunOverScreen(Screen):
    BINDINGS = [
        Binding("enter", "scores", "Hall of fame", id="run.scores", priority=True),
        Binding("escape", "app.main_menu", "Main menu", id="run.menu"),
    ]

    def __init__(self, run: Run, buried: list[str]) -> None:
        super().__init__()
        self.run = run
        self.buried = buried

    def compose(self) -> ComposeResult:
        k = keeper(self.app)
        where = getattr(k.store, "path", None)
        self.title = "The run is over" + (" — won!" if self.run.won else f" — depth {self.run.depth}")
        yield TitleBar()
        with VerticalScroll(id="morgue"):
            if self.buried:
                yield Static(Text("Moved to characters/fallen/: " + ", ".join(self.buried), style="yellow"))
            if where is not None:
                yield Static(Text(f"Morgue: {where(self.run.id, '.morgue.txt')}", style="dim"))
            yield Static(Text(k.morgue(self.run)))
        yield KeyBar()

    def action_scores(self) -> None:
        self.app.pop_screen()
        self.app.push_screen(HallOfFameScreen(daily=self.run.daily is not None))


# The hall of fame's table: what ranks a run and how it ended (it fits 80 columns); the highlighted
# run's other cells are under it (`HallOfFameScreen._show_detail`)
TABLE_COLUMNS = ("#", "party", "levels", "depth", "score", "end")


class HallOfFameScreen(Screen):
    TITLE = "Hall of fame"
    BINDINGS = [
        Binding("d", "toggle_daily", "Daily ⇄ all", id="scores.daily"),
        Binding("escape", "app.pop_screen", "Back", id="scores.back"),
    ]

    def __init__(self, daily: bool = False) -> None:
        super().__init__()
        self.daily = daily
        self._rows: list[tuple[str, ...]] = []  # each run's cells, in COLUMNS' order

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="scores-title", markup=False)
        yield DataTable(id="scores", cursor_type="row", zebra_stripes=True)
        yield Static(id="scores-detail", classes="panel", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.fill()

    def fill(self) -> None:
        k = keeper(self.app)
        table = self.query_one("#scores", DataTable)
        table.clear(columns=True)
        for label in TABLE_COLUMNS:
            table.add_column(label)
        title = self.query_one("#scores-title", Static)
        self._rows = []
        self._show_detail(None)
        try:
            entries = k.scores.entries(daily=self.daily)
        except DataError as exc:
            title.update(Text(f"The hall of fame can't be read: {exc.problems[0]}", style="red"))
            return
        ranked = [e for e in entries if e.get("pace") == k.run_rules.ranked_pace]
        others = [e for e in entries if e.get("pace") != k.run_rules.ranked_pace]
        self._rows = score_rows(ranked) + score_rows(others)
        for row in self._rows:
            table.add_row(*(Text(row[COLUMNS.index(label)]) for label in TABLE_COLUMNS))
        which = "The daily seed's runs" if self.daily else "All runs"
        title.update(Text(f"{which}, deepest first, then the score (ranked pace: {k.run_rules.ranked_pace}; "
                          f"other paces after). d: {'all runs' if self.daily else 'the daily seed'}"
                          + ("" if entries else ".  No runs yet."), style="dim"))
        table.focus()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, row: int | None) -> None:
        """The highlighted run whole, under the table (at 80 columns the table shows what ranks
        a run and how it ended; its pace, seed, account and end time are here)."""
        detail = self.query_one("#scores-detail", Static)
        if row is None or not 0 <= row < len(self._rows):
            detail.display = False
            return
        cells = dict(zip(COLUMNS, self._rows[row]))
        detail.display = True
        detail.update(Text(
            f"{cells['party']} (levels {cells['levels']}): depth {cells['depth']}, score {cells['score']}, "
            f"{cells['end']}.\npace {cells['pace']} · seed {cells['seed']} · ended {cells['ended'] or '?'}"
            + (f" · account {cells['account']}" if cells["account"] else "")))

    def action_toggle_daily(self) -> None:
        self.daily = not self.daily
        self.fill()


# --- Continue -----------------------------------------------------------------------------------


def continue_run(app, data: dict) -> None:
    """Back into a run in progress: its fight where it was left, or its depth's choice."""
    k = keeper(app)
    if data.get("damaged"):
        app.notify(f"The run {data['id']} can't be read: {data['damaged']}", title="Damaged run", severity="error",
                   timeout=10)
        return
    try:
        run = k.load(data, f"{data.get('id')}.json")
    except DataError as exc:
        app.notify(str(exc.problems[0]), title="The run can't be resumed", severity="error", timeout=10)
        return
    try:  # one writer per run: in another window (on any host of a shared database), it is offered read-only
        k.store.hold(run.id)
    except SaveInUse as exc:
        _offer_read_only(app, run, exc.holder.describe())
        return
    except HorizonError as exc:
        app.notify(str(exc), title="The run can't be resumed", severity="error", timeout=10)
        return
    try:
        session = k.resume_battle(run)
    except DataError as exc:
        app.notify(str(exc.problems[0]), title="The run can't be resumed", severity="error", timeout=10)
        return
    if session is not None:
        open_fight(app, run, session)
    else:
        app.push_screen(DepthScreen(run))


def _taken_over(app, run_id: str) -> dict | None | Literal[False]:
    """The run taken over from the window that plays it, as that window last saved it (None if
    it is gone since); False, said, if it can't be (the lock, or a damaged save)."""
    store = keeper(app).store
    try:
        store.hold(run_id, take_over=True)
        return store.load_run(run_id)
    except (HorizonError, ValueError) as exc:
        app.notify(str(exc), title="The run can't be taken over", severity="error", timeout=10)
        return False


def _offer_read_only(app, run: Run, holder: str) -> None:
    def chosen(choice: str | None) -> None:
        if choice == "read":
            news = ["A fight is in progress there."] if run.fight is not None else []
            app.push_screen(DepthScreen(run, news, held_by=holder))
        elif choice == "take":
            data = _taken_over(app, run.id)
            if data:
                continue_run(app, data)

    app.push_screen(ChoiceDialog(f"This run is already being played: {holder}", [
        ("read", "Open it read-only (see it, change nothing)"),
        ("take", "Take it over (the other window stops saving it)"),
        ("cancel", "Cancel"),
    ]), chosen)
