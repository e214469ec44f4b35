"""Campaigns as journals: the repository interface, its in-memory twin (what unit tests use) and
its SQL implementation (SQLite or PostgreSQL, storage.database). Both pass tests/storage/
test_campaign_repository.py.

Storage knows a campaign as plain JSON data, never the campaign model (a layer above): its
*state* (every field but the session log, by name), its *log* (a list of lines) and its
*journal* (one `CampaignChange` per GM action). Each action is one row written in one
transaction with the log lines it added, O(change), never O(campaign); every SNAPSHOT_EVERY rows
(and after a row of more than SNAPSHOT_AFTER_BYTES) the state is kept whole, so opening reads one
snapshot and at most SNAPSHOT_EVERY - 1 small rows. The log is not read at opening: only its
length; its lines are read a page at a time (`log_lines`) and found by day, kind and position in
SQL (`log_positions`, `log_last`, `log_days`), so opening costs the same at 100 lines and 100,000.
Undo reads the row it takes back and appends its inverse: the journal only grows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Protocol

import attrs
from sqlalchemy import delete, func, insert, select, update

from horizon_tui.errors import DataError, HorizonError
from horizon_tui.storage import schema
from horizon_tui.storage.database import Database, open_database
from horizon_tui.storage.documents import Plain, dumps, read_json_text
from horizon_tui.storage.host_shared import shared_saves

SNAPSHOT_EVERY = 100
SNAPSHOT_AFTER_BYTES = 64 * 1024  # a row this big (thousands of log lines at once) is not replayed: a snapshot follows it


class CampaignNotFound(HorizonError):
    def __init__(self, slug: str):
        self.slug = slug
        super().__init__(f"no campaign {slug!r} in the database")


class CampaignExists(ValueError):
    """A campaign of that slug is stored already (ValueError: the GM tool shows it as a refusal)."""


class JournalMoved(HorizonError):
    """The journal has rows this window didn't write: another writer saved the campaign since it
    was opened, so this window's change would be made against an old state. Nothing was written."""

    def __init__(self, slug: str, expected: int, found: int):
        super().__init__(f"{slug}: saved elsewhere since this window opened it (journal at {found}, "
                         f"this window expected {expected}); reopen it to see the changes")


@attrs.frozen
class CampaignChange:
    """One GM action: the state fields it set (`after`) and their values before, and how it edited
    the log (kept the first `log_keep` lines, dropped `log_removed`, appended `log_added`)."""

    label: str
    after: Plain = attrs.field(factory=dict)
    before: Plain = attrs.field(factory=dict)
    log_keep: int = 0
    log_removed: tuple[Plain, ...] = ()
    log_added: tuple[Plain, ...] = ()
    undoes: int = 0  # the seq of the row this one takes back; 0 for an action
    # lists inside a field edited at their end, as the log is (a battle's inputs): `after` and
    # `before` hold that field without the list, which keeps its first `keep` items, drops
    # `removed` and appends `added` (a GM battle input writes its input, not the battle's all)
    tails: tuple[ListTail, ...] = ()

    def inverse(self, seq: int) -> CampaignChange:
        """The change that takes this one (row `seq`) back."""
        return CampaignChange(f"undo: {self.label}", self.before, self.after, self.log_keep,
                              self.log_added, self.log_removed, undoes=seq,
                              tails=tuple(tail.inverse() for tail in self.tails))

    def to_json(self) -> str:
        data = {"after": self.after, "before": self.before, "log_keep": self.log_keep,
                "log_removed": list(self.log_removed), "log_added": list(self.log_added), "undoes": self.undoes}
        if self.tails:  # rows without any read as before
            data["tails"] = [[t.field, t.key, t.keep, list(t.removed), list(t.added)] for t in self.tails]
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, label: str, text: str, where: str) -> CampaignChange:
        data = read_json_text(text, where)
        try:
            tails = tuple(ListTail(str(field), str(key), int(keep), tuple(removed), tuple(added))
                          for field, key, keep, removed, added in data.get("tails", ()))
            if any(tail.field not in data["after"] or tail.field not in data["before"] for tail in tails):
                raise ValueError("a list edited in a field the row doesn't set")
            return cls(label, dict(data["after"]), dict(data["before"]), int(data["log_keep"]),
                       tuple(dict(line) for line in data["log_removed"]),
                       tuple(dict(line) for line in data["log_added"]), int(data.get("undoes", 0)), tails)
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError.one(where, "", f"not a journal row this version can read ({type(exc).__name__})") from None

    def applied(self, state: Plain) -> Plain:
        """`state` (every field, by name) with this change made: its fields set, its lists' ends
        edited. A list that doesn't reach `keep` items is a DataError naming it."""
        found = dict(state)
        found.update(self.after)
        for tail in self.tails:
            old = state.get(tail.field)
            items = old.get(tail.key) if isinstance(old, dict) else None
            if (not isinstance(items, list) or not 0 <= tail.keep <= len(items)
                    or not isinstance(found[tail.field], dict)):
                raise DataError.one("journal", f"{tail.field}.{tail.key}",
                                    f"the row keeps {tail.keep} items of a list the state doesn't have")
            record, edited = found[tail.field], items[:tail.keep] + list(tail.added)
            # the list back where it was among the record's keys (the record reads back as it was written)
            merged = {key: edited if key == tail.key else record[key] for key in old if key in record or key == tail.key}
            found[tail.field] = {**merged, **record}
        return found


