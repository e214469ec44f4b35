"""The open campaign: every GM action goes through `apply`, which saves at once and remembers
the state before it, so `undo` can step back one action at a time (in and out of battle).

Undo keeps the previous states as the file's own bytes (compressed): restoring one is exact by
construction (the test compares serialised campaigns), and no action needs an inverse written for it.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.campaign import house_rules
from horizon_tui.campaign.model import Campaign
from horizon_tui.campaign.campaign_files import CampaignStore, decode, encode
from horizon_tui.storage.lock import LockLost, SaveLock

UNDO_LIMIT = 500


@attrs.frozen
class Step:
    label: str  # what the action was, in words ("Iriel tries charm on Oswin")
    before: bytes  # the campaign file before it, zlib-compressed: 500 steps of a 3 MB file were 1.6 GB

    @classmethod
    def of(cls, label: str, data: bytes) -> Step:
        return cls(label, zlib.compress(data, 1))

    @property
    def file(self) -> bytes:
        return zlib.decompress(self.before)


class ReadOnly(ValueError):
    """The campaign is open read-only in this window: it is shown, never written."""


class CampaignSession:
    """The open campaign. `lock` is this window's right to write it (`storage.lock`); without one
    the session is read-only: every action is refused with the reason, the file is never written."""

    def __init__(self, store: CampaignStore, path: Path, campaign: Campaign, data: bytes | None = None,
                 lock: SaveLock | None = None, *, read_only: bool = False, held_by: str = ""):
        self.store = store
        self.lock = lock
        self.read_only = read_only
        self.was_read_only = read_only  # opened read-only (not made so by a takeover since)
        self.held_by = held_by  # who holds it, when read-only because it is open elsewhere
        self.path = Path(path)
        self.campaign = campaign
        self.encoded = data if data is not None else encode(campaign, store.catalogue)
        self.history: list[Step] = []
        self._rules: tuple[str, Ruleset] | None = None
        self.listeners: list[Callable[[CampaignSession, str], None]] = []

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
            house_rules.merge(self.defaults, overrides), f"{self.path}: rules")
        self._rules = (key, rules)
        return rules

    @property
    def rules(self) -> Ruleset:
        return self.rules_for(self.campaign.rules)

    @property
    def catalogue(self) -> Catalogue:
        rules = self.rules
        return self.base if rules is self.base.rules else self.base.with_rules(rules)

    # --- actions ---------------------------------------------------------------------------

    def apply(self, change: Callable[[Campaign], Campaign], label: str) -> Campaign:
        """Run one GM action: the new campaign is saved before it becomes current. A `ValueError`
        from the action (a refusal) and a failed save leave everything as it was."""
        if self.read_only:
            raise ReadOnly(self.read_only_reason())
        new = change(self.campaign)
        data = encode(new, self.base)
        if data == self.encoded:
            return self.campaign
        self._write(data)
        self.history.append(Step.of(label, self.encoded))
        del self.history[:-UNDO_LIMIT]
        self.campaign, self.encoded = new, data
        self._notify(label)
        return new

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
        data = step.file
        campaign = decode(data, self.base, str(self.path))
        self._write(data)
        self.history.pop()
        self.campaign, self.encoded = campaign, data
        self._notify(f"undo: {step.label}")
        return step.label

    def read_only_reason(self) -> str:
        where = f" (open for writing: {self.held_by})" if self.held_by else ""
        return f"{self.campaign.name} is open read-only in this window{where}: nothing is saved"

    def _write(self, data: bytes) -> None:
        """Save under this window's lock; a lock taken over by another window makes this one
        read-only (LockLost is raised, nothing is written)."""
        if self.lock is None:
            self.store.write(self.path, data)
            return
        try:
            with self.lock.guard():
                self.store.write(self.path, data)
        except LockLost as exc:
            self.read_only = True
            self.held_by = exc.holder.describe() if exc.holder else "another window"
            raise

    def close(self) -> None:
        """Let go of the campaign (another window may then open it for writing)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def _notify(self, label: str) -> None:
        for listener in list(self.listeners):
            listener(self, label)
