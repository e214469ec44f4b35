"""The Load screen's import (i) and export (x) dialogs, and its list of battles (b): battles in
progress, battles kept aside (resumable) and finished battles' records (read in full)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, OptionList, Static
from textual.widgets.option_list import Option

from horizon_tui.errors import DataError, HorizonError
from horizon_tui.play.hosting import hosted
from horizon_tui.play.library import short_problem
from horizon_tui.play.transfer import (
    FolderMissing,
    OutsideFolder,
    ends_in_separator,
    example_files,
    export_character,
    import_character,
    shown,
)
from horizon_tui.storage.records import in_progress, journal_file, kept_battles, read_record, records
from horizon_tui.ui.app_contract import player_host
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.lists import RowList


def _problem(path: Path, exc: OSError) -> str:
    if isinstance(exc, OutsideFolder):
        return str(exc)
    return f"{shown(path)}: {exc.strerror or exc}"


class PathDialog(ModalScreen[Path | None]):
    """Ask for a file path; `choices` (paths) can be picked from a list instead. Esc: None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="path.cancel")]
    DEFAULT_CSS = """
    PathDialog { align: center middle; }
    PathDialog > Vertical { width: 76; max-width: 98%; height: auto; max-height: 90%;
                            border: round $accent; background: $surface; padding: 0 1; }
    PathDialog OptionList { height: auto; max-height: 8; }
    """

    def __init__(self, title: str, prompt: str, value: str = "", choices: list[Path] | None = None, *,
                 as_typed: bool = False) -> None:
        """`as_typed`: answer with the text as typed (a str), so a separator at its end still says
        "a folder"; else a Path."""
        super().__init__()
        self.title_text, self.prompt, self.value = title, prompt, value
        self.choices = choices or []
        self.as_typed = as_typed

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(Text(self.prompt, style="dim"))
            yield Input(self.value, id="path-input", compact=True)
            if self.choices:
                yield Static(Text("or pick one (up/down, enter):", style="dim"))
                yield OptionList(*[Option(Content(shown(p)), id=str(i)) for i, p in enumerate(self.choices)],
                                 id="path-choices")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_key(self, event) -> None:
        """Down (or up) in the path field goes to the list, as "up/down, enter" says: the first
        down lights its first entry, the list's own keys move on from there."""
        if event.key not in ("down", "up") or not self.choices or not isinstance(self.focused, Input):
            return
        event.stop()
        event.prevent_default()
        choices = self.query_one("#path-choices", OptionList)
        choices.focus()
        choices.highlighted = 0 if event.key == "down" else len(self.choices) - 1

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text:
            self.dismiss(text if self.as_typed else Path(text))  # `~`, the player's own folder: `transfer.confined`

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id)])

    def action_cancel(self) -> None:
        self.dismiss(None)


def ask_import(app, then) -> None:
    """Import a character file from anywhere (the shipped examples offered); `then(path)` with the
    new save, after the import."""
    def chosen(source: Path | None) -> None:
        if source is None:
            return
        try:
            saved = import_character(app.library, source)
        except DataError as exc:
            app.notify(f"{source.name}: {short_problem(exc.problems[0])}. Nothing was imported.",
                       title="Can't import", severity="error", timeout=10)
            return
        except OSError as exc:
            app.notify(f"{_problem(source, exc)}. Nothing was imported.", title="Can't import",
                       severity="error", timeout=10)
            return
        app.notify(f"Saved as {saved.name}", title=f"Imported {source.name}")
        then(saved)

    where = "in your folder" if hosted() else "from anywhere"
    app.push_screen(PathDialog("Import a character", f"A character file (.toml or .json), {where}:",
                               "" if hosted() else str(Path.cwd()) + "/", example_files()), chosen)


