"""The rules editor: the campaign's house rules in editable tables, checked as they are typed,
with the differences from the shipped `rules.toml`. Saved into the campaign (ctrl+s), so two
campaigns can play by different rules; the campaign's battles and sheets use them."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static, TabbedContent, TabPane

from horizon_tui.campaign import house_rules as re_
from horizon_tui.campaign import changes as campaign_changes
from horizon_tui.campaign.campaign_files import slug
from horizon_tui.storage.atomic import atomic_write
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

TABS = ("levels", "difficulties", "numbers", "diff")
DIFFICULTIES = ("I", "II", "III", "IV", "V", "VI")


def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if value is None:
        return "—"
    return str(value)


class RulesEditorScreen(Screen):
    TITLE = "House rules"
    AUTO_FOCUS = "#rules-levels"
    GM_SCREEN = True
    BINDINGS = [
        Binding("ctrl+s", "save", "Save to campaign", id="rulesed.save"),
        Binding("plus", "add_level", "Add level", id="rulesed.add_level"),
        Binding("minus", "remove_level", "Remove level", id="rulesed.remove_level"),
        Binding("d", "default", "Shipped value", id="rulesed.default", tooltip="Put the shipped value back in this cell"),
        Binding("x", "export", "Export rules.toml", id="rulesed.export",
                tooltip="The campaign's rules as a rules.toml beside it, for `horizon rules --rules-file`"),
        Binding("escape", "leave", "Back", id="rulesed.back"),
        *[Binding(str(n), f"tab('{tab}')", f"{tab.capitalize()} tab", show=False, id=f"rulesed.tab.{tab}",
                  group=Binding.Group("Switch tab")) for n, tab in enumerate(TABS, start=1)],
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-rules")
        self.defaults: dict = {}
        self.saved: dict = {}
        self.draft: dict = {}
        self.editing: tuple | None = None
        self.number_paths: list[tuple] = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(Text.assemble(
            ("[H]", "bold yellow"), " a house default (RULES.md): the source is silent, so a GM may change it. ",
            ("enter", "bold"), " edits a cell · ", ("ctrl+s", "bold"), " saves these rules into the campaign.",
        ), id="rules-legend")
        with TabbedContent(id="rules-tabs"):
            with TabPane(r"1 Levels \[H] R-5", id="levels"):
                yield DataTable(id="rules-levels", cursor_type="cell", zebra_stripes=True)
            with TabPane(r"2 Difficulties \[H] R-5", id="difficulties"):
                yield DataTable(id="rules-difficulties", cursor_type="cell", zebra_stripes=True)
            with TabPane("3 Other numbers", id="numbers"):
                yield RowList(id="rules-numbers", cursor_type="row", zebra_stripes=True)
            with TabPane("4 Changes", id="diff"):
                yield RowList(id="rules-diff", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="rules-edit-bar"):
            yield Label("", id="rules-edit-key")
            yield Input(id="rules-edit-value", compact=True, placeholder="pick a cell and press enter")
        yield Static(id="rules-problems")
        yield KeyBar()

    def on_mount(self) -> None:
        self.defaults = self.app.host.gm.defaults
        self.saved = re_.merge(self.defaults, self.app.campaign.rules)
        self.draft = self.saved
        levels = self.query_one("#rules-levels", DataTable)
        levels.add_columns("level", *[label for label, _ in re_.LEVEL_COLUMNS])
        difficulties = self.query_one("#rules-difficulties", DataTable)
        difficulties.add_columns("difficulty", *[label for label, _ in re_.DIFFICULTY_COLUMNS])
        self.query_one("#rules-numbers", DataTable).add_columns("mark", "rule", "value", "shipped")
        self.query_one("#rules-diff", DataTable).add_columns("rule", "shipped", "this campaign")
        self.query_one("#rules-edit-value", Input).disabled = True
        self.refresh_tables()
        self.show_problems(re_.problems(self.draft))

    # --- drawing -----------------------------------------------------------------------------

    def _styled(self, path: tuple) -> Text:
        value = re_.get(self.draft, path)
        try:
            default = re_.get(self.defaults, path)
        except (KeyError, IndexError, TypeError):
            default = object()
        return Text(shown(value), style="bold yellow" if value != default else "")

    def refresh_tables(self) -> None:
        levels = self.query_one("#rules-levels", DataTable)
        cursor = levels.cursor_coordinate
        levels.clear()
        rows = self.draft["levels"]
        for index, row in enumerate(rows):
            label = f"{row['level']}+" if index == len(rows) - 1 else str(row["level"])
            levels.add_row(label, *[self._styled(("levels", index, *path)) for _, path in re_.LEVEL_COLUMNS])
        levels.move_cursor(row=min(cursor.row, len(rows) - 1), column=cursor.column)

        table = self.query_one("#rules-difficulties", DataTable)
        cursor = table.cursor_coordinate
        table.clear()
        for d in DIFFICULTIES:
            table.add_row(d, *[self._styled(("difficulties", d, *path)) for _, path in re_.DIFFICULTY_COLUMNS])
        table.move_cursor(row=cursor.row, column=cursor.column)

        table = self.query_one("#rules-numbers", DataTable)
        row = table.cursor_row
        table.clear()
        self.number_paths = []
        for item in re_.number_rows(self.draft):
            try:
                default = shown(re_.get(self.defaults, item.path))
            except (KeyError, IndexError, TypeError):
                default = "—"
            mark = Text(item.mark, style="bold yellow" if item.mark.startswith("[H]") else "dim")
            table.add_row(mark, item.key, self._styled(item.path), Text(default, style="dim"))
            self.number_paths.append(item.path)
        table.move_cursor(row=min(row, len(self.number_paths) - 1))

        table = self.query_one("#rules-diff", DataTable)
        table.clear()
        changes = re_.diff(self.defaults, self.draft)
        for key, old, new in changes:
            table.add_row(key, shown(old), Text(shown(new), style="bold yellow"))
        unsaved = self.draft != self.saved
        self.sub_title = f"{len(changes)} change{'s' if len(changes) != 1 else ''} from the shipped rules" + (
            " · not saved" if unsaved else "")

    def show_problems(self, problems: list[str], parse_error: str | None = None) -> None:
        text = Text()
        if parse_error:
            text.append(f"✗ {parse_error}\n", style="bold red")
        for problem in problems[:6]:
            text.append(f"✗ {problem}\n", style="red")
        if len(problems) > 6:
            text.append(f"… and {len(problems) - 6} more\n", style="red")
        if not problems and not parse_error:
            text.append("✓ these rules hold together", style="green")
        self.query_one("#rules-problems", Static).update(text)

    # --- editing a cell ----------------------------------------------------------------------

    def _path_of(self, table_id: str, row: int, column: int) -> tuple | None:
        if table_id == "rules-levels":
            return None if column == 0 else ("levels", row, *re_.LEVEL_COLUMNS[column - 1][1])
        if table_id == "rules-difficulties":
            return None if column == 0 else ("difficulties", DIFFICULTIES[row], *re_.DIFFICULTY_COLUMNS[column - 1][1])
        if table_id == "rules-numbers" and row < len(self.number_paths):
            return self.number_paths[row]
        return None

    def _focused_path(self) -> tuple | None:
        table = self.focused if isinstance(self.focused, DataTable) else None
        if table is None:
            return None
        coordinate = table.cursor_coordinate
        return self._path_of(table.id or "", coordinate.row, coordinate.column)

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        self.begin_edit(self._path_of(event.data_table.id or "", event.coordinate.row, event.coordinate.column))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table.id == "rules-numbers":
            self.begin_edit(self._path_of("rules-numbers", event.cursor_row, 2))

    def begin_edit(self, path: tuple | None) -> None:
        if path is None:
            self.notify("The level numbers run 1, 2, 3…: + adds a level, - removes the last", timeout=4)
            return
        self.editing = path
        self.query_one("#rules-edit-key", Label).update(f"{re_.shown_key(self.draft, path)} = ")
        field = self.query_one("#rules-edit-value", Input)
        field.disabled = False
        field.value = shown(re_.get(self.draft, path)) if re_.get(self.draft, path) is not None else ""
        field.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.editing is None:
            return
        try:
            candidate = re_.set_cell(self.draft, self.editing, event.value)
        except ValueError as exc:
            self.show_problems(re_.problems(self.draft), str(exc))
            return
        self.show_problems(re_.problems(candidate))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.editing is None:
            return
        try:
            self.draft = re_.set_cell(self.draft, self.editing, event.value)
        except ValueError as exc:
            self.app.bell()
            self.show_problems(re_.problems(self.draft), str(exc))
            return
        self._end_edit()

    def _end_edit(self) -> None:
        self.editing = None
        field = self.query_one("#rules-edit-value", Input)
        field.value = ""
        field.disabled = True
        self.query_one("#rules-edit-key", Label).update("")
        self.refresh_tables()
        self.show_problems(re_.problems(self.draft))
        active = self.query_one(TabbedContent).active or "levels"
        self.query_one(f"#rules-{active}", DataTable).focus()

    # --- actions -----------------------------------------------------------------------------

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.query_one(f"#rules-{tab}", DataTable).focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id and self.editing is None:
            self.query_one(f"#rules-{event.pane.id}", DataTable).focus()

    def action_add_level(self) -> None:
        self.draft = re_.add_level(self.draft)
        self.refresh_tables()
        self.show_problems(re_.problems(self.draft))

    def action_remove_level(self) -> None:
        try:
            self.draft = re_.remove_level(self.draft)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        self.refresh_tables()
        self.show_problems(re_.problems(self.draft))

    def action_default(self) -> None:
        path = self._focused_path()
        if path is None:
            return
        try:
            default = re_.get(self.defaults, path)
        except (KeyError, IndexError, TypeError):
            self.notify("The shipped rules have no such cell", severity="warning")
            return
        self.draft = re_.set_cell(self.draft, path, shown(default) if default is not None else "")
        self.refresh_tables()
        self.show_problems(re_.problems(self.draft))

    def action_save(self) -> None:
        problems = re_.problems(self.draft)
        if problems:
            self.app.bell()
            self.notify(problems[0], title="Not saved: the rules don't hold together", severity="error", timeout=8)
            return
        overrides = re_.overrides(self.defaults, self.draft)
        changes = re_.diff(self.defaults, self.draft)
        if self.app.host.act(lambda c: campaign_changes.set_rules(c, overrides, changes), "house rules"):
            self.saved = self.draft
            self.refresh_tables()
            self.notify(f"{len(changes)} change{'s' if len(changes) != 1 else ''} from the shipped rules",
                        title="House rules saved")

    def action_export(self) -> None:
        """The rules the campaign plays by (saved, not the draft) as a rules.toml beside it."""
        campaign = self.app.campaign
        path = self.app.host.store.folder / slug(campaign.name) / "rules.toml"  # by that name horizon validate reads it
        try:
            atomic_write(path, re_.rules_file(self.saved, campaign.name))
        except OSError as exc:
            self.notify(f"{path}: {exc}", title="Not exported", severity="error", timeout=8)
            return
        draft = " The draft shown is not saved: ctrl+s, then x again." if self.draft != self.saved else ""
        self.notify(f"{path}\nhorizon rules --rules-file {path} prints them.{draft}", title="Rules exported",
                    timeout=10)

    def unsaved_work(self) -> str | None:
        return "the house rules being edited" if self.draft != self.saved else None

    def action_leave(self) -> None:
        if self.editing is not None:
            self._end_edit()
            return
        if self.draft == self.saved:
            self.app.pop_screen()
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self.app.pop_screen()

        self.app.push_screen(ConfirmDialog("Leave without saving these rules?", yes="Leave", no="Stay",
                                           title="House rules"), answer)

    def refresh_view(self) -> None:
        """The campaign changed (an undo): show its rules, dropping an unsaved draft."""
        self.saved = re_.merge(self.defaults, self.app.campaign.rules)
        self.draft = self.saved
        self.refresh_tables()
        self.show_problems(re_.problems(self.draft))
