"""Starting, saving, resuming and ending a battle for the character being played.

A battle in progress is saved as `SAVES/battles/<character file stem>.json` at the end of every
turn of the player's and when the screen closes; finishing the battle removes it and adds the
XP to the character (R-14), saved like any other change.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from horizon_tui.errors import DataError, HorizonError

SEED_ENV = "HORIZON_SEED"

if TYPE_CHECKING:
    from horizon_tui.engine.persist import BattleSession
    from horizon_tui.tui.app import HorizonApp


def battle_save_path(app: HorizonApp, character_path: Path) -> Path:
    return app.library.saves_dir / "battles" / f"{character_path.stem}.json"


def _enemies(app: HorizonApp):
    from horizon_tui.content.encounters import load_enemies

    cache = getattr(app, "_enemy_defs", None)
    if cache is None:
        cache = load_enemies(app.catalogue)
        app._enemy_defs = cache  # noqa: SLF001 - per-app cache, not a module global
    return cache


def start(app: HorizonApp, encounter_path: Path, seed: int | None = None) -> None:
    """Form the battle (refusals are reported, nothing starts) and open the battlefield."""
    from horizon_tui.engine.battle import BattleError, PartyMember, create_battle
    from horizon_tui.engine.encounter import load_encounter
    from horizon_tui.engine.persist import BattleSession

    session = app.session
    if session is None:
        app.notify("Load a character first.", severity="warning")
        return
    if seed is None and os.environ.get(SEED_ENV, "").strip().isdigit():
        seed = int(os.environ[SEED_ENV])  # a fixed seed for tests and for replaying a bug report
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    try:
        enemies = _enemies(app)
        setup = load_encounter(encounter_path, app.catalogue, enemies)
        battle = create_battle(setup, [PartyMember(session.character, "player")], seed, app.catalogue, enemies)
    except (DataError, BattleError, HorizonError) as exc:
        message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
        app.notify(message, title="This battle can't start", severity="error", timeout=10)
        return
    from horizon_tui.engine.runner import begin

    begin(battle)
    _open(app, BattleSession(battle, str(encounter_path), [PartyMember(session.character, "player")]))


def saved_battle(app: HorizonApp) -> Path | None:
    if app.session is None:
        return None
    path = battle_save_path(app, app.session.path)
    return path if path.exists() else None


def abandon(app: HorizonApp) -> None:
    """Give up the battle in progress: its save moves to `battles/abandoned/`, never deleted."""
    path = saved_battle(app)
    if path is None:
        return
    folder = path.parent / "abandoned"
    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (folder / f"{path.stem}-{n}.json").exists():
        n += 1
    path.rename(folder / f"{path.stem}-{n}.json")


def resume(app: HorizonApp, fresh=None) -> None:
    """Replay the saved battle to where it was left. A save that can't be read is offered to be
    set aside (moved to `battles/damaged/`, never deleted) and, with `fresh`, a new battle started."""
    from horizon_tui.engine.persist import load_session

    path = saved_battle(app)
    if path is None:
        return
    try:
        session = load_session(path, app.catalogue, _enemies(app))
    except DataError as exc:
        app.notify(str(exc.problems[0]), title="The saved battle can't be resumed", severity="error", timeout=10)
        _offer_set_aside(app, path, exc, fresh)
        return
    _open(app, session)


def _offer_set_aside(app: HorizonApp, path: Path, exc: DataError, fresh) -> None:
    from horizon_tui.tui.dialogs.confirm import ConfirmDialog
    from horizon_tui.tui.library import move_to_damaged, short_problem

    def answered(yes: bool | None) -> None:
        if not yes:
            app.notify(f"{path.name} is left as it is.", title="Not resumed")
            return
        try:
            moved = move_to_damaged(path)
        except OSError as error:
            app.notify(f"{path.name} can't be moved: {error.strerror or error}", title="Not moved", severity="error")
            return
        app.notify(f"Set aside as {moved}", title="Damaged battle save")
        if fresh is not None:
            fresh()

    app.push_screen(ConfirmDialog(
        f"The saved battle can't be resumed: {short_problem(exc.problems[0])}\n\nSet it aside "
        f"(moved to battles/damaged/, never deleted) and start fresh?",
        title="Damaged battle save", yes="Set aside"), answered)


def _open(app: HorizonApp, session: BattleSession) -> None:
    from horizon_tui.tui.battle.screen import BattleScreen

    character_path = app.session.path

    def autosave(s: BattleSession) -> None:
        from horizon_tui.engine.persist import save_session

        save_session(battle_save_path(app, character_path), s, app.catalogue)

    app.push_screen(BattleScreen(session, on_end=lambda s: finish(app, s, character_path), autosave=autosave))


def summary_rows(session: BattleSession) -> list[tuple[str, ...]]:
    from horizon_tui.engine.battle import comp, ident
    from horizon_tui.engine.components import Presence, Tally

    rows = []
    for e in session.battle.combatants():
        i, tally = ident(e), comp(e, Tally)
        rows.append((i.name, i.base_team, str(tally.damage_dealt), str(tally.damage_taken),
                     str(tally.effects_applied), comp(e, Presence).value))
    return rows


def finish(app: HorizonApp, session: BattleSession, character_path: Path) -> None:
    """Show the summary, give the XP, forget the saved battle, go back to the sheet."""
    from horizon_tui.rules.texts import counted
    from horizon_tui.tui.battle.dialogs import BattleSummary

    result = session.battle.result
    assert result is not None
    headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
    headline += f"  {counted(result.rounds, 'round')}."
    name = session.party[0].character.name
    gained = result.xp.get(name, 0)
    footer = f"{name} gains {gained} XP." if gained else f"{name} gains no XP."

    def done(_: None) -> None:
        save = battle_save_path(app, character_path)
        for old in (save, *(save.with_name(f"{save.name}.{n}") for n in range(1, 4))):
            old.unlink(missing_ok=True)  # the finished battle's save and its backups
        if app.session is not None and gained:
            character = app.session.character
            app.commit(attrs.evolve(character, xp=character.xp + gained))
            app.notify(f"{character.name} gains {gained} XP.", title="Experience")
        app.pop_screen()
        if app.session is not None:
            app.open_character(app.session.path, app.session.character)

    app.push_screen(BattleSummary(headline, summary_rows(session), footer), done)
