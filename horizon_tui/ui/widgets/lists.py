"""A list a player picks a row from (saves, encounters, battles, a loadout)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import DataTable


class RowList(DataTable):
    """A DataTable of rows: home and end go to the first and last row, as in any list. (A
    DataTable's own home and end scroll sideways; these lists are never wider than they show.)"""

    BINDINGS = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]
