"""The command palette's Horizon commands: every screen by name and every action of the screen
the palette was opened on (its live bindings), so nothing is reachable only by a key."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

Command = tuple[str, str, Callable[[], object]]


class HorizonCommands(Provider):
    def _navigation(self) -> list[Command]:
        app = self.app
        commands: list[Command] = [
            ("Main menu", "Back to the main menu", partial(app.run_action, "main_menu")),
            ("New character", "Make a character, step by step", partial(app.run_action, "new_character")),
            ("Load character", "Open a saved character", partial(app.run_action, "load_character")),
            ("Battle", "Pick an encounter", partial(app.run_action, "battle")),
            ("New run", "Fights from depth 1 until the party falls", partial(app.run_action, "new_run")),
            ("Hall of fame", "Runs by depth and score", partial(app.run_action, "hall_of_fame")),
            ("Rules", "The rules data in force, house defaults marked \\[H]", partial(app.run_action, "rules")),
            ("Help", "The keys of this screen", partial(app.run_action, "help")),
        ]
        session = app.session
        if session is not None:
            name = session.character.name
            commands += [
                ("Character sheet", f"{name}'s numbers", partial(app.run_action, "sheet")),
                ("Level up", f"Spend {name}'s XP on attributes", partial(app.run_action, "level_up")),
                ("Abilities", f"Invent and edit {name}'s abilities", partial(app.run_action, "abilities")),
                ("Loadout", f"Fill {name}'s ability slots", partial(app.run_action, "loadout")),
            ]
        return commands

    def _screen_actions(self, taken: set[str]) -> list[Command]:
        """The bindings in force on the screen below the palette (ours carry an id)."""
        commands: list[Command] = []
        seen: set[tuple[int, str]] = set()
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.id or not binding.description or not active.enabled:
                continue
            if binding.id.startswith("app.") or (id(active.node), binding.action) in seen:
                continue
            seen.add((id(active.node), binding.action))
            title = binding.description
            if title in taken:
                continue
            key = self.app.get_key_display(binding)
            help_text = binding.tooltip or f"{self.screen.title or 'this screen'} ({key})"
            commands.append((title, help_text, partial(self.app.run_action, binding.action, active.node)))
        return commands

    def _commands(self) -> list[Command]:
        navigation = self._navigation()
        return self._screen_actions({title for title, _, _ in navigation}) + navigation

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
