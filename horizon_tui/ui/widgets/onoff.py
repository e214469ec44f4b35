"""A switch that reads on or off without colour, for every form of both apps."""

from __future__ import annotations

from textual.widgets import Checkbox


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
