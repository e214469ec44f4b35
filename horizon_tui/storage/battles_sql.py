"""Battle journals in the database (storage.schema's `battles` and `battle_inputs`): SQLite or
PostgreSQL through storage.database. The contract (storage.battles.BattleRepository) is tested on
it and on the in-memory twin by tests/storage/test_battle_repository.py."""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import delete, insert, select, update

from horizon_tui.errors import DataError
from horizon_tui.storage import schema
from horizon_tui.storage.battles import (
    BattleExists, BattleListing, BattleNotFound, StaleJournal, as_save, check_readable, check_slot, in_folder, listed_battle,
)
from horizon_tui.storage.database import Database
from horizon_tui.storage.documents import Plain, dumps


class SqlBattles:
    """The repository in the database (storage.schema's `battles` and `battle_inputs`): the
    battles of one `owner` ("" in a saves folder's own database; an account's name in a host's
    shared one, where every account's battles are kept side by side)."""

    def __init__(self, database: Database, owner: str = ""):
        self.database = database
        self.owner = owner
        self.where = database.where

    def _named(self, slot: str):
        """The WHERE clause of the battle `slot` of this owner."""
        b = schema.battles.c
        return (b.owner == self.owner) & (b.slot == slot)

    def save(self, slot: str, header: str, first: int, inputs: Sequence[str], checks: Plain) -> int:
        b, rows = schema.battles.c, schema.battle_inputs.c
        check_slot(slot)
        now = time.time()
        with self.database.writing() as conn:
            found = conn.execute(select(b.id, b.head, b.setup).where(self._named(slot))).first()
            whole = found is None or first == 0 or found.setup != header
            check_readable(slot, header if whole else None, inputs)
            if whole:
                if first != 0:
                    raise StaleJournal(slot, first, 0 if found is None else found.head)
                if found is None:
                    battle_id = conn.execute(insert(schema.battles).values(
                        owner=self.owner, slot=slot, setup=header, created_at=now, updated_at=now, head=0, checks="{}")
                    ).inserted_primary_key[0]
                else:
                    battle_id = found.id
                    conn.execute(delete(schema.battle_inputs).where(rows.battle_id == battle_id))
            else:
                if found.head != first:
                    raise StaleJournal(slot, first, found.head)
                battle_id = found.id
            if inputs:
                conn.execute(insert(schema.battle_inputs), [
                    {"battle_id": battle_id, "seq": first + n + 1, "input": text} for n, text in enumerate(inputs)])
            head = first + len(inputs)
            conn.execute(update(schema.battles).where(b.id == battle_id).values(
                setup=header, head=head, checks=dumps(checks), updated_at=now))
        return head

    def load(self, slot: str) -> Plain | None:
        b, rows = schema.battles.c, schema.battle_inputs.c
        where = f"{self.where}: battle {check_slot(slot)}"
        with self.database.reading() as conn:
            found = conn.execute(select(b.id, b.head, b.setup, b.checks).where(self._named(slot))).first()
            if found is None:
                return None
            inputs = conn.execute(select(rows.seq, rows.input).where(rows.battle_id == found.id)
                                  .order_by(rows.seq)).all()
        for n, (seq, _text) in enumerate(inputs, start=1):
            if seq != n:
                raise DataError.one(where, f"inputs.{n - 1}", f"missing: the journal jumps to row {seq}")
        if len(inputs) != found.head:
            raise DataError.one(where, "inputs", f"the journal has {len(inputs)} rows, its head says {found.head}")
        return as_save(found.setup, [text for _seq, text in inputs], found.checks, where)

    def exists(self, slot: str) -> bool:
        b = schema.battles.c
        with self.database.reading() as conn:
            return conn.execute(select(b.id).where(self._named(check_slot(slot)))).first() is not None

    def listing(self, folder: str) -> list[BattleListing]:
        b = schema.battles.c
        with self.database.reading() as conn:
            found = conn.execute(select(b.slot, b.setup, b.head, b.updated_at)
                                 .where((b.owner == self.owner) & b.slot.startswith(folder, autoescape=True))).all()
        listed = [listed_battle(slot, setup, head, updated_at, self.where)
                  for slot, setup, head, updated_at in found if in_folder(slot, folder)]
        return sorted(listed, key=lambda x: (-x.updated_at, x.slot))

    def move(self, slot: str, to: str) -> None:
        b = schema.battles.c
        check_slot(slot)
        with self.database.writing() as conn:
            if conn.execute(select(b.id).where(self._named(check_slot(to)))).first() is not None:
                raise BattleExists(to)
            if conn.execute(update(schema.battles).where(self._named(slot)).values(slot=to)).rowcount != 1:
                raise BattleNotFound(slot)

    def drop(self, slot: str) -> None:
        b, rows = schema.battles.c, schema.battle_inputs.c
        with self.database.writing() as conn:
            found = conn.execute(select(b.id).where(self._named(check_slot(slot)))).first()
            if found is not None:  # the inputs first: SQLite's foreign keys cascade only when asked
                conn.execute(delete(schema.battle_inputs).where(rows.battle_id == found.id))
                conn.execute(delete(schema.battles).where(b.id == found.id))
