"""Reading TOML and JSON documents with errors that name the file and the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from horizon_tui.content.guard import cap
from horizon_tui.content.guard import read_document as guarded
from horizon_tui.content.key_lines import with_key_lines
from horizon_tui.errors import DataError, Problem


def read_document(path: Path, *, save: bool = False) -> tuple[dict[str, Any], str]:
    """A TOML or JSON file as a dict, and its text (for locating keys' lines), through the one
    guarded reader (content.guard: size, nesting, digits and text length limits)."""
    return guarded(path, save=save)


def locate(problems: list[Problem], text: str, limits=None) -> list[Problem]:
    """The problems, capped, each with the line where its key (its last part) is written when it
    can be found. `limits`: those to cap the list with (limits.toml's own problems can't ask for
    the limits in force: they are what is being read)."""
    return with_key_lines(cap(problems, limits), text)


def with_lines(exc: DataError, text: str) -> DataError:
    return DataError(locate(cap(exc.problems), text))
