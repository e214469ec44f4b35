"""The battlefield widget: a tcod console drawn through `StripCache`, scrolled (panned) when the
map is larger than the space it has."""

from __future__ import annotations

import numpy as np
import tcod.console
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from horizon_tui.engine.battle import Battle
from horizon_tui.engine.sideview import remembered_cells
from horizon_tui.tui.battle.view import BaseLayer, Overlay, StripCache, draw


class BattlefieldView(ScrollView, can_focus=True):
    """Shows one battle as one side knows it; the screen decides what and when to redraw."""

    DEFAULT_CSS = """
    BattlefieldView { scrollbar-size: 1 1; }
    """

    def __init__(self, battle: Battle, side: str | None = "party", **kwargs) -> None:
        super().__init__(**kwargs)
        self.battle = battle
        self.side = side
        field = battle.battlefield
        self.console = tcod.console.Console(field.width, field.height, order="C")
        self.remembered = np.zeros((field.height, field.width), dtype=bool)
        self.seen_now = np.zeros_like(self.remembered)
        self.strips = StripCache()
        self.base = BaseLayer()
        self.virtual_size = Size(field.width, field.height)

    def redraw(self, visible: np.ndarray, active: str | None, overlay: Overlay | None) -> None:
        """Repaint the console; only rows whose cells changed are rebuilt and refreshed."""
        self.seen_now = visible
        self.remembered = remembered_cells(self.battle, self.side, visible)  # what its side has seen
        before = self.console.rgb.copy()
        draw(self.console, self.battle, visible, self.remembered, side=self.side, active=active,
             overlay=overlay, base=self.base)
        changed = np.nonzero(np.any(before != self.console.rgb, axis=1))[0]
        top = self._margins()[1] - int(self.scroll_offset.y)
        for y in changed.tolist():
            self.refresh(Region(0, y + top, self.size.width, 1))

    def _margins(self) -> tuple[int, int]:
        """A map smaller than the pane sits in its middle."""
        return (max(0, (self.size.width - self.console.width) // 2),
                max(0, (self.size.height - self.console.height) // 2))

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        left, top = self._margins()
        row = y + scroll_y - top
        width = self.size.width
        if not 0 <= row < self.console.height:
            return Strip.blank(width, self.rich_style)
        strip = self.strips.row(self.console, row)
        if left:
            return Strip.join([Strip.blank(left, self.rich_style), strip]).extend_cell_length(width, self.rich_style)
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, self.rich_style)

    def keep_in_view(self, xy: tuple[int, int]) -> None:
        """Pan so the cell is on screen, with a margin."""
        x, y = xy
        margin = 3
        self.scroll_to_region(Region(x - margin, y - margin, 2 * margin + 1, 2 * margin + 1), animate=False)
