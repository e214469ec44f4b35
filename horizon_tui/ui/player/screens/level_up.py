"""Level up: spend XP on attributes one point at a time (R-4), undo before confirming.

The points wait in a list of attribute names; the character shown is the saved one with
`rules.character.buy_point` applied for each, in order. Undoing drops a name and replays, so the
costs always follow the rules: nothing is computed here.
"""

from __future__ import annotations

from collections import Counter
from functools import reduce

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from horizon_tui.content.models import Character
from horizon_tui.rules.character import build, buy_point
from horizon_tui.rules.progression import progress_to_next_level
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.character import AttributeTable, StatsPanel
from horizon_tui.ui.widgets.creation import ATTRIBUTE_NAMES, fed_line
from horizon_tui.ui.widgets.tone import tone


class LevelUpScreen(Screen):
    TITLE = "Level up"
    AUTO_FOCUS = "#levelup-table"
    BINDINGS = [
        Binding("u,backspace", "undo", "Undo", id="levelup.undo"),
        Binding("ctrl+s", "confirm", "Confirm", id="levelup.confirm"),
        Binding("escape", "cancel", "Cancel", id="levelup.cancel"),
    ]

    def __init__(self) -> None:
        super().__init__(id="level-up")
        self.start: Character = None  # type: ignore[assignment]
        self.pending: list[str] = []
        self.attribute = "physical"

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="levelup-status")
        with Horizontal():
            with Vertical(id="attributes-left"):
                yield AttributeTable(bought_column=True, id="levelup-table")
                yield Static(id="levelup-feeds")
            yield StatsPanel(id="levelup-stats", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.start = self.app.session.character
        self.sub_title = self.start.name
        self.query_one("#levelup-stats").border_title = "Derived stats"
        self.refresh_numbers()

    @property
    def character(self) -> Character:
        rules = self.app.rules
        return reduce(lambda c, attribute: buy_point(c, attribute, rules), self.pending, self.start)

    def refresh_numbers(self) -> None:
        rules = self.app.rules
        before = build(self.start, rules)
        now = build(self.character, rules)
        bought = {a: self.pending.count(a) for a in set(self.pending)}
        self.query_one(AttributeTable).show(self.character.attributes, now.attributes,
                                            rules.creation.attribute_minimums, bought)
        self.query_one(StatsPanel).show(now.stats, self.attribute, baseline=before.stats if self.pending else None)
        status = Text()
        status.append("XP ", style="dim")
        status.append(f"{self.character.xp}", style="bold")
        if self.pending:
            status.append(f" (of {self.start.xp})", style="dim")
        status.append("   next point ", style="dim")
        affordable = now.next_point_cost <= self.character.xp
        status.append(f"{now.next_point_cost} XP", style="bold" if affordable else tone(self, "error", bold=True))
        status.append("   level ", style="dim")
        status.append(f"{now.level}", style="bold")
        done, per_level = progress_to_next_level(now.points_bought, rules)
        status.append(f"  ({done}/{per_level} points to level {now.level + 1})", style="dim")
        if now.level > before.level:
            status.append(f"\n★ Level {now.level} reached! ", style=f"reverse {tone(self, 'success', bold=True)}")
            status.append(f" {now.slots} slots, charges "
                          + " ".join(f"{d} {n}" for d, n in now.charges.items())
                          + f", {now.free_action_points} free-action points", style=tone(self, "success"))
        elif not affordable:
            status.append("\nNot enough XP for another point." if self.pending
                          else "\nNot enough XP for a point yet: win battles to earn some.", style="dim")
        else:
            status.append("\n+ buys a point for the highlighted attribute; u undoes; ctrl+s confirms.",
                          style="dim")
        if self.pending:  # counted per attribute: a long list pushed the table off the screen
            counts = Counter(self.pending)
            status.append(f"\n{len(self.pending)} point{'s' if len(self.pending) != 1 else ''} waiting: "
                          + ", ".join(f"{name} +{n}" for name, n in counts.items()), style=tone(self, "accent"))
        self.query_one("#levelup-status", Static).update(status)
        self.query_one("#levelup-feeds", Static).update(Text.assemble(
            (ATTRIBUTE_NAMES[self.attribute], tone(self, "accent", bold=True)), " feeds ", fed_line(self.attribute),
        ))

    def on_attribute_table_focused(self, event: AttributeTable.Focused) -> None:
        self.attribute = event.attribute
        self.refresh_numbers()

    def on_attribute_table_adjust(self, event: AttributeTable.Adjust) -> None:
        if event.steps < 0:
            for _ in range(-event.steps):
                if event.attribute not in self.pending:
                    if _ == 0:
                        self.notify(f"No point bought for {event.attribute} to take back", severity="warning",
                                    timeout=3)
                    break
                index = len(self.pending) - 1 - self.pending[::-1].index(event.attribute)
                del self.pending[index]
        else:
            for n in range(event.steps):
                try:
                    buy_point(self.character, event.attribute, self.app.rules)
                except ValueError as exc:
                    if n == 0:
                        self.app.bell()
                        self.notify(str(exc), title="Not enough XP", severity="warning", timeout=4)
                    break
                self.pending.append(event.attribute)
        self.refresh_numbers()

    def action_undo(self) -> None:
        if not self.pending:
            self.notify("Nothing to undo", timeout=2)
            return
        self.pending.pop()
        self.refresh_numbers()

    def action_confirm(self) -> None:
        if not self.pending:
            self.app.pop_screen()
            return
        character = self.character
        if self.app.commit(character):
            level = build(character, self.app.rules).level
            self.notify(f"{len(self.pending)} point{'s' if len(self.pending) != 1 else ''} bought; "
                        f"{character.name} is level {level}", title="Saved")
            self.pending.clear()
            self.app.pop_screen()

    def unsaved_work(self) -> str | None:
        """For ctrl+q (`SavesFolder.quit` in ui.player.app): points bought here, not confirmed."""
        n = len(self.pending)
        return f"{n} point{'s' if n != 1 else ''} bought, not confirmed" if n else None

    def action_cancel(self) -> None:
        if not self.pending:
            self.app.pop_screen()
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self.app.pop_screen()

        self.app.push_screen(ConfirmDialog(
            f"Forget the {len(self.pending)} point{'s' if len(self.pending) != 1 else ''} not confirmed?",
            yes="Forget them", no="Keep buying", title="Level up"), answer)
