"""The open campaign (the unit of work): every GM action goes through `apply`, which saves it at
once as one journal row (storage.campaigns) and remembers it, so `undo` can step back one action
at a time (in and out of battle).

A row holds only what the action changed: the campaign's fields whose value differs (found by
identity first — the campaign is immutable, so an untouched field is the same object — then by
value) and how the session log changed (lines appended, or dropped and added). Saving is
O(change), not O(campaign). Undo reads the row back and writes its inverse: restoring is exact by
construction (the test compares serialised campaigns), and no action needs an inverse written for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.campaign import house_rules
from horizon_tui.campaign.campaign_files import CampaignStore, check_rules, from_plain, state_of
from horizon_tui.campaign.model import (
    KIND, ROSTERS, SCHEMA, STATE_FIELDS, Campaign, log_line, roster_entry, state_field,
)
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.guard import decode_json_bytes
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError
from horizon_tui.storage.campaigns import CampaignChange, ListTail
from horizon_tui.storage.lock import LockLost, SaveLock

UNDO_LIMIT = 500
DAY_LIMIT = 2**62  # a log line's day is a database integer (64 bits)


@attrs.frozen
class JournalStep:
    seq: int  # the journal row this window wrote
    label: str  # what the action was, in words ("Iriel tries charm on Oswin")


class ReadOnly(ValueError):
    """The campaign is open read-only in this window: it is shown, never written."""


class OpenCampaign:
    """The open campaign. `lock` is this window's right to write it (`storage.lock`); without one
    the session is read-only: every action is refused with the reason, nothing is written."""

    def __init__(self, store: CampaignStore, slug: str, campaign: Campaign, head: int = 0,
                 lock: SaveLock | None = None, *, read_only: bool = False, held_by: str = ""):
        self.store = store
        self.slug = slug
        self.lock = lock
        self.read_only = read_only
        self.was_read_only = read_only  # opened read-only (not made so by a takeover since)
        self.held_by = held_by  # who holds it, when read-only because it is open elsewhere
        self.campaign = campaign
        self.head = head  # the last journal row, as this window knows it
        self.fields = state_of(campaign, store.catalogue)  # the stored state: what a change is compared with
        self.history: list[JournalStep] = []
        self._rules: tuple[str, Ruleset] | None = None
        self._catalogue: Catalogue | None = None
        self.listeners: list[Callable[[OpenCampaign, str], None]] = []

    @property
    def path(self) -> Path:
        """The campaign's place in the saves folder (its lock records sit beside it)."""
        return self.store.lock_path(self.slug)

    @property
    def where(self) -> str:
        """The campaign as messages name it: the database and the campaign."""
        return f"{self.store.where}: campaign {self.slug}"

    @property
    def base(self) -> Catalogue:
        return self.store.catalogue

    # --- the campaign's rules --------------------------------------------------------------

    @property
    def defaults(self) -> dict:
        return house_rules.rules_data(self.base.rules)

    def rules_for(self, overrides: dict) -> Ruleset:
        """The shipped rules with these overrides, the same object while they don't change (the
        rules' builds are memoised on the Ruleset object)."""
        key = json.dumps(overrides, sort_keys=True)
        if self._rules is not None and self._rules[0] == key:
            return self._rules[1]
        rules = self.base.rules if not overrides else house_rules.to_ruleset(
            house_rules.merge(self.defaults, overrides), f"{self.where}: rules")
        self._rules = (key, rules)
        return rules

    @property
    def rules(self) -> Ruleset:
        return self.rules_for(self.campaign.rules)

    @property
    def catalogue(self) -> Catalogue:
        """The catalogue with the campaign's rules, the same object while they don't change (what
        is memoised on it, as NPC numbers are, stays found)."""
        rules = self.rules
        if rules is self.base.rules:
            return self.base
        if self._catalogue is None or self._catalogue.rules is not rules:
            self._catalogue = self.base.with_rules(rules)
        return self._catalogue

    # --- actions ---------------------------------------------------------------------------

    def apply(self, change: Callable[[Campaign], Campaign], label: str) -> Campaign:
        """Run one GM action: it is saved before it becomes current. A `ValueError` from the
        action (a refusal) and a failed save leave everything as it was."""
        if self.read_only:
            raise ReadOnly(self.read_only_reason())
        new = change(self.campaign)
        row = self.difference(new, label)
        if row is None:
            return self.campaign
        self.check(row, new)
        self._write(row)
        self.history.append(JournalStep(self.head, label))
        del self.history[:-UNDO_LIMIT]
        self.campaign = new
        self._notify(label)
        return new

    def difference(self, new: Campaign, label: str) -> CampaignChange | None:
        """The journal row that takes the current campaign to `new`; None when nothing changed."""
        old = self.campaign
        after: dict[str, Any] = {}
        before: dict[str, Any] = {}
        tails: list[ListTail] = []
        for name in STATE_FIELDS:
            if getattr(new, name) is getattr(old, name):
                continue
            value = self._roster(new, name) if name in ROSTERS else state_field(new, name, self.base)
            if value != self.fields[name]:
                after[name], before[name] = value, self.fields[name]
                if name in TAIL_LISTS:
                    tail = list_tail(name, TAIL_LISTS[name], before[name], value)
                    if tail is not None:
                        after[name], before[name] = without(value, tail.key), without(before[name], tail.key)
                        tails.append(tail)
        # the lines both share (from the first that changed or went): an appended line shares the
        # stored log and compares the tails in memory (session_log), whatever the log's length
        kept = len(old.log) if new.log is old.log else new.log.common_prefix(old.log)
        removed = tuple(log_line(e) for e in old.log.lines_from(kept))
        added = tuple(log_line(e) for e in new.log.lines_from(kept))
        if not after and not removed and not added:
            return None
        return CampaignChange(label, after, before, kept, removed, added, tails=tuple(tails))

    def _roster(self, new: Campaign, name: str) -> list[dict[str, Any]]:
        """A roster as plain data, each member the action left alone (the same object: the campaign
        is immutable) kept as it is stored: a new NPC writes one NPC out, not all of them."""
        stored = dict(zip(map(id, getattr(self.campaign, name)), self.fields[name]))
        return [stored.get(id(item)) or roster_entry(item, self.base) for item in getattr(new, name)]

    def _changed_entries(self, row: CampaignChange) -> dict[str, Any]:
        """`row.after` with only the roster entries the action made or changed (those it left are
        the stored ones, read back when they were written), unless a name is there twice: then all
        of them, so the read names the duplicate."""
        after = self._after(row)
        for name in ROSTERS:
            if name in after and _names_unique(name, after[name]):
                kept = set(map(id, self.fields[name]))
                after[name] = [entry for entry in after[name] if id(entry) not in kept]
        return after

    def check(self, row: CampaignChange, new: Campaign) -> None:
        """The row reads back as the campaign it makes, as opening the campaign will read it: its
        size, nesting and texts (by hand a 200,000-character note made a campaign that never
        opened again), each changed field and the house rules. DataError naming the key, nothing written."""
        where = self.where
        decode_json_bytes(row.to_json().encode("utf-8"), where)
        for line in row.log_added:
            if not -DAY_LIMIT < line["day"] < DAY_LIMIT:
                raise DataError.one(where, "day", f"day {line['day']:.3g} is past what the session log keeps "
                                    f"(days up to {DAY_LIMIT:,})")
        from_plain({"kind": KIND, "schema": SCHEMA, "name": new.name, "seed": new.seed, **self._changed_entries(row),
                    "log": list(row.log_added)}, self.base, where)
        if "rules" in row.after:
            check_rules(new, self.base, where)

    @property
    def can_undo(self) -> bool:
        return bool(self.history)

    def undo(self) -> str | None:
        """Step back over the last action; returns its label (None when there is nothing)."""
        if not self.history:
            return None
        step = self.history[-1]
        if self.read_only:
            raise ReadOnly(self.read_only_reason())
        row = self.store.repository.change(self.slug, step.seq).inverse(step.seq)
        campaign = self._changed(row)
        self._write(row)
        self.history.pop()
        self.campaign = campaign
        self._notify(f"undo: {step.label}")
        return step.label

    def _after(self, row: CampaignChange) -> dict[str, Any]:
        """The fields `row` sets, whole (a list it edits at its end with what it keeps of it)."""
        if not row.tails:
            return dict(row.after)
        state = row.applied({name: self.fields[name] for name in row.after})
        return {name: state[name] for name in row.after}

    def _changed(self, row: CampaignChange) -> Campaign:
        """The current campaign with `row` applied (its fields read as opening the campaign reads
        them). A roster entry stored as it is now is the member or NPC the campaign has: undoing a
        new NPC reads no NPC back."""
        after = self._after(row)
        kept: dict[str, list[Any]] = {}  # per roster: the current item an entry is, or None to read it
        for name in ROSTERS:
            if name in after and _names_unique(name, after[name]):
                now = {_entry_name(name, plain): (plain, item)
                       for plain, item in zip(self.fields[name], getattr(self.campaign, name))}
                found = [now.get(_entry_name(name, entry), ({}, None)) for entry in after[name]]
                kept[name] = [item if plain == entry else None for (plain, item), entry in zip(found, after[name])]
                after[name] = [entry for entry, item in zip(after[name], kept[name]) if item is None]
        read = from_plain({"kind": KIND, "schema": SCHEMA, "name": self.campaign.name, "seed": self.campaign.seed,
                           **after, "log": list(row.log_added)}, self.base, self.where)
        fields = {name: getattr(read, name) for name in row.after}
        for name, items in kept.items():
            fresh = iter(fields[name])
            fields[name] = tuple(item if item is not None else next(fresh) for item in items)
        return attrs.evolve(self.campaign, **fields, log=self.campaign.log[:row.log_keep] + read.log)

    def read_only_reason(self) -> str:
        where = f" (open for writing: {self.held_by})" if self.held_by else ""
        return f"{self.campaign.name} is open read-only in this window{where}: nothing is saved"

    def _write(self, row: CampaignChange) -> None:
        """Save one row under this window's lock; a lock taken over by another window makes this
        one read-only (LockLost is raised, nothing is written)."""
        if self.lock is None:
            self._append(row)
            return
        try:
            with self.lock.guard():
                self._append(row)
        except LockLost as exc:
            self.read_only = True
            self.held_by = exc.holder.describe() if exc.holder else "another window"
            raise

    def _append(self, row: CampaignChange) -> None:
        fields = {**self.fields, **self._after(row)}
        summary = {"day": fields["day"], "party": len(fields["party"]), "npcs": len(fields["npcs"])}  # as summary_of
        self.head = self.store.repository.append(self.slug, row, head=self.head, summary=summary,
                                                 snapshot=lambda: fields)
        self.fields = fields

    def close(self) -> None:
        """Let go of the campaign (another window may then open it for writing)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def _notify(self, label: str) -> None:
        for listener in list(self.listeners):
            listener(self, label)


# the lists inside a field that GM actions edit at their end: a GM battle input is one more input,
# written as that input (ListTail), not as the battle whole again (the row grew with the fight:
# 70,000 characters and 9 ms at its 300th input)
TAIL_LISTS = {"battle": "inputs"}


def list_tail(field: str, key: str, old: Any, new: Any) -> ListTail | None:
    """How `new[key]` differs from `old[key]` at its end (the items both start with kept), or None
    when either is not a record with such a list."""
    if not (isinstance(old, dict) and isinstance(new, dict)
            and isinstance(old.get(key), list) and isinstance(new.get(key), list)):
        return None
    before, after = old[key], new[key]
    keep = len(before) if after[:len(before)] == before else 0
    while keep < min(len(before), len(after)) and before[keep] == after[keep]:
        keep += 1
    return ListTail(field, key, keep, tuple(before[keep:]), tuple(after[keep:]))


def without(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


def _entry_name(roster: str, entry: dict[str, Any]) -> Any:
    """A stored party member's or NPC's name (as model.roster_entry writes it)."""
    return entry.get("name") if roster == "npcs" else entry.get("character", {}).get("name")


def _names_unique(roster: str, entries: list[dict[str, Any]]) -> bool:
    names = [_entry_name(roster, entry) for entry in entries]
    return len(set(names)) == len(names)


def open_session(store: CampaignStore, slug: str, lock: SaveLock | None = None, *, read_only: bool = False,
                 held_by: str = "") -> OpenCampaign:
    """The campaign `slug` as stored, open in a session (DataError if it can't be read)."""
    opened = store.load(slug)
    return OpenCampaign(store, slug, opened.campaign, opened.head, lock, read_only=read_only, held_by=held_by)
