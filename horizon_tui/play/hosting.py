"""The player app when the SSH host runs it: its live status, watchers, "Watch a game".

The host sets `HORIZON_SESSION` to its status file for this game (`horizon_tui/host/live.py`:
`live/SESSION.json`, with the number of watchers); beside it the app keeps `SESSION.app.json`
with what only it knows: the character being played, the screen, whether the player lets others
watch, and that SIGUSR1 makes it draw its whole screen again (for a watcher who just joined).
`HORIZON_WATCH=1` means the host lets players watch games: the main menu then offers "Watch a
game", which quits the app with `WATCH_EXIT`; the host shows the list of games and starts the app
again afterwards. Nothing here runs when the app is played locally.

No Textual at import: the SSH host imports the names below.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from pathlib import Path

from horizon_tui.paths import write_private_json

ENV_SESSION = "HORIZON_SESSION"
ENV_WATCH = "HORIZON_WATCH"
WATCH_EXIT = 10           # the app's exit status meaning "show me the games to watch"
REDRAW_SIGNAL = "SIGUSR1"
POLL_EVERY = 1.0          # seconds: the screen and character shown to others, the watcher count
APP_SUFFIX = ".app.json"


def hosted() -> bool:
    return bool(os.environ.get(ENV_SESSION))


def watching_offered() -> bool:
    return hosted() and os.environ.get(ENV_WATCH) == "1"


def app_status_path(session_file: Path) -> Path:
    return session_file.with_name(session_file.name.removesuffix(".json") + APP_SUFFIX)


def screen_words(class_name: str) -> str:
    """What `who` and the watch list say for a screen without a title: its class's name in words
    ("BattleScreen" → "Battle", "MainMenuScreen" → "Main menu"), never a class name."""
    stem = class_name.removesuffix("Screen") or class_name
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", stem) or [stem]
    return " ".join([words[0], *(w if w.isupper() else w.lower() for w in words[1:])])


class Hosting:
    """Attached once to a hosted app (`attach`); keeps the status file and the watcher count."""

    def __init__(self, app, session_file: Path):
        self.app = app
        self.session_file = session_file
        self.app_file = app_status_path(session_file)
        self.allow_watchers = True
        self.watchers = 0
        self._last: dict | None = None
        self._listeners: list = []

    def status(self) -> dict:
        session = self.app.session
        character = session.character.name if session is not None else None
        screen = self.app.screen
        title = getattr(screen, "title", None) or screen_words(type(screen).__name__)
        return {"character": character, "screen": str(title)[:60],
                "watchers": "allow" if self.allow_watchers else "refuse", "redraw": REDRAW_SIGNAL}

    def poll(self) -> None:
        status = self.status()
        if status != self._last:
            try:
                write_private_json(self.app_file, status)
                self._last = status
            except OSError:
                pass
        try:
            count = int(json.loads(self.session_file.read_text(encoding="utf-8")).get("watchers", 0))
        except (OSError, ValueError, TypeError, AttributeError):
            return
        if count != self.watchers:
            before, self.watchers = self.watchers, count
            if count > before:
                self.app.notify(f"{count} watching your game" if count > 1 else "Someone is watching your game",
                                timeout=4)
            for listener in self._listeners:
                listener(count)

    def on_watchers(self, listener) -> None:
        """`listener(count)` each time the number of watchers changes."""
        self._listeners.append(listener)

    def toggle_watchers(self) -> bool:
        self.allow_watchers = not self.allow_watchers
        self.poll()
        return self.allow_watchers

    def redraw(self) -> None:
        self.app.refresh(repaint=True, layout=True)


def attach(app) -> Hosting | None:
    """Start the status updates for a hosted app (once; None when played locally)."""
    existing = app.hosting
    if existing is not None or not hosted():
        return existing
    hosting = Hosting(app, Path(os.environ[ENV_SESSION]))
    app.hosting = hosting
    hosting.poll()
    app.set_interval(POLL_EVERY, hosting.poll)

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGUSR1, hosting.redraw)
    except (NotImplementedError, RuntimeError, ValueError):
        pass  # not the main thread (tests)
    return hosting


def of(app) -> Hosting | None:
    return app.hosting


def watch_a_game(app) -> None:
    """Leave the game for the host's list of games to watch (saved as on any quit)."""
    app.exit(return_code=WATCH_EXIT)


# --- the main menu's entries when hosted (screens/main_menu.py) ----------------------------------

WATCH_ENTRY = ("watch", "Watch a game", "watch_game")
WATCHERS_ENTRY = ("watchers", "Others may watch: yes", "toggle_watchers")


def menu_entries(menu: tuple) -> tuple:
    """The main menu's (id, words, action) entries, with the hosted ones before Quit."""
    if not watching_offered():
        return menu
    return (*menu[:-1], WATCH_ENTRY, WATCHERS_ENTRY, menu[-1])


def watchers_words(allowed: bool) -> str:
    return f"Others may watch: {'yes' if allowed else 'no'}"


def watchers_subtitle(count: int) -> str:
    return "" if count == 0 else ("1 watching" if count == 1 else f"{count} watching")
