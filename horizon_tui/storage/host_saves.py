"""`SqlRuns`: storage.runs' `RunStore` over the `runs` table of a host's shared database, one
account's runs (storage.host_shared says when a saves folder's are there). The same contract as
`FileRuns` and `MemoryRuns` (tests/storage/test_shared_saves.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from horizon_tui.errors import DataError
from horizon_tui.storage import schema
from horizon_tui.storage.battles import BattleRepository
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.database import Database
from horizon_tui.storage.documents import dumps, read_json_text
from horizon_tui.storage.runs import FileRuns, battle_slot, check_run_id



class SqlRuns:
    """The runs of one account in the shared database (`runs`), their fights in its `battles`.
    The morgue is also written as files in the saves folder (`FileRuns.write_morgue`): a record
    the player reads and copies on the host where the run ended."""

    def __init__(self, database: Database, owner: str, saves_dir: Path):
        self.database = database
        self.owner = owner
        self.saves_dir = Path(saves_dir)
        self.journal = SqlBattles(database, owner)

    def _key(self, run_id: str):
        r = schema.runs.c
        return (r.owner == self.owner) & (r.run_id == check_run_id(run_id))

    def save_run(self, data: dict[str, Any]) -> None:
        run_id = check_run_id(str(data["id"]))
        text = dumps(data)
        values = {"data": text, "over": int(bool(data.get("over"))), "updated_at": time.time()}
        with self.database.writing() as conn:
            if not conn.execute(schema.runs.update().where(self._key(run_id)).values(**values)).rowcount:
                conn.execute(schema.runs.insert().values(owner=self.owner, run_id=run_id, **values))

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        with self.database.reading() as conn:
            text = conn.scalar(sa.select(schema.runs.c.data).where(self._key(run_id)))
        return None if text is None else read_json_text(text, f"{self.database.where}: run {run_id}")

    def runs_in_progress(self) -> list[dict[str, Any]]:
        """Runs not over, newest first; a damaged row is listed with its problem (`damaged`)."""
        r = schema.runs.c
        with self.database.reading() as conn:
            rows = conn.execute(sa.select(r.run_id, r.data, r.updated_at)
                                .where((r.owner == self.owner) & (r.over == 0))).all()
        found = []
        for run_id, text, updated_at in rows:
            try:
                found.append(dict(read_json_text(text, f"{self.database.where}: run {run_id}"), mtime=updated_at))
            except DataError as exc:
                found.append({"id": run_id, "damaged": str(exc.problems[0]), "mtime": updated_at})
        return sorted(found, key=lambda d: (-d["mtime"], str(d.get("id"))))

    def battles(self) -> BattleRepository:
        return self.journal

    def battle_slot(self, run_id: str) -> str:
        return battle_slot(run_id)

    def write_morgue(self, run_id: str, text: str, data: dict[str, Any]) -> str:
        with self.database.writing() as conn:
            conn.execute(schema.runs.update().where(self._key(run_id)).values(morgue=text))
        return FileRuns(self.saves_dir).write_morgue(run_id, text, data)

    def morgue(self, run_id: str) -> str:
        """The morgue's text kept with the run ("" before it is over)."""
        with self.database.reading() as conn:
            return conn.scalar(sa.select(schema.runs.c.morgue).where(self._key(run_id))) or ""
