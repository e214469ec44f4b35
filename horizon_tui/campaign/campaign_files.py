"""Campaign files: `SAVES/campaigns/<slug>.json`, one per campaign, written atomically with
backups (storage.atomic). A file that can't be read is listed with its problem, never overwritten.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from pathlib import Path

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.errors import DataError
from horizon_tui.campaign.model import Campaign, campaign_from_dict, campaign_to_dict
from horizon_tui.storage.atomic import read_json, save_bytes


def slug(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-") or "campaign"


@attrs.frozen
class CampaignEntry:
    path: Path
    name: str
    day: int | None = None
    party: int | None = None
    npcs: int | None = None
    problem: str | None = None


def encode(campaign: Campaign, catalogue: Catalogue) -> bytes:
    """The file's bytes; also what undo keeps, so two states compare by these bytes."""
    return (json.dumps(campaign_to_dict(campaign, catalogue), ensure_ascii=False, indent=1) + "\n").encode()


def decode(data: bytes, catalogue: Catalogue, file: str = "<campaign>") -> Campaign:
    """A campaign from its file's bytes, through the guarded reader (content.guard); DataError
    naming the file and key of anything wrong, never another exception."""
    from horizon_tui.content.guard import decode_json_bytes

    loaded = decode_json_bytes(data, file)
    try:
        campaign = campaign_from_dict(loaded, catalogue, file)
        check_rules(campaign, catalogue, file)
        return campaign
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        raise DataError.one(file, "", f"not a campaign this version can read ({type(exc).__name__}: "
                            f"{str(exc)[:120]})") from None


def check_rules(campaign: Campaign, catalogue: Catalogue, file: str) -> None:
    """The campaign's house rules make a Ruleset (types, ranges), as every screen will read them:
    a campaign whose rules don't (10^9 slots, a level table that is a text) is listed as damaged
    with the key, not opened to crash the first screen that asks for its rules."""
    if campaign.rules:
        from horizon_tui.campaign import house_rules

        house_rules.to_ruleset(house_rules.merge(house_rules.rules_data(catalogue.rules), campaign.rules), f"{file}: rules")


def read_campaign(path: Path, catalogue: Catalogue) -> tuple[Campaign, bytes]:
    """A campaign file, read as the GM tool opens it (`horizon validate` uses this too)."""
    from horizon_tui.content.guard import current, read_limited

    data = read_limited(path, current().save_bytes)
    return decode(data, catalogue, str(path)), data


def _newest_first(path: Path) -> tuple[float, str]:
    try:
        return -path.stat().st_mtime, path.name
    except OSError:  # gone since the listing
        return 0.0, path.name


class CampaignStore:
    def __init__(self, saves_dir: Path, catalogue: Catalogue):
        self.saves_dir = Path(saves_dir)
        self.catalogue = catalogue

    @property
    def folder(self) -> Path:
        return self.saves_dir / "campaigns"

    def path_for(self, name: str) -> Path:
        return self.folder / f"{slug(name)}.json"

    def entries(self) -> list[CampaignEntry]:
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("*.json"), key=_newest_first):
            try:  # read whole, as opening it would: a campaign listed as fine opens
                campaign, _ = read_campaign(path, self.catalogue)
                found.append(CampaignEntry(path, campaign.name, campaign.day, len(campaign.party),
                                           len(campaign.npcs)))
            except DataError as exc:
                first = exc.problems[0]
                where = f"{first.key}: " if first.key else ""
                found.append(CampaignEntry(path, path.stem, problem=f"{where}{first.message}"))
        return found

    def find(self, name: str) -> Path | None:
        """A campaign by its name, else by its file stem, if it exists (two names may make one
        slug: "🐉" and "🦄" are campaign.json and campaign-2.json)."""
        entries = self.entries()
        wanted = name.strip().lower()
        for entry in entries:
            if not entry.problem and entry.name.lower() == wanted:
                return entry.path
        for entry in entries:
            if entry.path.stem in (name.strip(), slug(name)):
                return entry.path
        return None

    def create(self, name: str, seed: int | None = None) -> tuple[Path, Campaign]:
        if not name.strip():
            raise ValueError("a campaign needs a name")
        same = next((e for e in self.entries() if not e.problem and e.name.lower() == name.strip().lower()), None)
        if same is not None:
            raise ValueError(f"a campaign called {same.name!r} exists already ({same.path.name})")
        path = self.path_for(name)
        n = 2
        while path.exists():  # another name with the same slug, or a damaged file: never over it
            path = self.folder / f"{slug(name)}-{n}.json"
            n += 1
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        campaign = Campaign(name=name.strip(), seed=seed).logged("day", f"The campaign {name.strip()} begins: day 1")
        self.write(path, encode(campaign, self.catalogue))
        return path, campaign

    def load(self, path: Path) -> tuple[Campaign, bytes]:
        return read_campaign(path, self.catalogue)

    def write(self, path: Path, data: bytes) -> None:
        """Atomic, with three backups; refuses to replace a file that has become unreadable, and
        to write one it couldn't open again (read back as the GM tool opens a campaign: its size,
        nesting, a text's length; by hand a 200,000-character note made a campaign that never
        opened again): DataError naming the key, nothing written, the action not taken."""
        decode(data, self.catalogue, str(path))
        save_bytes(path, data, check=read_json)
