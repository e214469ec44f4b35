"""The species step: the catalogue with bonuses and descriptions, or a custom species with a
budget meter (R-3) that shows the bonuses' cost against the budget and why it is over."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import ContentSwitcher, Input, Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from horizon_tui.content.models import ATTRIBUTES, STATS, Bonuses, Species
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.rules.creation import SpeciesBudget, species_budget
from horizon_tui.play.draft import CUSTOM, CharacterDraft
from horizon_tui.play.forms import format_bonuses, name_length, number, parse_bonuses
from horizon_tui.ui.widgets.tone import tone


def feature_lines(species: Species) -> list[str]:
    f = species.features
    lines = []
    if f.attack_formula:
        lines.append(f"own normal-attack formula: {f.attack_formula}")
    if f.crit_immune:
        lines.append("immune to critical damage")
    if f.effect_immunities:
        lines.append(f"immune to {', '.join(f.effect_immunities)}")
    if f.sight_radius is not None:
        lines.append(f"sees {f.sight_radius} cells around")
    for terrain, cost in f.terrain_costs.items():
        lines.append(f"{terrain} ground costs {cost} movement")
    if not species.humanoid:
        lines.append("not humanoid")
    if not species.common:
        lines.append("uncommon: small settlements react to it (R-3)")
    return lines


def budget_text(budget: SpeciesBudget) -> str:
    return f"{number(budget.cost)} of {number(budget.budget)} points"


class SpeciesDetails(Static):
    def show(self, species: Species, rules: Ruleset) -> None:
        budget = species_budget(species, rules)
        text = Text()
        text.append(species.name, style=tone(self, "accent", bold=True))
        text.append(f"\n{species.universe}\n\n", style="italic dim")
        text.append(species.description or "(no description)")
        text.append("\n\nBonuses   ", style="dim")
        bonuses = format_bonuses(species.bonuses.attributes, species.bonuses.stats)
        text.append(bonuses or "none", style=tone(self, "success", bold=True) if bonuses else "dim")
        text.append(f"  ({budget_text(budget)})", style="dim")
        for index, line in enumerate(feature_lines(species)):
            text.append("\nFeatures  " if index == 0 else "\n          ", style="dim")
            text.append(line)
        self.update(text)


class BudgetMeter(Horizontal):
    """Cost against budget as a bar; over budget turns it red and says why."""

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=3, show_eta=False, show_percentage=False, id="budget-bar")
        yield Label(id="budget-label")

    def show(self, budget: SpeciesBudget) -> None:
        bar = self.query_one(ProgressBar)
        bar.update(total=float(budget.budget), progress=float(min(budget.cost, budget.budget)))
        self.set_class(not budget.fits, "-over")
        self.query_one("#budget-label", Label).update(budget_text(budget))


class CustomSpeciesForm(Vertical):
    @dataclass
    class Changed(Message):
        form: CustomSpeciesForm

    def compose(self) -> ComposeResult:
        with Grid(classes="form"):
            yield Label("Name")
            yield Input(placeholder="e.g. Moth-kin", id="custom-name", compact=True, max_length=name_length())
            yield Label("Universe")
            yield Input(placeholder="where it comes from, e.g. Slavic folklore", id="custom-universe", compact=True)
            yield Label("Description")
            yield Input(placeholder="what it looks like, how it lives", id="custom-description", compact=True)
            yield Label("Bonuses")
            yield Input(placeholder="perception +1, evasion +1.5", id="custom-bonuses", compact=True)
            yield Label("Budget")
            yield BudgetMeter()
        yield Static(id="custom-problem")
        yield Static(
            "Bonuses name attributes (whole points) or derived stats (any amount): "
            f"{', '.join(ATTRIBUTES)}; {', '.join(STATS)}. A stat bonus costs what the attribute "
            "giving most of it would need (R-3).",
            classes="hint",
        )

    def read(self) -> tuple[str, str, str, str]:
        return tuple(self.query_one(f"#custom-{k}", Input).value  # type: ignore[return-value]
                     for k in ("name", "universe", "description", "bonuses"))

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self))

    def show(self, budget: SpeciesBudget | None, problem: str | None) -> None:
        if budget is not None:
            self.query_one(BudgetMeter).show(budget)
        message = problem or (budget.reason if budget and budget.reason else None)
        note = self.query_one("#custom-problem", Static)
        note.update(Text(f"✗ {message}", style=tone(self, "error", bold=True)) if message else "")


class SpeciesStep(Vertical):
    """Step 1. Highlighting a species chooses it; enter goes on to the next step."""

    title = "Species"

    def __init__(self, draft: CharacterDraft, **kwargs):
        super().__init__(**kwargs)
        self.draft = draft

    def compose(self) -> ComposeResult:
        catalogue = self.draft.catalogue
        species = sorted(catalogue.species.items(), key=lambda item: item[1].name)
        options = [Option(Content(s.name), id=key) for key, s in species]
        options.append(Option(Content.from_markup("[b $accent]✚[/] Custom species…"), id=CUSTOM))
        with Horizontal():
            yield OptionList(*options, id="species-list")
            with ContentSwitcher(initial="species-detail", id="species-right"):
                yield SpeciesDetails(id="species-detail", classes="panel")
                yield CustomSpeciesForm(id="custom-species", classes="panel")

    def on_mount(self) -> None:
        self.query_one("#species-list").border_title = "Species"
        self.query_one("#custom-species").border_title = "Your own species"
        species_list = self.query_one("#species-list", OptionList)
        species_list.highlighted = species_list.get_option_index(self.draft.species_id)
        self._show()

    def focus_first(self) -> None:
        self.query_one("#species-list").focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "species-list" and event.option.id:
            self.draft.species_id = event.option.id
            self._show()

    def on_custom_species_form_changed(self, event: CustomSpeciesForm.Changed) -> None:
        name, universe, description, bonuses_text = event.form.read()
        try:
            attributes, stats = parse_bonuses(bonuses_text)
            self.draft.custom_problem = None
        except ValueError as exc:
            attributes, stats = {}, {}
            self.draft.custom_problem = str(exc)
        self.draft.set_custom(name, universe, description, Bonuses(attributes, stats))
        self._show()

    def _show(self) -> None:
        switcher = self.query_one("#species-right", ContentSwitcher)
        rules = self.draft.catalogue.rules
        if self.draft.is_custom:
            switcher.current = "custom-species"
            problem = self.draft.custom_problem
            budget = None if problem else species_budget(self.draft.custom, rules)
            self.query_one(CustomSpeciesForm).show(budget, problem)
        else:
            switcher.current = "species-detail"
            self.query_one(SpeciesDetails).show(self.draft.species(), rules)

    def refusal(self) -> str | None:
        if not self.draft.is_custom:
            return None
        if not self.draft.custom.name:
            return "your species needs a name"
        if self.draft.custom_problem:
            return self.draft.custom_problem
        budget = species_budget(self.draft.custom, self.draft.catalogue.rules)
        if budget.reason:
            return f"over the species budget: {budget.reason} (R-3)"
        return None