@attrs.frozen
class ListTail:
    """A list inside a state field (`field`.`key`) edited at its end: its first `keep` items kept,
    `removed` (what followed them) dropped, `added` appended."""

    field: str
    key: str
    keep: int
    removed: tuple[Plain, ...] = ()
    added: tuple[Plain, ...] = ()

    def inverse(self) -> ListTail:
        return ListTail(self.field, self.key, self.keep, self.added, self.removed)


@attrs.frozen
class CampaignListing:
    """A stored campaign as the campaign list shows it, without opening it."""

    slug: str
    name: str
    summary: Plain  # what the campaign layer keeps there: day, party, npcs, where it was imported from
    updated_at: float
    head: int


@attrs.frozen
class StoredCampaign:
    slug: str
    state: Plain
    log_length: int  # the session log's lines, read with `log_lines` when wanted
    head: int  # the last journal row's seq: the next change must be written against it


class CampaignRepository(Protocol):
    """What the campaign layer asks of campaign storage (storage.campaigns' two implementations)."""

    where: str  # for messages: the database file, or "memory"

    def listing(self) -> list[CampaignListing]: ...

    def create(self, slug: str, name: str, state: Plain, log: list[Plain], summary: Plain) -> StoredCampaign: ...

    def load(self, slug: str) -> StoredCampaign: ...

    def append(self, slug: str, change: CampaignChange, *, head: int, summary: Plain,
               snapshot: Callable[[], Plain]) -> int: ...

    def change(self, slug: str, seq: int) -> CampaignChange: ...

    def log_lines(self, slug: str, start: int = 0, stop: int | None = None) -> list[Plain]: ...

    def log_positions(self, slug: str, day: int, kinds: Collection[str] | None, stop: int) -> list[int]: ...

    def log_last(self, slug: str, kinds: Collection[str], count: int, stop: int) -> list[int]: ...

    def log_days(self, slug: str, stop: int) -> list[int]: ...


def replay(state: Plain, changes: list[CampaignChange]) -> Plain:
    """The state after `changes`, applied in order to `state` (a snapshot's)."""
    for change in changes:
        state = change.applied(state)
    return dict(state)


def snapshot_due(seq: int, row: str) -> bool:
    return seq % SNAPSHOT_EVERY == 0 or len(row) > SNAPSHOT_AFTER_BYTES


def day_positions(days_and_kinds: Sequence[tuple[int, str]], day: int, kinds: Collection[str] | None) -> list[int]:
    """The positions of `day`'s lines (of `kinds`; None: all) read back from the end, up to the
    last line of an earlier day (days only advance: a day's lines are together). What
    `log_positions` asks of SQL, over (day, kind) pairs: the twin's answer, and the contract's."""
    return day_positions_back(days_and_kinds, day, kinds)[0]


def day_positions_back(days_and_kinds: Sequence[tuple[int, str]], day: int,
                       kinds: Collection[str] | None) -> tuple[list[int], bool]:
    """`day_positions`, and whether the read went past the first pair without meeting an earlier
    day: lines before these (a session log's stored lines) may then hold more of `day`."""
    found = []
    for position in range(len(days_and_kinds) - 1, -1, -1):
        line_day, kind = days_and_kinds[position]
        if line_day < day:
            found.reverse()
            return found, False
        if line_day == day and (kinds is None or kind in kinds):
            found.append(position)
    found.reverse()
    return found, True


# --- the in-memory twin ---------------------------------------------------------------------------------


@attrs.define
class _Kept:
    name: str
    summary: str
    updated_at: float
    snapshots: dict[int, str]
    journal: list[tuple[str, str]]  # (label, change JSON), seq = index + 1
    log: list[str]


