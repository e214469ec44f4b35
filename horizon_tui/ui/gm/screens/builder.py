"""Build an encounter from the keyboard: catalogue enemies and counts, the map, its XP, the party
level R-4's guide recommends for this party, and the simulated win chance for this party
(`tools.simulate.estimate`, in a background thread); groups placed automatically or one unit by
cursor; saved as an encounter file under the saves folder's `encounters/`."""

from __future__ import annotations

import attrs
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static
from textual.worker import get_current_worker

from horizon_tui.engine import mapgen
from horizon_tui.errors import DataError
from horizon_tui.campaign import encounter_file as ef
from horizon_tui.tools.simulate import estimate
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.gm.screens.placement import CellPicker
from horizon_tui.ui.gm.screens.tracker import whole_in
from horizon_tui.ui.gm.screens.widgets import Dropdown, leave_asking
from horizon_tui.rules.numbers import percent_text
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.play.forms import name_length

SIM_RUNS = 200  # battles per estimate: a ±7 % interval around an even fight, a few seconds


def builder_folder(app):
    return app.host.store.saves_dir / "encounters"


class EncounterBuilderScreen(Screen):
    TITLE = "Build an encounter"
    AUTO_FOCUS = "#build-catalogue"
    GM_SCREEN = True
    UNDO_KEEPS_WORK = True  # what is typed here stays through ctrl+z (`CampaignHost.undo`)
    BINDINGS = [
        Binding("enter", "add", "Add one", id="build.add", show=False),
        Binding("plus,equals_sign", "add", "+1", id="build.plus", key_display="+"),
        Binding("minus,delete", "remove", "−1", id="build.minus", key_display="-"),
        Binding("p", "place", "Place by cursor", id="build.place",
                tooltip="Put one unit of the highlighted group on a cell you pick"),
        Binding("ctrl+e", "simulate", "Win chance", id="build.simulate", priority=True,  # over Input's "end"
                tooltip="Simulate this party against it (the AI plays both sides)"),
        Binding("ctrl+s", "save", "Save file", id="build.save"),
        Binding("escape", "back", "Back", id="build.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-build")
        self.draft = ef.EncounterDraft()
        self.saved_draft: ef.EncounterDraft | None = None  # as first read from the form, then as last saved
        self.setup = None
        self.estimate_text = Text("ctrl+e: the win chance for this party", style="dim")

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal():
            yield RowList(id="build-catalogue", cursor_type="row", zebra_stripes=True)
            with Vertical(id="build-side"):
                yield RowList(id="build-groups", cursor_type="row")
                with Grid(classes="form", id="build-form"):
                    yield Label("Name")
                    yield Input(self.draft.name, id="build-name", compact=True, max_length=name_length())
                    yield Label("Difficulty")
                    yield Dropdown([(d, d) for d in ef.DIFFICULTIES], value="normal", allow_blank=False,
                                   id="build-difficulty", compact=True)
                    yield Label("Map")
                    yield Dropdown([(g, g) for g in mapgen.GENERATORS], value="open", allow_blank=False,
                                   id="build-generator", compact=True)
                    yield Label("Size, seed")
                    yield Input("24x16 1", id="build-size", compact=True, placeholder="24x16 1")
                yield Static(id="build-summary", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#build-catalogue", DataTable)
        table.border_title = "Enemies (enter or + adds)"
        table.add_columns("Enemy", "Lvl", "XP")
        defs = self.app.enemies()
        for key, d in sorted(defs.items(), key=lambda kv: (kv[1].level, kv[1].character.name)):
            table.add_row(d.character.name, str(d.level), str(d.xp), key=key)
        groups = self.query_one("#build-groups", DataTable)
        groups.border_title = "This encounter (- takes one off)"
        groups.add_columns("Group", "×", "Where")
        self.query_one("#build-summary").border_title = "For this party"
        self.refresh_view()

    # --- the draft --------------------------------------------------------------------------

    def _read_form(self) -> str | None:
        """The form into the draft; the reason it can't be read, or None."""
        size = self.query_one("#build-size", Input).value.lower().replace("×", "x").split()
        try:
            if not size or "x" not in size[0]:
                raise ValueError("size: write it as 24x16 (then the seed)")
            w, h = size[0].split("x", 1)
            top = self.app.rules.turns.max_size
            width = whole_in(w, mapgen.MIN_SIZE, top, "the width")
            height = whole_in(h, mapgen.MIN_SIZE, top, "the height")
            seed = whole_in(size[1], 0, 2**31 - 1, "the seed") if len(size) > 1 else 1
        except ValueError as exc:
            return str(exc)
        self.draft = attrs.evolve(
            self.draft, name=self.query_one("#build-name", Input).value,
            difficulty=str(self.query_one("#build-difficulty", Dropdown).value),
            generator=str(self.query_one("#build-generator", Dropdown).value), width=width, height=height, seed=seed)
        return None

    def refresh_view(self) -> None:
        groups = self.query_one("#build-groups", DataTable)
        row = groups.cursor_row
        groups.clear()
        defs = self.app.enemies()
        for index, g in enumerate(self.draft.groups):
            name = defs[g.enemy].character.name if g.enemy in defs else g.enemy
            groups.add_row(name, str(g.count), f"[{g.at[0]}, {g.at[1]}]" if g.at else "auto", key=str(index))
        if self.draft.groups:
            groups.move_cursor(row=min(row, len(self.draft.groups) - 1))
        self._summary()

    def _summary(self) -> None:
        summary = self.query_one("#build-summary", Static)
        problem = self._read_form()
        text = Text()
        if problem:
            summary.update(Text(f"✗ {problem}", style="bold red"))
            return
        try:
            self.setup = ef.setup_of(self.draft, builder_folder(self.app), self.app.host.store.catalogue, self.app.enemies())
        except DataError as exc:
            self.setup = None
            summary.update(Text(f"✗ {exc.problems[0].message}", style="red"))
            return
        party = self.app.campaign.party
        text.append(f"{len(self.setup.enemies)} enemies · {self.setup.xp} XP\n", style="bold")
        if party:
            level = ef.party_level_for(self.setup, len(party), self.app.host.store.catalogue)
            text.append(f"An even fight for {len(party)} at level {level} (R-4)\n")
        else:
            text.append("No party yet: the level and the odds need one\n", style="dim")
        text.append_text(self.estimate_text)
        summary.update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._changed()

    def on_select_changed(self, event) -> None:
        self._changed()

    def _changed(self) -> None:
        self.estimate_text = Text("ctrl+e: the win chance for this party", style="dim")
        if self.is_mounted:
            self._summary()

    def action_add(self) -> None:
        table = self.query_one("#build-catalogue", DataTable)
        if self.focused is not table or not table.row_count:
            if isinstance(self.focused, Input):
                self.focus_next()
            return
        key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
        self.draft = self.draft.with_one_more(str(key))
        self._changed()
        self.refresh_view()

    def action_remove(self) -> None:
        groups = self.query_one("#build-groups", DataTable)
        if not self.draft.groups:
            return
        if self.focused is self.query_one("#build-catalogue", DataTable):
            key = self.query_one("#build-catalogue", DataTable).coordinate_to_cell_key(
                (self.query_one("#build-catalogue", DataTable).cursor_row, 0)).row_key.value
            index = next((i for i, g in enumerate(self.draft.groups) if g.enemy == key), None)
        else:
            index = groups.cursor_row
        if index is None:
            return
        self.draft = self.draft.with_one_less(index)
        self._changed()
        self.refresh_view()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table.id == "build-catalogue":
            self.action_add()

    # --- placing by cursor --------------------------------------------------------------------

    def action_place(self) -> None:
        if self.setup is None or not self.draft.groups:
            self.app.bell()
            self.notify("add an enemy first", severity="warning")
            return

        index = self.query_one("#build-groups", DataTable).cursor_row
        taken = {tuple(xy): name for _, xy, name in self.setup.enemies}
        for cell in self.setup.party_start:
            taken[tuple(cell)] = "the party"

        def picked(cell) -> None:
            if cell is not None:
                self.draft = self.draft.placed_at(index, cell)
                self._changed()
                self.refresh_view()

        self.app.push_screen(CellPicker(self.setup.battlefield, taken, "Where does it stand?"), picked)

    # --- the win chance -------------------------------------------------------------------------

    def action_simulate(self) -> None:
        if self.setup is None or not self.app.campaign.party:
            self.app.bell()
            return
        self.estimate_text = Text(f"simulating {SIM_RUNS} battles…", style="yellow")
        self._summary_only()
        self._simulate(self.setup, [m.character for m in self.app.campaign.party])

    def _summary_only(self) -> None:
        self._summary()

    @work(thread=True, exclusive=True, group="build-estimate")
    def _simulate(self, setup, party) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if done % 20 == 0:
                self.app.call_from_thread(self._progress, done, total)

        try:
            result = estimate(setup, party, runs=SIM_RUNS, seed=self.draft.seed, on_progress=progress,
                              should_stop=lambda: worker.is_cancelled, catalogue=self.app.host.store.catalogue,
                              enemies=self.app.enemies())
        except (DataError, ValueError) as exc:
            self.app.call_from_thread(self._estimated, Text(f"✗ {exc}", style="red"))
            return
        line = Text()
        line.append(f"Win chance {percent_text(result.win_rate)}", style="bold green" if result.win_rate >= 0.5
                    else "bold yellow")
        line.append(f" ({percent_text(result.ci_low)}–{percent_text(result.ci_high)}, {result.runs} battles, "
                    f"~{result.rounds_p50:g} rounds)", style="dim")
        self.app.call_from_thread(self._estimated, line)

    def _progress(self, done: int, total: int) -> None:
        self.estimate_text = Text(f"simulating… {done}/{total}", style="yellow")
        self._summary()

    def _estimated(self, text: Text) -> None:
        self.estimate_text = text
        if self.is_mounted:
            self._summary()

    # --- saving -------------------------------------------------------------------------------

    def action_save(self) -> None:
        problem = self._read_form()
        if problem:
            self.app.bell()
            self.notify(problem, severity="warning")
            return
        target = ef.path_for(self.draft, builder_folder(self.app))
        if target.exists() and target.read_bytes() != ef.to_toml(self.draft).encode():
            self.app.push_screen(
                ConfirmDialog(f"There is already an encounter file {target.name}. Replace it with this "
                              "one? (Or give this one another name.)", yes="Replace", no="Keep it",
                              title="Replace an encounter?"),
                lambda yes: yes and self._write())
            return
        self._write()

    def _write(self) -> None:
        try:
            path = ef.save(self.draft, builder_folder(self.app), self.app.host.store.catalogue, self.app.enemies())
        except (DataError, OSError) as exc:
            self.app.bell()
            self.notify(str(exc.problems[0]) if isinstance(exc, DataError) else str(exc), severity="error")
            return
        self.saved_draft = self.draft
        self.notify(str(path), title="Encounter saved", timeout=6)

    # --- leaving ------------------------------------------------------------------------------

    def unsaved_work(self) -> str | None:
        """The encounter as built differs from the one last saved (or from a new one)."""
        problem = self._read_form()
        if problem is None and self.draft == (self.saved_draft or ef.EncounterDraft()):
            return None
        return f"the encounter {self.draft.name!r} (not saved to a file: ctrl+s saves it)"

    def action_back(self) -> None:
        leave_asking(self, self.app.pop_screen, "Build an encounter")
