"""One effect of an ability (R-10): which, chance, duration, magnitude, stat. Answers with the
`EffectSpec`, or None when cancelled."""

from __future__ import annotations

from fractions import Fraction

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from horizon_tui.content.models import ATTRIBUTES, EFFECTS, Ability, AbilityKind, Difficulty, EffectSpec
from horizon_tui.content.models import STATS
from horizon_tui.rules.validation import check_ability
from horizon_tui.play.forms import number, parse_number, parse_whole
from horizon_tui.ui.widgets.ability import EFFECT_HELP
from horizon_tui.ui.widgets.onoff import OnOffBox


CHANCE_WORDS = "a chance is a percentage from 1 to 100, e.g. 50 or 50%"


def parse_chance(text: str) -> Fraction:
    """The chance field is a percentage, "%" or not: `50` and `50%` -> 1/2, `1` -> 1/100 (not
    certain: a bare 1 once read as a fraction while 2 read as 2%). Outside 1…100 or not a number: a
    ValueError that says what a chance may be (not the catch-all range of data/limits.toml)."""
    raw = text.strip()
    digits = raw[:-1].rstrip() if raw.endswith("%") else raw
    try:
        percent = parse_number(digits, "chance")
    except ValueError:
        raise ValueError(f"chance: {raw[:40]!r} is not a number; {CHANCE_WORDS}") from None
    if not 1 <= percent <= 100:
        raise ValueError(f"chance: {raw[:40]!r} is outside 1 to 100; {CHANCE_WORDS}")
    return percent / 100


class EffectDialog(ModalScreen[EffectSpec | None]):
    BINDINGS = [
        Binding("ctrl+s", "save", "Keep this effect", id="effect.save"),
        Binding("escape", "cancel", "Cancel", id="effect.cancel"),
    ]

    def __init__(self, effect: EffectSpec | None = None):
        super().__init__(classes="dialog-screen")
        self.effect = effect or EffectSpec(effect="bleeding", chance=Fraction(1), duration=3)

    def compose(self) -> ComposeResult:
        e = self.effect
        stats = [(s, s) for s in STATS] + [(a, a) for a in ATTRIBUTES]
        with Vertical(classes="dialog effect") as box:
            box.border_title = "Effect"
            with Grid(classes="form"):
                yield Label("Effect")
                yield Select([(name, name) for name in EFFECTS], value=e.effect, allow_blank=False,
                             id="effect-name", compact=True)
                yield Label("Chance %")
                yield Input(number(e.chance * 100), placeholder="1 to 100", id="effect-chance", compact=True)
                yield Label("Duration")
                yield Input(str(e.duration), placeholder="turns", id="effect-duration", compact=True)
                yield Label("Magnitude")
                yield Input(number(e.magnitude), placeholder="health per turn, % slow, buff amount",
                            id="effect-magnitude", compact=True)
                yield Label("Stat")
                yield Select(stats, value=e.stat if e.stat else Select.NULL, prompt="— none —",
                             id="effect-stat", compact=True)
                yield Label("")
                yield OnOffBox("Gradual", e.gradual, worded=True, hint="disease: lose the points a few each turn",
                               id="effect-gradual")
            yield Static(id="effect-help")
            yield Static(id="effect-problem")
            with Horizontal(classes="buttons"):
                yield Button("Keep (ctrl+s)", variant="primary", id="keep", compact=True)
                yield Button("Cancel (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self._help()
        self.query_one("#effect-name").focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        self._help()

    def _help(self) -> None:
        name = self.query_one("#effect-name", Select).value
        self.query_one("#effect-help", Static).update(
            Text(f"{name}: {EFFECT_HELP.get(str(name), '')}", style="dim italic"))

    def read(self) -> EffectSpec:
        stat = self.query_one("#effect-stat", Select).value
        duration_text = self.query_one("#effect-duration", Input).value.strip() or "0"
        return EffectSpec(
            effect=str(self.query_one("#effect-name", Select).value),
            chance=parse_chance(self.query_one("#effect-chance", Input).value or "100"),
            # the file's range for it (ranges.duration in data/limits.toml), in the same words
            duration=parse_whole(duration_text, "duration", "duration"),
            magnitude=parse_number(self.query_one("#effect-magnitude", Input).value or "0", "magnitude"),
            stat=None if stat is Select.NULL else str(stat),
            gradual=self.query_one("#effect-gradual", Checkbox).value,
        )

    def action_save(self) -> None:
        try:
            effect = self.read()
        except ValueError as exc:
            self._problem(str(exc))
            return
        probe = Ability(name="probe", difficulty=Difficulty.I, kind=AbilityKind.effect, effects=[effect])
        problems = check_ability(probe, "", "effect")
        if problems:
            self._problem(problems[0].message)
            return
        self.dismiss(effect)

    def _problem(self, message: str) -> None:
        self.app.bell()
        self.query_one("#effect-problem", Static).update(Text(f"✗ {message}", style="bold red"))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save() if event.button.id == "keep" else self.action_cancel()
