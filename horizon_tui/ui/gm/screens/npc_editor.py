"""The NPC editor: name, level, attributes (R-1) or a willpower and health set outright, whether
dialogue checks can work on them (R-12), attitude, notes, and how it fights (species, weapon,
armour, side, who plays it, its AI, the enemy type whose abilities it uses). Saves it into the
campaign itself (ctrl+s) and answers with the `Npc`, or None."""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Checkbox, Input, Label, Select, Static, TextArea

from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.gm.screens.widgets import Dropdown
from horizon_tui.ui.widgets.onoff import OnOffBox
from horizon_tui.content.encounters import AI_PROFILES, TARGETINGS
from horizon_tui.content.models import ATTRIBUTES
from horizon_tui.errors import DataError
from horizon_tui.campaign import battles
from horizon_tui.campaign import changes as campaign_changes
from horizon_tui.campaign.model import ATTITUDES, NPC_CONTROLLERS, NPC_SIDES, Npc
from horizon_tui.rules.checks import dialogue_defence
from horizon_tui.rules.creation import starting_attributes
from horizon_tui.rules.numbers import one_decimal, whole
from horizon_tui.play.forms import name_length, parse_optional_int, parse_optional_number
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar


CHOICE_LABELS = {"attitude": "Attitude", "race": "Fights as", "weapon": "Weapon", "armor": "Armor", "side": "Side",
                 "controller": "Played by", "ai": "AI profile", "targeting": "Targeting",
                 "abilities_from": "Abilities of"}  # the dropdowns, by the Npc field each sets
FIGHT_FIELDS = tuple(key for key in CHOICE_LABELS if key != "attitude")


def field_texts(npc: Npc) -> dict[str, str]:
    """What each text field of the form shows for `npc`, by the Npc field (`read` reads them back)."""
    return {
        "name": npc.name, "species": npc.species, "level": str(npc.level),
        **{attribute: str(npc.attributes.get(attribute, 0)) for attribute in ATTRIBUTES},
        "willpower": "" if npc.willpower is None else f"{float(npc.willpower):g}",
        "health": "" if npc.health is None else str(npc.health),
        "xp": str(npc.xp),
    }


