"""`horizon validate` for enemy files (`enemies/`) and encounter files (`encounters/`).

An enemy is checked like a character (R-1 minimums, species, weapon, armor, abilities) except
that its level comes from its file (R-4: enemies may be level 1, and need not have 42 points):
its loadout must fit that level's slots and charges (R-5, R-6). Its AI profile must be one of the
profiles file beside it (`ai.toml`), its targeting one the engine knows, and a companion must name
an enemy that exists. The profiles file is checked on its own too.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection
from pathlib import Path

from horizon_tui.content.ai_profiles import FILE_NAME as AI_FILE
from horizon_tui.content.ai_profiles import AiProfiles, cached_ai_profiles, load_ai_profiles, profiles_path
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import AI_PROFILES, TARGETINGS, EnemyDef, load_enemies, load_enemy
from horizon_tui.content.files import locate, read_document
from horizon_tui.content.models import AbilityKind, Character
from horizon_tui.errors import DataError, Problem
from horizon_tui.rules.validation import check_combatant


def _choice(value: str, known: Collection[str], file: str, key: str, what: str) -> list[Problem]:
    if value in known:
        return []
    close = difflib.get_close_matches(value, list(known), n=1)
    return [Problem(
        file, key, f"unknown {what} {value!r}; known: {', '.join(known)}", suggestion=close[0] if close else None,
    )]


def check_enemy(
    enemy: EnemyDef, catalogue: Catalogue, file: str, known_enemies: Collection[str] | None = None,
    profiles: AiProfiles | None = None,
) -> list[Problem]:
    """Everything an enemy file can get wrong after it parses; never raises."""
    character = enemy.character
    problems: list[Problem] = []
    if not character.name.strip():
        problems.append(Problem(file, "name", "an enemy needs a name"))
    if enemy.level < 1:
        problems.append(Problem(file, "level", f"a level is at least 1, not {enemy.level} (R-4)"))
    if enemy.xp < 0:
        problems.append(Problem(file, "xp", "an XP value can't be negative (R-14)"))
    profile_names = profiles.names() if profiles is not None else AI_PROFILES
    problems += _choice(enemy.ai, profile_names, file, "ai", "AI profile")
    if (profiles is not None and enemy.ai in profiles and enemy.flee_below is not None
            and not any(r.do == "flee" for r in profiles[enemy.ai].rules)):
        problems.append(Problem(file, "flee_below", f"profile {enemy.ai!r} has no flee rule for it to change"))
    problems += _choice(enemy.targeting, TARGETINGS, file, "targeting", "targeting")
    if enemy.flee_below is not None and not 0 < enemy.flee_below < 1:
        problems.append(Problem(file, "flee_below", "a share of health between 0 and 1, e.g. 0.3"))
    if len(enemy.glyph) != 1:
        problems.append(Problem(file, "glyph", f"one character to draw it with, not {enemy.glyph!r}"))
    if known_enemies is not None:
        problems += companion_problems(character, known_enemies, file)
    # The rest as for any combatant, at the enemy's own level (R-4: set in its file).
    return problems + check_combatant(character, catalogue, file, level=enemy.level)


def companion_problems(character: Character, known_enemies: Collection[str], file: str) -> list[Problem]:
    """R-6: each companion ability names an enemy of the catalogue (it joins the battle as one);
    else the battle would refuse it at its start, naming neither the file nor the key."""
    problems: list[Problem] = []
    for index, ability in enumerate(character.abilities):
        if ability.kind is AbilityKind.companion and ability.companion and ability.companion not in known_enemies:
            problems += _choice(ability.companion, sorted(known_enemies), file, f"abilities.{index}.companion", "enemy")
    return problems


def _enemies_folder(path: Path, catalogue: Catalogue) -> Path | None:
    """The enemies beside a file's folder (data/encounters -> data/enemies), else the catalogue's."""
    beside = path.resolve().parent.parent / "enemies"
    if beside.is_dir():
        return beside
    if catalogue.root is not None and (catalogue.root / "enemies").is_dir():
        return catalogue.root / "enemies"
    return None


def _load_folder(folder: Path | None, catalogue: Catalogue) -> tuple[dict[str, EnemyDef], set[str]]:
    """The enemies that load, and the ids of those that don't (their own files report why)."""
    loaded: dict[str, EnemyDef] = {}
    broken: set[str] = set()
    if folder is None:
        return loaded, broken
    for file in sorted(folder.glob("*.toml")):
        try:
            loaded[file.stem] = load_enemy(file, catalogue)
        except DataError:
            broken.add(file.stem)
    return loaded, broken


def _profiles_for(path: Path, catalogue: Catalogue) -> tuple[AiProfiles | None, Problem | None]:
    """The profiles beside an enemy's folder (data/enemies -> data/ai.toml), else the catalogue's."""
    beside = path.resolve().parent.parent / AI_FILE
    file = beside if beside.is_file() else profiles_path(catalogue.root)
    try:
        return cached_ai_profiles(file), None
    except DataError:
        return None, Problem(str(path), "ai", f"can't check the profile: {file} has problems (validate it)")


def check_ai_file(path: Path, catalogue: Catalogue) -> list[Problem]:
    load_ai_profiles(path)  # DataError: validate_paths reports its problems
    return []


def check_enemy_file(path: Path, catalogue: Catalogue) -> list[Problem]:
    enemy = load_enemy(path, catalogue)  # DataError: validate_paths reports its problems
    folder = _enemies_folder(path, catalogue)
    known = {p.stem for p in folder.glob("*.toml")} if folder is not None else None
    profiles, trouble = _profiles_for(path, catalogue)
    problems = check_enemy(enemy, catalogue, str(path), known, profiles)
    if trouble is not None:
        problems = [p for p in problems if p.key != "ai"] + [trouble]
    return locate(problems, read_document(path)[1]) if problems else []


def check_encounter_file(path: Path, catalogue: Catalogue) -> list[Problem]:
    from horizon_tui.engine.encounter import load_encounter  # the engine (tcod, NumPy) only for an encounter, not a character

    enemies, broken = _load_folder(_enemies_folder(path, catalogue), catalogue)
    try:
        load_encounter(path, catalogue, enemies)
    except DataError as exc:
        problems = []
        for problem in exc.problems:
            bad = next((b for b in broken if problem.message == f"unknown enemy {b!r}"), None)
            if bad is not None:
                message = f"enemy {bad!r} can't be loaded (its own file says why)"
                problem = Problem(problem.file, problem.key, message, problem.line)
            problems.append(problem)
        return problems
    return []


def checked_enemies(catalogue: Catalogue) -> dict[str, EnemyDef]:
    """The enemy catalogue, each enemy checked as `horizon validate` checks its file (`check_enemy`),
    for the commands that fight with it: a GM's goblin with armor class 0, a weapon's damage "x" or
    a loadout naming an ability it hasn't is named with its file and line, not met as an internal
    error (or a fight under rules it breaks)."""
    enemies = load_enemies(catalogue)
    root = catalogue.root
    if root is None:
        return enemies
    profiles = cached_ai_profiles(profiles_path(root)) if profiles_path(root).is_file() else None
    problems: list[Problem] = []
    for enemy_id, enemy in enemies.items():
        file = root / "enemies" / f"{enemy_id}.toml"
        found = check_enemy(enemy, catalogue, str(file), set(enemies), profiles)
        if found:
            problems += locate(found, read_document(file)[1]) if file.is_file() else found
    if problems:
        raise DataError(problems)
    return enemies
