"""An unexpected exception inside an app: save what can be saved, write a crash report,
show a screen naming it. The app keeps running; a second crash while the screen is up ends it as
Textual would. Used by the player app and the GM tool (`CrashGuard` in their bases).

Textual ends a message pump's loop at the first error a handler raises
(`MessagePump._process_messages_loop` breaks). When that pump is the App's or a screen's, the app
takes no more keys — the crash screen's escape and q included — so `keep_pumps_alive` wraps
`MessagePump._dispatch_message` once: in a `CrashGuard` app the error goes to `_handle_exception`
and the pump goes on. That is Textual's private API, hence textual's upper bound in pyproject."""

from __future__ import annotations

from asyncio import CancelledError
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message_pump import MessagePump
from textual.screen import ModalScreen
from textual.widgets import Static

from horizon_tui.crash import EXIT_INTERNAL, one_line, write_report
from horizon_tui.terminal import tell

MAX_CRASHES = 5  # after this many in one run, something is badly wrong: let Textual end the app


class CrashScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,enter", "dismiss_crash", "Go on", id="crash.continue"),
        Binding("q", "app.quit", "Quit", id="crash.quit"),
    ]

    def __init__(self, report: Path | None, saved: list[str]):
        super().__init__(id="crash", classes="dialog-screen")
        self.report = report
        self.saved = saved

    def compose(self) -> ComposeResult:
        where = str(self.report) if self.report else "(no crash report could be written)"
        saved = "; ".join(self.saved) if self.saved else "nothing needed saving"
        with Vertical(classes="dialog") as box:
            box.border_title = "Internal error"
            yield Static(
                "Something went wrong inside Horizon: a bug, not something you did.\n\n"
                f"Saved first: {saved}.\n\nA crash report was written to:\n{where}\n\n"
                "Please send it to the developers. Press escape to go on, q to quit.",
                classes="question", markup=False, id="crash-text",
            )

    def action_dismiss_crash(self) -> None:
        self.dismiss(None)


class CrashGuard:
    """Mixin for a Textual App: `_handle_exception` saves (`save_before_crash`), reports, shows."""

    crash_reports: list[Path | None]

    def crash_exit_code(self, otherwise: int) -> int:
        """For the command, once the app has ended: after a crash in this run, 70 (crash.EXIT_INTERNAL)
        with one line per crash report on stderr, as the CLI gives for a crash outside an app;
        else `otherwise`."""
        reports = self.__dict__.get("crash_reports") or []
        tell(*(one_line(report) for report in reports))  # the reports are on disk whatever happens here
        return EXIT_INTERNAL if reports else otherwise

    def save_before_crash(self) -> list[str]:
        """What was saved; each app says what it keeps (the character, the battle, the campaign)."""
        return []

    def _handle_exception(self, error: Exception) -> None:  # Textual's hook for an unhandled error
        reports = self.__dict__.setdefault("crash_reports", [])
        on_screen = isinstance(getattr(self, "screen", None), CrashScreen)
        if on_screen or len(reports) >= MAX_CRASHES:
            super()._handle_exception(error)  # type: ignore[misc]
            return
        if getattr(self, "_exception", None) is None:
            self._exception = error  # Pilot tests still see it when they end
        try:
            saved = self.save_before_crash()
        except Exception as failure:  # noqa: BLE001 - saving must not hide the first crash
            saved = [f"saving failed too ({type(failure).__name__})"]
        report = write_report(error, f"{type(self).__name__}; saved: {saved}")
        reports.append(report)
        try:
            self.push_screen(CrashScreen(report, saved))  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - can't even show it: end the app as Textual would
            super()._handle_exception(error)  # type: ignore[misc]


def keep_pumps_alive() -> None:
    """See the module's docstring. Idempotent; other apps' pumps behave as Textual's own."""
    original = MessagePump._dispatch_message  # noqa: SLF001 - the one seam (module docstring)
    if getattr(original, "horizon_keeps_alive", False):
        return

    async def dispatch(self, message) -> None:
        try:
            await original(self, message)
        except CancelledError:
            raise
        except Exception as error:
            try:
                app = self if isinstance(self, CrashGuard) else self.app
            except Exception:  # noqa: BLE001 - no app to tell: Textual's own way
                raise error from None
            if not isinstance(app, CrashGuard):
                raise
            app._handle_exception(error)  # reports and shows it, or ends the app as Textual would

    dispatch.horizon_keeps_alive = True  # type: ignore[attr-defined]
    MessagePump._dispatch_message = dispatch  # type: ignore[method-assign]


keep_pumps_alive()
