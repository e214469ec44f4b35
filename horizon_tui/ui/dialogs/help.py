"""`?` on any screen: the keys in force right now, generated from the live bindings.

Grouped by where each binding is declared: the focused widget (and its containers), the screen,
and the app ("everywhere"). Nothing is written by hand, so remapped keys show as remapped.
"""

from __future__ import annotations

import re

import attrs
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import ActiveBinding, Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from horizon_tui.play.keymap import user_keymap_path


@attrs.frozen
class HelpKey:
    keys: str  # as displayed, e.g. "+ = →"
    description: str
    enabled: bool = True


@attrs.frozen
class HelpGroup:
    title: str
    keys: tuple[HelpKey, ...]


def _words(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).lower()
    return spaced[:1].upper() + spaced[1:]


def _group_title(node: DOMNode, screen: Screen) -> str:
    if isinstance(node, App):
        return "Everywhere"
    if node is screen:
        return f"This screen — {screen.title}" if screen.title else "This screen"
    title = getattr(node, "HELP_TITLE", None) or _words(type(node).__name__)
    return f"{title} (focused)" if node is screen.focused else title


def help_groups(screen: Screen) -> list[HelpGroup]:
    """The screen's active bindings, grouped by the node that declares them (focused first)."""
    app = screen.app
    order: list[DOMNode] = []
    rows: dict[int, dict[tuple[str, str], list]] = {}
    actives = list(screen.active_bindings.values())
    # a key the app takes first without a word of its own (tab: the next field in a form) and
    # passes on to the screen otherwise is still the screen's key here (the battle's auto-fight)
    for key, active in screen.active_bindings.items():
        if active.node is app and not active.binding.description:
            actives += [ActiveBinding(screen, own, True, own.tooltip)
                        for own in screen._bindings.key_to_bindings.get(key, ()) if own.id]  # noqa: SLF001
    for active in actives:
        binding: Binding = active.binding
        if binding.system or not binding.description:
            continue
        node = active.node
        if id(node) not in rows:
            order.append(node)
            rows[id(node)] = {}
        description = binding.group.description if binding.group else binding.description
        slot = ("group", description) if binding.group else (binding.action, description)
        entry = rows[id(node)].setdefault(slot, [[], active.enabled, bool(binding.id)])
        display = app.get_key_display(binding)
        if display not in entry[0]:
            entry[0].append(display)
    if app not in order:  # a dialog hides the app's keys, but its priority keys (ctrl+q) still work
        order.append(app)
        rows[id(app)] = {}
        for bindings in app._bindings.key_to_bindings.values():
            for binding in bindings:
                if binding.priority and binding.description and not binding.system:
                    rows[id(app)].setdefault((binding.action, binding.description), [[], True, True])[0].append(
                        app.get_key_display(binding))
    # The screen's own keys first, then the focused widget's (nearest first), then everywhere.
    order.sort(key=lambda node: 0 if node is screen else 2 if isinstance(node, App) else 1)
    groups = []
    for node in order:
        keys = [
            (not ids, HelpKey(" ".join(displays), description, enabled))
            for (_, description), (displays, enabled, ids) in rows[id(node)].items()
        ]
        keys.sort(key=lambda pair: pair[0])  # Horizon's own keys (they carry ids) before Textual's
        groups.append(HelpGroup(_group_title(node, screen), tuple(key for _, key in keys)))
    return groups


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help.close"),
    ]

    def __init__(self, groups: list[HelpGroup], about: str):
        super().__init__(classes="dialog-screen")
        self.groups = groups
        self.about = about

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help") as box:
            box.border_title = f"Keys — {self.about}"
            box.border_subtitle = "esc closes"
            with VerticalScroll():
                for group in self.groups:
                    yield Static(Text(group.title, style="bold"), classes="help-group")
                    table = Table.grid(padding=(0, 2))
                    table.add_column(min_width=12, style="bold")
                    table.add_column()
                    for key in group.keys:
                        style = "" if key.enabled else "dim"
                        table.add_row(Text(key.keys, style=style or "bold"), Text(key.description, style=style))
                    yield Static(table, classes="help-keys")

                yield Static(Text(  # plain text: "[H]" is not markup
                    "ctrl+p opens the command palette: every action and screen by name.\n"
                    "The Rules screen marks house defaults [H]: readings a GM may change.\n"
                    f"Keys with an id can be rebound in {user_keymap_path()} "
                    '(e.g. [battle] look = ["semicolon", "v"]; ids in the README).'),
                    classes="help-note",
                )
