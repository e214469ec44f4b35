"""`X`: the whole battlefield at once, as Crawl's X does — a modal screen, `esc` or `X` closes it.

It shows what the viewer's read model (`BattleScreen.known()`) holds: every cell seen now (lit)
or remembered (dim) and the units the viewer may know; it never works out sight itself
(`view.draw_overview` paints it). The field is fitted into the terminal: one character per cell
where it fits, else each character stands for a block of cells (the fewest across and down that
fit, each axis on its own — a 50×50 field at 80×24 is 50 columns by 17 rows of 1×3 blocks),
showing a known unit in the block first, else the terrain most of its known cells have.
"""

from __future__ import annotations

import tcod.console
from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

from horizon_tui.engine.battle import Battle
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.ui.battle.view import (
    FLOOR_LIT, ROUGH_LIT, TEAM_COLOURS, WALL_LIT, StripCache, draw_overview, overview_step,
)

_CHROME_W, _CHROME_H = 2, 3  # the border's columns; the border's rows and the legend line


class OverviewMap(Widget):
    """The condensed field's console, row by row."""

    DEFAULT_CSS = "OverviewMap { width: auto; height: auto; }"

    def __init__(self, console: tcod.console.Console, **kwargs) -> None:
        super().__init__(**kwargs)
        self.console = console
        self.strips = StripCache()

    def get_content_width(self, container, viewport) -> int:
        return self.console.width

    def get_content_height(self, container, viewport, width) -> int:
        return self.console.height

    def render_line(self, y: int) -> Strip:
        if y >= self.console.height:
            return Strip.blank(self.size.width)
        return self.strips.row(self.console, y)

    def text(self) -> str:
        """The map as plain text, a line per row (for tests)."""
        return "\n".join("".join(chr(c) for c in row) for row in self.console.rgb["ch"])


def _rgb(colour: tuple[int, int, int]) -> Style:
    return Style(color=Color.from_rgb(*colour))


def legend(step: tuple[int, int]) -> Text:
    """One line, short enough for 78 columns: what the glyphs and colours mean, and the scale."""
    text = Text()
    for team, label in (("party", "party"), ("enemies", "foes")):
        text.append("■", style=_rgb(TEAM_COLOURS[team])).append(f" {label} ")
    for glyph, colour, label in ((".", FLOOR_LIT, "floor"), ("#", WALL_LIT, "wall"), (",", ROUGH_LIT, "rough")):
        text.append(glyph, style=_rgb(colour)).append(f" {label} ")
    text.append("dim: remembered", style="dim")
    sx, sy = step
    if (sx, sy) != (1, 1):
        text.append(f" · 1 char = {sx}×{sy} cells")
    return text


class BattleOverview(ModalScreen[None]):
    """The whole field as the viewer knows it, fitted into the terminal when the screen opens."""

    BINDINGS = [Binding("escape,X", "close", "Close the overview", id="overview.close", priority=True)]
    DEFAULT_CSS = """
    BattleOverview { align: center middle; }
    BattleOverview > Vertical { width: auto; height: auto; max-width: 100%; max-height: 100%;
                                border: round $accent; background: $surface; }
    BattleOverview #overview-legend { width: auto; max-width: 100%; height: 1; }
    """

    def __init__(self, battle: Battle, known: ReadModel, glyphs: dict[str, str], room: tuple[int, int]) -> None:
        super().__init__()
        field = battle.battlefield
        self.step = overview_step(field.width, field.height, room[0] - _CHROME_W, room[1] - _CHROME_H)
        sx, sy = self.step
        self.console = tcod.console.Console(-(-field.width // sx), -(-field.height // sy), order="C")
        draw_overview(self.console, battle, known, self.step, glyphs)
        self.known = known

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Overview — round {self.known.round}"
            box.border_subtitle = "esc / X close"
            yield OverviewMap(self.console, id="overview-map")
            yield Static(legend(self.step), id="overview-legend")

    def action_close(self) -> None:
        self.dismiss(None)
