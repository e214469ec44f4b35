"""Campaigns in storage: the campaign model to and from the repository's plain data
(storage.campaigns), the campaign list, and the import of the JSON files older versions wrote.

The database (`SAVES/horizon.sqlite3`, storage.campaigns.SqlCampaigns.of_folder, unless a repository
is given) keeps each campaign as a journal. `SAVES/campaigns/` still holds what is a file: the JSON campaigns of older
versions until they are imported (then moved to `campaigns/imported/`, never deleted; one that
can't be read stays, listed with its problem), the lock records, the Markdown exports and the
house rules written for `horizon validate`.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import unicodedata
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.campaign import house_rules
from horizon_tui.campaign.model import (
    KIND, SCHEMA, STATE_FIELDS, Campaign, campaign_from_dict, campaign_to_dict, log_line, state_field,
)
from horizon_tui.campaign.session_log import SessionLog, StoredLines
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.guard import current, decode_json_bytes, read_limited
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.storage.campaigns import CampaignExists, CampaignNotFound, CampaignRepository, SqlCampaigns

IMPORTED = "imported"  # campaigns/imported/: JSON campaigns moved aside once they are in the database
BACKUPS = (".1", ".2", ".3")  # the file-based store's backups of a campaign file


def slug(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-") or "campaign"


@attrs.frozen
class CampaignEntry:
    """A line of the campaign list: a stored campaign (by `slug`), or a JSON file of an older
    version that couldn't be imported (`file`, with its `problem`)."""

    slug: str
    name: str
    day: int | None = None
    party: int | None = None
    npcs: int | None = None
    problem: str | None = None
    file: Path | None = None


def encode(campaign: Campaign, catalogue: Catalogue) -> bytes:
    """The campaign as one JSON document (the file older versions wrote; tests compare states by it)."""
    return (json.dumps(campaign_to_dict(campaign, catalogue), ensure_ascii=False, indent=1) + "\n").encode()


def decode(data: bytes, catalogue: Catalogue, file: str = "<campaign>") -> Campaign:
    """A campaign from one JSON document, through the guarded reader (content.guard); DataError
    naming the file and key of anything wrong, never another exception."""
    return from_plain(decode_json_bytes(data, file), catalogue, file)


def from_plain(data: dict[str, Any], catalogue: Catalogue, file: str) -> Campaign:
    try:
        campaign = campaign_from_dict(data, catalogue, file)
        if campaign.rules:
            check_rules(campaign, catalogue, file)
        return campaign
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise DataError.one(file, "", f"not a campaign this version can read ({type(exc).__name__}: "
                            f"{str(exc)[:120]})") from None


def from_stored(state: dict[str, Any], log: SessionLog, catalogue: Catalogue, file: str) -> Campaign:
    """A campaign from the repository's state, with its log as stored (read when asked for)."""
    return attrs.evolve(from_plain({"kind": KIND, "schema": SCHEMA, **state, "log": []}, catalogue, file), log=log)


def check_rules(campaign: Campaign, catalogue: Catalogue, file: str) -> None:
    """The campaign's house rules make a Ruleset (types, ranges), as every screen will read them:
    a campaign whose rules don't (10^9 slots, a level table that is a text) is listed as damaged
    with the key, not opened to crash the first screen that asks for its rules."""
    if campaign.rules:
        house_rules.to_ruleset(house_rules.merge(house_rules.rules_data(catalogue.rules), campaign.rules), f"{file}: rules")


def state_of(campaign: Campaign, catalogue: Catalogue) -> dict[str, Any]:
    return {name: state_field(campaign, name, catalogue) for name in STATE_FIELDS}


def summary_of(campaign: Campaign) -> dict[str, Any]:
    """What the campaign list shows without opening the campaign."""
    return {"day": campaign.day, "party": len(campaign.party), "npcs": len(campaign.npcs)}


def read_campaign(path: Path, catalogue: Catalogue) -> tuple[Campaign, bytes]:
    """A campaign file of an older version, read as the import reads it (`horizon validate` uses this too)."""
    data = read_limited(path, current().save_bytes)
    return decode(data, catalogue, str(path)), data


@attrs.frozen
class LoadedCampaign:
    slug: str
    campaign: Campaign
    head: int  # the journal row it was read at


