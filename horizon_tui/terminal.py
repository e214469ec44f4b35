"""Whether to colour what a command prints: only on a terminal, and never under NO_COLOR
(https://no-color.org, honoured by Rich and Textual too)."""

from __future__ import annotations

import os
from typing import TextIO


def wants_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
