"""Safety: one writing window per campaign (storage.lock, across processes), XP awards
bounded, health overrides within 0…max and revive explicit."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import hp, ident, is_active, team
from horizon_tui.engine.actions import Impossible
from horizon_tui.campaign import changes as campaign_changes
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.campaign.open_campaign import ReadOnly
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.storage.lock import SaveLock
from tests.gm.conftest import stored

SIZE = (80, 24)

HOLDER = textwrap.dedent("""
    import sys, time
    from horizon_tui.storage.lock import SaveLock
    lock = SaveLock.acquire(sys.argv[1], "Ada at the other table")
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
    lock.release()
""")


@pytest.fixture
def other_window(session):
    """A second process holding the campaign's lock, as another `horizon gm` would."""
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(session.path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    yield child
    child.stdin.close()
    child.wait(timeout=10)


async def test_a_campaign_open_in_another_process_says_who_and_offers_read_only(session, catalogue, other_window):
    before = stored(session)
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog)
        assert "already open" in dialog.title_text and "Ada at the other table since" in dialog.title_text
        await pilot.press("enter")  # open it read-only
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.host.gm.read_only
        assert "READ-ONLY" in app.sub_title
        assert not app.host.act(lambda c: campaign_changes.advance_day(c), "next day")  # refused with the reason
        with pytest.raises(ReadOnly, match="Ada at the other table"):
            app.host.gm.apply(campaign_changes.advance_day, "next day")
    assert stored(session) == before  # nothing written over the other window's work


async def test_once_the_other_window_closes_the_campaign_opens_for_writing(session, catalogue, other_window):
    other_window.stdin.close()
    other_window.wait(timeout=10)
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and not app.host.gm.read_only
        assert app.host.act(campaign_changes.advance_day, "next day")
        holder = json.loads(session.path.with_name(f".{session.path.name}.owner").read_text())
        assert "horizon gm" in holder["who"]
    assert session.store.load(session.slug).campaign.day == 2


async def test_a_window_reopening_its_campaign_after_the_taker_quit_holds_it_again(session, catalogue):
    """By hand: window A's campaign was taken over by window B; B quit; in A, o and enter reopened
    it, the READ-ONLY banner went, and every change still said "Not saved … was taken over". A
    window either holds the lock and saves, or shows that it doesn't and offers to take it back."""
    from horizon_tui.ui.gm.screens.campaigns import CampaignsScreen

    first = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        second = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
        async with second.run_test(size=SIZE) as pilot2:
            await pilot2.pause()
            await pilot2.press("down", "enter")  # B takes it over
            await pilot2.pause()
            assert second.host.act(campaign_changes.advance_day, "B's day")
        # B has quit. A's next change is refused, and A says so and offers to take it back.
        assert not first.host.act(campaign_changes.advance_day, "A's day")
        await pilot.pause()
        assert first.host.gm.read_only and isinstance(first.screen, ChoiceDialog)
        assert "taken over" in first.screen.title_text
        await pilot.press("escape")  # stays read-only
        await pilot.pause()
        await pilot.press("o")
        assert isinstance(first.screen, CampaignsScreen)
        await pilot.press("enter")  # reopen it: B let go, so A holds it again
        await pilot.pause()
        assert isinstance(first.screen, DashboardScreen) and not first.host.gm.read_only
        assert first.host.gm.lock.holds() and first.campaign.day == 2  # with what B saved
        assert first.host.act(campaign_changes.advance_day, "A's day")
    assert session.store.load(session.slug).campaign.day == 3


async def test_a_window_whose_campaign_was_taken_over_can_take_it_back(session, catalogue):
    """Asked over whatever dialog refused the action (by hand: a roll in the dice dialog)."""
    first = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        other = SaveLock.acquire(session.path, "Ada's window", take_over=True)
        await pilot.press("r", "enter")  # a roll in the dice dialog: not saved
        await pilot.pause()
        assert isinstance(first.screen, ChoiceDialog) and "Ada's window" in first.screen.title_text
        await pilot.press("down", "enter")  # take it back
        await pilot.pause()
        assert not first.host.gm.read_only and first.host.act(campaign_changes.advance_day, "next day")
        assert not other.holds()
    assert session.store.load(session.slug).campaign.day == 2


async def test_taking_it_over_makes_the_other_window_read_only(session, catalogue):
    first = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not first.host.gm.read_only
        second = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
        async with second.run_test(size=SIZE) as pilot2:
            await pilot2.pause()
            assert isinstance(second.screen, ChoiceDialog)
            await pilot2.press("down", "enter")  # take it over
            await pilot2.pause()
            assert not second.host.gm.read_only and second.host.act(campaign_changes.advance_day, "next day")
        assert not first.host.act(campaign_changes.advance_day, "next day")  # LockLost: not saved
        assert first.host.gm.read_only
    assert session.store.load(session.slug).campaign.day == 2


def test_xp_awards_are_bounded_by_the_rules(session):
    """experience.award_max [H]: a 20-digit award is refused and nothing changes."""
    with pytest.raises(ValueError, match="award_max"):
        campaign_changes.award_xp(session.campaign, {"Brakka": 10**20})
    campaign = campaign_changes.award_xp(session.campaign, {"Brakka": 1_000_000})
    assert campaign.member("Brakka").character.xp == session.campaign.member("Brakka").character.xp + 1_000_000
    with pytest.raises(ValueError, match="at most ±50"):
        campaign_changes.award_xp(session.campaign, {"Brakka": 51}, limit=50)


def test_health_overrides_stay_within_0_and_max_and_revive_is_explicit(fought):
    battle = fought
    enemy = next(e for e in battle.active.values() if team(e) == "enemies")
    target = ident(enemy).id
    top = hp(enemy).max_hp
    assert isinstance(ov.SetHealth(target, -3)(battle), Impossible)
    assert isinstance(ov.SetHealth(target, top + 1)(battle), Impossible)
    assert not isinstance(ov.SetHealth(target, 0)(battle), Impossible)
    assert not is_active(enemy)
    refused = ov.SetHealth(target, 5)(battle)  # was: "success", still down
    assert isinstance(refused, Impossible) and "revive" in refused.reason
    cell = ov.revive_cell(battle, target)
    assert not isinstance(ov.Revive(target, 5, cell)(battle), Impossible)
    assert is_active(enemy) and hp(enemy).hp == 5 and battle.occupancy[cell] == target


@pytest.fixture
def fought(session, catalogue):
    from horizon_tui.campaign import battles

    campaign, battle_session = battles.start_battle(
        session.campaign, "goblin_ambush", ["Brakka", "Iriel"], catalogue, lambda overrides: catalogue.rules,
        _enemies(catalogue), seed=7)
    return battle_session.battle


def _enemies(catalogue):
    from horizon_tui.content.encounters import load_enemies

    return load_enemies(catalogue)
