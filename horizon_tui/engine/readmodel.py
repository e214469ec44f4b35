"""What one viewer may know of a battle, built once per change: the only thing a screen reads.

`ReadModel` is a viewer's whole picture (`engine.viewer.Viewer`): the units it may know with what
a screen shows of them (name, glyph, health, cell, effects with their turns left, distance from
the one acting), the cells it sees now and remembers, the ids the one acting may pick per kind of
action (`TARGET_KINDS`), the initiative entries it may know, and its log. Sight is R-13's, from
`engine.sideview`; nothing above the engine filters by sight again.

The log is a `Journal`'s: each event narrated once, for that viewer, with what it could see when
the event happened (a `Witness` on the battle notes it), and kept — never narrated again later
with later sight. Lines are written when the change is read (`Journal.catch_up`), after a whole
turn: by then the one who struck may have run out of sight, or the only eyes that saw it closed
("Someone unseen attacks Iriel" for the blow that felled her, in plain view, found by hand). An undo or a hot-seat hand-over leaves every seat's log as it was seen.
What the viewer can't see is never named and never counted (`engine.narrate`), and a GM's act on
someone it can't see reaches its log only by what it can see (`_shown`).

`Reader` is a viewer's journal with the last model: `Reader.model(battle)` builds a new model
only when the battle changed (its log grew, someone was placed, or it is another battle).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping

import attrs
import numpy as np

from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import Battle, Entity, cid, comp, gear, ident, is_active, team
from horizon_tui.engine.components import Position, Presence
from horizon_tui.engine.narrate import UNSEEN, describe, sight_change
from horizon_tui.engine.sideview import (
    KnownUnits, UnitView, remembered_cells, targetable, unit_view, unseen_ids, visible_cells, visible_units,
)
from horizon_tui.engine.viewer import Viewer
from horizon_tui.rules.ranges import distance

TARGET_KINDS = ("attack", "ally", "look")  # attack: enemies in sight, nearest first; ally: its side; look: anyone seen


LINE_KINDS = ("damage_taken", "damage_dealt", "heal", "effect", "sight", "round", "defeated", "result", "note", "")


@attrs.frozen
class LogLine:
    text: str
    event: str  # the event's type ("round", "defeated", "result"…, "sight", "note")
    kind: str = ""  # what it means to its viewer, one of LINE_KINDS ("": plain): how a screen colours it


def line_kind(battle: Battle, event: ev.Event, side: str | None) -> str:
    """What a line means to a viewer of `side` (the GM: the party's): a blow or damage to its own
    side is damage taken, to the other side damage dealt; a heal; an effect starting, ending or
    resisted; the round, a defeat and the result as they are."""
    match event:
        case ev.Damaged() | ev.Attacked(hit=True) if event.target is not None:
            return "damage_taken" if team(battle[event.target]) == (side or "party") else "damage_dealt"
        case ev.Healed():
            return "heal"
        case ev.EffectEvent():
            return "effect"
        case ev.RoundStart():
            return "round"
        case ev.Defeated() | ev.Fled():
            return "defeated"
        case ev.Result():
            return "result"
    return ""


@attrs.frozen
class InitiativeEntry:
    id: str
    name: str
    team: str
    active: bool  # False: down, dead or fled
    current: bool
    gone: bool = False  # dead or fled: out of the turn order for good (one down may yet be revived)


@attrs.frozen(eq=False)
class ReadModel(KnownUnits):
    viewer: Viewer
    round: int
    visible: np.ndarray  # bool [y, x]: seen now
    remembered: np.ndarray  # bool [y, x]: seen at some point this battle (`visible` included)
    units: tuple[UnitView, ...]  # active combatants it may know (its own always), in spawn order
    initiative: tuple[InitiativeEntry, ...]
    current: str | None  # whose turn it is, when the viewer may know it
    acting: str  # whose turn it is as the viewer's log names it ("Someone unseen", "…" between turns)
    targets: Mapping[str, tuple[str, ...]]  # TARGET_KINDS → ids the one acting may pick, if the viewer acts for it
    lines: tuple[LogLine, ...]

    @property
    def side(self) -> str | None:
        return self.viewer.side

    def foes(self) -> tuple[UnitView, ...]:
        """The units not of the viewer's side (for the GM: everyone), in spawn order."""
        return tuple(u for u in self.units if self.side is None or u.team != self.side)

    def foes_nearest_first(self) -> tuple[UnitView, ...]:
        """`foes()` by distance from the one acting, nearest first (ties in spawn order); the one
        acting itself (in the GM's list: no distance) leads."""
        return tuple(sorted(self.foes(), key=lambda u: -1 if u.distance is None else u.distance))

    def turn_order(self) -> tuple[InitiativeEntry, ...]:
        """The initiative line a screen shows: a defeated or fled combatant leaves it, one down
        (R-9's unconscious, who may be revived) stays, struck through. `initiative` keeps them
        all: whom the viewer may know (a battle's summary)."""
        return tuple(entry for entry in self.initiative if not entry.gone)

    def log_text(self) -> list[str]:
        return [line.text for line in self.lines]


def _named(event: ev.Event) -> frozenset[str]:
    """The combatants an event's line would name."""
    found = {getattr(event, "actor", None), getattr(event, "target", None)}
    joined = getattr(event, "combatant", None)
    if isinstance(joined, dict):
        found.add(joined.get("id"))
    return frozenset(x for x in found if isinstance(x, str))


class Witness:
    """A battle's listener for one journal: who the journal's viewer can't see as each event
    happens, kept until the journal narrates it. Holds the journal weakly (a closed screen's
    journal is not kept alive by the battle); the same sight is reused until someone is placed
    or an effect or side changes (R-13's hidden, domination)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = weakref.ref(journal)
        self._stamp: int | None = None
        self._unseen: frozenset[str] = frozenset()

    def __call__(self, event: ev.Event) -> None:
        journal = self.journal()
        if journal is None or journal.battle is None:
            return
        battle = journal.battle
        if self._stamp != battle.placements or isinstance(event, (ev.EffectEvent, ev.SideChange, ev.Override)):
            self._stamp = battle.placements
            self._unseen = unseen_ids(battle, journal.viewer.side, journal.viewer.eyes)
        journal.sight_at[event.seq] = self._unseen


class Journal:
    """One viewer's log, append-only: see the module's docstring."""

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer
        self.lines: list[LogLine] = []
        self.met: set[str] = set()  # everyone the viewer has seen at some point (shown when down)
        self.seen: dict[str, tuple[int, int]] | None = None  # whom it saw at the last call, where
        self.sight_at: dict[int, frozenset[str]] = {}  # an event's seq → whom it couldn't see then (`Witness`)
        self._battle: Battle | None = None
        self._witness: Witness | None = None
        self._done = 0  # the battle's events narrated so far

    @property
    def battle(self) -> Battle | None:
        return self._battle

    def follow(self, battle: Battle) -> None:
        """Read `battle` from now on. The same battle rebuilt (an undo or a resync replays it from
        its inputs: the log up to there is the same) goes on where this journal stopped, or where
        the rebuilt log ends; what was narrated stays as it was. Events from here on are witnessed
        as they happen (`Witness`: not for the GM, who sees everyone)."""
        if battle is self._battle:
            return
        if self._battle is not None:
            self._done = min(self._done, len(battle.log))
            if self._witness in self._battle.listeners:
                self._battle.listeners.remove(self._witness)
        self._battle = battle
        self.sight_at.clear()  # another battle's sight (a rebuilt one's events are its own)
        if self.viewer.side is not None:
            battle.listeners[:] = [w for w in battle.listeners if not (isinstance(w, Witness) and w.journal() is None)]
            self._witness = Witness(self)
            battle.listeners.append(self._witness)

    def catch_up(self, battle: Battle, unseen: frozenset[str], seen: Mapping[str, tuple[int, int]],
                 visible: np.ndarray | None = None) -> None:
        """Narrate the events since the last call, each with what the viewer saw when it happened
        (`Witness`), or else with what it sees now (`unseen`: the active combatants it can't see,
        `seen`: those it can, each with its cell, `visible`: the cells it sees, bool [y, x]; None:
        no enemy's coming and going is said). A GM's act is told only if it names no one unseen
        then or now. Enemies that came into view since are said first, those it lost sight of
        last (`_sight_lines`)."""
        self.follow(battle)
        self.met |= seen.keys()
        before = len(self.lines)
        log = battle.log
        joined = {str(event.combatant.get("id")) for event in log[self._done:] if isinstance(event, ev.Join)}
        gm_act = False  # inside a GM override: the events it caused follow it, up to the next turn
        for event in log[self._done:]:
            if isinstance(event, (ev.Turn, ev.RoundStart, ev.Result)):
                gm_act = False
            elif isinstance(event, ev.Override):
                gm_act = True
            then = self.sight_at.pop(event.seq, unseen)
            if not _shown(event, unseen | then, gm_act):
                continue
            text = describe(battle, event, then)
            if text:
                self.lines.append(LogLine(text, event.type, line_kind(battle, event, self.viewer.side)))
        self._done = len(log)
        came, gone = self._sight_lines(battle, unseen, seen, visible, joined)
        self.lines[before:before] = came
        self.lines.extend(gone)

    def _sight_lines(self, battle: Battle, unseen: frozenset[str], seen: Mapping[str, tuple[int, int]],
                     visible: np.ndarray | None, joined: set[str]) -> tuple[list[LogLine], list[LogLine]]:
        """"Two Grey Wolves come into view.", "Goblin 2 moves out of sight.": one line per change
        of the enemies the viewer sees, not one per step (the GM sees everyone: none). The first
        call only notes who is in sight (the opening line names them); one who joined the battle
        in sight has its own line; one defeated or fled is said so, not lost from sight. One gone
        from a cell the viewer still sees "moves out of sight"; one whose cell it no longer sees "is
        out of sight" (only what the viewer knows: not where it went)."""
        side = self.viewer.side
        if side is None or visible is None or battle.over:
            return [], []  # the GM sees everyone; after the result, who sees whom is news to no one
        before, self.seen = self.seen, dict(seen)
        if before is None:
            return [], []
        foes = {uid for uid in seen if team(battle[uid]) != side}
        came = [uid for uid in seen if uid in foes and uid not in before and uid not in joined]
        gone = [uid for uid in before if uid in unseen and team(battle[uid]) != side]
        moved_off = [uid for uid in gone if visible[before[uid][1], before[uid][0]]]
        lost = [uid for uid in gone if uid not in moved_off]
        known = {uid: (_kind_name(battle[uid]), ident(battle[uid]).name) for uid in (*came, *gone)}
        return ([LogLine(text, "sight", "sight") for text in sight_change(known, came, [], [])],
                [LogLine(text, "sight", "sight") for text in sight_change(known, [], moved_off, lost)])


def _shown(event: ev.Event, unseen: frozenset[str], gm_act: bool) -> bool:
    """A GM's act reaches a viewer only by what it sees: a line naming anyone it can't see is not
    written (R-13: not "GM: add hidden on someone unseen", which tells someone is there)."""
    return not (gm_act and unseen and _named(event) & unseen)


def _unseen(battle: Battle, units: list[Entity]) -> frozenset[str]:
    seen = {cid(e) for e in units}
    return frozenset(uid for uid in battle.active if uid not in seen)


def build(battle: Battle, viewer: Viewer, journal: Journal | None = None) -> ReadModel:
    """The read model of `battle` for `viewer` now, its journal caught up first."""
    side, eyes = viewer.side, viewer.eyes
    visible = visible_cells(battle, side, eyes)
    remembered = remembered_cells(battle, side, visible, eyes)
    seen = visible_units(battle, side, visible)
    seen_ids = frozenset(cid(e) for e in seen)
    unseen = _unseen(battle, seen)
    if journal is not None:
        journal.catch_up(battle, unseen, {cid(e): comp(e, Position).xy for e in seen}, visible)
    now = battle.current
    current = cid(now) if now is not None and cid(now) in seen_ids else None
    here = comp(now, Position).xy if now is not None and current is not None else None  # distances are from the one acting
    units = tuple(_with_distance(unit_view(e), _kind_name(e), here) for e in seen)
    met = journal.met if journal is not None else set()
    initiative = []
    for uid in battle.order:
        e = battle[uid]
        active = is_active(e)
        known = uid in seen_ids if active else (side is None or team(e) == side or uid in met)
        if known:
            gone = comp(e, Presence) in (Presence.dead, Presence.fled)
            initiative.append(InitiativeEntry(uid, ident(e).name, team(e), active, e is now, gone))
    acting = "…" if now is None else UNSEEN.capitalize() if cid(now) in unseen else ident(now).name
    return ReadModel(viewer, battle.round, visible, remembered, units, tuple(initiative), current, acting,
                     _targets(battle, viewer, now, seen), tuple(journal.lines) if journal is not None else ())


def _kind_name(e: Entity) -> str:
    i = ident(e)
    return i.name if i.kind == "character" else gear(e).character.name


def _with_distance(unit: UnitView, kind_name: str, here: tuple[int, int] | None) -> UnitView:
    far = distance(here, unit.position) if here is not None and unit.position != here else None
    return attrs.evolve(unit, kind_name=kind_name, distance=far)


def _targets(battle: Battle, viewer: Viewer, now: Entity | None, seen: list[Entity]) -> dict[str, tuple[str, ...]]:
    """What the one acting may pick, when this viewer acts for it (its side, or the GM), as this
    viewer knows the battle: enemies it sees (R-13), its side, anyone seen (to look at)."""
    look = tuple(cid(e) for e in seen if e is not now)
    if now is None or comp(now, Presence) is not Presence.active or (
            viewer.side is not None and team(now) != viewer.side):
        return {"attack": (), "ally": (), "look": look}
    own = team(now)
    return {"attack": tuple(cid(e) for e in targetable(battle, now, viewer.eyes)),
            "ally": tuple(cid(e) for e in battle.active.values() if team(e) == own),
            "look": look}


class Reader:
    """A viewer's journal and its last read model, rebuilt only when the battle changed."""

    def __init__(self, viewer: Viewer) -> None:
        self.viewer = viewer
        self.journal = Journal(viewer)
        self._battle: Battle | None = None
        self._key: tuple | None = None
        self._model: ReadModel | None = None
        self.builds = 0  # models built (for tests and the benchmark: once per change, not per key)

    def model(self, battle: Battle) -> ReadModel:
        now = battle.current
        key = (len(battle.log), battle.placements, battle.round, cid(now) if now is not None else None)
        if self._model is None or battle is not self._battle or key != self._key:
            self._model = build(battle, self.viewer, self.journal)
            self._battle, self._key = battle, key
            self.builds += 1
        return self._model

    def note(self, text: str) -> None:
        """A line of the screen's own in the viewer's log (a table's undo: where it is now), kept
        with the rest."""
        self.journal.lines.append(LogLine(text, "note", "note"))
        self._model = None
