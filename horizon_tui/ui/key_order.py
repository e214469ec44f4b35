"""Keys typed into a text field act in the order they were typed, even when they arrive together.

Textual hands a key to the focused widget, which inserts a printable character at once; a key
bound to something (end, backspace, the arrows, enter) goes on up through each parent's message
queue to the app, which only then runs the focused widget's binding. Keys that arrive in one read
(a paste without bracketed paste, one SSH packet, a tmux `send-keys`) are then applied out of
order: "1", end, backspace, "9" typed into a field holding "1" left it empty (the "9" went in
first, the backspace deleted it). Found by hand in the GM's NPC editor over tmux.

Here a text field (`textual.widgets.Input`) and a text area (`TextArea`: the GM's NPC notes and
dialogue roleplay, typed over SSH at a table) run their own non-priority bindings as they take the
key, in their own queue, so they keep their place among the characters; anything they don't bind
goes on as before. Installed once, at import, for Horizon's apps only (`CrashGuard` in their
bases); textual is pinned below 9 in pyproject.toml for this and crash_screen's seam.
"""

from __future__ import annotations

from textual.widgets import Input, TextArea

from horizon_tui.ui.crash_screen import CrashGuard


def keep_key_order() -> None:
    """See the module's docstring. Idempotent."""
    for widget in (Input, TextArea):
        _in_order(widget)


def _in_order(widget: type) -> None:
    original = widget._on_key  # noqa: SLF001 - the seam (module docstring)
    if getattr(original, "horizon_in_order", False):
        return

    async def on_key(self, event) -> None:
        if not event.is_printable and isinstance(self.app, CrashGuard):
            for binding in self._bindings.key_to_bindings.get(event.key, ()):  # noqa: SLF001
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        await original(self, event)

    on_key.horizon_in_order = True  # type: ignore[attr-defined]
    widget._on_key = on_key  # type: ignore[attr-defined]  # noqa: SLF001


keep_key_order()