def ask_export(app, save: Path) -> None:
    """Copy a save out to a path the player types: a file, or a folder (one that exists, or typed
    with a separator at its end: the save's name inside it, the folder made after asking); asked
    again before replacing a file."""
    def write(typed: str, replace: bool = False, make_folder: bool = False) -> None:
        target = Path(typed)
        try:
            written = export_character(save, target, replace=replace, into_folder=ends_in_separator(typed),
                                       make_folder=make_folder)
        except FolderMissing as missing:
            app.push_screen(ConfirmDialog(f"There is no folder {shown(missing.folder)}. Make it and write "
                                          f"{save.name} into it?", yes="Make it", title="Make the folder?"),
                            lambda yes: write(typed, replace, True) if yes else None)
            return
        except FileExistsError:
            app.push_screen(ConfirmDialog(f"{shown(target)} exists. Replace it with {save.name}?", yes="Replace",
                                          title="Replace the file?"),
                            lambda yes: write(typed, True, make_folder) if yes else None)
            return
        except OSError as exc:
            app.notify(_problem(target, exc), title="Not exported", severity="error", timeout=10)
            return
        app.notify(f"Written to {shown(written)}", title=f"Exported {save.name}")

    app.push_screen(PathDialog(f"Export {save.name}", "Write a copy to (a file, or a folder ending in /):",
                               save.name if hosted() else str(Path.home() / save.name), as_typed=True),
                    lambda typed: write(typed) if typed is not None else None)


class BattlesScreen(Screen):
    """Battles in progress, battles kept aside, and finished battles' records, newest first."""

    TITLE = "Battles"
    AUTO_FOCUS = "#battle-files"
    BINDINGS = [
        Binding("enter", "open", "Resume / read", id="battles.open", priority=False),
        Binding("escape", "app.pop_screen", "Back", id="battles.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="battles")
        self.files: list = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="load-box", classes="panel"):
            yield RowList(id="battle-files", cursor_type="row", zebra_stripes=True)
        yield Static(id="save-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        saves = self.app.library.saves_dir
        try:
            self.files = in_progress(saves) + kept_battles(saves)
            problem = ""
        except HorizonError as exc:  # the database can't be opened: the records are still listed
            self.files, problem = [], f"Battles in progress can't be listed: {exc}\n"
        self.files += records(saves)
        self.query_one("#load-box").border_title = "Battles"
        self.query_one("#load-box").border_subtitle = "enter resumes a battle or reads a record"
        table = self.query_one(DataTable)
        table.styles.border = ("none", "black")  # inside the panel, as the Load screen's list
        table.styles.height = "1fr"
        for label in ("", "Character", "Encounter", "When", "Result"):
            table.add_column(label)
        words = {"progress": "in progress", "kept": "kept aside", "record": "finished"}
        for index, b in enumerate(self.files):
            result = b.problem or (b.headline if b.kind == "record" else f"{b.turns} inputs")
            table.add_row(Text(words[b.kind], style="bold" if b.kind != "record" else "dim"),
                          Text(", ".join(b.party) or b.character_stem), Text(b.encounter_name), b.when,
                          Text(result, style="red" if b.problem else ""), key=str(index))
        detail = self.query_one("#save-detail", Static)
        detail.border_title = "Where"
        detail.update(Text(f"{problem}{journal_file(saves)} (in progress, kept aside)\n{saves / 'records'} (finished: the "
                           "whole log, as text, beside the JSON that replays it)", style="dim"))
        if not self.files:
            table.add_row("", Text("No battles yet.", style="dim"), "", "", "")

    def action_open(self) -> None:
        if not self.files:
            return
        b = self.files[self.query_one(DataTable).cursor_row]
        if b.kind == "record":
            self.app.push_screen(RecordScreen(b.path))
        elif b.kind == "kept":
            player_host(self.app).resume_kept(b.path)
        else:
            player_host(self.app).resume_in_progress(b.path)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()


class RecordScreen(Screen):
    """A finished battle's record, read in full."""

    TITLE = "Battle record"
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back", id="record.back")]

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="record-scroll"):
            yield Static(id="record-text", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = self.path.name

        self.query_one("#record-text", Static).update(read_record(self.path))
        self.query_one("#record-scroll").focus()