class NpcEditorScreen(Screen[Npc | None]):
    TITLE = "NPC"
    AUTO_FOCUS = "#npc-name"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save NPC", id="npc.save"),
        Binding("escape", "cancel", "Cancel", id="npc.cancel"),
    ]

    def __init__(self, npc: Npc | None) -> None:
        super().__init__(id="gm-npc")
        self.original, self.npc = self._opened(npc)
        self._choices_shown: dict[str, list[tuple[str, str]]] = {}  # each dropdown's options (edit)

    def _opened(self, npc: Npc | None) -> tuple[Npc | None, Npc]:
        """(the NPC edited or None, what the form starts from): a new one has the starting
        attributes of the campaign's rules (R-1)."""
        return npc, npc or Npc(name="", attributes=starting_attributes(self.app.rules))

    def compose(self) -> ComposeResult:
        n = self.npc
        texts = field_texts(n)
        choices = self.choices(n)
        yield TitleBar()
        with Horizontal(id="npc-box"):
            with VerticalScroll(id="npc-form"):
                with Grid(classes="form"):
                    yield Label("Name")
                    yield Input(texts["name"], placeholder="e.g. Mayor Oswin", id="npc-name", compact=True,
                                max_length=name_length())
                    yield Label("Species / role")
                    yield Input(texts["species"], placeholder="e.g. human innkeeper", id="npc-species", compact=True)
                    yield Label("Level")
                    yield Input(texts["level"], id="npc-level", compact=True, type="integer")
                    for attribute in ATTRIBUTES:
                        yield Label(attribute)
                        yield Input(texts[attribute], id=f"npc-{attribute}", compact=True, type="integer")
                    yield Label("Willpower")
                    yield Input(texts["willpower"], id="npc-willpower", placeholder="blank: computed", compact=True)
                    yield Label("Health")
                    yield Input(texts["health"], id="npc-health", placeholder="blank: computed", compact=True)
                    yield Label("XP")
                    yield Input(texts["xp"], id="npc-xp", compact=True, type="integer")
                    yield Label("Checks")
                    yield OnOffBox("dialogue checks work (R-12)", n.checkable, id="npc-checkable")
                    for key, label in CHOICE_LABELS.items():
                        options, value = choices[key]
                        self._choices_shown[key] = options
                        yield Label(label)
                        yield Dropdown(options, value=value, allow_blank=False, id=f"npc-{key}", compact=True)
                yield Label("Notes", classes="gm-label")
                yield TextArea(n.notes, id="npc-notes")
            yield Static(id="npc-preview", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.sub_title = self.original.name if self.original else "new"
        self.query_one("#npc-preview").border_title = "As the rules see them"
        self.refresh_preview()

    def edit(self, npc: Npc | None) -> None:
        """The same form, opened again for `npc` (None: a new one), as a new editor would show it.
        The dashboard keeps one editor: one built for each NPC (sixty widgets) was taken down again
        when it closed, and the dashboard drawn, laid out and drawn again for it (three full frames
        for a new NPC where one will do)."""
        self.original, self.npc = self._opened(npc)
        n = self.npc
        choices = self.choices(n)
        with self.prevent(Input.Changed, Checkbox.Changed, Select.Changed, TextArea.Changed):
            for key, text in field_texts(n).items():
                field = self.query_one(f"#npc-{key}", Input)
                field.value = text
                field.cursor_position = len(text)
            self.query_one("#npc-checkable", Checkbox).value = n.checkable
            for key, (options, value) in choices.items():
                dropdown = self.query_one(f"#npc-{key}", Select)
                if options != self._choices_shown.get(key):
                    self._choices_shown[key] = options
                    dropdown.set_options(options)
                dropdown.value = value
            self.query_one("#npc-notes", TextArea).load_text(n.notes)
        self.sub_title = npc.name if npc else "new"
        self.query_one("#npc-form", VerticalScroll).scroll_home(animate=False)
        self.set_focus(self.query_one("#npc-name", Input))
        self.refresh_preview()

    def choices(self, npc: Npc) -> dict[str, tuple[list[tuple[str, str]], str]]:
        """Each dropdown's (options, value) for `npc`: a value the data no longer has (a weapon
        taken out) stays one of the options."""
        catalogue = self.app.host.store.catalogue
        ids = {
            "attitude": list(ATTITUDES),
            "race": list(catalogue.species),
            "weapon": list(catalogue.weapons),
            "armor": ["", *catalogue.armor],
            "side": list(NPC_SIDES),
            "controller": list(NPC_CONTROLLERS),
            "ai": list(AI_PROFILES),
            "targeting": list(TARGETINGS),
            "abilities_from": ["", *sorted(self.enemies())],
        }
        found = {}
        for key, known in ids.items():
            value = getattr(npc, key)
            options = known if value in known or key == "attitude" else [*known, value]
            found[key] = ([(self.option_label(key, i), i) for i in options], value)
        return found

    def enemies(self) -> dict:
        """The enemy types an NPC may take its abilities from; none if data/enemies can't be read
        (the GM app reports that where it loads them for a battle)."""
        try:
            return self.app.enemies()
        except DataError:
            return {}

    def option_label(self, key: str, value: str) -> str:
        if not value:
            return "none"
        enemy = self.enemies().get(value) if key == "abilities_from" else None
        return f"{enemy.character.name} (level {enemy.level})" if enemy is not None else value

    def read(self) -> Npc:
        """The form as an Npc; ValueError with what is wrong."""
        value = lambda key: self.query_one(f"#npc-{key}", Input).value  # noqa: E731
        attributes = {}
        for attribute in ATTRIBUTES:
            number = parse_optional_int(value(attribute), attribute)
            attributes[attribute] = number or 0
        willpower = parse_optional_number(value("willpower"), "willpower")
        return attrs.evolve(  # the fight fields (race, weapon, side…) kept as they were
            self.npc,
            name=value("name").strip(),
            species=value("species").strip(),
            level=parse_optional_int(value("level"), "level") or 1,
            attributes=attributes,
            willpower=willpower,
            health=parse_optional_int(value("health"), "health"),
            xp=parse_optional_int(value("xp"), "XP") or 0,
            checkable=self.query_one("#npc-checkable", Checkbox).value,
            attitude=str(self.query_one("#npc-attitude", Select).value),
            notes=self.query_one("#npc-notes", TextArea).text.strip(),
            **{key: str(self.query_one(f"#npc-{key}", Select).value) for key in FIGHT_FIELDS},
        )

    def problem(self, npc: Npc) -> str | None:
        campaign = self.app.campaign
        try:
            campaign_changes.save_npc(campaign, self.original.name if self.original else None, npc)
            if npc.abilities_from:  # its kit must fit its level, as a battle would check
                battles.npc_character(npc, self.app.host.store.catalogue.with_rules(self.app.rules), self.enemies())
        except ValueError as exc:
            return str(exc)
        return None

    def refresh_preview(self) -> None:
        text = Text()
        try:
            npc = self.read()
        except ValueError as exc:
            text.append(f"✗ {exc}", style="bold red")
            self.query_one("#npc-preview", Static).update(text)
            return
        catalogue, enemies = self.app.catalogue, self.enemies()  # the campaign's rules (health_scale)
        stats = npc.stats(catalogue, enemies)
        text.append("willpower ", style="dim")
        text.append(f"{one_decimal(npc.effective_willpower(catalogue, enemies)):g}", style="bold")
        text.append(" (set)\n" if npc.willpower is not None else " (R-2)\n", style="dim")
        text.append("health ", style="dim")
        text.append(f"{npc.effective_health(catalogue, enemies)}", style="bold")
        text.append(" (set)\n" if npc.health is not None else f" (R-2: {whole(stats['health'])})\n", style="dim")
        text.append("free-action points ", style="dim")
        text.append(f"{npc.free_action_points(self.app.rules)}\n", style="bold")
        dialogue = self.app.rules.dialogue
        defence = dialogue_defence(npc.effective_willpower(catalogue, enemies), dialogue)
        text.append(f"\nA dialogue check against them: {dialogue.die} + score vs {dialogue.die} + "
                    f"{one_decimal(defence):g} (R-12)\n", style="dim")
        for name in ("charisma", "initiative", "evasion", "accuracy"):
            text.append(f"{name} {one_decimal(stats[name]):g}  ", style="dim")
        template = self.enemies().get(npc.abilities_from) if npc.abilities_from else None
        if template is not None:
            slotted = set(template.character.loadout)
            text.append(f"\n\nFights with the abilities of {template.character.name} "
                        f"(level {template.level}):\n", style="dim")
            for ability in template.character.abilities:
                text.append(f"{'●' if ability.name in slotted else '○'} {ability.name}", style="bold")
                text.append(f"  {ability.difficulty.value}\n", style="dim")
        problem = self.problem(npc)
        if problem and npc.name:
            text.append(f"\n\n✗ {problem}", style="bold red")
        self.query_one("#npc-preview", Static).update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self.refresh_preview()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.refresh_preview()

    def on_select_changed(self, event: Select.Changed) -> None:
        self.refresh_preview()

    def action_save(self) -> None:
        try:
            npc = self.read()
        except ValueError as exc:
            self.app.bell()
            self.notify(str(exc), severity="error")
            return
        problem = self.problem(npc)
        if problem:
            self.app.bell()
            self.notify(problem, title="Not saved", severity="error")
            return
        # saved from here, so a refusal (a text longer than a campaign holds) leaves the form open
        old = self.original.name if self.original else None
        if self.app.host.act(lambda c: campaign_changes.save_npc(c, old, npc), f"NPC {npc.name}"):
            self.dismiss(npc)

    def unsaved_work(self) -> str | None:
        """The form changed from the NPC it opened with (a form that doesn't read is changed)."""
        try:
            same = self.read() == self.npc
        except ValueError:
            same = False
        if same:
            return None
        name = self.query_one("#npc-name", Input).value.strip() or (self.original.name if self.original else "")
        return f"the NPC {name}" if name else "the new NPC"

    def action_cancel(self) -> None:
        unsaved = self.unsaved_work()
        if unsaved is None:
            self.dismiss(None)
            return

        self.app.push_screen(ConfirmDialog(f"Forget the changes to {unsaved}?", yes="Forget them",
                                           no="Keep editing", title="NPC"),
                             lambda forget: forget and self.dismiss(None))

