"""The title line at the top of a screen and the key line at the bottom.

Textual's Header and Footer do the same jobs, but the Footer mounts one widget per key and the
Header four widgets: together ~75 ms every time a screen is composed (measured: bare app 65 ms to
idle, with Header 85 ms, with Footer 126 ms, both 139 ms; `bench/bench_tui.py`). These two are
one widget each, drawn as one line of Content, and read the same things: the screen's title and
sub-title, and the screen's active bindings (refreshed when they change). Keys can be clicked.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widget import Widget

KEY_STYLE = "bold $footer-key-foreground on $footer-key-background"
DESCRIPTION_STYLE = "$footer-description-foreground on $footer-description-background"
DISABLED_STYLE = "dim"


class TitleBar(Widget):
    """The screen's title and sub-title (else the app's), centred on one line."""

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: center middle;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def on_mount(self) -> None:
        for owner in (self.app, self.screen):
            self.watch(owner, "title", self.refresh, init=False)
            self.watch(owner, "sub_title", self.refresh, init=False)

    def render(self) -> Content:
        screen, app = self.screen, self.app
        title = screen.title if screen.title is not None else app.title
        sub_title = screen.sub_title if screen.sub_title is not None else app.sub_title
        return app.format_title(title, sub_title)


HELP_BINDING = "app.help"  # the app's ? and f1 (ui.player.app): kept in view on a narrow screen


class KeyBar(Widget):
    """The screen's shown key bindings, `key description` each, and the command palette key at
    the right. Bindings of one group share a description (`1 2 3 Switch tab`); a disabled
    binding is dimmed. Clicking a key presses it."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        width: 100%;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._spans: list[tuple[int, int, str]] = []  # (first cell, end cell, key) to click

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen) -> None:
        if self.is_attached and screen is self.screen:
            self.refresh()

    def _items(self) -> tuple[list[tuple[list[tuple[str, str, bool]], str, bool]], tuple[str, str] | None]:
        """[(keys as (key, shown, enabled), description, is the help key)] in screen order, and the
        palette key."""
        app = self.app
        active = self.screen.active_bindings
        items: list[tuple[list[tuple[str, str, bool]], str, bool]] = []
        seen_actions: set[str] = set()
        group = None
        for _node, binding, enabled, _tooltip in active.values():
            if not binding.show or binding.action in seen_actions:
                continue
            seen_actions.add(binding.action)
            key = (binding.key, app.get_key_display(binding), enabled)
            if binding.group is not None and binding.group == group:
                items[-1][0].append(key)
                continue
            group = binding.group
            items.append(([key], group.description if group is not None else binding.description,
                          binding.id == HELP_BINDING))
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, _enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = (binding.key, f" {app.get_key_display(binding)} {binding.description} ")
        return items, palette

    def render(self) -> Content:
        items, palette = self._items()
        width = self.size.width
        pieces = [self._piece(keys, description) for keys, description, _ in items]
        if sum(length for _, length, _ in pieces) > width:
            # Too narrow for every key: those that fit, then the help key (which lists them all)
            # at the end, never cut off behind an ellipsis.
            helps = [piece for piece, item in zip(pieces, items) if item[2]]
            room = width - sum(length for _, length, _ in helps)
            kept = []
            for piece, item in zip(pieces, items):
                if item[2]:
                    continue
                if piece[1] > room:
                    break  # the screen's order kept: nothing after the first that doesn't fit
                kept.append(piece)
                room -= piece[1]
            pieces = kept + helps
        parts: list[Content] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        for content, length, keys in pieces:
            parts.append(content)
            spans += [(x + first, x + end, key) for first, end, key in keys]
            x += length
        line = Content("").join(parts)
        if palette is not None:
            key, text = palette
            gap = width - line.cell_length - len(text)
            if gap >= 1:
                start = width - len(text)
                spans.append((start, width, key))
                line = Content("").join([line, Content(" " * gap), Content.styled(text, KEY_STYLE)])
        self._spans = spans
        return line

    @staticmethod
    def _piece(keys: list[tuple[str, str, bool]], description: str) -> tuple[Content, int, list[tuple[int, int, str]]]:
        """One item drawn: its content, its width in cells, and where each of its keys is in it."""
        parts: list[Content] = []
        spans: list[tuple[int, int, str]] = []
        x = 0
        for key, shown, enabled in keys:
            text = f" {shown} "
            parts.append(Content.styled(text, KEY_STYLE if enabled else f"{KEY_STYLE} {DISABLED_STYLE}"))
            spans.append((x, x + len(text), key))
            x += len(text)
        if description:
            parts.append(Content.styled(f"{description} ", DESCRIPTION_STYLE))
            x += len(description) + 1
        return Content("").join(parts), x, spans

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return
