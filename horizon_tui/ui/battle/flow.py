"""Starting, saving, resuming and ending a battle for the character being played.

A battle in progress is kept as `battles/<character file stem>.json` in the saves folder's
journal (`storage.records`, `storage.battles`): the inputs given since the last save are appended
at the end of every turn of the player's and when the screen closes; finishing the battle ends
its journal (its record is kept) and adds the XP to the character (R-14), saved like any other change.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from horizon_tui.engine.battle import BattleError, comp, ident
from horizon_tui.engine.components import Presence, Tally
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.narrate import describe
from horizon_tui.engine.persist import BattleInProgress, load_session, save_session, session_from_dict, session_to_dict
from horizon_tui.engine.runner import begin
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.play.library import short_problem
from horizon_tui.rules.creation import solo_character
from horizon_tui.rules.texts import counted
from horizon_tui.storage.records import (
    battle_slot, battles_of, drop_battle, has_battle, keep_battle, read_battle, record_text, set_aside_damaged, write_record,
)
from horizon_tui.ui.app_contract import player_host
from horizon_tui.ui.battle.dialogs import SUMMARY_COLUMNS, BattleSummary
from horizon_tui.ui.battle.roles import LocalEngine
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.dialogs.confirm import ConfirmDialog

SEED_ENV = "HORIZON_SEED"

if TYPE_CHECKING:
    from horizon_tui.engine.readmodel import ReadModel
    from horizon_tui.ui.app_contract import AppContract


def battle_save_path(app: AppContract, character_path: Path) -> Path:
    """The character's battle in progress, by the name it is kept under (`storage.records.battle_slot`)."""
    return app.library.saves_dir / "battles" / f"{character_path.stem}.json"


def start(app: AppContract, encounter_path: Path, seed: int | None = None, party: list | None = None) -> None:
    """Form the battle (refusals are reported, nothing starts) and open the battlefield. `party`:
    `PartyMember`s (hot-seat: each played by you or its AI); default, the character being played."""
    session = form(app, encounter_path, seed, party)
    if session is not None:
        open_session(app, session)


def form(app: AppContract, encounter_path: Path, seed: int | None = None, party: list | None = None):
    """The battle `start` opens, formed and begun but not shown: a `BattleInProgress`, or None when
    it can't start (said to the player), so that nothing else has to change for a battle that
    never begins (the one in progress is put aside only once the new one is formed)."""
    session = app.session
    if session is None:
        app.notify("Load a character first.", severity="warning")
        return None
    if seed is None and os.environ.get(SEED_ENV, "").strip().isdigit():
        seed = int(os.environ[SEED_ENV])  # a fixed seed for tests and for replaying a bug report
    party = list(party) if party else [PartyMember(session.character, "player")]
    if not app.overrides_allowed:  # R-6 [H]: without a GM, abilities use the rules' numbers

        party = [attrs.evolve(m, character=solo_character(m.character, app.rules)) for m in party]
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    try:
        enemies = app.enemies()
        setup = load_encounter(encounter_path, app.catalogue, enemies)
        battle = create_battle(setup, party, seed, app.catalogue, enemies)
    except (DataError, BattleError, HorizonError) as exc:
        message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
        app.notify(message, title="This battle can't start", severity="error", timeout=10)
        return None

    begin(battle)
    return BattleInProgress(battle, str(encounter_path), party)


def enemy_ids(app: AppContract) -> list[str] | None:
    """The enemy catalogue's ids (what a companion may name), None if it can't be loaded."""
    try:
        return sorted(app.enemies())
    except (DataError, HorizonError):
        return None


def saved_battle(app: AppContract) -> Path | None:
    """The character's battle in progress, None if there is none (or the journal can't be opened: said)."""

    if app.session is None:
        return None
    path = battle_save_path(app, app.session.path)
    try:
        return path if has_battle(app.library.saves_dir, path) else None
    except HorizonError as exc:  # storage.database.DatabaseError: which file, what is wrong
        app.notify(str(exc), title="Battles can't be read", severity="error", timeout=10)
        return None


def put_aside(app: AppContract) -> Path | None:
    """Keep the battle in progress aside (`storage.records.keep_battle`: `battles/kept/`, listed by
    Load ▸ Battles and resumable from there), so another can start. Nothing is deleted. Under
    the character's lock: HorizonError (nothing moved) in a window that no longer holds it."""
    path = saved_battle(app)
    if path is None or app.session is None:
        return None
    with player_host(app).save_guard():  # LockLost if another window took the character (and its battle) over
        return keep_battle(path, app.session.path.stem, app.library.saves_dir)


def resume(app: AppContract, fresh=None) -> None:
    """Replay the saved battle to where it was left. A save that can't be read is offered to be
    set aside (moved to `battles/damaged/`, never deleted) and, with `fresh`, a new battle started."""

    path = saved_battle(app)
    if path is None:
        return
    saves = app.library.saves_dir
    session: BattleInProgress | None
    try:
        if path.exists():  # a file the journal couldn't take: read, to say what is wrong with it
            session = session_from_dict(read_battle(saves, path), app.catalogue, app.enemies(), path.name)
        else:  # from the journal: the next save appends to it
            session = load_session(battles_of(saves), battle_slot(saves, path), app.catalogue, app.enemies())
    except DataError as exc:
        # the save's name, never its folder: over SSH that is the host's path
        app.notify(f"{path.name}: {short_problem(exc.problems[0])}", title="The saved battle can't be resumed",
                   severity="error", timeout=10)
        _offer_set_aside(app, path, exc, fresh)
        return
    if session is not None:
        open_session(app, session)


