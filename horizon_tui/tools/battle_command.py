"""`horizon battle`: a whole battle without a screen, every side played by its AI."""

from __future__ import annotations

# At the top only what `horizon --help` loads anyway: subcommands.py imports this module to build
# the command's arguments, so the engine, Dask and rich are imported by the functions that use them.

import random
import sys
from pathlib import Path

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.files import locate, read_document
from horizon_tui.errors import DataError, HorizonError, Problem
from horizon_tui.paths import path_argument


def load_party(files: list[Path], catalogue: Catalogue, enemies: dict[str, EnemyDef] | None = None):
    """The party's files loaded and checked; with `enemies`, their companions too (R-6)."""
    from horizon_tui.engine.forming import PartyMember
    from horizon_tui.tools.validate_encounters import companion_problems
    from horizon_tui.rules.validation import check_character

    members, problems = [], []
    for file in files:
        try:
            character = load_character(file, catalogue)
        except DataError as exc:
            problems += exc.problems
            continue
        found = check_character(character, catalogue, str(file))
        if enemies is not None:
            found += companion_problems(character, enemies, str(file))
        if found:
            problems += locate(found, read_document(file)[1])
            continue
        members.append(PartyMember(character))
    if problems:
        raise DataError(problems)
    return members


def prepare(encounter: str, party_files: list[Path], seed: int, catalogue: Catalogue | None = None,
            enemies: dict[str, EnemyDef] | None = None):
    """Everything `battle` and `simulate` need, loaded and checked once."""
    from horizon_tui.engine.encounter import load_encounter
    from horizon_tui.rules.validation import checked_catalogue

    from horizon_tui.tools.validate_encounters import checked_enemies

    catalogue = catalogue or checked_catalogue()
    enemies = enemies if enemies is not None else checked_enemies(catalogue)
    setup = load_encounter(encounter, catalogue, enemies)
    party = load_party(party_files, catalogue, enemies)
    _one_name_each(party, party_files)
    return catalogue, enemies, setup, party


def _one_name_each(party, files: list[Path]) -> None:
    """The result's XP and a simulation's survivors are by character name (INTERFACES.md): two
    members of one name would be one entry."""
    first: dict[str, Path] = {}
    problems = []
    for member, file in zip(party, files):
        name = member.character.name
        if name in first:
            problems.append(Problem(str(file), "name", f"{name!r} is also the name of {first[name]}: two party "
                                    "members of one name would share one line of the result; rename one"))
        first.setdefault(name, file)
    if problems:
        raise DataError(problems)


def new_battle(setup, party, seed, catalogue, enemies):
    from horizon_tui.engine.battle import BattleError
    from horizon_tui.engine.forming import create_battle

    try:
        return create_battle(setup, party, seed, catalogue, enemies)
    except BattleError as exc:
        raise HorizonError(str(exc)) from None


def cmd_battle(args) -> int:
    from horizon_tui.engine.narrate import describe
    from horizon_tui.engine.runner import play_out

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    catalogue, enemies, setup, party = prepare(args.encounter, args.party, seed)
    battle = new_battle(setup, party, seed, catalogue, enemies)
    out = sys.stdout
    if args.json:
        for event in battle.log:  # the start and initiative, emitted while forming the battle
            out.write(event.to_json() + "\n")
        battle.listeners.append(lambda event: out.write(event.to_json() + "\n"))
        play_out(battle)
        return 0
    print(f"{setup.name} — seed {seed}")
    battle.listeners.append(lambda event: (line := describe(battle, event)) and print(line))
    # The start and initiative were emitted before the listener: show them now.
    for event in battle.log:
        line = describe(battle, event)
        if line:
            print(line)
    play_out(battle)
    return 0


def add_battle_arguments(parser) -> None:
    parser.add_argument("encounter", help="an encounter id from data/encounters/ or a path")
    parser.add_argument("--party", nargs="+", type=path_argument, required=True, metavar="FILE")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="JSON lines of events")
