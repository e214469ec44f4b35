"""One error base class for everything a user's input can get wrong.

A `DataError` names the file, the dotted key, the line where known, what was wrong and, for a
misspelt key, what was probably meant. The CLI prints these one per line and exits 1.
"""

from __future__ import annotations

from pathlib import Path

import attrs


class HorizonError(Exception):
    """Base for errors caused by input (files, commands), never by a bug."""


@attrs.frozen
class Problem:
    file: str
    key: str
    message: str
    line: int | None = None
    suggestion: str | None = None

    def __str__(self) -> str:
        where = plain(self.file)
        if self.line is not None:
            where += f":{self.line}"
        text = f"{where}: {plain(self.key) or '(file)'}: {plain(self.message)}"
        if self.suggestion:
            text += f" (did you mean '{plain(self.suggestion)}'?)"
        return text


def plain(text: str) -> str:
    """`text` as one line of plain text: a newline, an escape sequence or any other control
    character (in a file's name, a key) shown as its escape, so a problem stays one line and
    nothing reaches the terminal as a command."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class DataError(HorizonError):
    """One or more problems in one or more files."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    @classmethod
    def one(
        cls,
        file: str | Path,
        key: str,
        message: str,
        line: int | None = None,
        suggestion: str | None = None,
    ) -> DataError:
        return cls([Problem(str(file), key, message, line, suggestion)])


def echo(text: str, limit: int = 40) -> str:
    """What someone typed, quoted for a message: at most `limit` characters (then "…"), so a
    pasted page gives one short line, not a toast that covers the screen."""
    return repr(text if len(text) <= limit else text[:limit] + "…")
