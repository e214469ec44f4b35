"""Campaign files: `SAVES/campaigns/<slug>.json`, one per campaign, written atomically with
backups (saves.store). A file that can't be read is listed with its problem, never overwritten.
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
from horizon_tui.gm.campaign import Campaign, campaign_from_dict, campaign_to_dict
from horizon_tui.saves.store import read_json, save_bytes


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
    try:
        loaded = json.loads(data.decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError.one(file, "", f"can't be read: {exc}") from None
    if not isinstance(loaded, dict):
        raise DataError.one(file, "", "expected a JSON object")
    return campaign_from_dict(loaded, catalogue, file)


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
        for path in sorted(self.folder.glob("*.json"), key=lambda p: (-p.stat().st_mtime, p.name)):
            try:
                data = read_json(path)
                name = str(data.get("name") or path.stem)
                if data.get("kind") != "horizon-campaign":
                    raise DataError.one(path, "kind", "not a campaign")
                found.append(CampaignEntry(path, name, data.get("day"), len(data.get("party") or []),
                                           len(data.get("npcs") or [])))
            except DataError as exc:
                found.append(CampaignEntry(path, path.stem, problem=exc.problems[0].message))
        return found

    def find(self, name: str) -> Path | None:
        """A campaign by its name or file stem, if it exists."""
        for entry in self.entries():
            if entry.name.lower() == name.lower() or entry.path.stem == slug(name):
                return entry.path
        return None

    def create(self, name: str, seed: int | None = None) -> tuple[Path, Campaign]:
        if not name.strip():
            raise ValueError("a campaign needs a name")
        path = self.path_for(name)
        if path.exists():
            raise ValueError(f"a campaign called {name.strip()!r} exists already ({path.name})")
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        campaign = Campaign(name=name.strip(), seed=seed).logged("day", f"The campaign {name.strip()} begins: day 1")
        self.write(path, encode(campaign, self.catalogue))
        return path, campaign

    def load(self, path: Path) -> tuple[Campaign, bytes]:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise DataError.one(path, "", "no such file") from None
        except OSError as exc:
            raise DataError.one(path, "", f"can't be read: {exc}") from None
        return decode(data, self.catalogue, str(path)), data

    def write(self, path: Path, data: bytes) -> None:
        """Atomic, with three backups; refuses to replace a file that has become unreadable."""
        save_bytes(path, data, check=read_json)
