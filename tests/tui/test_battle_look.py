"""Look on an enemy (Pilot): its description from the catalogue and a threat line — its level
against the player's character and the chance to win a duel with it, from the same simulation
(`tools.duel`), worked out in the background."""

from __future__ import annotations

from horizon_tui.engine.battle import ident
from horizon_tui.rules.numbers import percent_text
from horizon_tui.tools.duel import duel_odds, enemy_definition
from horizon_tui.ui.battle.threat import level_words

from .test_battle_keys import champion_in_sight


def test_the_level_gap_is_said_not_left_to_arithmetic():
    assert level_words(3, 2) == "level 3, yours 2 (1 above you)"
    assert level_words(1, 4) == "level 1, yours 4 (3 below you)"
    assert level_words(2, 2) == "level 2, the same as yours"


async def test_look_on_an_enemy_describes_it_and_says_the_duels_odds(saves, catalogue):
    async with champion_in_sight(saves, catalogue) as (pilot, app, screen):
        me = screen.me
        await pilot.press("semicolon")
        assert screen.mode == "look"
        for _ in range(6):  # tab visits everyone in sight: on to an enemy
            foe = screen.battle.at(screen.cursor)
            if foe is not None and foe is not me:
                break
            await pilot.press("tab")
        assert foe is not None and foe is not me
        assert "Threat: " in str(screen.query_one("#unit").render())  # the duel: asked in the background
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = " ".join(str(screen.query_one("#unit").render()).split())
        description = enemy_definition(screen.battle, foe).description
        assert description and " ".join(description.split()) in panel  # the catalogue's words
        assert level_words(ident(foe).level, ident(me).level) in panel
        duel = duel_odds(screen.battle, me, foe, app.catalogue)  # the same fixed seed: the same figure
        assert f"{ident(me).name} wins {percent_text(duel.win_rate)} (of {duel.runs})" in panel
        assert f"Duel with {ident(me).name} in a walled ring" in panel  # not this map: the encounter's odds differ
        assert len(screen.threats.asked) == 1  # one duel per character and kind of enemy
