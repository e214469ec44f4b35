"""Whether to colour what a command prints: only on a terminal, and never under NO_COLOR
(https://no-color.org, honoured by Rich and Textual too)."""

from __future__ import annotations

import codecs
import errno
import os
import sys
from typing import TextIO


def wants_color(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def empty_no_color_is_unset() -> None:
    """https://no-color.org: NO_COLOR counts when it holds a non-empty value. Textual goes
    monochrome when it is merely set, even empty: an empty one is removed before an app starts."""
    if os.environ.get("NO_COLOR") == "":
        del os.environ["NO_COLOR"]


def tell(*lines: str, stream: TextIO | None = None) -> None:
    """Print lines on the way out (stderr by default). If the terminal has gone (the SSH
    connection or the terminal window closed: EIO, ENXIO, EPIPE), there is no one to tell: the
    lines are dropped instead of failing the exit with an error of their own."""
    stream = stream if stream is not None else sys.stderr
    try:
        for line in lines:
            print(line, file=stream)
        stream.flush()
    except OSError as exc:
        if exc.errno not in (errno.EIO, errno.ENXIO, errno.EPIPE):
            raise


ESCAPES = "horizon-escape"


def _escape(error: UnicodeError) -> tuple[str, int]:
    """What a terminal's encoding can't hold, as JSON's \\uXXXX escapes (a surrogate pair past
    U+FFFF): `--json` output stays valid JSON meaning the same, text output stays readable."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escaped = []
    for char in error.object[error.start:error.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped), error.end


def tolerate_any_encoding(*streams: TextIO) -> None:
    """A terminal that isn't UTF-8 (PYTHONIOENCODING=ascii, a Latin-1 locale) would make the first
    '—' printed an internal error, and so would, on any terminal, a file name holding a byte that
    isn't UTF-8 (Python keeps it as a lone surrogate): what can't be shown is printed as escapes."""
    try:
        codecs.lookup_error(ESCAPES)
    except LookupError:
        codecs.register_error(ESCAPES, _escape)
    for stream in streams:
        if getattr(stream, "errors", None) not in ("strict", "surrogateescape") or not hasattr(stream, "reconfigure"):
            continue
        try:
            stream.reconfigure(errors=ESCAPES)
        except (AttributeError, ValueError, OSError):
            pass
