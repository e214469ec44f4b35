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
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        text = f"{where}: {self.key or '(file)'}: {self.message}"
        if self.suggestion:
            text += f" (did you mean '{self.suggestion}'?)"
        return text


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
