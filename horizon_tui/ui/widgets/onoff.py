"""Switches, pick lists and choices that read on or off without colour, for every form of both
apps: Textual's stock "▐X▌" and "▐●▌" are the same glyph both ways, told apart only by colour, and
under NO_COLOR not at all."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList
from textual.widgets.option_list import OptionDoesNotExist


class OnOffBox(Checkbox):
    """A Checkbox that reads "[✓]" on and "[ ]" off, without colour: Textual's stock "▐X▌" is the
    same glyph both ways, told apart only by its colour, and under NO_COLOR not at all. With
    `worded`, its label says so in words as well: "Replaceable: off (…`hint`…)"."""

    BUTTON_LEFT = "["
    BUTTON_RIGHT = "]"

    def __init__(self, label: str = "", value: bool = False, *args, worded: bool = False, hint: str = "",
                 **kwargs) -> None:
        self.base_label = label
        self.worded = worded
        self.hint = hint
        super().__init__(self._label_for(value), value, *args, **kwargs)

    def _label_for(self, value: bool) -> str:
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.base_label}: {'on' if value else 'off'}{hint}" if self.worded else self.base_label + hint

    @property
    def BUTTON_INNER(self) -> str:  # noqa: N802 - Textual's name, read on every render
        return "✓" if self.value else " "

    def watch_value(self) -> None:
        if self.worded:
            self.label = self._label_for(self.value)
        super().watch_value()


class CheckList(SelectionList):
    """A SelectionList whose boxes read on or off without colour: "[✓]" ticked, "[ ]" not (under
    NO_COLOR the stock boxes can't be told apart: a fight began with the wrong NPCs)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        if len(segments) < 4:
            return strip
        left, inner, right = segments[:3]
        ticked = option.value in self.selected
        return Strip([Segment("[", left.style), Segment("✓" if ticked else " ", inner.style),
                      Segment("]", right.style), *segments[3:]])


class OnOffRadio(RadioButton):
    """A RadioButton that reads "(•)" chosen and "( )" not, without colour."""

    BUTTON_LEFT = "("
    BUTTON_RIGHT = ")"

    @property
    def BUTTON_INNER(self) -> str:  # noqa: N802 - Textual's name, read on every render
        return "•" if self.value else " "
