"""What one GM action costs, whatever the campaign's size: a new NPC writes and reads back that NPC,
not the whole roster; an NPC's numbers are worked out once per NPC, not at every redraw; the
guarded reader's limits are found without resolving paths on every read (bench_gm_evening: a new
NPC took 4–9 ms in storage, growing with the roster, and 55–65 ms of CPU key to screen)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from horizon_tui.campaign import changes, model, open_campaign
from horizon_tui.campaign.campaign_files import CampaignStore, encode
from horizon_tui.campaign.model import Npc
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.content import guard
from horizon_tui.errors import DataError
from horizon_tui.storage.campaigns import MemoryCampaigns


def counted(monkeypatch, module, name: str) -> list[int]:
    calls = [0]
    original = getattr(module, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


@pytest.fixture
def crowded(tmp_path: Path, catalogue) -> OpenCampaign:
    """A campaign with 30 NPCs."""
    store = CampaignStore(tmp_path, catalogue, MemoryCampaigns())
    key, campaign = store.create("Crowded Road", seed=3)
    session = OpenCampaign(store, key, campaign)
    for n in range(30):
        session.apply(lambda c, n=n: changes.save_npc(c, None, Npc(f"Villager {n}")), "npc")
    return session


def test_a_new_npc_writes_and_reads_back_that_npc_alone(crowded, monkeypatch):
    written = counted(monkeypatch, open_campaign, "roster_entry")
    read = counted(monkeypatch, model, "structure")
    crowded.apply(lambda c: changes.save_npc(c, None, Npc("Guard")), "new NPC")
    assert written[0] == 1 and read[0] == 1
    edited = attrs.evolve(crowded.campaign.npcs[4], notes="saw the party")
    crowded.apply(lambda c: changes.save_npc(c, c.npcs[4].name, edited), "NPC edit")
    assert written[0] == 2 and read[0] == 2
    reopened = crowded.store.load(crowded.slug).campaign
    assert encode(reopened, crowded.base) == encode(crowded.campaign, crowded.base)


def test_a_roster_with_a_name_twice_is_still_refused_whole(crowded):
    """Only the changed entries are read back, unless a name would be there twice: then the read
    of all of them names the duplicate, and nothing is written."""
    twin = attrs.evolve(crowded.campaign.npcs[0], notes="a twin")
    head = crowded.head
    with pytest.raises(DataError, match="already in the npcs"):
        crowded.apply(lambda c: attrs.evolve(c, npcs=(*c.npcs, twin)), "a twin")
    assert crowded.head == head and len(crowded.campaign.npcs) == 30


def test_an_npcs_numbers_are_worked_out_once_until_it_changes(catalogue, monkeypatch):
    npc = Npc("Oswin", attributes={**model.rules_minimums(), "physical": 6})
    first = npc.effective_health(catalogue), npc.effective_willpower(catalogue)
    built = counted(monkeypatch, model, "npc_character")
    assert (npc.effective_health(catalogue), npc.effective_willpower(catalogue)) == first and built[0] == 0
    stronger = attrs.evolve(npc, attributes={**npc.attributes, "physical": 9})
    assert stronger.effective_health(catalogue) != first[0] and built[0] == 1
    npc.stats(catalogue)["health"] = 0  # a caller's copy: the next one is whole
    assert npc.effective_health(catalogue) == first[0]


def test_the_limits_in_force_are_found_without_resolving_a_path(monkeypatch):
    guard.current()
    resolved = counted(monkeypatch, Path, "resolve")
    for _ in range(20):
        guard.current()
    assert resolved[0] == 0


def test_undoing_a_new_npc_reads_no_npc_back_and_restores_exactly(crowded, monkeypatch):
    before = encode(crowded.campaign, crowded.base)
    crowded.apply(lambda c: changes.save_npc(c, None, Npc("Guard")), "new NPC")
    edited = attrs.evolve(crowded.campaign.npcs[2], notes="changed, then undone")
    crowded.apply(lambda c: changes.save_npc(c, c.npcs[2].name, edited), "NPC edit")
    read = counted(monkeypatch, model, "structure")
    kept = crowded.campaign.npcs[0]
    crowded.undo()
    assert read[0] == 1 and crowded.campaign.npcs[2].notes == "" and crowded.campaign.npcs[0] is kept
    crowded.undo()
    assert read[0] == 1 and encode(crowded.campaign, crowded.base) == before
    assert encode(crowded.store.load(crowded.slug).campaign, crowded.base) == before
