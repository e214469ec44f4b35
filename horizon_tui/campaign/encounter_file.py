"""An encounter built by the GM from the keyboard (ui.gm.screens.builder), as an encounter file.

The draft is plain data: a name, a difficulty label, a generated map and groups of catalogue
enemies (each with a count, or one unit on a cell the GM picked). It becomes the same TOML a
hand-written encounter is (data/encounters/*.toml), read back by `engine.encounter.load_encounter`
so the builder shows exactly what a battle would get. No Textual here.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from horizon_tui.campaign.campaign_files import slug
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.engine.encounter import EncounterSetup, load_encounter
from horizon_tui.errors import DataError
from horizon_tui.rules.rating import recommended_level
from horizon_tui.storage.atomic import atomic_write

DIFFICULTIES = ("easy", "normal", "hard", "deadly")


@attrs.frozen
class Group:
    enemy: str  # a catalogue enemy id
    count: int = 1
    at: tuple[int, int] | None = None  # a cell picked by cursor (then count is 1)


@attrs.frozen
class EncounterDraft:
    name: str = "A new encounter"
    difficulty: str = "normal"
    generator: str = "open"
    width: int = 24
    height: int = 16
    seed: int = 1
    groups: tuple[Group, ...] = ()

    def with_one_more(self, enemy: str) -> EncounterDraft:
        for i, g in enumerate(self.groups):
            if g.enemy == enemy and g.at is None:
                return attrs.evolve(self, groups=(*self.groups[:i], attrs.evolve(g, count=g.count + 1), *self.groups[i + 1:]))
        return attrs.evolve(self, groups=(*self.groups, Group(enemy)))

    def with_one_less(self, index: int) -> EncounterDraft:
        if not 0 <= index < len(self.groups):
            return self
        g = self.groups[index]
        rest = (attrs.evolve(g, count=g.count - 1),) if g.count > 1 else ()
        return attrs.evolve(self, groups=(*self.groups[:index], *rest, *self.groups[index + 1:]))

    def placed_at(self, index: int, cell: tuple[int, int]) -> EncounterDraft:
        """One unit of group `index` on `cell` (a group of several gives one up to it)."""
        g = self.groups[index]
        placed = Group(g.enemy, 1, (int(cell[0]), int(cell[1])))
        if g.count > 1:
            groups = (*self.groups[:index], attrs.evolve(g, count=g.count - 1), *self.groups[index + 1:], placed)
        else:
            groups = (*self.groups[:index], placed, *self.groups[index + 1:])
        return attrs.evolve(self, groups=groups)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a TOML basic string


def to_toml(draft: EncounterDraft) -> str:
    lines = [f"name = {_string(draft.name.strip() or 'A new encounter')}", f"difficulty = {_string(draft.difficulty)}",
             'description = "Built in the GM tool."', "", "[map]", f"generator = {_string(draft.generator)}",
             f"width = {int(draft.width)}", f"height = {int(draft.height)}", f"seed = {int(draft.seed)}"]
    for g in draft.groups:
        lines += ["", "[[enemies]]", f"enemy = {_string(g.enemy)}"]
        if g.at is not None:
            lines.append(f"at = [{g.at[0]}, {g.at[1]}]")
        elif g.count != 1:
            lines.append(f"count = {int(g.count)}")
    return "\n".join(lines) + "\n"


def setup_of(draft: EncounterDraft, folder: Path, catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> EncounterSetup:
    """The draft as a battle would get it (placements, XP); DataError naming what is wrong."""
    if not draft.groups:
        raise DataError.one("<encounter>", "enemies", "pick at least one enemy (enter on the catalogue)")
    scratch = folder / ".draft"  # out of the encounter list (a glob of folder/*.toml)
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / "draft.toml"
    atomic_write(path, to_toml(draft).encode())
    return load_encounter(str(path), catalogue, enemies)


def path_for(draft: EncounterDraft, folder: Path) -> Path:
    """Where `save` writes the draft: `folder/<slug of its name>.toml`."""
    return folder / f"{slug(draft.name)}.toml"


def save(draft: EncounterDraft, folder: Path, catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> Path:
    """Write the draft at `path_for`, after checking it loads; returns the path. The caller asks
    before replacing another encounter there."""
    setup_of(draft, folder, catalogue, enemies)
    path = path_for(draft, folder)
    atomic_write(path, to_toml(draft).encode())
    return path


def party_level_for(setup: EncounterSetup, party_size: int, catalogue: Catalogue) -> int:
    """R-4's guide: the level a party of this size should be for an even fight (rules.rating)."""
    points = [sum(d.character.attributes.values()) for d, _, _ in setup.enemies]
    return recommended_level(points, party_size, catalogue.rules)
