"""`serve-ssh --motd FILE`: a message shown to every player after login, before the menu.

The file is read once at start and checked: UTF-8 text of at most `MAX_BYTES`, and no control
characters but tab and newline, so a message can't send escape sequences to players' terminals
(clear their screen, retitle their window, …). It is sent with CRLF line ends, as a terminal
in raw mode needs, followed by `PROMPT`; the game starts at the player's next key, or after
`MOTD_WAIT` seconds without one.
"""

from __future__ import annotations

import os

import stat
import unicodedata
from pathlib import Path

from horizon_tui.errors import HorizonError

MAX_BYTES = 8192
PROMPT = "Press any key to play."
MOTD_WAIT = 60.0


class MotdError(HorizonError):
    """A message file that can't be shown; the CLI prints it and exits 1."""


def read_motd(path: Path) -> bytes:
    """The message of `path`, ready to write to a player's terminal."""
    try:  # a pipe or a device (/dev/zero) would block or never end
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise MotdError(f"--motd {path}: is not a plain file (a folder, a device or a pipe)")
        size = os.stat(path).st_size
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise MotdError(f"--motd {path}: can't be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_BYTES:
        raise MotdError(f"--motd {path}: {max(size, len(raw))} bytes; a message may have at most {MAX_BYTES}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise MotdError(f"--motd {path}:{line}: not UTF-8 text (byte {raw[exc.start]:#04x})") from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    for number, line in enumerate(text.split("\n"), start=1):
        for column, char in enumerate(line, start=1):
            if char != "\t" and unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co"):
                raise MotdError(f"--motd {path}:{number}:{column}: control character U+{ord(char):04X} "
                                "is not allowed (plain text, tabs and newlines only)")
    text = text.rstrip("\n")
    shown = (text + "\n\n" if text else "") + PROMPT
    return shown.replace("\n", "\r\n").encode("utf-8")