def _offer_set_aside(app: AppContract, path: Path, exc: DataError, fresh) -> None:

    def answered(yes: bool | None) -> None:
        if not yes:
            app.notify(f"{path.name} is left as it is.", title="Not resumed")
            return
        try:
            moved = set_aside_damaged(app.library.saves_dir, path)
        except OSError as error:
            app.notify(f"{path.name} can't be moved: {error.strerror or error}", title="Not moved", severity="error")
            return
        except HorizonError as error:
            app.notify(f"{path.name} can't be moved: {error}", title="Not moved", severity="error")
            return
        app.notify(f"Set aside as {moved}", title="Damaged battle save")
        if fresh is not None:
            fresh()

    app.push_screen(ConfirmDialog(
        f"The saved battle can't be resumed: {short_problem(exc.problems[0])}\n\nSet it aside "
        f"(moved to battles/damaged/, never deleted) and start fresh?",
        title="Damaged battle save", yes="Set aside"), answered)


def open_session(app: AppContract, session: BattleInProgress) -> None:
    assert app.session is not None  # the battle is the character being played's
    character_path = app.session.path

    def autosave(s: BattleInProgress) -> None:

        saves = app.library.saves_dir
        with player_host(app).save_guard():  # the character's lock: a session that took it over is not written over
            save_session(battles_of(saves), battle_slot(saves, battle_save_path(app, character_path)), s, app.catalogue)

    driver = LocalEngine(autosave=autosave, on_end=lambda s: finish(app, s, character_path))
    app.push_screen(BattleScreen(session, driver=driver))


def summary_rows(session: BattleInProgress, known: ReadModel | None = None) -> list[tuple[str, ...]]:
    """A row per combatant (its damage dealt and taken, effects applied, how it ended); with a
    viewer's read model, only those in its initiative (whom it may know: never one it didn't see)."""
    shown = None if known is None else {entry.id for entry in known.initiative}
    rows: list[tuple[str, ...]] = []
    for e in session.battle.combatants():
        if shown is not None and ident(e).id not in shown:
            continue
        i, tally = ident(e), comp(e, Tally)
        rows.append((i.name, i.base_team, str(tally.damage_dealt), str(tally.damage_taken),
                     str(tally.effects_applied), comp(e, Presence).value))
    return rows


def finish(app: AppContract, session: BattleInProgress, character_path: Path) -> None:
    """Show the summary, give the XP, keep the battle's record (`storage.records`, as a morgue file),
    go back to the sheet."""
    result = session.battle.result
    assert result is not None
    headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
    headline += f"  {counted(result.rounds, 'round')}."
    names = [m.character.name for m in session.party]
    footer = "  ".join(f"{n} gains {result.xp[n]} XP." if result.xp.get(n) else f"{n} gains no XP."
                       for n in names)
    rows = summary_rows(session)
    record = _keep_record(app, session, character_path, headline, rows, SUMMARY_COLUMNS, footer)

    def done(_: None) -> None:

        try:  # under the character's lock: a window that took it over may have a battle of its own there
            with player_host(app).save_guard():
                drop_battle(app.library.saves_dir, battle_save_path(app, character_path))  # its record is kept instead
        except HorizonError:
            pass  # read-only here, or taken over: that battle is not this window's to end
        if app.session is not None and app.session.path == character_path:
            gained = result.xp.get(app.session.character.name, 0)
            if gained:
                character = app.session.character
                app.commit(attrs.evolve(character, xp=character.xp + gained))
                app.notify(f"{character.name} gains {gained} XP.", title="Experience")
        for member in session.party[1:]:
            player_host(app).give_xp(member.character.name, result.xp.get(member.character.name, 0))
        app.pop_screen()
        if app.session is not None:
            app.open_character(app.session.path, app.session.character)

    hint = "enter: back to the character sheet"
    if record is not None:
        hint += f"  (record kept: Load ▸ Battles, {record.name})"
    app.push_screen(BattleSummary(headline, rows, footer, hint=hint), done)


def _keep_record(app: AppContract, session: BattleInProgress, character_path: Path, headline: str,
                 rows: list[tuple[str, ...]], header: tuple[str, ...], footer: str) -> Path | None:
    """The finished battle's record (text and replayable JSON) under `SAVES/records/`."""
    battle = session.battle
    lines = [line for line in (describe(battle, e) for e in battle.log) if line]
    title = f"{', '.join(m.character.name for m in session.party)} — {Path(session.encounter).stem} (seed {battle.seed})"
    try:
        return write_record(app.library.saves_dir, character_path.stem,
                            record_text(title, headline, rows, header, footer, lines),
                            session_to_dict(session, app.catalogue))
    except OSError as exc:
        app.notify(f"The battle's record wasn't kept: {exc}", severity="error", timeout=10)
        return None
