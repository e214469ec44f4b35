"""Dialogue checks (R-12) and settlement reactions (R-3), from one screen.

Pick the character, the NPC and the kind of check; type what the character says; set the GM's
modifier. The odds show before the roll and the dice after it. The daily limits (4 per character,
1 per NPC) refuse a check unless the GM overrides them, giving a reason that is recorded.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Label, Select, Static, TextArea

from horizon_tui.campaign import changes
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.gm.screens.widgets import Dropdown, leave_asking
from horizon_tui.ui.gm.screens.dialogs import reason_dialog
from horizon_tui.rules.checks import DialogueRoll, dialogue_defence
from horizon_tui.rules.numbers import one_decimal, percent_text
from horizon_tui.play.forms import parse_whole
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar


class DialogueScreen(Screen):
    TITLE = "Dialogue checks"
    AUTO_FOCUS = "#roleplay"
    GM_SCREEN = True
    UNDO_KEEPS_WORK = True  # what is typed here stays through ctrl+z (`CampaignHost.undo`)
    BINDINGS = [
        Binding("ctrl+r", "roll", "Roll the check", id="talk.roll"),
        Binding("ctrl+t", "reactions", "Settlement reactions", id="talk.reactions",
                tooltip="R-3: each uncommon-species character rolls how the settlement takes them"),
        Binding("ctrl+up", "modifier(1)", "Modifier +1", id="talk.plus"),
        Binding("ctrl+down", "modifier(-1)", "Modifier −1", id="talk.minus"),
        Binding("ctrl+n", "next_day", "Next day", id="talk.day"),
        Binding("escape", "back", "Back", id="talk.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-dialogue")
        self.last: tuple[changes.CheckPlan, DialogueRoll] | None = None

    def compose(self) -> ComposeResult:
        campaign = self.app.campaign
        dialogue = self.app.rules.dialogue
        party = [(m.name, m.name) for m in campaign.party]
        npcs = [(n.name if n.checkable else f"{n.name} (can't be checked)", n.name) for n in campaign.npcs]
        kinds = [(f"{kind} ({' or '.join(scores)})", kind) for kind, scores in dialogue.types.items()]
        yield TitleBar()
        with Horizontal():
            with VerticalScroll(id="talk-form"):
                with Grid(classes="form"):
                    yield Label("Character")
                    yield Dropdown(party, value=party[0][1] if party else Select.NULL, id="talk-character",
                                 compact=True, prompt="no party yet")
                    yield Label("NPC")
                    first = next((n.name for n in campaign.npcs if n.checkable), None)
                    yield Dropdown(npcs, value=first if first else Select.NULL, id="talk-npc", compact=True,
                                 prompt="no NPC yet")
                    yield Label("Check")
                    yield Dropdown(kinds, value=kinds[0][1], allow_blank=False, id="talk-kind", compact=True)
                    yield Label("GM modifier")
                    yield Input("0", id="talk-modifier", compact=True,
                                placeholder=f"{dialogue.modifier_min}…{dialogue.modifier_max}")
                    yield Label("Settlement")
                    yield Input("", id="talk-settlement", compact=True, placeholder="blank: none")
                yield Label("What the character says or does", classes="gm-label")
                yield TextArea(id="roleplay")
                yield Static(id="talk-odds", classes="panel")
                yield Static(id="talk-result", classes="panel")
            with VerticalScroll(id="talk-side"):  # scrolled to the newest check after each roll
                yield Static(id="talk-today", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#talk-odds").border_title = "Before the roll"
        self.query_one("#talk-result").border_title = "The roll"
        self.query_one("#talk-today").border_title = "Today"
        self.refresh_view()

    # --- reading the form --------------------------------------------------------------------

    def _value(self, key: str) -> str:
        return self.query_one(f"#talk-{key}", Input).value

    def _select(self, key: str) -> str | None:
        value = self.query_one(f"#talk-{key}", Select).value
        return None if value is Select.NULL else str(value)

    def plan(self) -> changes.CheckPlan:
        character, npc = self._select("character"), self._select("npc")
        if character is None:
            raise ValueError("the party is empty: add a character on the dashboard")
        if npc is None:
            raise ValueError("no NPC to talk to: add one on the dashboard (n)")
        d = self.app.rules.dialogue
        modifier = parse_whole(self._value("modifier").strip() or "0", "the GM's modifier",
                               low=d.modifier_min, high=d.modifier_max)
        return changes.plan_check(self.app.campaign, character, npc, self._select("kind") or "", modifier,
                                   self.app.rules, self._value("settlement"), self.app.catalogue)

    # --- drawing -----------------------------------------------------------------------------

    def refresh_view(self) -> None:
        self._show_odds()
        self._show_result()
        self._show_today()

    def _show_odds(self) -> None:
        odds = self.query_one("#talk-odds", Static)
        try:
            plan = self.plan()
        except ValueError as exc:
            odds.update(Text(f"✗ {exc}", style="bold red"))
            return
        rules = self.app.rules
        d = rules.dialogue
        text = Text()
        factor = d.accuracy_factor if plan.score_name == "accuracy" else d.score_factor
        text.append(f"{plan.kind}: ", style="bold")
        text.append(f"{d.die} + {plan.score_name} ×{one_decimal(factor):g} = {one_decimal(plan.score):g}")
        if plan.modifier:
            text.append(f" {plan.modifier:+d} GM")
        if plan.settlement_modifier:
            text.append(f" {plan.settlement_modifier:+d} {plan.settlement}", style="yellow")
        text.append(f"  against  {d.die} + willpower {one_decimal(plan.willpower):g} ÷ {one_decimal(d.willpower_divisor):g}\n")
        text.append("odds of success ", style="dim")
        text.append(percent_text(plan.chance), style="bold green" if plan.chance >= 0.5 else "bold yellow")
        campaign = self.app.campaign
        done = changes.checks_today(campaign, plan.character)
        on_npc = changes.checks_on_npc_today(campaign, plan.character, plan.npc, rules)
        text.append(f"\n{plan.character}: {done} of {d.per_character_per_day} checks today · "
                    f"{on_npc} of {d.per_npc_per_day} on {plan.npc}{' (whole table)' if d.per_npc_scope == 'table' else ''}", style="dim")
        if plan.refusal:
            text.append(f"\n✗ {plan.refusal}. ctrl+r asks for a GM override with a reason.", style="bold red")
        odds.update(text)

    def _show_result(self) -> None:
        result = self.query_one("#talk-result", Static)
        if self.last is None:
            result.update(Text("ctrl+r rolls (the campaign's seeded dice).", style="dim"))
            return
        plan, roll = self.last
        text = Text()
        text.append(f"{plan.character} → {plan.npc}, {plan.kind}: ", style="bold")
        text.append("SUCCESS" if roll.success else "FAILURE", style="bold reverse green" if roll.success else "bold reverse red")
        text.append(f"\n{roll.attacker_die} + {one_decimal(roll.score):g}")
        total_mod = plan.modifier + plan.settlement_modifier
        if total_mod:
            text.append(f" {total_mod:+d}")
        text.append(f" = {one_decimal(roll.attacker_total):g}", style="bold")
        defence = dialogue_defence(plan.willpower, self.app.rules.dialogue)
        text.append(f"   against   {roll.defender_die} + {one_decimal(defence):g} = {one_decimal(roll.defender_total):g}")
        text.append(f"   (the odds were {percent_text(plan.chance)})", style="dim")
        result.update(text)

    def _show_today(self) -> None:
        campaign = self.app.campaign
        text = Text()
        for entry in campaign.today("check"):
            d = entry.data
            text.append("✓ " if d.get("success") else "✗ ", style="green" if d.get("success") else "red")
            text.append(f"{d.get('character')} → {d.get('npc')}", style="bold")
            text.append(f" {d.get('kind')}\n")
            if d.get("override"):
                text.append(f"  override: {d['override']}\n", style="yellow")
            text.append(f"  “{' '.join(str(d.get('text', '')).split())}”\n", style="dim italic")
        reactions = campaign.today("reaction")
        if reactions:
            text.append("\nSettlement reactions\n", style="bold")
        for entry in reactions:
            text.append(f"{entry.data.get('character')} in {entry.data.get('settlement')}: "
                        f"{entry.data.get('reaction')} ({int(entry.data.get('modifier', 0)):+d})\n")
        if not text:
            text.append(f"Day {campaign.day}: no checks yet.", style="dim")
        self.query_one("#talk-today", Static).update(text)
        self.query_one("#talk-side", VerticalScroll).call_after_refresh(
            self.query_one("#talk-side", VerticalScroll).scroll_end, animate=False)
        self.sub_title = f"day {campaign.day}"

    def on_select_changed(self, event: Select.Changed) -> None:
        self.refresh_view()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._show_odds()

    # --- actions -----------------------------------------------------------------------------

    def unsaved_work(self) -> str | None:
        """What the character says, typed and not rolled, or a GM modifier set for the check."""
        said = " ".join(self.query_one("#roleplay", TextArea).text.split())
        modifier = self._value("modifier").strip()
        if said:
            return f"the words typed (“{said[:30]}{'…' if len(said) > 30 else ''}”)"
        if modifier not in ("", "0"):
            return f"the GM modifier {modifier}"
        return None

    def action_back(self) -> None:
        leave_asking(self, self.app.pop_screen, "Dialogue")

    def action_modifier(self, step: int) -> None:
        d = self.app.rules.dialogue
        field = self.query_one("#talk-modifier", Input)
        try:
            value = parse_whole(field.value or "0", "the GM's modifier", low=d.modifier_min, high=d.modifier_max)
        except ValueError:
            value = 0  # a typo in the field: the step starts again from no modifier
        field.value = str(max(d.modifier_min, min(d.modifier_max, value + step)))

    def action_roll(self) -> None:
        try:
            plan = self.plan()
        except ValueError as exc:
            self.app.bell()
            self.notify(str(exc), severity="warning")
            return
        text = self.query_one("#roleplay", TextArea).text
        if not text.strip():
            self.app.bell()
            self.notify("Type what the character says or does first: R-12 expects roleplay.", severity="warning")
            self.query_one("#roleplay", TextArea).focus()
            return
        if plan.refusal:
            def answered(values: dict[str, str] | None) -> None:
                if values and values["reason"].strip():
                    self._roll(plan, text, values["reason"])

            self.app.push_screen(reason_dialog("GM override: the daily limit",
                                               f"{plan.refusal}.\nRoll anyway? The reason is recorded with the check."),
                                 answered)
            return
        self._roll(plan, text, "")

    def _roll(self, plan: changes.CheckPlan, text: str, override: str) -> None:
        rolled: list[DialogueRoll] = []

        def change(campaign):
            campaign, roll = changes.roll_check(campaign, plan, text, self.app.rules, override)
            rolled.append(roll)
            return campaign

        if self.app.host.act(change, f"{plan.character} tries {plan.kind} on {plan.npc}"):
            self.last = (plan, rolled[0])
            self.query_one("#roleplay", TextArea).clear()
            self.refresh_view()
            form = self.query_one("#talk-form", VerticalScroll)  # the roll is the form's last panel:
            form.call_after_refresh(form.scroll_end, animate=False)  # below the fold at 80×24, brought into view

    def action_reactions(self) -> None:
        place = self._value("settlement").strip()
        if not place:
            self.app.bell()
            self.notify("Name the settlement first (the Settlement field)", severity="warning")
            self.query_one("#talk-settlement", Input).focus()
            return
        found: list = []

        def change(campaign):
            campaign, rolled = changes.roll_reactions(campaign, place, self.app.rules)
            found.extend(rolled)
            return campaign

        if self.app.host.act(change, f"reactions in {place}"):
            if found:
                self.notify("\n".join(f"{n}: {r} ({m:+d})" for n, r, m in found), title=f"{place} reacts", timeout=8)
            else:
                self.notify("Nobody to roll for: no uncommon species, or they rolled here today", timeout=5)
        self.refresh_view()

    def action_next_day(self) -> None:
        """As t on the dashboard: asked first (the party rests the night, the limits start again)."""
        day = self.app.campaign.day + 1

        def answer(yes: bool | None) -> None:
            if yes and self.app.host.act(changes.advance_day, f"day {day}"):
                self.last = None
                self.notify(f"Day {day}: the daily limits start again", timeout=3)

        self.app.push_screen(ConfirmDialog(
            f"End day {day - 1} and start day {day}? The daily check limits start again (R-12).",
            yes="Next day", no="Not yet", title="Advance the day"), answer)