class CampaignStore:
    """The campaigns of one saves folder. Without a repository, the SQLite database in the saves
    folder; a database that can't be opened is reported as the list's one entry (`problem`), and
    the GM tool still starts."""

    def __init__(self, saves_dir: Path, catalogue: Catalogue, repository: CampaignRepository | None = None):
        self.saves_dir = Path(saves_dir)
        self.catalogue = catalogue
        self.problem: str | None = None
        self._database: SqlCampaigns | None = None
        if repository is None:
            try:
                self._database = repository = SqlCampaigns.of_folder(self.saves_dir)
            except HorizonError as exc:  # storage.database.DatabaseError: which file, what is wrong
                self.problem = str(exc)
        self.repository = repository

    @property
    def folder(self) -> Path:
        return self.saves_dir / "campaigns"

    @property
    def where(self) -> str:
        """Where the campaigns are kept, for the GM: the database file."""
        return self.repository.where if self.repository is not None else str(self.saves_dir)

    def lock_path(self, slug: str) -> Path:
        """The campaign's place in the saves folder: its lock records (storage.lock) sit beside it."""
        return self.folder / f"{slug}.campaign"

    def _repository(self) -> CampaignRepository:
        if self.repository is None:
            raise ValueError(f"campaigns can't be kept: {self.problem}")
        return self.repository

    def entries(self) -> list[CampaignEntry]:
        if self.repository is None:
            return [CampaignEntry("", "(the campaign database)", problem=self.problem)]
        left = self.import_files()
        found = [CampaignEntry(c.slug, c.name, _whole(c.summary.get("day")), _whole(c.summary.get("party")),
                               _whole(c.summary.get("npcs"))) for c in self.repository.listing()]
        return found + left

    def find(self, name: str) -> str | None:
        """A campaign's slug by its name, else by its slug (two names may make one slug: "🐉" and
        "🦄" are campaign and campaign-2)."""
        entries = [e for e in self.entries() if not e.problem]
        wanted = name.strip().lower()
        for entry in entries:
            if entry.name.lower() == wanted:
                return entry.slug
        for entry in self.entries():  # a file that couldn't be imported too: opening it says why
            if entry.slug in (name.strip(), slug(name)):
                return entry.slug
        return None

    def _free_slug(self, name: str) -> str:
        taken = {c.slug for c in self._repository().listing()}
        base = slug(name)
        found, n = base, 2
        while found in taken:
            found = f"{base}-{n}"
            n += 1
        return found

    def create(self, name: str, seed: int | None = None) -> tuple[str, Campaign]:
        if not name.strip():
            raise ValueError("a campaign needs a name")
        same = next((e for e in self.entries() if not e.problem and e.name.lower() == name.strip().lower()), None)
        if same is not None:
            raise ValueError(f"a campaign called {same.name!r} exists already ({same.slug})")
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        campaign = Campaign(name=name.strip(), seed=seed).logged("day", f"The campaign {name.strip()} begins: day 1")
        key = self._free_slug(name)
        self._repository().create(key, campaign.name, state_of(campaign, self.catalogue),
                                  [log_line(e) for e in campaign.log], summary_of(campaign))
        return key, campaign

    def load(self, key: str) -> LoadedCampaign:
        """The campaign as stored; DataError naming the database and what is wrong."""
        where = f"{self.where}: campaign {key}"
        try:
            stored = self._repository().load(key)
        except CampaignNotFound as exc:
            file = self.folder / f"{key}.json"
            if file.is_file():  # an older version's file that couldn't be imported: its own problem
                read_campaign(file, self.catalogue)
            raise DataError.one(where, "", str(exc)) from None
        except ValueError as exc:
            raise DataError.one(where, "", str(exc)) from None
        log = SessionLog(StoredLines(self._repository(), key, stored.log_length, where), stored.log_length)
        return LoadedCampaign(key, from_stored(stored.state, log, self.catalogue, where), stored.head)

    # --- JSON campaigns of older versions ----------------------------------------------------------------

    def import_files(self) -> list[CampaignEntry]:
        """Import each `campaigns/*.json` into the database and move it (and its backups) to
        `campaigns/imported/`; returns the files that couldn't be imported, with their problems.
        A file whose import was committed but not yet moved (the app was killed between) is
        recognised by its hash and only moved."""
        if not self.folder.is_dir():
            return []
        left = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                self._import(path)
            except DataError as exc:
                first = exc.problems[0]
                where = f"{first.key}: " if first.key else ""
                left.append(CampaignEntry(path.stem, path.stem, problem=f"{where}{first.message}", file=path))
            except (ValueError, OSError) as exc:
                left.append(CampaignEntry(path.stem, path.stem, problem=f"not imported: {exc}", file=path))
        return left

    def _import(self, path: Path) -> None:
        campaign, data = read_campaign(path, self.catalogue)
        digest = hashlib.sha256(data).hexdigest()
        repository = self._repository()
        done = next((c for c in repository.listing() if c.summary.get("imported_sha256") == digest), None)
        if done is None:
            summary = dict(summary_of(campaign), imported_from=path.name, imported_sha256=digest)
            key = path.stem if path.stem not in {c.slug for c in repository.listing()} else self._free_slug(path.stem)
            try:
                repository.create(key, campaign.name, state_of(campaign, self.catalogue),
                                  [log_line(e) for e in campaign.log], summary)
            except CampaignExists as exc:
                raise ValueError(str(exc)) from None
        self._move_aside(path)

    def _move_aside(self, path: Path) -> None:
        aside = self.folder / IMPORTED
        aside.mkdir(parents=True, exist_ok=True)
        for source in (path, *(path.with_name(path.name + b) for b in BACKUPS)):
            if not source.exists():
                continue
            target, n = aside / source.name, 2
            while target.exists():
                target = aside / f"{source.name}.{n}"
                n += 1
            source.rename(target)

    def close(self) -> None:
        if self._database is not None:
            self._database.close()


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
