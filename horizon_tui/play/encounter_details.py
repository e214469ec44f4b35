"""The encounter list's details (XP, enemies), as the combat engine loads each encounter.

Apart from play.library, which the app reads before its menu is idle: this module imports the engine
(NumPy, tcod), so the engine loads when the encounter list is first opened, not at start-up.
"""

from __future__ import annotations

from pathlib import Path

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.crash import write_report
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.errors import DataError
from horizon_tui.play.library import short_problem
from horizon_tui.tools.validate_encounters import checked_enemies


def encounter_details(paths: list[Path], catalogue: Catalogue) -> dict[Path, tuple[int, int] | str]:
    """XP total and enemy count of each encounter, as the combat engine loads it, or the problem
    that keeps it from loading."""
    try:
        enemies = checked_enemies(catalogue)  # each enemy checked as `horizon validate` checks it
    except DataError as exc:
        first = exc.problems[0]  # another file than the encounter's: named (goblin.toml, line 11: …)
        where = f"{Path(first.file).name}, " if first.file else ""
        return {path: f"the enemy catalogue has problems: {where}{short_problem(first)}" for path in paths}
    details: dict[Path, tuple[int, int] | str] = {}
    for path in paths:
        try:
            setup = load_encounter(path, catalogue, enemies)
        except DataError as exc:
            details[path] = short_problem(exc.problems[0])
        except Exception as exc:  # noqa: BLE001 - a bug met on a file: reported, the list stays up
            details[path] = f"can't be loaded (internal error; crash report {write_report(exc, str(path))})"
        else:
            details[path] = (setup.xp, len(setup.enemies))
    return details
