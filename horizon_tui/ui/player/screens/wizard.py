"""New character: species → attributes → background → weapon and armor → review → save.

One screen, one `CharacterDraft`, the steps in a ContentSwitcher. ctrl+n goes on (refused with the reason
while a step is unfinished), escape goes back, ctrl+s on the review saves after
`check_character` finds nothing wrong.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import ContentSwitcher, OptionList, Static

from horizon_tui.errors import DataError
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.play.draft import CUSTOM, CharacterDraft
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.creation import AttributesStep, BackgroundStep, ReviewStep
from horizon_tui.ui.widgets.equipment import EquipmentStep
from horizon_tui.ui.widgets.species import SpeciesStep
from horizon_tui.ui.widgets.tone import tone

STEPS = ("species", "attributes", "background", "equipment", "review")


class StepBar(Static):
    """`✓ Species › 2 Attributes › 3 Background …` with the current step lit."""

    def show(self, titles: list[str], current: int) -> None:
        text = Text()
        for index, title in enumerate(titles):
            if index:
                text.append(" › ", style="dim")
            if index < current:
                text.append(f"✓ {title}", style=tone(self, "success"))
            elif index == current:
                text.append(f" {index + 1} {title} ", style=f"bold reverse {tone(self, 'accent')}")
            else:
                text.append(f"{index + 1} {title}", style="dim")
        self.update(text)


class CreationWizard(Screen):
    TITLE = "New character"
    BINDINGS = [
        Binding("ctrl+n", "next", "Next step", id="wizard.next"),
        Binding("escape", "back", "Back", id="wizard.back"),
        Binding("ctrl+s", "save", "Save character", id="wizard.save"),
    ]

    step = reactive(0, init=False)

    def __init__(self) -> None:
        super().__init__(id="wizard")
        self.draft: CharacterDraft | None = None

    def compose(self) -> ComposeResult:
        self.draft = CharacterDraft.new(self.app.catalogue)
        yield TitleBar()
        yield StepBar(id="step-bar")
        with ContentSwitcher(initial=STEPS[0], id="steps"):
            yield SpeciesStep(self.draft, id="species")
            yield AttributesStep(self.draft, id="attributes")
            yield BackgroundStep(self.draft, id="background")
            yield EquipmentStep(self.draft, id="equipment")
            yield ReviewStep(self.draft, id="review")
        yield KeyBar()

    def on_mount(self) -> None:
        self._enter_step()

    @property
    def current(self):
        return self.query_one(f"#{STEPS[self.step]}")

    def _enter_step(self) -> None:
        self.query_one("#steps", ContentSwitcher).current = STEPS[self.step]
        self.query_one(StepBar).show([self.query_one(f"#{s}").title for s in STEPS], self.step)
        self.sub_title = f"step {self.step + 1} of {len(STEPS)}"
        self.current.focus_first()
        self.refresh_bindings()

    def watch_step(self) -> None:
        self._enter_step()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        last = self.step == len(STEPS) - 1
        if action == "save":
            return last
        if action == "next":
            return not last
        return True

    def action_next(self) -> None:
        reason = self.current.refusal()
        if reason:
            self.app.bell()
            self.notify(reason, title=f"{self.current.title} isn't finished", severity="warning")
            return
        if self.step < len(STEPS) - 1:
            self.step += 1

    def unsaved_work(self) -> str | None:
        """For ctrl+q (`SavesFolder.quit` in ui.player.app): the character being made has no file yet."""
        name = self.draft.name.strip() if self.draft is not None else ""
        return f"the new character {name}" if name else "the new character"

    def action_back(self) -> None:
        if self.step > 0:
            self.step -= 1
            return

        def leave(answer: bool | None) -> None:
            if answer:
                self.app.pop_screen()

        self.app.push_screen(ConfirmDialog("Leave without saving this character?", yes="Leave", no="Stay",
                                           title="New character"), leave)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on a species goes on; on "Custom species…" it goes into the form."""
        if event.option_list.id != "species-list":
            return
        event.stop()
        if event.option.id == CUSTOM:
            self.query_one("#custom-name").focus()
        else:
            self.action_next()

    def action_save(self) -> None:
        assert self.draft is not None
        reason = self.query_one(ReviewStep).refusal()
        if reason:
            self.app.bell()
            self.notify(reason, title="Can't save yet", severity="error")
            return
        character = self.draft.character()
        library = self.app.library
        path = library.new_path(character.name)
        try:
            library.save(path, character)
        except (DataError, OSError) as exc:
            message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
            self.notify(message, title="Not saved", severity="error", timeout=10)
            return
        self.notify(f"{character.name} saved to {path}", title="Saved")
        self.app.open_character(path, character)
