"""A paste longer than a field takes what fits and says the rest was cut.

Textual's `Input` refuses a whole paste that would pass its `max_length` (a bell, nothing else):
a 1 kB name pasted into a 40-character field vanished without a word. The apps pass every paste
through `fit_paste` first (`HorizonApp.on_event`), so the field takes its first line up to what it
has room for, and the player is told how much was cut.
"""

from __future__ import annotations

from textual.widgets import Input


def fit_paste(field: Input, text: str) -> tuple[str, str | None]:
    """What of `text` goes into `field` (its first line, up to the room left beside the text not
    selected), and a sentence saying what was cut (None when nothing was)."""
    line, newline, _rest = text.partition("\n")
    line = line.removesuffix("\r")
    cut_lines = bool(newline) and bool(_rest.strip())
    limit = field.max_length
    if limit:
        start, end = sorted(field.selection)
        room = max(0, limit - (len(field.value) - (end - start)))
        if len(line) > room:
            message = (f"Pasted {room:,} of {len(line):,} characters: the rest was cut "
                       f"(this field holds {limit:,}).")
            return line[:room], message + (" Only the first line is taken." if cut_lines else "")
    if cut_lines:
        return line, "Only the first line of the paste is taken: a field holds one line."
    return line, None
