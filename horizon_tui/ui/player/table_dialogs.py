"""At a live table: asking its GM, and the GM's answer (joining one is ui/player/joining.py).

A player asks (F9) for a free action's ruling (R-13), an override or a dialogue check (R-12): a
sentence, whom it is aimed at and a number they propose (a chance, an amount). The GM's request
dialog (F7) shows it as a ruling to accept as asked, amend (edit the fields, then accept) or
refuse; the screen sends the answer, and the ruling, to the table.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from horizon_tui.content.models import EFFECTS
from horizon_tui.engine.actions import FreeAction
from horizon_tui.engine.overrides import Damage, GrantTempHealth, Heal
from horizon_tui.engine.runner import action_to_dict
from horizon_tui.table.core import MAX_REQUEST_NUMBER, MAX_REQUEST_TEXT, REQUEST_KINDS
from horizon_tui.play.forms import number, parse_number

KIND_WORDS = {"free_action": "A free action's ruling (R-13)", "override": "An override (heal, damage, …)",
              "dialogue": "A dialogue check (R-12)"}
NUMBER_WORDS = {"free_action": "chance %", "override": "amount", "dialogue": "—"}
OVERRIDES = {"heal": Heal, "damage": Damage, "temp health": GrantTempHealth}
NOBODY = "—"


def _whole(text: str, what: str, low: int = 0, high: int = MAX_REQUEST_NUMBER) -> int:
    raw = text.strip() or "0"
    if not raw.lstrip("-").isdigit() or not low <= int(raw) <= high:
        raise ValueError(f"{what}: a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


class AskDialog(ModalScreen[tuple[str, str, str | None, int | None] | None]):
    """What a player asks the GM: a kind, a sentence (at most MAX_REQUEST_TEXT characters), whom
    it is aimed at (among `targets`, id → name: what the player's side sees) and a number."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel"),
                Binding("ctrl+s", "send", "Send", id="ask.send")]

    def __init__(self, targets: dict[str, str] | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.targets = targets or {}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = "Ask the GM"
            with Grid(classes="form"):
                yield Label("Ask for")
                yield Select([(KIND_WORDS[k], k) for k in REQUEST_KINDS], value=REQUEST_KINDS[0],
                             allow_blank=False, id="ask-kind", compact=True)
                yield Label("On whom")
                yield Select([(name, cid) for cid, name in self.targets.items()], prompt=NOBODY, id="ask-target",
                             compact=True)
                yield Label("Number")
                yield Input(placeholder="a chance in %, an amount (blank: the GM's)", id="ask-number",
                            compact=True, max_length=8)
            yield Input(placeholder="what your character does or asks, then enter", max_length=MAX_REQUEST_TEXT,
                        id="ask-text")
            yield Static("enter or ctrl+s sends · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#ask-text", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_send()

    def action_send(self) -> None:
        text = self.query_one("#ask-text", Input).value.strip()
        if not text:
            self.notify("Say what you ask first.", severity="warning")
            return
        raw = self.query_one("#ask-number", Input).value.strip().rstrip("%")
        try:
            amount = _whole(raw, "number") if raw else None
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        target = self.query_one("#ask-target", Select).value
        self.dismiss((str(self.query_one("#ask-kind", Select).value), text,
                      None if target is Select.NULL else str(target), amount))

    def action_cancel(self) -> None:
        self.dismiss(None)


@attrs.frozen
class Answer:
    """The GM's answer to a request: approved (as asked or amended) or refused, the words that go
    back to the player, and what the table carries out (a free action, or an override)."""

    approve: bool
    words: str
    action: dict[str, Any] | None = None  # the free action taken for the asker's character
    override: dict[str, Any] | None = None  # an override the GM applies
    amended: bool = False
    check: tuple[str, str, int] | None = None  # a dialogue check (npc, kind, modifier) the GM tool rolls


def request_line(request: dict[str, Any], names: dict[str, str]) -> str:
    """How a request reads on the GM's screen: who, what kind, for and on whom, the number."""
    on = f" on {names.get(request['target'], request['target'])}" if request.get("target") else ""
    figure = request.get("number")
    asked = f", asks {figure}{'%' if request.get('kind') == 'free_action' else ''}" if figure is not None else ""
    who = names.get(request.get("combatant") or "", request.get("combatant") or "—")
    return f"{request.get('seat')} ({who}), {KIND_WORDS.get(request.get('kind'), request.get('kind'))}{on}{asked}:"


class RequestDialog(ModalScreen[Answer | None]):
    """One request, as a ruling the GM accepts (ctrl+s), amends (edits the fields, then ctrl+s) or
    refuses (ctrl+r); esc leaves it waiting. `names`: combatant id → name, everyone (the GM sees
    all). A dialogue check's fields are the GM tool's (it rolls them in the campaign); here it is
    answered in words."""

    BINDINGS = [Binding("ctrl+s", "accept", "Accept", id="req.accept"),
                Binding("ctrl+r", "refuse", "Refuse", id="req.refuse"),
                Binding("escape", "later", "Later", id="req.later")]

    def __init__(self, request: dict[str, Any], names: dict[str, str]) -> None:
        super().__init__(classes="dialog-screen")
        self.request = request
        self.names = names

    def compose(self) -> ComposeResult:
        r = self.request
        kind = r.get("kind")
        with Vertical(classes="dialog request") as box:
            box.border_title = f"A request ({r.get('id')})"
            yield Static(request_line(r, self.names), markup=False, classes="request-who")
            yield Static(f"“{r.get('text')}”", markup=False, classes="question")
            with Grid(classes="form"):
                yield from self.fields(kind)
                yield Label("Your words")
                yield Input(placeholder="what the player is told (optional)", id="req-words", compact=True,
                            max_length=MAX_REQUEST_TEXT)
            yield Static(id="req-problem", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Accept (ctrl+s)", variant="primary", id="accept", compact=True)
                yield Button("Refuse (ctrl+r)", variant="error", id="refuse", compact=True)
                yield Button("Later (esc)", id="later", compact=True)

    def _target_select(self) -> Select:
        target = self.request.get("target")
        return Select([(n, c) for c, n in self.names.items()], value=target if target in self.names else Select.NULL,
                      prompt=NOBODY, id="req-target", compact=True)

    def fields(self, kind: str | None):
        figure = self.request.get("number")
        if kind == "free_action":
            yield Label("Effect")
            yield Select([(e, e) for e in (*EFFECTS, "damage")], value="knockdown", allow_blank=False,
                         id="req-effect", compact=True)
            yield Label("On whom")
            yield self._target_select()
            yield Label("Chance %")
            yield Input(str(figure if figure is not None else 100), id="req-chance", compact=True, max_length=8)
            yield Label("Turns")
            yield Input("1", id="req-duration", compact=True, max_length=4)
            yield Label("Magnitude")
            yield Input("0", id="req-magnitude", compact=True, max_length=8,
                        placeholder="damage, health per turn, % slow")
        elif kind == "override":
            yield Label("Override")
            yield Select([(w, w) for w in OVERRIDES], value="heal", allow_blank=False, id="req-what", compact=True)
            yield Label("On whom")
            yield self._target_select()
            yield Label("Amount")
            yield Input(str(figure if figure is not None else 0), id="req-amount", compact=True, max_length=8)

    def on_mount(self) -> None:
        self.query_one("#req-words", Input).focus()

    def answer(self) -> Answer:
        """The ruling as the fields stand. ValueError saying which field is wrong."""
        r = self.request
        words = self.query_one("#req-words", Input).value.strip()
        kind = r.get("kind")
        if kind not in ("free_action", "override"):
            return Answer(True, words or "approved")
        target = self.query_one("#req-target", Select).value
        target = None if target is Select.NULL else str(target)
        asked = r.get("number")
        if kind == "free_action":
            raw = self.query_one("#req-chance", Input).value.strip().rstrip("%")
            chance_pct = _whole(raw, "chance %", 0, 100)
            effect = str(self.query_one("#req-effect", Select).value)
            duration = _whole(self.query_one("#req-duration", Input).value, "turns", 0, 1000)
            magnitude = parse_number(self.query_one("#req-magnitude", Input).value or "0", "magnitude")
            chance = Fraction(chance_pct, 100)  # the field is a percentage: 1 is 1%, not certain
            action = FreeAction(str(r["combatant"]), target=target or str(r["combatant"]), description=str(r["text"]),
                                effect=effect, chance=None if chance >= 1 else Fraction(chance), duration=duration,
                                magnitude=magnitude)
            amended = target != r.get("target") or (asked is not None and chance_pct != asked)
            ruling = (f"{effect} on {self.names.get(action.target, action.target)}, "
                      f"{'certain' if chance >= 1 else f'{chance_pct}%'}"
                      + (f", {duration} turn{'s' if duration != 1 else ''}" if duration else "")
                      + (f", magnitude {number(magnitude)}" if magnitude else ""))
            return Answer(True, self._words(words, ruling, amended), action=action_to_dict(action), amended=amended)
        if target is None:
            raise ValueError("an override needs someone to apply to (On whom)")
        what = str(self.query_one("#req-what", Select).value)
        amount = _whole(self.query_one("#req-amount", Input).value, "amount", 1)
        change = OVERRIDES[what]((target,), amount, f"asked by {r.get('seat')}")
        amended = target != r.get("target") or (asked is not None and amount != asked)
        ruling = f"{what} {amount} on {self.names.get(target, target)}"
        return Answer(True, self._words(words, ruling, amended), override=action_to_dict(change), amended=amended)

    def _words(self, words: str, ruling: str, amended: bool) -> str:
        head = f"{'amended' if amended else 'as asked'}: {ruling}"
        return f"{head} — {words}" if words else head

    def action_accept(self) -> None:
        try:
            answer = self.answer()
        except ValueError as exc:
            self.app.bell()
            self.query_one("#req-problem", Static).update(Text(f"✗ {exc}", style="bold red"))
            return
        self.dismiss(answer)

    def action_refuse(self) -> None:
        self.dismiss(Answer(False, self.query_one("#req-words", Input).value.strip() or "refused"))

    def action_later(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"accept": self.action_accept, "refuse": self.action_refuse}.get(event.button.id, self.action_later)()
