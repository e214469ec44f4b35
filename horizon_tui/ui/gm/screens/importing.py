"""Bring characters into the party, several at once: the saves folder's characters (and those
the players offered this GM), the shipped examples, and any file or folder typed in a path
field that completes as it is typed (→ takes the completion). Space ticks, ctrl+s imports every
ticked file in one action (one ctrl+z takes them back); a file that can't be read is named with
why, and the others join."""

from __future__ import annotations

import os
from pathlib import Path

from rich.text import Text
from textual.content import Content
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.suggester import Suggester
from textual.widgets import Input, SelectionList, Static

from horizon_tui.campaign import changes
from horizon_tui.play.transfer import OutsideFolder, confined, example_files, shown
from horizon_tui.ui.gm.screens.widgets import leave_asking
from horizon_tui.ui.widgets.onoff import CheckList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

CHARACTER_SUFFIXES = (".toml", ".json")
MAX_COMPLETIONS_READ = 100_000  # names of a folder read for a completion: a vast one never stalls typing
NOTE_ROWS = 4  # the note's rows inside its border (gm.tcss: #import-note max-height 6): a summary and 3 problems


class PathSuggester(Suggester):
    """Completes the file or folder name being typed (folders end in /), as a shell's tab does."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return complete_path(value)


def complete_path(value: str) -> str | None:
    """`value` completed to the first folder entry (by name) it starts, a character file or a
    folder, or None. Over SSH only inside the GM's own folder (`transfer.confined`). A folder's
    names are read once (no file's details but the matches'), at most `MAX_COMPLETIONS_READ`."""
    if not value:
        return None
    head, _, stem = value.rpartition("/")
    folder_text = head + "/" if head or value.startswith("/") else ""
    try:
        folder = confined(Path(folder_text or "."))
        matches = []
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_COMPLETIONS_READ:
                    break
                if entry.name.startswith(stem) and entry.name != stem and not entry.name.startswith("."):
                    matches.append(entry)
        for entry in sorted(matches, key=lambda e: e.name):
            is_dir = entry.is_dir()
            if is_dir or Path(entry.name).suffix.lower() in CHARACTER_SUFFIXES:
                return f"{folder_text}{entry.name}{'/' if is_dir else ''}"
    except (OSError, ValueError):
        return None
    return None


class ImportScreen(Screen):
    TITLE = "Import characters"
    AUTO_FOCUS = "#import-list"
    GM_SCREEN = True
    BINDINGS = [
        Binding("ctrl+s", "import_ticked", "Import ticked", id="import.go"),
        Binding("ctrl+a", "tick_all", "Tick all", id="import.all", show=False),
        Binding("escape", "back", "Back", id="import.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-import")
        self.paths: list[Path] = []
        # what the last import or typed path ran into: kept while the ticks change (the import's
        # own un-ticking of those that joined redrew the note without them: found by hand)
        self.problems: list[str] = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="import-box"):
            yield Input(placeholder="a file or folder path (→ completes, enter adds)", id="import-path",
                        compact=True, suggester=PathSuggester())
            yield CheckList(id="import-list")
            yield Static(id="import-note", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        listing = self.query_one("#import-list", SelectionList)
        listing.border_title = "Characters (space ticks · ctrl+s imports the ticked)"
        party_sources = {m.source for m in self.app.campaign.party}
        for path in [*self.app.library.files(), *example_files()]:
            if str(path) not in party_sources:
                self._add(path, ticked=False)
        if listing.option_count:
            listing.highlighted = 0  # space ticks the first at once
        self._note()

    # --- the list --------------------------------------------------------------------------

    def _add(self, path: Path, *, ticked: bool) -> None:
        listing = self.query_one("#import-list", SelectionList)
        resolved = path.resolve()
        if resolved in (p.resolve() for p in self.paths):
            if ticked:
                listing.select(str(self.paths.index(next(p for p in self.paths if p.resolve() == resolved))))
            return
        self.paths.append(path)
        examples = {p.resolve() for p in example_files()}
        where = "example" if resolved in examples else "saves" if self._in_saves(resolved) else "file"
        label = Text.assemble((f"{path.stem:<14}", "bold"), (f" {where:<8}", "dim"), (f" {shown(path)}", "dim"))
        listing.add_option((label, str(len(self.paths) - 1), ticked))

    def _in_saves(self, path: Path) -> bool:
        try:
            return path.is_relative_to(self.app.host.store.saves_dir.resolve())
        except (OSError, ValueError):
            return False

    def ticked(self) -> list[Path]:
        return [self.paths[int(i)] for i in self.query_one("#import-list", SelectionList).selected]

    def _note(self, problems: list[str] | None = None) -> None:
        """The note under the list: how many are ticked, and `problems` (None: the last ones)."""
        if problems is not None:
            self.problems = list(problems)
        note = self.query_one("#import-note", Static)
        ticked = self.ticked()
        text = Text()
        text.append(f"{len(ticked)} ticked" if ticked else "Nothing ticked yet", style="bold")
        text.append(" · space ticks · ctrl+a ticks all · ctrl+s imports", style="dim")
        width = note.content_size.width

        def wrapped(shown: Text) -> list[str]:  # the rows it takes in the note, wrapped as the note wraps it
            return [line.plain for line in Content.from_rich_text(shown).wrap(width)] if width > 0 else [shown.plain]

        rows = NOTE_ROWS - len(wrapped(text))  # under the summary
        for n, problem in enumerate(self.problems):
            shown = f"✗ {problem}"
            lines = wrapped(Text(shown))
            left = len(self.problems) - n - 1
            room = rows - (1 if left else 0)  # a row kept to say how many more there are
            if len(lines) > room:
                if n > 0 or room < 1:
                    text.append(f"\n✗ … and {left + 1} more not imported (still ticked)", style="red")
                    break
                lines = [*lines[:room - 1], lines[room - 1][:max(0, width - 1)] + "…"]  # the only one: what fits
                shown = "\n".join(lines)
            text.append("\n" + shown, style="red")
            rows -= len(lines)
        note.update(text)

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged) -> None:
        self._note()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """A typed file is added (ticked); a folder adds its character files (ticked)."""
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        try:
            path = confined(Path(typed))
            if path.is_dir():
                found = sorted(p for p in path.iterdir() if p.suffix.lower() in CHARACTER_SUFFIXES and p.is_file())
                if not found:
                    raise FileNotFoundError(f"{shown(path)}: no .toml or .json character files there")
            elif path.is_file():
                found = [path]
            else:
                raise FileNotFoundError(f"{shown(path)}: no such file or folder")
        except OutsideFolder as exc:
            self._refuse(str(exc))
            return
        except OSError as exc:
            self._refuse(str(exc) if isinstance(exc, FileNotFoundError) and exc.args and not exc.filename
                         else f"{typed}: {exc.strerror or exc}")
            return
        for file in found:
            self._add(file, ticked=True)
        event.input.value = ""
        self._note([])

    def _refuse(self, problem: str) -> None:
        self.app.bell()
        self._note([problem])

    # --- actions ---------------------------------------------------------------------------

    def action_tick_all(self) -> None:
        self.query_one("#import-list", SelectionList).select_all()

    def action_import_ticked(self) -> None:
        paths = self.ticked()
        if not paths:
            self._refuse("tick the characters to import (space), or type a file's path")
            return
        joining, problems = changes.read_characters(self.app.campaign, paths, self.app.catalogue)
        names = ", ".join(character.name for character, _ in joining)
        if joining and self.app.host.act(lambda c: changes.add_members(c, joining), f"{names} join"):
            self.notify(f"{names} joined the party", title=f"Imported {len(joining)}", timeout=5)
            listing = self.query_one("#import-list", SelectionList)
            done = {source for _, source in joining}
            for index, path in enumerate(self.paths):
                if str(path) in done:
                    listing.deselect(str(index))
        if problems:
            self.app.bell()
        self._note(problems)

    def unsaved_work(self) -> str | None:
        ticked = self.ticked()
        return f"{len(ticked)} ticked character file{'s' if len(ticked) != 1 else ''} not imported" if ticked else None

    def action_back(self) -> None:
        leave_asking(self, self.app.pop_screen, "Import characters")
