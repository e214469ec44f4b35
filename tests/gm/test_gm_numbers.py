"""Numbers typed in the GM tool's forms go through the player app's guarded parse
(play.forms, content.guard): a typo, a fraction or a number of thousands of digits is refused with
a message that says what is allowed; nothing crashes and nothing is stored."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from horizon_tui.engine import mapgen
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.encounter import GMEncounterPickerScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.placement import map_spec
from horizon_tui.ui.gm.screens.tracker import whole_in
from horizon_tui.play.forms import parse_whole

HOSTILE = ["abc", "1.5", "1e999999999", "9" * 5000, "", "1/0", "--3", "0x10"]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_bounded_gm_field_refuses_bad_text_naming_its_bounds_briefly(text):
    with pytest.raises(ValueError) as refused:
        whole_in(text, 0, 40, "health")
    message = str(refused.value)
    assert message.startswith("health is a whole number 0…40, not ")
    assert len(message) < 100  # a pasted novel is not echoed back whole


def test_a_bounded_gm_field_reads_whole_numbers_and_holds_them_to_its_bounds():
    assert whole_in(" 12 ", 0, 40, "health") == 12
    assert whole_in("4e1", 0, 40, "health") == 40  # the same numbers as files allow
    with pytest.raises(ValueError, match="health is 0…40, not 41"):
        whole_in("41", 0, 40, "health")
    with pytest.raises(ValueError, match="the seed: .* out of range; allowed: .*seed in"):
        parse_whole("1" + "0" * 30, "the seed", "seed")  # data/limits.toml's seed: ±2^64


def test_a_generated_maps_size_and_seed_are_checked_like_a_files():
    generator = next(iter(mapgen.GENERATORS))
    assert map_spec({"map": generator, "width": "20", "height": "1.5e1", "seed": ""}) == {
        "generator": generator, "width": 20, "height": 15, "seed": 0}
    with pytest.raises(ValueError, match="the width: 'wide' is not a number"):
        map_spec({"map": generator, "width": "wide", "height": "12", "seed": "1"})
    with pytest.raises(ValueError, match="the height: .*digits"):
        map_spec({"map": generator, "width": "12", "height": "9" * 500, "seed": "1"})


@pytest.mark.parametrize("seed", ["abc", "1e999999999", "2.5"])
async def test_a_bad_seed_in_the_encounter_picker_is_refused_and_no_battle_starts(session, catalogue, seed):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("b")
        assert isinstance(app.screen, GMEncounterPickerScreen)
        app.screen.query_one("#gm-seed", Input).value = seed
        for key in ("ctrl+s", "p"):  # fight, and place on a map: each refused in words
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, GMEncounterPickerScreen)
            said = [n.message for n in app._notifications]
            assert len([m for m in said if m.startswith("the seed: ")]) == 1, said
        assert app._exception is None
        assert app.host.gm.campaign.battle is None


async def test_an_xp_award_of_a_thousand_digits_is_refused_and_nothing_is_awarded(session, catalogue):
    before = {m.name: m.character.xp for m in session.campaign.party}
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("x")
        assert isinstance(app.screen, ExperienceScreen)
        app.screen.query_one("#xp-amount", Input).value = "7" * 1000
        await pilot.pause()
        assert "the XP: " in str(app.screen.query_one("#xp-preview").render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app._exception is None
        assert any(n.message.startswith("the XP: ") for n in app._notifications)
        assert {m.name: m.character.xp for m in app.host.gm.campaign.party} == before


def test_over_ssh_a_typed_map_is_an_encounter_id_or_a_file_in_the_gms_own_folder(tmp_path, monkeypatch):
    # Found in review of the GM tool by hand: the Map field read any path, so a GM over SSH (the
    # host's user) could have /etc/passwd read and its problems shown.
    from horizon_tui.ui.gm.screens.placement import map_spec
    from horizon_tui.play.hosting import ENV_SESSION

    home = tmp_path / "gm-home"
    (home / "maps").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert map_spec({"map": "/etc/passwd"}) == {"encounter": "/etc/passwd"}  # played locally: any file
    monkeypatch.setenv(ENV_SESSION, str(tmp_path / "live.json"))
    assert map_spec({"map": "goblin_ambush"}) == {"encounter": "goblin_ambush"}  # a shipped id
    assert map_spec({"map": "maps/cave.toml"}) == {"encounter": str(home / "maps" / "cave.toml")}
    for outside in ("/etc/passwd", "../../etc/passwd", "~/../other/x.toml", "maps/../../x.toml"):
        with pytest.raises(ValueError, match="only files in your own folder") as refused:
            map_spec({"map": outside})
        assert str(tmp_path) not in str(refused.value)  # no server path in the words
