"""The character being made in the creation wizard, before it has a file.

No Textual here. Every step reads and writes this one draft; `character()` turns it into the
`Character` the rules build, validate and save.
"""

from __future__ import annotations

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.models import Armor, Background, Bonuses, Character, Species, Weapon
from horizon_tui.rules.creation import starting_attributes

CUSTOM = "__custom__"  # the species list's "make your own" entry


def _first(ids, preferred: str) -> str | None:
    ids = list(ids)
    return preferred if preferred in ids else (ids[0] if ids else None)


@attrs.define
class CharacterDraft:
    catalogue: Catalogue
    species_id: str = ""  # a catalogue id, or CUSTOM
    custom: Species = attrs.field(factory=lambda: Species(name="", universe=""))
    custom_problem: str | None = None  # the custom bonuses' text doesn't parse
    attributes: dict[str, int] = attrs.field(factory=dict)
    name: str = ""
    background: Background = attrs.field(factory=Background)
    weapon_id: str = ""
    armor_id: str | None = None

    @classmethod
    def new(cls, catalogue: Catalogue) -> CharacterDraft:
        species = sorted(catalogue.species, key=lambda k: catalogue.species[k].name)
        return cls(
            catalogue,
            species_id=_first(species, "human") or CUSTOM,
            attributes=starting_attributes(catalogue.rules),
            weapon_id=_first(catalogue.weapons, "dagger") or "",
        )

    @property
    def is_custom(self) -> bool:
        return self.species_id == CUSTOM

    def species(self) -> Species:
        return self.custom if self.is_custom else self.catalogue.species[self.species_id]

    def weapon(self) -> Weapon:
        return self.catalogue.weapons[self.weapon_id]

    def armor(self) -> Armor | None:
        return None if self.armor_id is None else self.catalogue.armor[self.armor_id]

    def set_custom(self, name: str, universe: str, description: str, bonuses: Bonuses) -> None:
        self.custom = Species(name=name.strip(), universe=universe.strip() or "own",
                              description=description.strip(), bonuses=bonuses)

    def character(self) -> Character:
        return Character(
            name=self.name.strip(),
            species=self.species(),
            weapon=self.weapon(),
            attributes=dict(self.attributes),
            armor=self.armor(),
            background=self.background,
        )
