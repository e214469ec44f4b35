"""The sweep's grid: encounters × party level × party size, one `Fight` per cell, and a row of
results per cell."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import Rating
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.tools.battle_command import load_party
from horizon_tui.tools.sweep.fights import make_fight
from horizon_tui.tools.sweep.policy import SweepPolicy, raise_to_level, sized_party
from horizon_tui.tools.sweep.summary import WinEstimate, estimate_from
from horizon_tui.tools.sweep.work import Fight, Played
from horizon_tui.tools.validate_encounters import checked_enemies


@attrs.frozen
class Cell:
    encounter: str  # the encounter's id (its file name)
    level: int
    size: int

    @property
    def name(self) -> str:
        """The cell in battle seeds: battle i of this cell plays from hash(seed, name, i)."""
        return f"{self.encounter}/L{self.level}/S{self.size}"


@attrs.frozen
class Row:
    cell: Cell
    estimate: WinEstimate

    def as_dict(self) -> dict[str, Any]:
        e = self.estimate.as_dict()
        return {"encounter": self.cell.encounter, "level": self.cell.level, "size": self.cell.size, **e}


def build_fights(encounters: Sequence[str], party_files: Sequence[Path], levels: Sequence[int], sizes: Sequence[int],
                 catalogue: Catalogue, policy: SweepPolicy) -> tuple[list[Cell], list[Fight]]:
    """Every cell's fight, encounters loaded and characters raised once each. Raises DataError."""
    enemies = checked_enemies(catalogue)
    characters = [m.character for m in load_party(list(party_files), catalogue, enemies)]
    setups = [load_encounter(e, catalogue, enemies) for e in encounters]
    raised = {level: [raise_to_level(c, level, catalogue.rules, policy) for c in characters] for level in levels}
    cells, fights = [], []
    for setup in setups:
        for level in levels:
            for size in sizes:
                cell = Cell(setup.id, level, size)
                cells.append(cell)
                fights.append(make_fight(setup, sized_party(raised[level], size), catalogue=catalogue,
                                         enemies=enemies, cell=cell.name))
    return cells, fights


def rows_of(cells: Sequence[Cell], played: Sequence[Sequence[Played]]) -> list[Row]:
    return [Row(cell, estimate_from(p)) for cell, p in zip(cells, played)]


def recommend(rows: Sequence[Row], target: float, seed: int) -> dict[str, tuple[Rating, bool]]:
    """Per encounter: the lowest level, then the smallest size, whose win rate reaches `target`
    (True), or — when none does — the cell with the best win rate (False)."""
    found: dict[str, tuple[Rating, bool]] = {}
    for encounter in dict.fromkeys(r.cell.encounter for r in rows):
        own = sorted((r for r in rows if r.cell.encounter == encounter), key=lambda r: (r.cell.level, r.cell.size))
        reaching = [r for r in own if r.estimate.win_rate >= target]
        best = reaching[0] if reaching else max(own, key=lambda r: (r.estimate.win_rate, -r.cell.level, -r.cell.size))
        found[encounter] = (Rating(
            party_level=best.cell.level, party_size=best.cell.size, target_win_rate=target,
            measured_win_rate=round(best.estimate.win_rate, 4), runs=best.estimate.runs, seed=seed,
        ), bool(reaching))
    return found