class MemoryCampaigns:
    """The repository in a dict, keeping JSON text as the database does (no shared objects): for
    unit tests, and as the contract's second implementation."""

    where = "memory"

    def __init__(self) -> None:
        self._campaigns: dict[str, _Kept] = {}

    def listing(self) -> list[CampaignListing]:
        found = [CampaignListing(slug, kept.name, json.loads(kept.summary), kept.updated_at, len(kept.journal))
                 for slug, kept in self._campaigns.items()]
        return sorted(found, key=lambda c: (-c.updated_at, c.slug))

    def create(self, slug: str, name: str, state: Plain, log: list[Plain], summary: Plain) -> StoredCampaign:
        if slug in self._campaigns:
            raise CampaignExists(f"a campaign {slug!r} is stored already")
        self._campaigns[slug] = _Kept(name, dumps(summary), time.time(), {0: dumps(state)}, [],
                                      [dumps(line) for line in log])
        return self.load(slug)

    def _kept(self, slug: str) -> _Kept:
        if slug not in self._campaigns:
            raise CampaignNotFound(slug)
        return self._campaigns[slug]

    def load(self, slug: str) -> StoredCampaign:
        kept = self._kept(slug)
        seq = max(kept.snapshots)
        state = read_json_text(kept.snapshots[seq], f"memory: {slug}: snapshot {seq}")
        rows = [CampaignChange.from_json(label, text, f"memory: {slug}: journal {n}")
                for n, (label, text) in enumerate(kept.journal[seq:], start=seq + 1)]
        return StoredCampaign(slug, replay(state, rows), len(kept.log), len(kept.journal))

    def append(self, slug: str, change: CampaignChange, *, head: int, summary: Plain,
               snapshot: Callable[[], Plain]) -> int:
        kept = self._kept(slug)
        if head != len(kept.journal):
            raise JournalMoved(slug, head, len(kept.journal))
        text = change.to_json()
        kept.journal.append((change.label, text))
        del kept.log[change.log_keep:]
        kept.log.extend(dumps(line) for line in change.log_added)
        kept.summary, kept.updated_at = dumps(summary), time.time()
        kept.name = str(change.after.get("name", kept.name))
        seq = len(kept.journal)
        if snapshot_due(seq, text):
            kept.snapshots[seq] = dumps(snapshot())
        return seq

    def change(self, slug: str, seq: int) -> CampaignChange:
        kept = self._kept(slug)
        if not 1 <= seq <= len(kept.journal):
            raise CampaignNotFound(f"{slug} journal row {seq}")
        label, text = kept.journal[seq - 1]
        return CampaignChange.from_json(label, text, f"memory: {slug}: journal {seq}")

    def log_lines(self, slug: str, start: int = 0, stop: int | None = None) -> list[Plain]:
        return [json.loads(line) for line in self._kept(slug).log[start:stop]]

    def _days_and_kinds(self, slug: str, stop: int) -> list[tuple[int, str]]:
        return [(line["day"], line["kind"]) for line in self.log_lines(slug, 0, stop)]

    def log_positions(self, slug: str, day: int, kinds: Collection[str] | None, stop: int) -> list[int]:
        return day_positions(self._days_and_kinds(slug, stop), day, kinds)

    def log_last(self, slug: str, kinds: Collection[str], count: int, stop: int) -> list[int]:
        found = [n for n, (_day, kind) in enumerate(self._days_and_kinds(slug, stop)) if kind in kinds]
        return found[max(0, len(found) - count):]

    def log_days(self, slug: str, stop: int) -> list[int]:
        return sorted({day for day, _kind in self._days_and_kinds(slug, stop)})


# --- SQL (SQLite, PostgreSQL) ------------------------------------------------------------------------------


