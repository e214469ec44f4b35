"""R-10 fear at the keys (Pilot): an afraid player's step away from the nearest edge is refused
with the engine's words on the status line, and so is an attack; a step towards it is taken."""

from __future__ import annotations

from fractions import Fraction

from horizon_tui.engine.actions import edge_distances
from horizon_tui.engine.battle import pos
from horizon_tui.engine.effects import apply_effect
from horizon_tui.ui.player.app import create_app

from .conftest import write
from .test_battle_flow import CHAMPION, _open_battle

ARROWS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


async def test_r10_an_afraid_player_is_told_why_a_step_away_from_the_edge_is_refused(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_battle(pilot, app, path, "goblin_ambush.toml")
        for _ in range(30):
            if screen.me is not None:
                break
            await pilot.press("x")
        battle, me = screen.battle, screen.me
        apply_effect(battle, me, "fear", duration=3, magnitude=Fraction(0), source=me)
        far, field = edge_distances(battle, me), battle.battlefield
        x, y = pos(me)
        free = {key: (x + dx, y + dy) for key, (dx, dy) in ARROWS.items()
                if field.is_walkable((x + dx, y + dy)) and (x + dx, y + dy) not in battle.occupancy}
        away = [key for key, (cx, cy) in free.items() if far[cy, cx] > far[y, x]]
        toward = [key for key, (cx, cy) in free.items() if far[cy, cx] < far[y, x]]
        assert away and toward, "the champion's start should have a step each way"
        await pilot.press(away[0])
        await pilot.pause()
        status = str(screen.query_one("#status").render())
        assert status.startswith("Champion is afraid and can only flee towards the nearest edge (")
        assert pos(me) == (x, y)
        await pilot.press("a")
        await pilot.pause()
        assert "afraid: it can only flee towards the nearest edge, hide or wait" in str(
            screen.query_one("#status").render())
        await pilot.press(toward[0])
        await pilot.pause()
        assert pos(me) == free[toward[0]]
