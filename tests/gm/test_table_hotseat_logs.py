"""At one keyboard, each seat's log is the one it saw live (`engine.readmodel.Journal`): taking the
keyboard back after other seats played, the GM moved and then hid an enemy, and an undo, a
player reads the lines as they were narrated to them then — never narrated again with what they
see now ("GM: move on Grukk." stays; no later line names the hidden enemy, but the one saying
that it went out of her sight)."""

from __future__ import annotations

from horizon_tui.engine.battle import ident, pos, team
from horizon_tui.ui.battle.table_screen import HandOver
from tests.gm.test_table_hotseat import SIZE, lantern_road_gm_app, open_at_one_keyboard
from tests.gm.battle_parts import at_table


async def seat_takes_keyboard(pilot, app, screen, seat: str) -> None:
    if isinstance(app.screen, HandOver) and app.screen.seat != seat:  # whose turn it is, first
        await pilot.press("enter")
        await pilot.pause()
    if at_table(screen).client.seat != seat:
        at_table(screen)._hand_over(seat)  # noqa: SLF001 - the curtain ctrl+g raises, for a given seat
        await pilot.pause()
    if isinstance(app.screen, HandOver):
        await pilot.press("enter")
        await pilot.pause()
    assert at_table(screen).client.seat == seat and not isinstance(app.screen, HandOver)


def pane_text(screen) -> str:
    return "\n".join("".join(segment.text for segment in strip) for strip in screen.query_one("#log").lines)


async def test_a_seats_log_after_a_hand_over_and_an_undo_is_the_log_it_saw_live(session, catalogue, tmp_path,
                                                                              monkeypatch):
    app = lantern_road_gm_app(session, catalogue, tmp_path, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_at_one_keyboard(pilot, app)
        battle = screen.battle
        enemy = next(e for e in battle.combatants() if team(e) == "enemies")
        name, iriel = ident(enemy).name, battle["iriel"]
        field = battle.battlefield
        x, y = pos(iriel)
        beside = next((x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                      if field.in_bounds((x + dx, y + dy)) and field.is_walkable((x + dx, y + dy))
                      and (x + dx, y + dy) not in battle.occupancy)

        await seat_takes_keyboard(pilot, app, screen, "mira")
        at_table(screen).client.override({"type": "Teleport", "target": ident(enemy).id, "to": list(beside), "reason": ""})
        await pilot.pause()
        await seat_takes_keyboard(pilot, app, screen, "alice")
        live = screen.log_lines()
        assert f"GM: move on {name}." in live  # beside Iriel: she sees it
        assert f"GM: move on {name}." in pane_text(screen)

        await seat_takes_keyboard(pilot, app, screen, "mira")
        at_table(screen).client.override({"type": "AddEffect", "target": ident(enemy).id, "effect": "hidden",
                                "duration": 3, "reason": ""})
        at_table(screen).client.override({"type": "Damage", "targets": ["iriel"], "amount": 1, "reason": ""})
        await pilot.pause()
        await seat_takes_keyboard(pilot, app, screen, "mira")  # each change raises the curtain for whose turn it is
        await pilot.press("ctrl+z")  # the GM undoes the last input (the damage); the enemy stays hidden
        await pilot.pause()
        await seat_takes_keyboard(pilot, app, screen, "bob")
        await seat_takes_keyboard(pilot, app, screen, "alice")
        assert screen.known().unit(ident(enemy).id) is None  # hidden from her now
        after = screen.log_lines()
        assert after[:len(live)] == live  # as she saw it live, not narrated again
        assert any(line.startswith("— ") and "table log" in line for line in after[len(live):])  # the undo
        gone = [line for line in after[len(live):] if name in line]
        assert gone == [f"{name} moves out of sight."]  # only that it went: nothing since names it
        assert f"GM: move on {name}." in pane_text(screen)

        # While the hidden enemy acts, her status line names neither it nor who plays it.
        turn = screen.battle.index
        screen.battle.index = screen.battle.order.index(ident(enemy).id)
        status = screen.status_text().plain  # noqa: SLF001 - the status line's words, as drawn
        screen.battle.index = turn
        assert name not in status and "mira" not in status.split("]", 1)[1] and "is acting" in status, status