class SqlCampaigns:
    """The repository in the database (storage.schema's campaign tables): the campaigns of one
    `owner` ("" in a saves folder's own database; a GM's account in a host's shared one).
    `owns_database`: the repository opened `database` itself, and `close` closes it; a database it
    was given (a host's shared one, which every session's runs, battles and locks use) is left open."""

    def __init__(self, database: Database, owner: str = "", *, owns_database: bool = False):
        self.database = database
        self.owner = owner
        self.where = database.where
        self.owns_database = owns_database

    @classmethod
    def of_folder(cls, saves_dir: Path) -> SqlCampaigns:
        """The campaigns in a saves folder's database, or the GM's in the host's shared one
        (storage.host_shared); DatabaseError, naming the database and what is wrong, if it can't be
        used. `close` when done."""
        shared = shared_saves(saves_dir)
        if shared is not None:
            return cls(*shared)
        return cls(open_database(data_dir=saves_dir), owns_database=True)

    def close(self) -> None:
        """Done with the campaigns: the database closes if this repository opened it."""
        if self.owns_database:
            self.database.close()

    def listing(self) -> list[CampaignListing]:
        c = schema.campaigns.c
        with self.database.reading() as conn:
            rows = conn.execute(select(c.slug, c.name, c.summary, c.updated_at, c.head).where(c.owner == self.owner)
                                .order_by(c.updated_at.desc(), c.slug)).all()
        found = []
        for slug, name, summary, updated_at, head in rows:
            try:
                plain = read_json_text(summary, f"{self.where}: campaign {slug}: summary")
            except DataError:
                plain = {}  # the list still shows it; opening it reports what is wrong
            found.append(CampaignListing(slug, name, plain, updated_at, head))
        return found

    def create(self, slug: str, name: str, state: Plain, log: list[Plain], summary: Plain) -> StoredCampaign:
        c = schema.campaigns.c
        now = time.time()
        with self.database.writing() as conn:
            if conn.execute(select(c.id).where(c.owner == self.owner, c.slug == slug)).first() is not None:
                raise CampaignExists(f"a campaign {slug!r} is stored already")
            campaign_id = conn.execute(insert(schema.campaigns).values(
                owner=self.owner, slug=slug, name=name, created_at=now, updated_at=now, head=0, summary=dumps(summary))
            ).inserted_primary_key[0]
            conn.execute(insert(schema.campaign_snapshots).values(campaign_id=campaign_id, seq=0, state=dumps(state)))
            self._insert_log(conn, campaign_id, 0, log)
        return StoredCampaign(slug, dict(state), len(log), 0)

    @staticmethod
    def _insert_log(conn, campaign_id: int, first: int, lines: list[Plain] | tuple[Plain, ...]) -> None:
        if lines:
            conn.execute(insert(schema.campaign_log), [
                {"campaign_id": campaign_id, "position": first + n, "day": int(line.get("day", 0)),
                 "kind": str(line.get("kind", "")), "text": str(line.get("text", "")), "data": dumps(line.get("data") or {})}
                for n, line in enumerate(lines)])

    def _id_and_head(self, conn, slug: str) -> tuple[int, int]:
        c = schema.campaigns.c
        row = conn.execute(select(c.id, c.head).where(c.owner == self.owner, c.slug == slug)).first()
        if row is None:
            raise CampaignNotFound(slug)
        return row[0], row[1]

    def load(self, slug: str) -> StoredCampaign:
        """The latest snapshot, the journal rows after it and the log's length (one indexed look-up,
        whatever the length): no log line is read."""
        snapshots, journal, log = schema.campaign_snapshots.c, schema.campaign_journal.c, schema.campaign_log.c
        where = f"{self.where}: campaign {slug}"
        with self.database.reading() as conn:
            campaign_id, head = self._id_and_head(conn, slug)
            snapshot = conn.execute(select(snapshots.seq, snapshots.state).where(snapshots.campaign_id == campaign_id)
                                    .order_by(snapshots.seq.desc()).limit(1)).first()
            if snapshot is None:
                raise DataError.one(where, "snapshot", "missing: the database has no state for it")
            rows = conn.execute(select(journal.seq, journal.label, journal.change)
                                .where(journal.campaign_id == campaign_id, journal.seq > snapshot.seq)
                                .order_by(journal.seq)).all()
            last = conn.execute(select(func.max(log.position)).where(log.campaign_id == campaign_id)).scalar()
        state = read_json_text(snapshot.state, f"{where}: snapshot {snapshot.seq}")
        changes = [CampaignChange.from_json(label, text, f"{where}: journal {seq}") for seq, label, text in rows]
        return StoredCampaign(slug, replay(state, changes), 0 if last is None else last + 1, head)

    @staticmethod
    def _lines(rows, where: str, first: int = 0) -> list[Plain]:
        found: list[Plain] = []
        for position, day, kind, text, data in rows:
            if position != first + len(found):
                raise DataError.one(where, f"log.{first + len(found)}", f"missing: the log jumps to line {position}")
            try:
                plain = json.loads(data) if data != "{}" else {}
            except ValueError:
                raise DataError.one(where, f"log.{position}.data", "not JSON") from None
            found.append({"day": day, "kind": kind, "text": text, "data": plain})
        return found

    def append(self, slug: str, change: CampaignChange, *, head: int, summary: Plain,
               snapshot: Callable[[], Plain]) -> int:
        c, log = schema.campaigns.c, schema.campaign_log.c
        with self.database.writing() as conn:
            campaign_id, found = self._id_and_head(conn, slug)
            if found != head:
                raise JournalMoved(slug, head, found)
            seq, text = head + 1, change.to_json()
            conn.execute(insert(schema.campaign_journal).values(
                campaign_id=campaign_id, seq=seq, label=change.label, change=text, at=time.time()))
            if change.log_removed:
                conn.execute(delete(schema.campaign_log).where(log.campaign_id == campaign_id,
                                                               log.position >= change.log_keep))
            self._insert_log(conn, campaign_id, change.log_keep, change.log_added)
            values: Plain = {"head": seq, "updated_at": time.time(), "summary": dumps(summary)}
            if "name" in change.after:
                values["name"] = str(change.after["name"])
            conn.execute(update(schema.campaigns).where(c.id == campaign_id).values(**values))
            if snapshot_due(seq, text):
                self._snapshot(conn, campaign_id, seq, snapshot())
        return seq

    @staticmethod
    def _snapshot(conn, campaign_id: int, seq: int, state: Plain) -> None:
        """Keep the state whole at `seq`, and drop the snapshots before the previous one."""
        snapshots = schema.campaign_snapshots.c
        conn.execute(insert(schema.campaign_snapshots).values(campaign_id=campaign_id, seq=seq, state=dumps(state)))
        previous = select(func.max(snapshots.seq)).where(snapshots.campaign_id == campaign_id, snapshots.seq < seq)
        conn.execute(delete(schema.campaign_snapshots).where(snapshots.campaign_id == campaign_id,
                                                             snapshots.seq < previous.scalar_subquery()))

    def change(self, slug: str, seq: int) -> CampaignChange:
        journal = schema.campaign_journal.c
        with self.database.reading() as conn:
            campaign_id, _head = self._id_and_head(conn, slug)
            row = conn.execute(select(journal.label, journal.change)
                               .where(journal.campaign_id == campaign_id, journal.seq == seq)).first()
        if row is None:
            raise CampaignNotFound(f"{slug} journal row {seq}")
        return CampaignChange.from_json(row.label, row.change, f"{self.where}: campaign {slug}: journal {seq}")

    def log_lines(self, slug: str, start: int = 0, stop: int | None = None) -> list[Plain]:
        log = schema.campaign_log.c
        with self.database.reading() as conn:
            campaign_id, _head = self._id_and_head(conn, slug)
            query = select(log.position, log.day, log.kind, log.text, log.data).where(
                log.campaign_id == campaign_id, log.position >= start)
            if stop is not None:
                query = query.where(log.position < stop)
            rows = conn.execute(query.order_by(log.position)).all()
        return self._lines(rows, f"{self.where}: campaign {slug}", start)

    def log_positions(self, slug: str, day: int, kinds: Collection[str] | None, stop: int) -> list[int]:
        """`day_positions` in SQL: the last line of an earlier day found by walking the primary key
        back from `stop`, then the day's lines after it; both read only the day's rows."""
        log = schema.campaign_log.c
        if not -2**63 <= day < 2**63:  # past what a line's day column holds (a campaign file at day 10^39)
            return []
        with self.database.reading() as conn:
            campaign_id, _head = self._id_and_head(conn, slug)
            mine = (log.campaign_id == campaign_id, log.position < stop)
            earlier = conn.execute(select(log.position).where(*mine, log.day < day)
                                   .order_by(log.position.desc()).limit(1)).scalar()
            query = select(log.position).where(*mine, log.position > (-1 if earlier is None else earlier), log.day == day)
            if kinds is not None:
                query = query.where(log.kind.in_(sorted(kinds)))
            return list(conn.execute(query.order_by(log.position)).scalars())

    def log_last(self, slug: str, kinds: Collection[str], count: int, stop: int) -> list[int]:
        """The positions of the last `count` lines of `kinds` before `stop`, oldest first."""
        log = schema.campaign_log.c
        with self.database.reading() as conn:
            campaign_id, _head = self._id_and_head(conn, slug)
            found = list(conn.execute(select(log.position).where(
                log.campaign_id == campaign_id, log.position < stop, log.kind.in_(sorted(kinds)))
                .order_by(log.position.desc()).limit(count)).scalars())
        found.reverse()
        return found

    def log_days(self, slug: str, stop: int) -> list[int]:
        """The days the log's first `stop` lines have, in order."""
        log = schema.campaign_log.c
        with self.database.reading() as conn:
            campaign_id, _head = self._id_and_head(conn, slug)
            return list(conn.execute(select(log.day).where(log.campaign_id == campaign_id, log.position < stop)
                                     .distinct().order_by(log.day)).scalars())
