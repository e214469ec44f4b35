"""A run as the player app plays it, kept in a `RunStore` after every step and entered in the hall
of fame (`ScoreTable`) at its end, with its morgue. No Textual here: the screens call this."""

from __future__ import annotations

import datetime
import random
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.engine.forming import PartyMember
from horizon_tui.engine.persist import BattleInProgress, load_session, save_session
from horizon_tui.engine.runner import run_ai
from horizon_tui.content.run_rules import RunRules
from horizon_tui.play.runs.morgue import morgue_data, morgue_text, score_entry
from horizon_tui.play.runs.run import (
    Offer, Run, RunMember, after_fight, daily_seed, depth_offers, form_fight, paced_catalogue, rated_encounters, rest,
    run_from_dict, run_seed, run_to_dict, start_run,
)
from horizon_tui.play.library import move_aside
from horizon_tui.storage.lock import read_holder
from horizon_tui.storage.runs import RunStore, ScoreTable
from horizon_tui.tools.sweep.policy import SweepPolicy
from horizon_tui.tools.sweep.summary import WinEstimate, estimate_from


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@attrs.define
class RunKeeper:
    store: RunStore
    scores: ScoreTable
    base: Catalogue  # the app's catalogue; each run's fights use it at the run's pace
    enemies: dict[str, EnemyDef]
    run_rules: RunRules
    policy: SweepPolicy
    account: str = ""
    version: str = ""
    _rated: dict[str, list[Offer]] = attrs.field(factory=dict)

    def catalogue(self, run: Run) -> Catalogue:
        return paced_catalogue(self.base, self.run_rules.pace(run.pace))

    def new(self, members: list[RunMember], *, seed: int | None = None, daily: bool = False, permadeath: bool = True,
            pace: str = "source") -> Run:
        """A new run, saved. ValueError for a party or pace that can't start one."""
        self.run_rules.pace(pace)
        day = datetime.datetime.now(datetime.UTC).date()
        if daily:
            seed = daily_seed(day)
        elif seed is None:
            seed = random.SystemRandom().randrange(2**31)
        run_id = f"{day:%Y%m%d}-{secrets.token_hex(3)}"
        run = start_run(members, seed, run_id=run_id, daily=day.isoformat() if daily else None, permadeath=permadeath,
                        pace=pace, version=self.version, started=_now())
        self.save(run)
        return run

    def save(self, run: Run) -> None:
        self.store.save_run(run_to_dict(run, self.base))

    def load(self, data: dict[str, Any], file: str = "<run>") -> Run:
        return run_from_dict(data, self.base, file)

    def in_progress(self) -> list[dict[str, Any]]:
        return self.store.runs_in_progress()

    def offers(self, run: Run) -> list[Offer]:
        catalogue = self.catalogue(run)
        if run.pace not in self._rated:
            self._rated[run.pace] = rated_encounters(catalogue, self.enemies)
        return depth_offers(run, self._rated[run.pace], catalogue.rules, self.run_rules)

    def _party(self, run: Run) -> list[PartyMember]:
        return [PartyMember(m.character, m.controller) for m in run.members if not m.dead]

    def begin_fight(self, run: Run, offer: Offer) -> tuple[Run, BattleInProgress]:
        """The depth's fight, formed and saved with the run (which now names it)."""
        session = form_fight(run, offer.encounter, self.catalogue(run), self.enemies, self._party(run))
        run = attrs.evolve(run, fight=offer.encounter)
        self.save(run)
        self.save_battle(run, session)
        return run, session

    def save_battle(self, run: Run, session: BattleInProgress) -> None:
        """The inputs given since the last save, appended to the fight's journal."""
        save_session(self.store.battles(), self.store.battle_slot(run.id), session, self.catalogue(run))

    def resume_battle(self, run: Run) -> BattleInProgress | None:
        """The fight in progress, replayed to where it was left (DataError if it can't be)."""
        if run.fight is None:
            return None
        return load_session(self.store.battles(), self.store.battle_slot(run.id), self.catalogue(run), self.enemies)

    def end_fight(self, run: Run, session: BattleInProgress) -> tuple[Run, list[str]]:
        """After the fight: the run moves on (or ends: then the morgue and the hall of fame)."""
        catalogue = self.catalogue(run)
        self.offers(run)  # the rated encounters, for the fight's name
        name = next((o.name for o in self._rated[run.pace] if o.encounter == session.encounter), session.encounter)
        run, news = after_fight(run, session.battle, session.encounter, name, catalogue.rules, self.policy,
                                self.run_rules.max_depth)
        self.save(run)
        self.store.battles().drop(self.store.battle_slot(run.id))
        if run.over:
            self.finish(run)
        return run, news

    def rest(self, run: Run) -> tuple[Run, list[str]]:
        run, news = rest(run, self.run_rules)
        self.save(run)
        return run, news

    def abandon(self, run: Run) -> Run:
        """Give the run up (asked first by the screen): it ends where it is, recorded as given up."""
        run = attrs.evolve(run, over=True, fight=None, cause_of_death="given up")
        self.save(run)
        self.store.battles().drop(self.store.battle_slot(run.id))
        self.finish(run)
        return run

    def finish(self, run: Run) -> str:
        """The morgue (text and JSON) and the run's line in the hall of fame; the morgue's name."""
        ended = _now()
        rules = self.catalogue(run).rules
        where = self.store.write_morgue(run.id, morgue_text(run, rules, ended=ended),
                                        morgue_data(run, rules, run_to_dict(run, self.base), ended=ended))
        self.scores.add(score_entry(run, rules, account=self.account, ended=ended))
        return where

    def morgue(self, run: Run) -> str:
        return morgue_text(run, self.catalogue(run).rules)

    def odds(self, run: Run, offer: Offer, *, runs: int | None = None, should_stop: Callable[[], bool] | None = None,
             on_progress: Callable[[int, int], None] | None = None) -> WinEstimate:
        """The party's win chance in an offer as it is now (carried health, effects, charges and
        cooldowns): `runs` battles by the AI, battle i from its own seed of the run's."""
        runs = runs or self.run_rules.estimate_runs
        catalogue = self.catalogue(run)
        party = [PartyMember(m.character, "ai") for m in run.members if not m.dead]
        played = []
        for i in range(runs):
            if should_stop is not None and should_stop():
                break
            session = form_fight(run, offer.encounter, catalogue, self.enemies, party,
                                 seed=run_seed(run.seed, f"odds {offer.encounter}", run.depth * 100_000 + i))
            run_ai(session.battle)
            result = session.battle.result
            played.append((result.winner if result else "draw", result.rounds if result else 0, 0))
            if on_progress is not None:
                on_progress(i + 1, runs)
        return estimate_from(played)


FALLEN = "fallen"


def bury(run: Run) -> list[str]:
    """Permadeath: the files of those the run ended with down go to `characters/fallen/` beside them
    (kept, never deleted; a name already there gets a number). A file another session holds (its
    lock) is left where it is. The names moved."""
    moved = []
    for m in run.members:
        if not (m.dead or m.down) or not m.source:
            continue
        path = Path(m.source)
        if not path.exists() or read_holder(path) is not None:
            continue
        move_aside(path, FALLEN)
        moved.append(m.name)
    return moved
