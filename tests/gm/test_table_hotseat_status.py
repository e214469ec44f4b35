"""A table's notes (an undo, the GM hiding a combatant) come as toasts; they never cover the
status line, where every key's answer is read: a seat read "Attack · Skeleton Spearman · reach 45"
with "(enter confirm, …)" under two toasts, and pressed the wrong key."""

from __future__ import annotations

from textual.widgets._toast import Toast

from tests.gm.test_table_hotseat import SIZE, lantern_road_gm_app, open_at_one_keyboard, take_keyboard


async def test_toasts_at_the_table_leave_the_status_line_readable(session, catalogue, tmp_path, monkeypatch):
    app = lantern_road_gm_app(session, catalogue, tmp_path, monkeypatch)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_at_one_keyboard(pilot, app)
        await take_keyboard(pilot, app, screen)
        await pilot.pause()
        assert app.screen is screen
        note = "undid 1 step: the table's battle is as it was before the last input, on every screen"
        for n in range(3):  # notes as an undo and the GM's changes leave them (`_table_changed`)
            screen.notify(f"{note} ({n})", timeout=30, markup=False)
        await pilot.pause(0.2)
        toasts = list(screen.query(Toast))
        assert len(toasts) >= 3
        status = screen.query_one("#status").region
        for toast in toasts:
            assert not toast.region.overlaps(status), (toast.region, status)
