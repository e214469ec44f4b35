"""Talk at a table: what a seat may say, how it is cleaned, who hears it, and the table's dice.

Everything here runs in the table's process, which checks every line itself (a client's own checks
are only a courtesy): a line is at most `MAX_TALK` characters; terminal control characters (C0,
C1, DEL, ESC) and the bidirectional overrides are replaced by visible stand-ins, so a line can
neither move a reader's cursor nor reorder their screen; a seat says at most `RATE_LINES` lines in
`RATE_WINDOW_S` seconds. Markup is not touched here: every screen writes a line as plain text
(`rich.text.Text`), so `[bold]` shows as typed.

A line starting with `/` is a command:

- `/w TEXT` (or `/whisper`): to the GM only.
- `/roll EXPR`: dice in `horizon roll`'s notation (`rules.dice`), rolled here from the table's
  own seeded source (`TalkRoom.rng`, never the battle's), shown to everyone with each die.
- the GM's: `/a TEXT` (an announcement), `/sroll EXPR` (a roll only the GM sees), `/mute NAME`,
  `/unmute NAME`, `/spectators on|off` (whether spectators may talk; they may not at first).
- `/help`: the commands, to the one who asked.
"""

from __future__ import annotations

import random
import re
from collections import deque
from typing import Any

import attrs

from horizon_tui.rules.dice import DiceError, parse_dice

MAX_TALK = 500
RATE_LINES = 5
RATE_WINDOW_S = 10.0
MAX_ROLL_DICE = 100  # the dice of one roll at the table, each shown
MAX_ROLL_DIGITS = 15  # a total a campaign's log keeps (limits.toml's files.digits is larger)
KEPT = 200  # the lines a (re)joining seat is sent: the rest are in the table's talk.jsonl
KINDS = ("say", "whisper", "announce", "roll", "notice")

# C0 (but the space), DEL, C1, and the bidirectional embeddings, overrides and isolates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

HELP = ("talk: a line goes to everyone · /w TEXT whispers to the GM · /roll 2d6+3 rolls at the table "
        "for all to see")
GM_HELP = " · GM: /a TEXT announces · /sroll EXPR rolls secretly · /mute NAME · /unmute NAME · /spectators on|off"


def _shown(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ for ESC, ␊ for a line feed
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<U+{code:04X}>"


def clean_text(text: str) -> str:
    """`text` with every control character shown as a visible stand-in, never run by a terminal."""
    return _CONTROL.sub(_shown, text)


class TalkRefused(ValueError):
    """A line the table won't pass on; the message says why, for the one who wrote it."""


@attrs.frozen
class TalkLine:
    id: int
    seat: str
    role: str  # the writer's role: gm | player | spectator | table (a notice of the table's own)
    kind: str  # one of KINDS
    text: str  # cleaned; for a roll, the expression as written
    to: str = "all"  # all | gm (a whisper, a secret roll) | a seat's name (an answer to that seat alone)
    faces: tuple[int, ...] = ()
    total: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "talk", "id": self.id, "seat": self.seat, "role": self.role, "kind": self.kind,
                "text": self.text, "to": self.to, "faces": list(self.faces), "total": self.total}

    def heard_by(self, seat: str, role: str) -> bool:
        """Whether the seat `seat` (of `role`) may read this line."""
        if self.to == "all" or seat == self.seat:
            return True
        return role == "gm" if self.to == "gm" else seat == self.to


def line_text(line: dict[str, Any]) -> str:
    """One line as every screen and the session log show it (plain text: never markup)."""
    seat = clean_text(str(line.get("seat", "?")))[:40]
    who = "GM" if line.get("role") == "gm" else seat
    text = clean_text(str(line.get("text", "")))[:MAX_TALK]
    kind = line.get("kind")
    if kind == "roll":
        faces = line.get("faces") if isinstance(line.get("faces"), list) else []
        dice = f" [{', '.join(str(f) for f in faces[:200])}]" if faces else ""
        secretly = " secretly" if line.get("to") == "gm" else ""
        return f"{who} rolls{secretly} {text}:{dice} = {line.get('total')}"
    if kind == "announce":
        return f"⚑ GM: {text}"
    if kind == "whisper":
        return f"{who} → GM: {text}"
    if kind == "notice":
        return f"· {text}"
    return f"{who}: {text}"


