"""Fixtures for the GM tool: a saves folder with the example party's files, and a campaign with
that party and two NPCs (one who can be talked round, one who can't)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from horizon_tui.content.characters import load_character
from horizon_tui.campaign import changes
from horizon_tui.campaign.model import Npc
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.campaign.campaign_files import CampaignStore, encode

REPO = Path(__file__).resolve().parents[2]
PARTY = sorted((REPO / "examples" / "party").glob("*.toml"))  # brakka, iriel, morwen, sefa

OSWIN = Npc("Mayor Oswin", level=3, species="human mayor", attitude="unfriendly", notes="owes the toll-taker",
            attributes={"physical": 3, "agility": 4, "perception": 3, "cognition": 5, "faith": 6, "beauty": 5})
GRUKK = Npc("Grukk", level=2, checkable=False, attitude="hostile", xp=60)


@pytest.fixture
def saves(tmp_path: Path) -> Path:
    folder = tmp_path / "saves"
    (folder / "characters").mkdir(parents=True)
    for path in PARTY:
        shutil.copy(path, folder / "characters" / path.name)
    return folder


@pytest.fixture
def store(saves: Path, catalogue) -> CampaignStore:
    return CampaignStore(saves, catalogue)


def stored(session: OpenCampaign) -> bytes:
    """The campaign as the database keeps it, read back as opening it reads it."""
    return encode(session.store.load(session.slug).campaign, session.store.catalogue)


def current(session: OpenCampaign) -> bytes:
    return encode(session.campaign, session.store.catalogue)


def legacy_file(saves: Path, data: dict | str | bytes, name: str = "lantern-road.json") -> Path:
    """A campaign file as older versions wrote it (`SAVES/campaigns/NAME`), in a saves folder of
    its own: what the store imports on first open (or lists with its problem)."""
    folder = saves / "campaigns"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    if isinstance(data, dict):
        data = json.dumps(data)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def make_campaign(store: CampaignStore, name: str = "Lantern Road", npcs=(OSWIN, GRUKK)) -> OpenCampaign:
    key, campaign = store.create(name, seed=1234)
    session = OpenCampaign(store, key, campaign)
    for file in PARTY:
        character = load_character(file, store.catalogue)
        session.apply(lambda c, ch=character, f=file: changes.add_member(c, ch, str(f)), f"{character.name} joins")
    for npc in npcs:
        session.apply(lambda c, n=npc: changes.save_npc(c, None, n), f"NPC {npc.name}")
    session.history.clear()  # the set-up is not what the tests undo
    return session


@pytest.fixture
def session(store: CampaignStore) -> OpenCampaign:
    return make_campaign(store)
