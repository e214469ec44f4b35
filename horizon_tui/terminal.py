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


def tell(*lines: str, stream: TextIO | None = None) -> None:
    """Print lines on the way out (stderr by default). If the terminal has gone (the SSH
    connection or the terminal window closed: EIO, ENXIO, EPIPE), there is no one to tell: the
    lines are dropped instead of failing the exit with an error of their own."""
    import errno
    import sys

    stream = stream if stream is not None else sys.stderr
    try:
        for line in lines:
            print(line, file=stream)
        stream.flush()
    except OSError as exc:
        if exc.errno not in (errno.EIO, errno.ENXIO, errno.EPIPE):
            raise