class TalkRoom:
    """The table's talk: the lines so far, who is muted, whether spectators may talk, each seat's
    recent lines (the rate limit) and the dice. `seed`: the table's; the dice draw from a source of
    their own derived from it, so a replayed battle never sees them and a replayed talk rolls alike."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(f"talk:{seed}")
        self.lines: deque[TalkLine] = deque(maxlen=KEPT)
        self.muted: set[str] = set()
        self.spectators_talk = False
        self._recent: dict[str, deque[float]] = {}
        self._next_id = 1

    def _line(self, seat: str, role: str, kind: str, text: str, *, to: str = "all", faces=(), total=None,
              kept: bool = True) -> TalkLine:
        line = TalkLine(self._next_id, seat, role, kind, text, to, tuple(faces), total)
        self._next_id += 1
        if kept:
            self.lines.append(line)
        return line

    def _within_rate(self, seat: str, now: float) -> None:
        """The rate limit, per seat: RATE_LINES in any RATE_WINDOW_S seconds."""
        recent = self._recent.setdefault(seat, deque(maxlen=RATE_LINES))
        while recent and now - recent[0] >= RATE_WINDOW_S:
            recent.popleft()
        if len(recent) >= RATE_LINES:
            wait = max(1, round(RATE_WINDOW_S - (now - recent[0]) + 0.49))
            raise TalkRefused(f"at most {RATE_LINES} lines in {RATE_WINDOW_S:g} s: wait {wait} s")
        recent.append(now)

    def say(self, seat: str, role: str, text: Any, now: float, seats: dict[str, str]) -> TalkLine:
        """`seat` (of `role`) says `text` at `now` (a monotonic clock); `seats`: every seat's role.
        The line to pass on, or TalkRefused with the reason."""
        if not isinstance(text, str):
            raise TalkRefused("a line is text")
        text = text.strip()
        if not text:
            raise TalkRefused("say something (an empty line is not sent)")
        if len(text) > MAX_TALK:
            raise TalkRefused(f"a line is at most {MAX_TALK} characters (this one has {len(text)})")
        if seat in self.muted:
            raise TalkRefused("the GM has muted you: you read the talk but can't write")
        if role == "spectator" and not self.spectators_talk:
            raise TalkRefused("spectators read the talk; they write only if the GM allows (/spectators on)")
        self._within_rate(seat, now)
        text = clean_text(text)
        command, _, rest = text.partition(" ") if text.startswith("/") else ("", "", text)
        rest = rest.strip()
        command = command.lower()
        if not command:
            return self._line(seat, role, "say", rest)
        if command == "/help":
            return self._line(seat, "table", "notice", HELP + (GM_HELP if role == "gm" else ""), to=seat, kept=False)
        if command in ("/w", "/whisper"):
            if role == "gm":
                raise TalkRefused("a whisper goes to the GM: you are the GM (/a announces to everyone)")
            return self._line(seat, role, "whisper", self._words(rest), to="gm")
        if command in ("/roll", "/r", "/sroll"):
            secret = command == "/sroll"
            if secret and role != "gm":
                raise TalkRefused("only the GM rolls secretly; /roll rolls for everyone to see")
            return self._roll(seat, role, rest, secret)
        if role != "gm":
            raise TalkRefused(f"{command[:20]} is not a command you have; /help lists them")
        if command in ("/a", "/announce"):
            return self._line(seat, role, "announce", self._words(rest))
        if command in ("/mute", "/unmute"):
            return self._mute(rest, command == "/mute", seats)
        if command == "/spectators":
            if rest.lower() not in ("on", "off"):
                raise TalkRefused("/spectators on, or /spectators off")
            self.spectators_talk = rest.lower() == "on"
            return self._line("table", "table", "notice",
                              "spectators may talk" if self.spectators_talk else "spectators only read the talk")
        raise TalkRefused(f"{command[:20]} is not a command; /help lists them")

    @staticmethod
    def _words(rest: str) -> str:
        if not rest:
            raise TalkRefused("say what, after the command")
        return rest

    def _roll(self, seat: str, role: str, expression: str, secret: bool) -> TalkLine:
        if not expression:
            raise TalkRefused("roll what? e.g. /roll 2d6+3")
        try:
            dice = parse_dice(expression)
        except DiceError as exc:
            raise TalkRefused(str(exc)) from None
        total, faces = dice.roll_detailed(self.rng)
        if len(faces) > MAX_ROLL_DICE:
            raise TalkRefused(f"a roll at the table is at most {MAX_ROLL_DICE} dice (this one has {len(faces)})")
        if len(str(abs(total))) > MAX_ROLL_DIGITS:
            raise TalkRefused(f"a roll at the table comes to at most {MAX_ROLL_DIGITS} digits")
        return self._line(seat, role, "roll", str(dice), to="gm" if secret else "all", faces=faces, total=total)

    def _mute(self, name: str, mute: bool, seats: dict[str, str]) -> TalkLine:
        if name not in seats:
            raise TalkRefused(f"no seat {name[:40]!r} at this table")
        if seats[name] == "gm":
            raise TalkRefused("the GM can't be muted")
        (self.muted.add if mute else self.muted.discard)(name)
        return self._line("table", "table", "notice", f"the GM {'muted' if mute else 'unmuted'} {name}")

    def heard(self, seat: str, role: str) -> list[TalkLine]:
        """The kept lines `seat` may read, oldest first (what a joining seat is sent)."""
        return [line for line in self.lines if line.heard_by(seat, role)]
