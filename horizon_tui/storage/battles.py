"""Battles in progress as journals: the repository interface and its in-memory twin (what unit
tests use); its SQL implementation (SQLite or PostgreSQL) is storage.battles_sql, kept apart so
that the engine's save code (engine.persist) imports no SQL library. Both pass
tests/storage/test_battle_repository.py.

Storage knows a battle as plain JSON text, never the engine's objects (a layer above): its
*header* (the set-up: seed, encounter, party, the encounter's kept copy), its *inputs* (one JSON
document per decision) and its *checks* (the replayed log's length, last event and digest, which
opening compares). Saving a turn writes only the inputs the journal doesn't have yet, one row
each, with the checks, in one transaction: O(input), never O(battle). `load` gives the battle back
in the shape of the older JSON save file (`engine.persist.session_from_dict` reads both).

A battle is kept under a *slot*: the name of the file it had before it was a journal, relative to
the saves folder (`battles/<character stem>.json`, `battles/kept/<stem>--<when>.json`,
`records/runs/<run id>.battle.json`), so the screens that list battles and the legacy files
imported into the journal name a battle the same way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

import attrs

from horizon_tui.errors import DataError, HorizonError
from horizon_tui.storage.documents import Plain, dumps, read_json_text

MAX_SLOT = 128  # schema.battles.slot's length
BATTLE_KIND = "horizon-battle"  # a battle save's `kind` (engine.persist writes it)
CHECK_KEYS = ("log_length", "last_event", "log_sha256")  # what opening compares with the replay


class BattleNotFound(HorizonError):
    def __init__(self, slot: str):
        self.slot = slot
        super().__init__(f"no battle {slot!r} in the database")


class BattleExists(HorizonError):
    def __init__(self, slot: str):
        self.slot = slot
        super().__init__(f"a battle is kept as {slot!r} already")


class StaleJournal(HorizonError):
    """The journal's rows are not the ones this writer appended after: it is told to write the
    battle whole (`first=0`). Nothing was written."""

    def __init__(self, slot: str, expected: int, found: int):
        super().__init__(f"{slot}: the journal holds {found} inputs, this writer expected {expected}")


@attrs.frozen
class BattleListing:
    """A battle as a list shows it, without replaying it."""

    slot: str
    updated_at: float
    inputs: int
    header: Plain  # the set-up: encounter, party (a damaged header reads as {} and `problem` says why)
    problem: str = ""


def check_slot(slot: str) -> str:
    if not slot or len(slot) > MAX_SLOT or slot.startswith("/") or ".." in slot.split("/"):
        raise ValueError(f"not a battle's name: {slot!r} (a path inside the saves folder, at most {MAX_SLOT} characters)")
    return slot


class BattleRepository(Protocol):
    """What the engine's save and resume ask of battle storage (storage.battles' two implementations)."""

    where: str  # for messages: the database file, or "memory"

    def save(self, slot: str, header: str, first: int, inputs: Sequence[str], checks: Plain) -> int:
        """Append `inputs` (the battle's inputs from number `first`, 0-based) and set the checks;
        with `first == 0`, or a header that differs from the stored one, the battle is written
        whole. The number of inputs kept. StaleJournal (nothing written) if `first` is not the
        count stored and the battle is not written whole."""
        ...

    def load(self, slot: str) -> Plain | None:
        """The battle as a save file holds it (header, `inputs`, checks); None if there is none.
        DataError naming the row if a stored document can't be read."""
        ...

    def exists(self, slot: str) -> bool: ...

    def listing(self, folder: str) -> list[BattleListing]:
        """The battles whose slot is directly in `folder` (`battles/`, `battles/kept/`), newest first."""
        ...

    def move(self, slot: str, to: str) -> None:
        """Keep the battle under another slot (BattleExists if that one is taken; nothing moves)."""
        ...

    def drop(self, slot: str) -> None:
        """The battle is over: its journal goes (its record is kept elsewhere, storage.records)."""
        ...


def in_folder(slot: str, folder: str) -> bool:
    return slot.startswith(folder) and "/" not in slot[len(folder):]


def as_save(header_text: str, inputs_text: list[str], checks_text: str, where: str) -> Plain:
    """The journal's documents as one save (the older JSON file's shape), each read through the
    guarded reader: a damaged or hostile row is a DataError naming it."""
    header = read_json_text(header_text, f"{where}: header")
    checks = read_json_text(checks_text, f"{where}: checks")
    # one document for all the inputs: one guarded parse instead of one per row
    inputs = read_json_text('{"inputs":[' + ",".join(inputs_text) + "]}", f"{where}: inputs")["inputs"]
    if not isinstance(inputs, list) or len(inputs) != len(inputs_text):
        raise DataError.one(where, "inputs", f"{len(inputs_text)} rows don't read as {len(inputs_text)} inputs")
    return {**header, "inputs": inputs, **{k: checks[k] for k in CHECK_KEYS if k in checks}}


def check_readable(slot: str, header: str | None, inputs: Sequence[str]) -> None:
    """What `load` would refuse (a text over the limits, content.guard) is never written: DataError
    naming the key, and nothing is. `header` None: the stored one, read back before."""
    if header is not None:
        read_json_text(header, f"{slot}: header")
    for n, text in enumerate(inputs):
        read_json_text('{"input":' + text + "}", f"{slot}: input {n}")


# --- the in-memory twin ---------------------------------------------------------------------------------


@attrs.define
class _Kept:
    header: str
    inputs: list[str]
    checks: str
    updated_at: float


class MemoryBattles:
    """The repository in a dict, keeping JSON text as the database does: for unit tests, and as
    the contract's second implementation."""

    where = "memory"

    def __init__(self) -> None:
        self._battles: dict[str, _Kept] = {}

    def save(self, slot: str, header: str, first: int, inputs: Sequence[str], checks: Plain) -> int:
        check_slot(slot)
        kept = self._battles.get(slot)
        whole = kept is None or first == 0 or kept.header != header
        check_readable(slot, header if whole else None, inputs)
        if whole:
            if first != 0:
                raise StaleJournal(slot, first, 0 if kept is None else len(kept.inputs))
            self._battles[slot] = _Kept(header, list(inputs), dumps(checks), time.time())
            return len(inputs)
        if len(kept.inputs) != first:
            raise StaleJournal(slot, first, len(kept.inputs))
        kept.inputs.extend(inputs)
        kept.checks, kept.updated_at = dumps(checks), time.time()
        return len(kept.inputs)

    def load(self, slot: str) -> Plain | None:
        kept = self._battles.get(check_slot(slot))
        if kept is None:
            return None
        return as_save(kept.header, kept.inputs, kept.checks, f"memory: {slot}")

    def exists(self, slot: str) -> bool:
        return check_slot(slot) in self._battles

    def listing(self, folder: str) -> list[BattleListing]:
        found = [listed_battle(slot, kept.header, len(kept.inputs), kept.updated_at, self.where)
                 for slot, kept in self._battles.items() if in_folder(slot, folder)]
        return sorted(found, key=lambda b: (-b.updated_at, b.slot))

    def move(self, slot: str, to: str) -> None:
        if check_slot(to) in self._battles:
            raise BattleExists(to)
        if check_slot(slot) not in self._battles:
            raise BattleNotFound(slot)
        self._battles[to] = self._battles.pop(slot)

    def drop(self, slot: str) -> None:
        self._battles.pop(check_slot(slot), None)


def listed_battle(slot: str, header: str, inputs: int, updated_at: float, where: str) -> BattleListing:
    try:
        plain = read_json_text(header, f"{where}: {slot}: header")
    except DataError as exc:
        return BattleListing(slot, updated_at, inputs, {}, exc.problems[0].message)
    return BattleListing(slot, updated_at, inputs, plain)
