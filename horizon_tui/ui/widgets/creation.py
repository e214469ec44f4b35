"""Steps 2, 3 and 5 of the creation wizard: attributes, background, review (4 is equipment.py).

Each step edits the shared `CharacterDraft`, asks the rules for every number and says, through
`refusal()`, why the wizard can't go on yet.
"""

from __future__ import annotations

import attrs
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, Select, Static

from horizon_tui.content.models import KinSettlement, PastMemory
from horizon_tui.rules.character import build, sheet
from horizon_tui.rules.creation import adjust_creation_point, points_left
from horizon_tui.rules.stats import drivers
from horizon_tui.rules.validation import check_character
from horizon_tui.play.draft import CharacterDraft
from horizon_tui.play.forms import name_length, number
from horizon_tui.ui.widgets.character import AttributeTable, SheetView, StatsPanel, sheet_heading
from horizon_tui.ui.widgets.tone import tone

ATTRIBUTE_NAMES = {
    "physical": "Physical Development",
    "agility": "Agility",
    "perception": "Perception",
    "cognition": "Cognitive Abilities",
    "faith": "Faith",
    "beauty": "Beauty (may stay at 0)",
}


def fed_line(attribute: str) -> str:
    return ", ".join(f"{stat} ×{number(c)}" for stat, c in drivers(attribute).items())


# --- step 2: attributes ------------------------------------------------------------------------


class AttributesStep(Vertical):
    title = "Attributes"

    def __init__(self, draft: CharacterDraft, **kwargs):
        super().__init__(**kwargs)
        self.draft = draft
        self.attribute = "physical"

    def compose(self) -> ComposeResult:
        yield Static(id="points-left")
        with Horizontal():
            with Vertical(id="attributes-left"):
                yield AttributeTable(id="attribute-table")
                yield Static(id="attribute-feeds")
            yield StatsPanel(id="creation-stats", classes="panel")

    def on_mount(self) -> None:
        self.query_one("#creation-stats").border_title = "Derived stats"
        self.refresh_numbers()

    def on_show(self) -> None:
        self.refresh_numbers()  # the species (and its bonuses) may have changed on step 1

    def focus_first(self) -> None:
        self.query_one(AttributeTable).focus()

    def refresh_numbers(self) -> None:
        rules = self.draft.catalogue.rules
        b = build(self.draft.character(), rules)
        self.query_one(AttributeTable).show(self.draft.attributes, b.attributes, rules.creation.attribute_minimums)
        self.query_one(StatsPanel).show(b.stats, self.attribute)
        left = points_left(self.draft.attributes, rules)
        style = tone(self, "success" if left == 0 else "warning", bold=True)
        self.query_one("#points-left", Static).update(Text.assemble(
            ("Points left ", "bold"), (f"{left}", style), f" of {rules.creation.starting_points}",
            ("    +/− or ←/→ move one point, > and < five", "dim"),
        ))
        self.query_one("#attribute-feeds", Static).update(Text.assemble(
            (ATTRIBUTE_NAMES[self.attribute], tone(self, "accent", bold=True)), " feeds ",
            fed_line(self.attribute),
        ))

    def on_attribute_table_focused(self, event: AttributeTable.Focused) -> None:
        self.attribute = event.attribute
        self.refresh_numbers()

    def on_attribute_table_adjust(self, event: AttributeTable.Adjust) -> None:
        rules = self.draft.catalogue.rules
        step = 1 if event.steps > 0 else -1
        moved = 0
        for _ in range(abs(event.steps)):
            try:
                self.draft.attributes = adjust_creation_point(self.draft.attributes, event.attribute, step, rules)
                moved += 1
            except ValueError as exc:
                if moved == 0:
                    self.app.bell()
                    self.notify(str(exc), severity="warning", timeout=3)
                break
        self.refresh_numbers()

    def refusal(self) -> str | None:
        left = points_left(self.draft.attributes, self.draft.catalogue.rules)
        if left > 0:
            return f"{left} point{'s' if left != 1 else ''} left to place"
        return None


# --- step 3: background (R-3) ------------------------------------------------------------------

