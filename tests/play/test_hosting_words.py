"""`who` and the watch list name a screen in words, never by its class (found by hand: the web
watch list said "BattleScreen")."""

from __future__ import annotations

from horizon_tui.play.hosting import screen_words


def test_a_screen_without_a_title_is_named_in_words():
    assert screen_words("BattleScreen") == "Battle"
    assert screen_words("MainMenuScreen") == "Main menu"
    assert screen_words("GMEncounterPickerScreen") == "GM encounter picker"
    assert screen_words("HallOfFameScreen") == "Hall of fame"