MEMORY = [("remembers everything", PastMemory.all), ("remembers part", PastMemory.part), ("remembers nothing", PastMemory.none)]
KIN = [
    ("unknown: a question for the GM", KinSettlement.unknown),
    ("yes, there is one", KinSettlement.yes),
    ("no, there is none", KinSettlement.no),
]


class BackgroundStep(VerticalScroll):
    title = "Background"

    def __init__(self, draft: CharacterDraft, **kwargs):
        super().__init__(**kwargs)
        self.draft = draft

    def compose(self) -> ComposeResult:
        bg = self.draft.background
        yield Static("Who is this character, and how did they come to this world? (R-3)", classes="hint")
        with Grid(classes="form"):
            yield Label("Name")
            yield Input(self.draft.name, placeholder="what the others call them", id="bg-name", compact=True,
                        max_length=name_length())
            yield Label("Came from")
            yield Input(bg.origin, placeholder="the world, who they were, what they did", id="bg-origin",
                        compact=True)
            yield Label("Memory")
            yield Select(MEMORY, value=bg.memory, allow_blank=False, id="bg-memory", compact=True)
            yield Label("Arrived")
            yield Input(bg.arrived, placeholder="in infancy … a couple of years ago", id="bg-arrived",
                        compact=True)
            yield Label("Own kind here")
            yield Select(KIN, value=bg.kin_settlement, allow_blank=False, id="bg-kin", compact=True)
        yield Static("Own kind here: does a settlement of the character's own species exist in this "
                     "world? The GM answers and may add a note.", classes="hint")

    def focus_first(self) -> None:
        self.query_one("#bg-name").focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.input.id == "bg-name":
            self.draft.name = event.value
        elif event.input.id == "bg-origin":
            self.draft.background = attrs.evolve(self.draft.background, origin=event.value.strip())
        elif event.input.id == "bg-arrived":
            self.draft.background = attrs.evolve(self.draft.background, arrived=event.value.strip())

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.select.id == "bg-memory" and isinstance(event.value, PastMemory):
            self.draft.background = attrs.evolve(self.draft.background, memory=event.value)
        elif event.select.id == "bg-kin" and isinstance(event.value, KinSettlement):
            self.draft.background = attrs.evolve(self.draft.background, kin_settlement=event.value)

    def refusal(self) -> str | None:
        return None if self.draft.name.strip() else "the character needs a name"


# --- step 5: review ----------------------------------------------------------------------------


class ReviewStep(VerticalScroll):
    title = "Review"

    def __init__(self, draft: CharacterDraft, **kwargs):
        super().__init__(**kwargs)
        self.draft = draft

    def compose(self) -> ComposeResult:
        yield Static(id="review-heading")
        yield SheetView(id="review-sheet")
        yield Static(id="review-background")
        yield Static(id="review-status")

    def focus_first(self) -> None:
        self.focus()

    def on_show(self) -> None:
        self.refresh_review()

    def refresh_review(self) -> None:
        catalogue = self.draft.catalogue
        character = self.draft.character()
        data = sheet(build(character, catalogue.rules))
        if not character.name:
            data["name"] = "(no name yet)"
        self.query_one("#review-heading", Static).update(sheet_heading(self, data))
        self.query_one(SheetView).show(data, character.attributes)
        bg = character.background
        table = Table.grid(padding=(0, 1))
        table.add_column(style="dim")
        table.add_column()
        table.add_row("came from", bg.origin or "—")
        table.add_row("memory", dict((m, t) for t, m in MEMORY)[bg.memory])
        table.add_row("arrived", bg.arrived or "—")
        table.add_row("own kind here", dict((k, t) for t, k in KIN)[bg.kin_settlement])
        self.query_one("#review-background", Static).update(table)
        problems = check_character(character, catalogue)
        status = self.query_one("#review-status", Static)
        if problems:
            text = Text("Can't save yet:\n", style=tone(self, "error", bold=True))
            for p in problems:
                text.append(f"• {p.key}: {p.message}\n", style=tone(self, "error"))
            status.update(text)
        else:
            status.update(Text.assemble(("✓ Ready. ", tone(self, "success", bold=True)),
                                        "ctrl+s saves the character and opens its sheet."))

    def refusal(self) -> str | None:
        problems = check_character(self.draft.character(), self.draft.catalogue)
        return f"{problems[0].key}: {problems[0].message}" if problems else None
